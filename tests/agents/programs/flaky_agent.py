"""An outside agent for the tests: plays like examples/agents/random_agent.py until a chosen turn, then
misbehaves in a chosen way.

    flaky_agent.py MODE TURN [--seed N]

MODE: crash (exits with status 3), hang (never answers again), late (answers the first request from that
turn after a delay, then plays on), illegal (offers a commitment of a third player), unknown (names a commitment
the game does not have), garbage (answers with text that is not JSON), bad-hello (answers the hello
wrongly), silent-hello (never answers the hello).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode")
    parser.add_argument("turn", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--delay", type=float, default=2.0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    late_done = False
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            if args.mode == "bad-hello":
                print(json.dumps({"type": "hi"}), flush=True)
            elif args.mode == "silent-hello":
                time.sleep(3600)
            else:
                print(json.dumps({"type": "ready", "name": f"flaky {args.mode}"}), flush=True)
            continue
        if kind == "game_over":
            continue
        if msg["turn"] >= args.turn:
            if args.mode == "crash":
                print("flaky agent: crashing on purpose", file=sys.stderr, flush=True)
                sys.exit(3)
            if args.mode == "hang":
                time.sleep(3600)
            if args.mode == "garbage":
                print("I think I will offer the bait", flush=True)
                continue
            if args.mode == "late" and not late_done:
                late_done = True
                time.sleep(args.delay)
        answer: dict = {"id": msg["id"]}
        if kind == "choose_partner":
            answer["partner"] = rng.choice(msg["legal_partners"])
        elif kind == "make_offer":
            offers = [o for o in msg["legal_offers"] if o] or [[]]
            answer["offer"] = rng.choice(offers)
            if msg["turn"] >= args.turn and args.mode == "illegal":
                obs = msg["observation"]
                me, partner = obs["you"], msg["partner"]
                other = next(p for p in obs["players"] if p["id"] not in (me, partner))
                answer["offer"] = [[other["id"], other["actions"][0]["id"]]]
            if msg["turn"] >= args.turn and args.mode == "unknown":
                answer["offer"] = [[msg["observation"]["you"], "no-such-action"]]
        else:
            answer["accept"] = rng.random() < 0.5
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
