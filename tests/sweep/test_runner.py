"""negtui sweep: a small grid through the local pool and through a Dask LocalCluster gives the same rows;
a sweep interrupted mid-run and re-run completes without duplicates; a bad spec is a located error."""

from __future__ import annotations

import io
import json
import os
import signal
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import Result

from negtui.sweep.results import SCHEMA, TIMING, read_table
from negtui.sweep.spec import SweepSpec, load_spec, presets
from negtui.sweep.tasks import tasks
from tests.paths import RANDOM_AGENT
from tests.sweep.tiny import TINY_GAMES

SMALL = """
name = "tiny"
seeds = 2
rules = ["paper", "reference"]
methods = ["myopic", "upper", {name = "mixed", seats = ["upper", "lower"]}]
partner = "greedy"

[grid]
""" + TINY_GAMES + """structure = ["cooperative", "adversarial"]
all_or_nothing = [0.0, 0.5]
payoff = ["balanced", "negative-pp"]
"""


def spec_file(tmp_path: Path, text: str = SMALL, name: str = "tiny.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def rows_without_timing(path: Path) -> list[dict]:
    table = read_table(path)
    rows = table.drop_columns(list(TIMING)).to_pylist()
    return sorted(rows, key=lambda r: (r["task"], r["method"]))


@pytest.fixture
def sweep(cli) -> Callable[..., Result]:
    """`sweep(ARGS...)` runs `negtui sweep ARGS...` in-process."""
    return lambda *args: cli("sweep", *args)


def test_the_grid_the_spec_asks_for():
    spec = SweepSpec.model_validate({"name": "g", "grid": {"players": [4], "actions": [2], "structure": ["cooperative"],
                                                          "payoff": ["balanced", "positive"], "zipf": [1.6],
                                                          "factors": [3], "all_or_nothing": [0.0, 0.3]},
                                     "seeds": 3, "rules": ["paper"]})
    assert len(tasks(spec)) == 2 * 2 * 3
    assert len({t.key for t in tasks(spec)}) == 12
    small, large = presets()["paper-small"], presets()["paper-large"]
    assert small.grid.cells() == large.grid.cells() == 2 * 4 * 2 * 2 * 4  # the paper's 128 regime cells
    assert len(tasks(small)) == len(tasks(large)) == 128 * 50
    assert small.exact and not large.exact


def test_the_pool_and_a_dask_cluster_give_the_same_rows(sweep, tmp_path):
    from distributed import LocalCluster

    spec = spec_file(tmp_path)
    local, remote = tmp_path / "local.parquet", tmp_path / "dask.parquet"
    res = sweep(spec, "-o", local, "--workers", "2")
    assert res.exit_code == 0, res.output
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        res = sweep(spec, "-o", remote, "--scheduler", cluster.scheduler_address)
    assert res.exit_code == 0, res.output
    a, b = rows_without_timing(local), rows_without_timing(remote)
    games = len(tasks(load_spec(spec)))
    assert games == 2 * 2 * 2 * 2 * 2  # structure × all-or-nothing × payoff × rules × seeds
    assert len(a) == games * 5  # baseline, exact and three methods per game
    assert a == b
    methods = {r["method"] for r in a}
    assert methods == {"baseline", "exact", "myopic", "upper", "mixed"}
    for r in a:  # the columns say what they promise
        assert r["sum"] == pytest.approx(sum(r["payoffs"]))
        assert r["improvement"] == pytest.approx(r["sum"] - r["baseline_sum"])
        assert r["l1_exact"] is not None and r["l1_exact"] >= 0
        if r["method"] == "baseline":
            assert r["improvement"] == 0 and r["turns"] is None
        if r["method"] == "exact":
            assert r["l1_exact"] == 0
        exact = next(x for x in a if x["task"] == r["task"] and x["method"] == "exact")
        scale = sum(abs(v) for v in exact["payoffs"])
        assert r["l1_normalised"] == (pytest.approx(r["l1_exact"] / scale) if scale else None)
        gains = [v - b for v, b in zip(r["payoffs"], next(x for x in a if x["task"] == r["task"]
                                                               and x["method"] == "baseline")["payoffs"])]
        assert r["improvement_var"] == pytest.approx(statistics.pvariance(gains), abs=1e-9)
    # readable without negtui: a plain Parquet file with the documented columns
    assert pq.read_schema(local).names == SCHEMA.names


@pytest.mark.slow
def test_an_interrupted_sweep_resumes_without_duplicates(sweep, root, tmp_path):
    spec = spec_file(tmp_path, SMALL.replace("seeds = 2", "seeds = 6"))
    out = tmp_path / "r.parquet"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "negtui.cli", "sweep", str(spec), "-o", str(out), "--workers", "2"],
                            stderr=subprocess.PIPE, text=True, env=env, cwd=root)
    try:
        said = [proc.stderr.readline()]  # the first progress line: one game finished and its rows kept
        while "games" not in said[-1] and said[-1]:
            said.append(proc.stderr.readline())
        assert "games" in said[-1], f"the sweep ended before its first progress line: {''.join(said)}"
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=60)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, rest
    assert "interrupted" in rest
    first = read_table(out).to_pylist()  # a valid table of whole games
    per_game = 5
    assert first and len(first) % per_game == 0
    total = len(tasks(load_spec(spec))) * per_game
    assert len(first) < total
    res = sweep(spec, "-o", out, "--workers", "2")
    assert res.exit_code == 0, res.output
    rows = read_table(out).to_pylist()
    assert len(rows) == total
    assert len({(r["task"], r["method"]) for r in rows}) == total  # no duplicates
    kept = {(r["task"], r["method"]): r["sum"] for r in first}
    assert all(kept[k] == r["sum"] for r in rows if (k := (r["task"], r["method"])) in kept)


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_each_write_streams_the_file_and_keeps_no_rows_in_memory(tmp_path, monkeypatch, suffix):
    """Writes copy the file batch by batch (row groups of ROW_GROUP rows), then add the new rows; the
    table itself is never held, and a resumed table counts what it holds without loading it."""
    from negtui.sweep import results as results_mod
    from negtui.sweep.results import Results

    monkeypatch.setattr(results_mod, "ROW_GROUP", 7)
    template = {f.name: None for f in SCHEMA} | {"sweep": "s", "method": "myopic", "payoffs": [1.0, -2.5], "sum": -1.5}
    path = tmp_path / f"r.{suffix}"
    res = Results(path)
    for k in range(6):
        for j in range(5):
            res.add([dict(template, task=f"t{k}-{j}", seed=k * 5 + j)])
        res.write()
        assert res._pending == [] and res.rows == (k + 1) * 5
    res.write()  # nothing new: the file is not rewritten
    res.close()
    rows = read_table(path).to_pylist()
    assert [r["seed"] for r in rows] == list(range(30)) and all(r["payoffs"] == [1.0, -2.5] for r in rows)
    if suffix == "parquet":
        meta = pq.ParquetFile(path).metadata
        assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [7, 7, 7, 7, 2]
    again = Results(path)
    assert again.rows == 30 and again.done == {f"t{k}-{j}" for k in range(6) for j in range(5)}
    again.add([dict(template, task="late", seed=99)])
    again.write()
    again.close()
    assert [r["seed"] for r in read_table(path).to_pylist()] == [*range(30), 99]


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(x) for x in text]
    return found


def _alive_workers(workers: list[int]) -> list[int]:
    return [w for w in workers if Path(f"/proc/{w}").exists() and "zombie" not in
            Path(f"/proc/{w}/status").read_text().lower()]


def _killed_outright(sweep, wait_for, tmp_path: Path, proc: subprocess.Popen, spec: Path, out: Path,
                     what: str) -> list[dict]:
    """Once the results file is on disk, kill -9 the sweep's own process: its workers end too, the file holds
    whole games (the last complete write), and the same command finishes the rest without duplicates.  The
    rows the killed sweep left."""
    workers: list[int] = []
    try:
        wait_for(lambda: out.exists() or proc.poll() is not None, what, timeout=120)
        assert proc.poll() is None, f"the sweep ended first (status {proc.returncode}): {proc.communicate()[1]}"
        workers = _children(proc.pid)
        assert len(workers) == 2, workers
        proc.kill()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    try:
        wait_for(lambda: not _alive_workers(workers), "the workers to end with the sweep", timeout=10,
                 seen=lambda: _alive_workers(workers))
    finally:
        for w in _alive_workers(workers):
            os.kill(w, signal.SIGKILL)  # not left behind by a failing run
    first = read_table(out).to_pylist()
    assert first and len(first) % 5 == 0
    res = sweep(spec, "-o", out, "--workers", "2")
    assert res.exit_code == 0, res.output
    rows = read_table(out).to_pylist()
    total = len(tasks(load_spec(spec))) * 5
    assert len(rows) == total and len({(r["task"], r["method"]) for r in rows}) == total
    assert not list(tmp_path.glob(".r.parquet.*.tmp"))
    return first


# the sweep command, writing after every game and held (until killed) right after its first write of rows
_HELD_AFTER_ITS_FIRST_WRITE = """
import threading
from negtui.sweep import results, runner
runner.FLUSH_SECONDS = 0.0
write = results.Results.write
def write_then_hold(self):
    write(self)
    if self.rows:
        threading.Event().wait()
results.Results.write = write_then_hold
from negtui.cli import main
main()
"""


def test_a_sweep_killed_outright_between_two_writes_leaves_a_valid_file_and_no_workers(sweep, wait_for, root,
                                                                                        tmp_path):
    """The kill below at a fixed moment: the sweep is held right after its first write (the file holds the
    first game) while its two workers live on; kill -9 then ends the workers too, the file is that write,
    and the same command finishes the rest without duplicates."""
    spec = spec_file(tmp_path, SMALL.replace("seeds = 2", "seeds = 1"))
    out = tmp_path / "r.parquet"
    proc = subprocess.Popen([sys.executable, "-c", _HELD_AFTER_ITS_FIRST_WRITE, "sweep", str(spec), "-o", str(out),
                             "--workers", "2"], stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, cwd=root)
    first = _killed_outright(sweep, wait_for, tmp_path, proc, spec, out, "the sweep's first write")
    assert len(first) == 5  # the first game, whole


@pytest.mark.stress
@pytest.mark.slow
def test_a_sweep_killed_outright_leaves_a_valid_file_and_no_workers(sweep, wait_for, root, tmp_path):
    """kill -9 of the sweep's own process: its workers end too, the file holds whole games (the last
    complete write), and the same command finishes the rest without duplicates.  The kill lands wherever
    the sweep is once its first timed write is seen: a race, run by `make stress`."""
    spec = spec_file(tmp_path, SMALL.replace("seeds = 2", "seeds = 40"))  # about 15 s of games
    out = tmp_path / "r.parquet"
    proc = subprocess.Popen([sys.executable, "-m", "negtui.cli", "sweep", str(spec), "-o", str(out), "--workers", "2"],
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"}, cwd=root)
    _killed_outright(sweep, wait_for, tmp_path, proc, spec, out, "the sweep's first write (after 5 s of games)")


def test_csv_on_request(sweep, tmp_path):
    spec = spec_file(tmp_path, SMALL.replace("seeds = 2", "seeds = 1").replace('rules = ["paper", "reference"]',
                                                                             'rules = ["paper"]'))
    out = tmp_path / "r.csv"
    res = sweep(spec, "-o", out)
    assert res.exit_code == 0, res.output
    header = out.read_text().splitlines()[0]
    assert header.replace('"', "").split(",") == SCHEMA.names
    rows = read_table(out).to_pylist()
    assert len(rows) == 8 * 5 and all(isinstance(r["payoffs"], list) and len(r["payoffs"]) == 4 for r in rows)


# read as a user's notebook would: pandas and DuckDB, with negtui made unimportable
_OUTSIDE = """
import json, sys
sys.modules["negtui"] = None  # any import of negtui now fails
import duckdb, pandas as pd
parquet, csv = sys.argv[1], sys.argv[2]
frame = pd.read_parquet(parquet)
by_method = frame.groupby("method")["sum"].mean().to_dict()
first = frame.sort_values(["task", "method"]).iloc[0]
duck = duckdb.sql(f"SELECT method, avg(improvement) AS imp, count(*) AS n, max(len(payoffs)) AS players "
                  f"FROM read_parquet('{parquet}') GROUP BY method ORDER BY method").fetchall()
from_csv = duckdb.sql(f"SELECT count(*), sum(\\"sum\\") FROM read_csv_auto('{csv}')").fetchall()[0]
print(json.dumps({"pandas": by_method, "first": [first["task"], first["method"], list(first["payoffs"])],
                  "duckdb": duck, "csv": list(from_csv), "columns": list(frame.columns)}))
"""


def test_results_are_read_by_pandas_and_duckdb_without_negtui(sweep, tmp_path):
    spec = spec_file(tmp_path, SMALL.replace("seeds = 2", "seeds = 1").replace('rules = ["paper", "reference"]',
                                                                             'rules = ["paper"]'))
    parquet, csv = tmp_path / "r.parquet", tmp_path / "r.csv"
    for out in (parquet, csv):
        res = sweep(spec, "-o", out)
        assert res.exit_code == 0, res.output
    proc = subprocess.run([sys.executable, "-c", _OUTSIDE, str(parquet), str(csv)], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    rows = sorted(read_table(parquet).to_pylist(), key=lambda r: (r["task"], r["method"]))
    assert seen["columns"] == SCHEMA.names
    methods = sorted({r["method"] for r in rows})
    assert methods == ["baseline", "exact", "mixed", "myopic", "upper"]
    for m in methods:
        sums = [r["sum"] for r in rows if r["method"] == m]
        imps = [r["improvement"] for r in rows if r["method"] == m]
        assert seen["pandas"][m] == pytest.approx(sum(sums) / len(sums))
        duck = next(d for d in seen["duckdb"] if d[0] == m)
        assert duck[1:] == [pytest.approx(sum(imps) / len(imps)), len(imps), 4]
    assert seen["first"] == [rows[0]["task"], rows[0]["method"], rows[0]["payoffs"]]
    assert seen["csv"] == [len(rows), pytest.approx(sum(r["sum"] for r in rows))]


@pytest.mark.parametrize(("text", "where"), [
    (SMALL.replace('structure = ["cooperative", "adversarial"]', 'structure = ["friendly"]'), "$.grid.structure[0]"),
    (SMALL.replace("zipf = [1.6]", "zipf = [0.5]"), "$.grid.zipf"),
    (SMALL.replace("seeds = 2", "seeds = 0"), "$.seeds"),
    (SMALL.replace('"myopic", "upper"', '"myopic", "human"'), "$.methods[1]"),
    (SMALL.replace("[grid]", "[grid]\ncolour = 3"), "$.grid.colour"),
    (SMALL + "\nscenarios = ['x.json']\n", "$"),
    # axes beyond what a scenario may hold, refused before anything is built (they ran out of memory or hung)
    (SMALL.replace("players = [4]", "players = [1000000000]"), "$.grid.players: every value is at most 500"),
    (SMALL.replace("goals = [6]", "goals = [10000000]"), "$.grid.goals: every value is at most 5,000"),
    (SMALL.replace("players = [4]", "players = [500]").replace("rounds = [2]", "rounds = [10000]"),
     "exceed the scenario limit of 100,000 turns"),
    (SMALL.replace("players = [4]", f"players = {list(range(3, 67))}").replace("goals = [6]",
                                                                              f"goals = {list(range(1, 65))}")
     .replace("seeds = 2", "seeds = 100"),
     "at most 1,000,000 in one sweep"),
])
def test_a_bad_spec_is_a_located_error(sweep, tmp_path, text, where):
    spec = spec_file(tmp_path, text)
    res = sweep(spec, "-o", tmp_path / "r.parquet")
    assert res.exit_code == 2, res.output
    assert str(spec) in res.stderr and where in res.stderr, res.stderr
    assert "Traceback" not in res.output
    assert not (tmp_path / "r.parquet").exists()


def test_a_broken_spec_file_and_bad_options(sweep, tmp_path):
    bad = spec_file(tmp_path, "name = [", "broken.toml")
    res = sweep(bad, "-o", tmp_path / "r.parquet")
    assert res.exit_code == 2 and "not valid TOML" in res.stderr
    res = sweep("-o", tmp_path / "r.parquet", "--preset", "paper-huge")
    assert res.exit_code == 2 and "unknown preset 'paper-huge'" in res.stderr
    res = sweep("--preset", "paper-small", "-o", tmp_path / "r.parquet", "--rules", "paper,fast")
    assert res.exit_code == 2 and "--rules" in res.stderr
    res = sweep("--preset", "paper-small", "-o", tmp_path / "nowhere" / "r.parquet")
    assert res.exit_code == 2 and "not a directory" in res.stderr
    missing = spec_file(tmp_path, json.dumps({"name": "m", "scenarios": ["poison-pill", "no-such-game"]}), "m.json")
    res = sweep(missing, "-o", tmp_path / "m.parquet")
    assert res.exit_code == 2 and "$.scenarios[1] cannot be used" in res.stderr and "no-such-game" in res.stderr
    assert not (tmp_path / "m.parquet").exists()
    json_spec = spec_file(tmp_path, json.dumps({"name": "j", "scenarios": ["poison-pill"], "seeds": 1}), "j.json")
    res = sweep(json_spec, "-o", tmp_path / "pill.parquet")
    assert res.exit_code == 0, res.output
    rows = read_table(tmp_path / "pill.parquet").to_pylist()
    assert {r["method"] for r in rows} == {"baseline", "exact", "myopic", "upper", "lower"}
    sums = {r["method"]: r["sum"] for r in rows}  # myopic and lower swallow the pill; upper takes the bait alone
    assert sums == {"baseline": 60, "exact": 60, "myopic": 47, "upper": 60, "lower": 47}
    # the bundled scenario as the README names it, not this machine's absolute path to it
    assert {r["scenario_file"] for r in rows} == {"scenarios/teaching/poison-pill.json"}


def test_the_nash_optimum_on_request(sweep, tmp_path):
    """--welfare nash adds the Nash optimum and each method's efficiency against it: the ratio of the
    geometric means of the payoffs, at most 1 (the optimum is the largest product)."""
    import math

    spec = spec_file(tmp_path, SMALL.replace("seeds = 2", "seeds = 1").replace('rules = ["paper", "reference"]',
                                                                             'rules = ["paper"]'))
    out = tmp_path / "n.parquet"
    res = sweep(spec, "-o", out, "--welfare", "nash", "--workers", "1")
    assert res.exit_code == 0, res.output
    rows = read_table(out).to_pylist()
    for r in rows:
        assert r["nash_optimum"] is not None and r["nash_efficiency"] is not None
        assert 0 <= r["nash_efficiency"] <= 1 + 1e-9
        if all(v > 0 for v in r["payoffs"]):
            mean_log = sum(math.log(v) for v in r["payoffs"]) / len(r["payoffs"])
            assert r["nash_efficiency"] == pytest.approx(math.exp(mean_log - r["nash_optimum"] / len(r["payoffs"])))


def test_an_outside_agent_takes_seats_in_a_sweep(sweep, tmp_path):
    """A method may seat outside programs (the agent protocol): every other seat here is the example
    random agent, a real subprocess per seat."""
    agent = f"cmd:{sys.executable} {RANDOM_AGENT}"
    text = SMALL.replace("seeds = 2", "seeds = 1").replace('rules = ["paper", "reference"]', 'rules = ["paper"]')
    text = text.replace('methods = ["myopic", "upper", {name = "mixed", seats = ["upper", "lower"]}]',
                        f'methods = [{{name = "with-agents", seats = ["upper", {json.dumps(agent)}]}}]')
    text = text.replace('structure = ["cooperative", "adversarial"]', 'structure = ["cooperative"]')
    text = text.replace("all_or_nothing = [0.0, 0.5]", "all_or_nothing = [0.0]")
    text = text.replace('payoff = ["balanced", "negative-pp"]', 'payoff = ["balanced"]')
    out = tmp_path / "a.parquet"
    res = sweep(spec_file(tmp_path, text), "-o", out, "--workers", "1")
    assert res.exit_code == 0, res.output
    rows = {r["method"]: r for r in read_table(out).to_pylist()}
    assert set(rows) == {"baseline", "exact", "with-agents"}
    assert rows["with-agents"]["turns"] == 8 and len(rows["with-agents"]["payoffs"]) == 4


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("columns", [80, 60, 40])
def test_the_progress_line_fits_the_terminal(monkeypatch, columns):
    """Redrawn in place: a line as wide as the terminal would wrap, and every redraw would start a new line."""
    from negtui.sweep.runner import Progress

    monkeypatch.setattr(Progress, "columns", lambda self: columns)
    term = _Terminal()
    progress = Progress(12_800, 2_240, stream=term)
    progress.started -= 3600  # an hour in: a long ETA
    for _ in range(3):
        progress._shown = 0.0
        progress.tick()
    progress.tick(final=True)
    lines = [part.replace("\x1b[K", "") for part in term.getvalue().replace("\n", "\r").split("\r") if part]
    assert len(lines) == 4 and all(len(line) < columns for line in lines), lines
    assert all("/12800 games" in line and "ETA" in line for line in lines)
    if columns == 80:
        assert "█" in lines[-1] or "·" in lines[-1]  # room for a bar at 80 columns


def test_the_progress_line_in_a_log_file():
    from negtui.sweep.runner import Progress

    log = io.StringIO()
    progress = Progress(10, 0, stream=log)
    progress.tick()
    progress.tick(final=True)
    assert log.getvalue().count("\n") == 2 and "\r" not in log.getvalue() and "\x1b" not in log.getvalue()
    assert "already done" not in log.getvalue()  # nothing was


def test_a_resumed_sweep_says_what_is_left_not_a_rate_of_zero():
    from negtui.sweep.runner import Progress

    log = io.StringIO()
    Progress(30, 30, stream=log).tick(final=True)  # every game already in the results
    assert log.getvalue().endswith(" 30/30 games (30 already done): nothing left to play\n")
    log = io.StringIO()
    Progress(30, 20, stream=log).tick(final=True)  # stopped before its first game finished
    assert log.getvalue().endswith(" 20/30 games (20 already done), the first of 10 under way\n")
    assert "0.00" not in log.getvalue() and "?" not in log.getvalue()


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_results_file_from_before_the_added_columns_is_read_and_extended(tmp_path, suffix):
    """Files written before `improvement_var` and `l1_normalised` existed read them as empty; a sweep
    resuming into one writes them for its new rows and keeps the old rows."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from negtui.sweep.results import ADDED, Results
    from tests.sweep.test_report import hand_rows

    old_schema = pa.schema([f for f in SCHEMA if f.name not in ADDED])
    rows = [{k: v for k, v in r.items() if k not in ADDED} for r in hand_rows()[:4]]
    path = tmp_path / f"old{suffix}"
    table = pa.Table.from_pylist(rows, schema=old_schema)
    if suffix == ".csv":
        table = table.set_column(table.schema.get_field_index("payoffs"), "payoffs",
                                 pa.array([json.dumps(r["payoffs"]) for r in rows]))
        pacsv.write_csv(table, path)
    else:
        pq.write_table(table, path)
    back = read_table(path).to_pylist()
    assert [r["task"] for r in back] == [r["task"] for r in rows]
    assert all(r["improvement_var"] is None and r["l1_normalised"] is None for r in back)
    new = dict(hand_rows()[5], task="new-task", l1_normalised=0.25)
    with_new = Results(path)
    with_new.add([new])
    with_new.write()
    with_new.close()
    again = read_table(path).to_pylist()
    assert len(again) == 5 and again[-1]["l1_normalised"] == 0.25
    assert again[-1]["improvement_var"] == new["improvement_var"] and again[0]["improvement_var"] is None


def test_without_the_bundled_scenarios_the_scenario_presets_are_said_missing(cli, tmp_path, monkeypatch):
    """An installed wheel has no scenarios/ folder: the generated presets still run, and asking for a preset
    of bundled scenarios names the folder looked in (status 2), where every preset used to end in a
    validation traceback."""
    import negtui.scenario.library as library

    monkeypatch.setattr(library, "bundled_root", lambda: tmp_path / "no-scenarios")
    assert sorted(presets()) == ["paper-large", "paper-small"]
    for name in ("hnc", "table2"):
        res = cli("sweep", "--preset", name, "-o", tmp_path / "out.parquet")
        assert res.exit_code == 2, res.output
        said = " ".join(res.output.split())
        assert f"preset '{name}' plays the bundled scenarios of {tmp_path / 'no-scenarios'}" in said, said
        assert "presets here: paper-small, paper-large" in said and "Traceback" not in res.output
    assert not (tmp_path / "out.parquet").exists()
