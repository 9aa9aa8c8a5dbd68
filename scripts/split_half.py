#!/usr/bin/env python3
"""Are the report's intervals as wide as they should be?  Split the seeds in halves and see.

    python scripts/split_half.py small.parquet                 # 20 random splits, every section
    python scripts/split_half.py small.parquet --splits 50 --json calibration.json

For each (sweep, rule set) of a results file, the seeds are split at random into two halves of equal size;
every comparison of every claim `negtui report` judges is measured on each half alone, and the two halves'
estimates d₁, d₂ are compared with the standard errors the report gives them:

    z = (d₁ − d₂) / √(se₁² + se₂²)

The halves are independent draws of the same study, so if the standard errors are right z has variance 1:
the mean z² over comparisons is near 1 (a little above with few seeds a half, as Student's t is).  Far above
1, the intervals are too narrow (games counted as independent that are not); far below, too wide.  The
figure is averaged over `--splits` random splits, and its spread over them is given with it.

Comparisons a half cannot measure (no interval, no spread: two methods that played alike) are left out
and counted.  Exit status 0 when every section was measured, 2 for a file that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

import numpy as np


def comparisons(rows: list[dict]) -> dict[tuple[str, str, str], tuple[float, float]]:
    """(claim, part, comparison) -> (estimate, standard error) for every comparison the report judges."""
    from negtui.sweep.claims import claims

    out = {}
    for c in claims(rows):
        for p in c.parts:
            for x in p.comparisons:
                out[(c.id, p.label, x.what)] = (x.effect.estimate, x.effect.se)
    return out


def split_z(rows: list[dict], rng: np.random.Generator) -> tuple[list[float], int]:
    """One random split of the seeds: the z of every comparison both halves measured, and how many they
    did not."""
    seeds = sorted({r["seed"] for r in rows if r.get("seed") is not None})
    order = rng.permutation(len(seeds))
    first = {seeds[i] for i in order[: len(seeds) // 2]}
    second = {seeds[i] for i in order[len(seeds) // 2: 2 * (len(seeds) // 2)]}
    a = comparisons([r for r in rows if r.get("seed") in first])
    b = comparisons([r for r in rows if r.get("seed") in second])
    zs, left = [], 0
    for key in a.keys() & b.keys():
        (d1, s1), (d2, s2) = a[key], b[key]
        spread = math.hypot(s1, s2)
        if not all(math.isfinite(v) for v in (d1, d2, spread)) or spread == 0:
            left += 1
            continue
        zs.append((d1 - d2) / spread)
    return zs, left + len(a.keys() ^ b.keys())


def calibrate(rows: list[dict], splits: int, seed: int, say=print) -> dict[str, object]:
    """Mean z² per split and over them, for one section's rows."""
    rng = np.random.default_rng(seed)
    per_split, counted, left = [], 0, 0
    for k in range(splits):
        zs, skipped = split_z(rows, rng)
        if zs:
            per_split.append(float(np.mean(np.square(zs))))
        counted, left = len(zs), skipped
        say(f"  split {k + 1}/{splits}: mean z² {per_split[-1]:.2f} over {len(zs)} comparisons" if zs
            else f"  split {k + 1}/{splits}: no comparison measured on both halves")
    seeds = len({r["seed"] for r in rows if r.get("seed") is not None})
    return {"seeds": seeds, "seeds_per_half": seeds // 2, "splits": len(per_split), "comparisons": counted,
            "left_out": left, "mean_z2": statistics.fmean(per_split) if per_split else None,
            "sd_over_splits": statistics.stdev(per_split) if len(per_split) > 1 else None, "per_split": per_split}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a results table written by negtui sweep (.parquet or .csv)")
    parser.add_argument("--splits", type=int, default=20, help="random splits of the seeds (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random splits (default 0)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    if not 1 <= args.splits <= 1000:
        print("error: --splits is between 1 and 1000", file=sys.stderr)
        return 2

    from negtui.sweep.checks import MAX_REPORT_ROWS, BadResults, check_results
    from negtui.sweep.report import groups
    from negtui.sweep.results import ResultsError, read_table

    try:
        table = read_table(args.results, max_rows=MAX_REPORT_ROWS)
        check_results(table, args.results)
    except (ResultsError, BadResults) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    found: dict[str, object] = {}
    for (sweep, rules), rows in groups(table.to_pylist()).items():
        rows = [r for r in rows if r.get("information") in (None, "public")]  # what the claims are judged on
        seeds = len({r["seed"] for r in rows if r.get("seed") is not None})
        name = f"{sweep} · {rules}"
        if seeds < 4 or any(r.get("scenario_file") for r in rows):
            print(f"{name}: {seeds} seeds; a split needs at least 4 generated seeds", file=sys.stderr)
            continue
        print(f"{name}: {seeds} seeds, {args.splits} random splits into halves of {seeds // 2}", file=sys.stderr)
        found[name] = result = calibrate(rows, args.splits, args.seed, lambda s: print(s, file=sys.stderr))
        if result["mean_z2"] is None:
            print(f"{name}: no comparison measured on both halves")
            continue
        sd = result["sd_over_splits"]
        print(f"{name}: mean z² {result['mean_z2']:.2f}" + (f" (sd {sd:.2f} over {result['splits']} splits)" if sd
                                                            is not None else "")
              + f", {result['comparisons']} comparisons, {result['left_out']} left out, "
                f"halves of {result['seeds_per_half']} seeds")
    if args.json:
        args.json.write_text(json.dumps({"results": str(args.results), "splits": args.splits, "seed": args.seed,
                                         "sections": found}, indent=1) + "\n")
    return 0 if found else 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
