"""Seconds per exact solve, states per second and the turns actually solved, on the paper's small games
(a turn whose values repeat those a schedule period later is shared, not solved).

    .venv/bin/python bench/bench_exact.py [--seeds 5]

Small games: 10 players × 1 action, 15 goals, 5 rounds (50 turns, 51 × 2^10 states), budget 2;
`reference` solves with all goals linear, as the reference's main.py does.
"""

from __future__ import annotations

import argparse
import statistics
import time

from negtui.engine import PAPER, REFERENCE, compile_game, solve
from negtui.generator import GeneratorParams, generate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    print("Exact solves: 10 players x 1 action, 15 goals, 50 turns, budget 2")
    print(f"  {'rules':<10} {'games':>5} {'median s/solve':>15} {'max s/solve':>12} {'states/s':>12} "
          f"{'turns solved':>13}")
    for rules in (PAPER, REFERENCE):
        secs, states, solved, turns = [], 0, 0, 0
        for seed in range(args.seeds):
            sc = generate(GeneratorParams(players=10, actions=1, goals=15, factors=5, all_or_nothing=0.3, zipf=1.6,
                                          rounds=5, budget=2, seed=seed, rules=rules.name))
            game = compile_game(sc, rules)
            t0 = time.perf_counter()
            sol = solve(game, rules, linearise=rules.exact_linearised)
            secs.append(time.perf_counter() - t0)
            states += sol.states
            solved += len({id(v) for v in sol.V[:-1]})
            turns += game.T
        print(f"  {rules.name:<10} {len(secs):>5} {statistics.median(secs):>15.3f} {max(secs):>12.3f} "
              f"{states / sum(secs):>12,.0f} {solved / turns:>13.0%}")


if __name__ == "__main__":
    main()
