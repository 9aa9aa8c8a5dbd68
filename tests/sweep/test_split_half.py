"""scripts/split_half.py, the intervals' calibration check, run as its users run it: on a small results file
it splits the seeds, measures every claim's comparisons on each half and reports the mean z²; a file that is
not results is refused with its name and status 2."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from negtui.sweep.results import SCHEMA
from tests.paths import SCRIPTS
from tests.sweep.test_claims import small_rows
from tests.sweep.tiny import TINY_GAMES


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPTS / "split_half.py"), *map(str, args)], capture_output=True,
                          text=True, timeout=120)


def test_the_split_half_script_reports_mean_z_squared(tmp_path):
    rows = small_rows(seeds=8, noise=1.0)
    full = [{f.name: r.get(f.name) for f in SCHEMA} | {"sweep": "small", "scenario": "s", "negtui": "0",
                                                         "players": 2, "sum": 0.0, "baseline_sum": 0.0}
            for r in rows]
    path = tmp_path / "small.parquet"
    pq.write_table(pa.Table.from_pylist(full, schema=SCHEMA), path)
    res = run(path, "--splits", 2, "--json", tmp_path / "z.json")
    assert res.returncode == 0, res.stderr
    assert "small · paper: mean z² " in res.stdout and "halves of 4 seeds" in res.stdout
    assert "split 2/2" in res.stderr  # progress
    found = json.loads((tmp_path / "z.json").read_text())["sections"]["small · paper"]
    assert found["splits"] == 2 and found["seeds_per_half"] == 4 and found["comparisons"] > 20
    assert math.isfinite(found["mean_z2"]) and len(found["per_split"]) == 2


def test_a_file_that_is_not_results_is_refused_by_name(tmp_path):
    bad = tmp_path / "notes.csv"
    bad.write_text("a,b\n1,2\n")
    res = run(bad)
    assert res.returncode == 2 and str(bad) in res.stderr and "Traceback" not in res.stderr


def results_file(path, seeds: range):
    rows = [r | {"seed": r["seed"] + seeds.start, "task": f"{r['task']}@{seeds.start}"}
            for r in small_rows(seeds=len(seeds), noise=0.2)]
    full = [{f.name: r.get(f.name) for f in SCHEMA} | {"sweep": "small", "scenario": "s", "negtui": "0",
                                                         "players": 2, "sum": 0.0, "baseline_sum": 0.0}
            for r in rows]
    pq.write_table(pa.Table.from_pylist(full, schema=SCHEMA), path)
    return path


def test_the_replication_script_sets_two_seed_ranges_side_by_side(tmp_path):
    first = results_file(tmp_path / "a.parquet", range(0, 6))
    second = results_file(tmp_path / "b.parquet", range(100, 106))
    res = subprocess.run([sys.executable, str(SCRIPTS / "replication.py"), str(first), str(second), "--json",
                          str(tmp_path / "r.json")], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "**small · paper rules**: seeds 0–5 (6) against seeds 100–105 (6)" in res.stdout
    assert "| Upper's advantage is largest with the poison pill | holds: +" in res.stdout
    found = json.loads((tmp_path / "r.json").read_text())
    assert found["claims"] == 9 and found["same"] == 9  # the same games' shape on both ranges
    overlap = results_file(tmp_path / "c.parquet", range(3, 9))
    res = subprocess.run([sys.executable, str(SCRIPTS / "replication.py"), str(first), str(overlap)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "share seeds (3, e.g. 3)" in res.stderr


SIMULTANEOUS = """
name = "tiny-sim"
seeds = 3
rules = ["paper", "paper+simultaneous"]
methods = ["myopic", "upper"]
partner = "greedy"

[grid]
""" + TINY_GAMES.replace("players = [4]", "players = [6]") + """structure = ["adversarial"]
all_or_nothing = [0.0]
payoff = ["balanced", "positive"]
"""


def test_the_replication_script_sets_the_protocols_changes_side_by_side(cli, tmp_path):
    """A sweep played one proposer a turn and several at once: each change between the protocols, and each
    regime's best methods, are given on both seed ranges."""
    spec = tmp_path / "sim.toml"
    spec.write_text(SIMULTANEOUS)
    for start in (0, 100):
        cli("sweep", str(spec), "--seed-start", str(start), "-o", str(tmp_path / f"sim-{start}.parquet"),
            "--workers", "1")
    res = subprocess.run([sys.executable, str(SCRIPTS / "replication.py"), str(tmp_path / "sim-0.parquet"),
                          str(tmp_path / "sim-100.parquet"), "--json", str(tmp_path / "r.json")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "**tiny-sim: paper against paper+simultaneous** (simultaneous − sequential, paired game by game): " \
           "seeds 0–2 (3) against seeds 100–102 (3)" in res.stdout
    assert "| balanced | upper | improvement | " in res.stdout and "| positive | myopic | regret | " in res.stdout
    assert "changes between one proposer a turn and several at once read the same on both" in res.stdout
    assert "| regime | paper, seeds 0–2 (3) | paper, seeds 100–102 (3) | paper+simultaneous, seeds 0–2 (3) |" \
           in res.stdout
    found = [f for f in json.loads((tmp_path / "r.json").read_text())["found"] if f.get("metric")]
    assert {(f["regime"], f["method"], f["metric"]) for f in found} == {
        (g, m, c) for g in ("balanced", "positive") for m in ("myopic", "upper")
        for c in ("improvement", "efficiency", "regret")}
