"""Seconds per welfare solve (utilitarian and Nash) on the paper's large games and a 22 × 45 game.

    .venv/bin/python bench/bench_welfare.py [--seeds 5] [--solver highs|cbc]
"""

from __future__ import annotations

import argparse
import statistics

from negtui.engine import PAPER, compile_game
from negtui.generator import GeneratorParams, generate
from negtui.welfare import WelfareOptions, solve_welfare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--solver", default="highs")
    args = ap.parse_args()
    sizes = {
        "large 10x5, 15 goals": dict(players=10, actions=5, goals=15, factors=5, structure="adversarial",
                                     payoff="balanced", all_or_nothing=0.3),
        "22x8, 45 goals": dict(players=22, actions=8, goals=45, factors=5, structure="cooperative",
                               payoff="positive", all_or_nothing=0.1),
    }
    print(f"Welfare solves ({args.solver}), seconds per solve over {args.seeds} seeds")
    print(f"  {'game':<22} {'objective':<12} {'median s':>9} {'max s':>8} {'proven':>7} {'solves':>7}")
    for label, params in sizes.items():
        games = [compile_game(generate(GeneratorParams(**params, zipf=1.6, rounds=5, seed=s)), PAPER)
                 for s in range(args.seeds)]
        for objective in ("utilitarian", "nash"):
            secs, proven, solves = [], 0, 0
            for g in games:
                r = solve_welfare(g, PAPER, 0, WelfareOptions(objective=objective, solver=args.solver, time_limit=120))
                secs.append(r.seconds)
                proven += r.proven_optimal
                solves += r.solves
            print(f"  {label:<22} {objective:<12} {statistics.median(secs):>9.3f} {max(secs):>8.3f} "
                  f"{proven:>3}/{len(games):<3} {solves / len(games):>7.1f}")


if __name__ == "__main__":
    main()
