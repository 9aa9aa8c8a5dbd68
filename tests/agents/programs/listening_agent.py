"""An outside agent for the tests that keeps every line negtui sends it (in the file named by its
argument) and plays the dullest legal game: the first partner, an empty offer, every offer rejected.

    listening_agent.py OUT
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    with open(sys.argv[1], "a", encoding="utf-8") as out:
        for line in sys.stdin:
            out.write(line)
            out.flush()
            msg = json.loads(line)
            kind = msg["type"]
            if kind == "hello":
                answer: dict = {"type": "ready", "name": "listening"}
            elif kind == "choose_partner":
                answer = {"id": msg["id"], "partner": msg["legal_partners"][0]}
            elif kind == "make_offer":
                answer = {"id": msg["id"], "offer": []}
            elif kind == "respond":
                answer = {"id": msg["id"], "accept": False}
            else:  # game_over
                continue
            print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
