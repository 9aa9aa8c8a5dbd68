"""An outside agent for the fuzz: plays at random, and answers a share of requests (the hello too, now
and then) with a hostile variation from mutations.py instead.  Each variation sent is logged, one line
per case, to the file given (one file per agent: no two writers share a file).

    fuzz_agent.py --seed N --rate 0.4 --log FILE
"""

from __future__ import annotations

import argparse
import json
import random
import sys

from mutations import mutated_lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rate", type=float, default=0.4)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = sys.stdout.buffer
    with open(args.log, "a", encoding="utf-8") as log:
        for line in sys.stdin:
            msg = json.loads(line)
            kind = msg["type"]
            if kind == "game_over":
                continue
            if kind == "hello":
                answer: dict = {"type": "ready", "name": f"fuzz (seed {args.seed})"}
                rate = args.rate / 8  # a broken hello ends the seat's part: rarely
            elif kind == "choose_partner":
                answer, rate = {"id": msg["id"], "partner": rng.choice(msg["legal_partners"])}, args.rate
            elif kind == "make_offer":
                answer, rate = {"id": msg["id"], "offer": rng.choice(msg["legal_offers"] or [[]])}, args.rate
            else:
                answer, rate = {"id": msg["id"], "accept": rng.random() < 0.5}, args.rate
            if rng.random() < rate:
                case, lines = mutated_lines(answer, rng)
                log.write(f"{kind} {case}\n")
                log.flush()
            else:
                lines = [json.dumps(answer).encode()]
            for raw in lines:
                out.write(raw + b"\n")
            out.flush()


if __name__ == "__main__":
    main()
