"""`negtui report` on results files it did not write: every value a sweep could not have produced is
refused with the file, the row and the column (exit 2), never a traceback or a hang; names that are
valid but look like Markdown are shown, not interpreted."""

from __future__ import annotations

import math
import time

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

from negtui.sweep import checks
from negtui.sweep.results import SCHEMA, Results
from tests.sweep.test_report import hand_rows, scenario_rows


def _write(path, rows: list[dict]):
    if path.suffix == ".csv":
        import json

        table = pa.Table.from_pylist([r | {"payoffs": json.dumps(r["payoffs"])} for r in rows])
        pacsv.write_csv(table, path)
        return path
    r = Results(path)
    r.add(rows)
    r.write()
    r.close()
    return path


def _edited(at: int, **values: object) -> list[dict]:
    rows = hand_rows()
    rows[at] = rows[at] | values
    return rows


EDITS = [
    ({"improvement": math.nan}, "improvement", "not a finite number"),
    ({"improvement": math.inf}, "improvement", "not a finite number"),
    ({"improvement": None}, "improvement", "empty"),
    ({"improvement": 1e308}, "improvement", "larger than any game gives"),
    ({"l1_exact": -math.inf}, "l1_exact", "not a finite number"),
    ({"l1_exact": 1e308}, "l1_exact", "larger than any game gives"),
    ({"all_or_nothing": math.nan}, "all_or_nothing", "not a finite number"),
    ({"all_or_nothing": 7.0}, "all_or_nothing", "outside 0…1"),
    ({"payoffs": [math.nan, 0.0]}, "payoffs", "not a finite payoff"),
    ({"payoffs": [1.0]}, "payoffs", "not one payoff per player"),
    ({"method": None}, "method", "empty"),
    ({"method": "my\nlens"}, "method", "holds control characters"),
    ({"method": "# heading"}, "method", "not a method name"),
    ({"method": "<script>alert(1)</script>"}, "method", "not a method name"),
    ({"method": "\x1b]0;owned\x07"}, "method", "holds control characters"),
    ({"method": "m" * 100_000}, "method", "not a method name"),
    ({"sweep": "s" * 100_000}, "sweep", "not a sweep name"),
    ({"sweep": "../../etc"}, "sweep", "not a sweep name"),
    ({"rules": "r" * 100_000}, "rules", "longer than 512 characters"),
    ({"rules": "paper+x; rm"}, "rules", "not a rule set"),
    ({"scenario": "x" * 100_000}, "scenario", "longer than"),
    ({"structure": "mixed"}, "structure", "not one of adversarial, cooperative"),
    ({"players": 10**9}, "players", "outside 1…500"),
]


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
@pytest.mark.parametrize("edit, column, words", EDITS, ids=[f"{c}-{w}-{i}" for i, (_, c, w) in enumerate(EDITS)])
def test_a_value_no_sweep_writes_is_refused_with_its_row_and_column(cli, tmp_path, suffix, edit, column, words):
    nan = any(isinstance(v, float) and math.isnan(v) for v in edit.values())
    if suffix == ".csv" and nan:  # CSV reads "nan" as an empty cell
        if column in ("all_or_nothing",):
            pytest.skip("an empty all-or-nothing cell is what a scenario sweep writes")
        words = "empty"
    results = _write(tmp_path / f"bad{suffix}", _edited(5, **edit))
    started = time.monotonic()
    res = cli("report", results, "-o", tmp_path / "rep")
    assert res.exit_code == 2, res.output
    assert f"{results}: row 6, column {column}: {words}" in res.stderr, res.stderr
    assert "Traceback" not in res.output and "\x1b" not in res.stderr
    assert not (tmp_path / "rep").exists()
    assert time.monotonic() - started < 30


def test_two_hundred_sweeps_are_refused_before_any_section_is_drawn(cli, tmp_path):
    rows = [r | {"sweep": f"s{k}"} for k in range(200) for r in hand_rows()[:4]]
    res = cli("report", _write(tmp_path / "many.parquet", rows), "-o", tmp_path / "rep")
    assert res.exit_code == 2
    assert "200 sweeps × rule sets; a report holds at most 32" in res.stderr


def test_too_many_methods_and_rows_are_refused(cli, tmp_path, monkeypatch):
    rows = hand_rows()
    rows += [r | {"method": f"m{k}"} for k in range(40) for r in rows[:1]]
    res = cli("report", _write(tmp_path / "methods.parquet", rows), "-o", tmp_path / "rep")
    assert res.exit_code == 2 and "43 methods; a report compares at most 32" in res.stderr
    monkeypatch.setattr(checks, "MAX_REPORT_ROWS", 10)  # the limit lowered, the reading path the same
    res = cli("report", _write(tmp_path / "rows.csv", hand_rows()), "-o", tmp_path / "rep")
    assert res.exit_code == 2 and "more than 10 rows; a report reads at most 10" in res.stderr


def test_a_payoffs_cell_nested_past_the_parsers_depth_is_refused(cli, tmp_path):
    path = tmp_path / "deep.csv"
    row = hand_rows()[0] | {"payoffs": "[" * 100_000 + "]" * 100_000}
    table = pa.Table.from_pylist([row], schema=pa.schema([(f.name, pa.string() if f.name == "payoffs" else f.type)
                                                          for f in SCHEMA]))
    pacsv.write_csv(table, path)
    res = cli("report", path, "-o", tmp_path / "rep")
    assert res.exit_code == 2 and "a payoffs cell is not a list of numbers" in res.stderr, res.output


def test_names_that_look_like_markdown_are_shown_not_interpreted(cli, tmp_path):
    rows = [r | {"scenario": "River | basin [bold]_treaty_ <b>"} for r in scenario_rows()]
    res = cli("report", _write(tmp_path / "names.parquet", rows), "-o", tmp_path / "rep")
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    assert r"| River \| basin \[bold\]\_treaty\_ &lt;b\> | 3 |" in md
    assert "[bold]_treaty_" in res.stdout  # the terminal shows the name as it is (no Rich markup taken from it)


def test_a_scenario_sweep_written_as_csv_passes_the_checks(cli, tmp_path):
    """CSV keeps no difference between an empty text and none: a scenario sweep's empty structure and
    regime read back as none, as from Parquet."""
    results = tmp_path / "hnc.csv"
    r = Results(results)
    r.add(scenario_rows())
    r.write()
    r.close()
    assert ",," in results.read_text()  # the empty cells are there
    res = cli("report", results, "-o", tmp_path / "rep")
    assert res.exit_code == 0, res.output
