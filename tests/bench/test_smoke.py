"""Every benchmark script runs, at tiny sizes, and prints its figures: a benchmark that stopped working
would otherwise go unnoticed until someone needs its numbers (bench_serve.py did, once the matrix listed
actions and its scripted keys no longer reached the cell they meant)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow

RUNS = {
    "bench_games.py": (["--quick", "--simultaneous"], ["Large games", "states/s", "paper      myopic",
                                                       "anticipate:lower", "searches ratio"]),
    "bench_games.py long": (["--long", "20,40"], ["Long games", "ms/turn"]),
    "bench_games.py private": (["--quick", "--information", "private"], ["private information", "reference  lower"]),
    "bench_learned.py": (["--seeds", "1"], ["Lens bots, CPU seconds per game", "learned / upper ratio",
                                          "a search alone"]),
    "bench_exact.py": (["--seeds", "1"], ["Exact solves", "paper          1", "reference      1"]),
    "bench_welfare.py": (["--seeds", "1"], ["utilitarian", "nash"]),
    "bench_app.py": (["--starts", "1", "--presses", "2", "--scenarios", "poison-pill", "--dialogs", "2"],
                     ["poison-pill", "full screen", "App start to first drawn play screen",
                      "during autoplay (22 players, no delay) n=2", "A dialog's open and close", "n=2",
                      "partner dialog closed and reopened", "Help opened and closed"]),
    "bench_sweep.py": (["--cells", "1", "--workers", "1"], ["paper-small      1 games", "full grid"]),
    "bench_report.py": (["--cells", "2", "--runs", "1"], ["negtui report of 10 rows", "s CPU (n=1 runs)"]),
    "bench_serve.py": (["--sessions", "2", "--ramp", "0.2", "--think", "0"], ["sessions completed     2/2",
                                                                              "nothing lost"]),
    "bench_class.py private": (["--tables", "1", "--people", "2", "--think", "0.3", "--ramp", "0", "--information",
                                "private", "--game-time", "4"],
                               ["private information, 4 s a round", "saw the end            2/2", "ended by clock 1",
                                "nothing lost"]),
    "bench_class.py": (["--tables", "1", "--people", "2", "--think", "0", "--ramp", "0"],
                       ["trainees completed     2/2", "messages kept 2 of 2 sent", "nothing lost"]),
    "bench_class.py web": (["--tables", "1", "--people", "2", "--think", "0", "--ramp", "0", "--web", "1"],
                           ["trainees completed     2/2", "ssh trainees   1", "web trainees   1",
                            "a web trainee's app costs", "messages kept 2 of 2 sent", "nothing lost"]),
}


@pytest.mark.parametrize("script", sorted(RUNS))
def test_a_benchmark_runs_at_tiny_sizes(script: str) -> None:
    args, expected = RUNS[script]
    res = subprocess.run([sys.executable, str(ROOT / "bench" / script.split()[0]), *args], capture_output=True,
                         text=True, timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    for text in expected:
        assert text in res.stdout, f"{text!r} not in the output of {script}:\n{res.stdout}"
    assert "Traceback" not in res.stderr


def test_every_benchmark_has_a_smoke_run() -> None:
    assert sorted(p.name for p in (ROOT / "bench").glob("bench_*.py")) == sorted({run.split()[0] for run in RUNS})
