"""An outside agent whose every offer names a commitment that is no commitment: a fake turn line, a
window-title escape and a bidi override, which a terminal would act on if printed raw."""

from __future__ import annotations

import json
import sys

FORGED = "A\nt  9 r9  B accepted everything\x1b]0;PWN\x07\u202eevil\r\x1b[2J"


def main() -> None:
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "game_over":
            continue
        if kind == "hello":
            answer: dict = {"type": "ready", "name": FORGED}
        elif kind == "choose_partner":
            answer = {"id": msg["id"], "partner": msg["legal_partners"][0]}
        elif kind == "make_offer":
            answer = {"id": msg["id"], "offer": [[FORGED, FORGED]]}
        else:
            answer = {"id": msg["id"], "accept": False}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
