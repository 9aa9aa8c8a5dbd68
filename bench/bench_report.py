"""`negtui report`'s cost: CPU seconds to read a results file, check it and write report.md, claims.json and
the figures, as mean ± sd over `--runs` runs in fresh processes (a run's first imports are part of its cost).

    .venv/bin/python bench/bench_report.py [--results FILE] [--runs 3] [--cells N]

Without `--results`, the first `--cells` regime cells of the paper-small preset are swept (one seed each,
exact solutions included) into a temporary file and reported.  A paper-scale file (tens of thousands of
rows) is what the figure is for: give one with `--results`.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ONE_REPORT = """
import sys
from negtui.cli import app
try:
    app(["report", sys.argv[1], "-o", sys.argv[2]])
except SystemExit as done:
    if done.code:
        raise
"""


def _tiny_results(folder: Path, cells: int) -> Path:
    from negtui.sweep.results import Results
    from negtui.sweep.runner import Progress, run_sweep
    from negtui.sweep.spec import presets
    from negtui.sweep.tasks import tasks

    spec = presets()["paper-small"].model_copy(update={"seeds": 1, "rules": ["paper"]})
    todo = tasks(spec)[:cells]
    path = folder / "results.parquet"
    results = Results(path)
    try:
        run_sweep(spec, todo, results, workers=1, progress=Progress(len(todo), 0))
    finally:
        results.close()
    return path


def _cpu_of_one(results: Path, out: Path) -> float:
    """CPU seconds (user + system) of one `negtui report` in a process of its own."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", ONE_REPORT, str(results), str(out)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", type=Path, default=None, help="a results file written by negtui sweep")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cells", type=int, default=8, help="without --results: regime cells of the tiny sweep")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = args.results or _tiny_results(Path(tmp), args.cells)
        import pyarrow.parquet as pq

        rows = pq.ParquetFile(results).metadata.num_rows if results.suffix == ".parquet" else None
        cpu = [_cpu_of_one(results, Path(tmp) / f"report-{k}") for k in range(args.runs)]
    spread = f" ± {statistics.stdev(cpu):.2f}" if len(cpu) > 1 else ""
    size = f"{rows:,} rows" if rows is not None else results.name
    print(f"negtui report of {size}: {statistics.fmean(cpu):.2f}{spread} s CPU (n={len(cpu)} runs)")


if __name__ == "__main__":
    main()
