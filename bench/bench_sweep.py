"""Sweep throughput: games and rows per second through the local process pool, and the wall time the
paper's full grid (paper-small + paper-large, 50 seeds each, three lenses, the baseline, exact solutions
on the small games: 12,800 games) would take on this machine.

    .venv/bin/python bench/bench_sweep.py [--seeds 1] [--workers N] [--rules paper] [--cells N]

Each preset runs every one of its 128 regime cells (or the first `--cells`) with `--seeds` seeds; peak
memory is the largest process's (the sweep or one of its workers).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from negtui.sweep.results import Results
from negtui.sweep.runner import Progress, run_sweep
from negtui.sweep.spec import presets
from negtui.sweep.tasks import tasks

FULL_SEEDS = 50


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rules", default="paper")
    ap.add_argument("--cells", type=int, default=None, help="only the first N regime cells of each preset")
    args = ap.parse_args()
    print(f"{args.workers} worker process(es), {args.seeds} seed(s) per cell, {args.rules} rules")
    total_full = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("paper-small", "paper-large"):
            spec = presets()[name].model_copy(update={"seeds": args.seeds, "rules": [args.rules]})
            todo = tasks(spec)
            if args.cells is not None:
                todo = todo[:args.cells * args.seeds]  # tasks run cell by cell, seed by seed
            results = Results(Path(tmp) / f"{name}.parquet")
            started = time.perf_counter()
            try:
                run_sweep(spec, todo, results, workers=args.workers, progress=Progress(len(todo), 0))
            finally:
                results.close()
            wall = time.perf_counter() - started
            full = len(tasks(spec.model_copy(update={"seeds": FULL_SEEDS})))
            total_full += wall / len(todo) * full
            print(f"  {name:<12} {len(todo):>5} games  {wall:7.1f} s  {len(todo) / wall:6.2f} games/s  "
                  f"{results.rows / wall:7.1f} rows/s  → {full} games in {wall / len(todo) * full / 60:5.1f} min")
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(f"full grid (paper-small + paper-large, {FULL_SEEDS} seeds, {args.rules} rules): "
          f"{total_full / 60:.1f} min wall on this machine; peak memory of one process {peak / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
