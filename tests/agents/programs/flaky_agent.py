"""An outside agent for the tests: plays like examples/agents/random_agent.py until a chosen turn, then
misbehaves in a chosen way.

    flaky_agent.py MODE TURN [--seed N]

MODE: crash (exits with status 3), hang (never answers again), late (answers the first request from that
turn after a delay, then plays on), illegal (offers a commitment of a third player), unknown (names a commitment
the game does not have), garbage (answers with text that is not JSON), bad-hello (answers the hello
wrongly), silent-hello (never answers the hello), deep (answers with JSON nested 100,000 deep), bigint
(answers with an integer of 5,000 digits), closed (closes its stdout and stays alive), endless (writes
without end and without a newline), noisy (writes 2 MB of terminal escapes to stderr without a newline,
then plays on), forker (leaves a child of its own behind, then plays on), daemon (leaves behind a grandchild
that has left its process group and session with setsid(), then plays on).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
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
            if args.mode == "deep":
                print("[" * 100_000 + "]" * 100_000, flush=True)
                continue
            if args.mode == "bigint":
                print('{"id": ' + "9" * 5000 + "}", flush=True)
                continue
            if args.mode == "closed":
                sys.stdout.close()
                os.close(1)
                time.sleep(3600)
            if args.mode == "endless":
                chunk = "x" * 65536
                while True:
                    sys.stdout.write(chunk)
            if args.mode == "noisy" and not late_done:
                late_done = True
                sys.stderr.write("\x1b]0;owned\x07\x1b[2J" * 100_000)
                sys.stderr.flush()
            if args.mode == "forker" and not late_done:
                late_done = True
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)  # flaky_agent child"])
            if args.mode == "daemon" and not late_done:
                late_done = True
                if os.fork() == 0:  # the child starts a session of its own, forks and goes: an orphan
                    os.setsid()
                    if os.fork() == 0:
                        os.execv(sys.executable, [sys.executable, "-c",
                                                  "import time; time.sleep(3600)  # flaky_agent daemon"])
                    os._exit(0)
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
