"""A negtui outside agent that decides at random, with nothing but the standard library.

    negtui autoplay scenarios/teaching/poison-pill.json --seat A=cmd:"python examples/agents/random_agent.py --seed 1"

It speaks the negtui-agent/1 protocol (README, "Writing an agent"): one JSON object per line on stdin,
one answer per request on stdout; anything for people goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import random
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--accept", type=float, default=0.5, help="probability of accepting an offer")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            answer = {"type": "ready", "name": f"random (seed {args.seed})"}
            print(f"playing {msg['seat']} in {msg['scenario']['name']}", file=sys.stderr)
        elif kind == "choose_partner":
            answer = {"id": msg["id"], "partner": rng.choice(msg["legal_partners"])}
        elif kind == "make_offer":
            offers = msg["legal_offers"] or [[]]  # too many to list: pass
            answer = {"id": msg["id"], "offer": rng.choice(offers)}
        elif kind == "respond":
            answer = {"id": msg["id"], "accept": rng.random() < args.accept}
        elif kind == "game_over":
            print(f"game over: {msg['payoffs'][msg['observation']['you']]:g} for me", file=sys.stderr)
            continue
        else:  # observe (a simultaneous turn's outcomes), or anything newer: no answer
            continue
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
