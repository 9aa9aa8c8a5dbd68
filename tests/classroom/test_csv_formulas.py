"""No CSV negtui writes hands a spreadsheet a formula: a class whose scenario names its players
`=HYPERLINK(…)` and `@SUM(…)`, whose trainees' names (put straight into the database) start with `-` and `+`,
filed under a scenario named like a command, exported by every command that writes CSV (`class --export`,
`results --csv`, `--decisions --csv`, `--gradebook --csv`, with `--wide` too).  Each cell that would start a
formula starts with a quote and keeps the whole text after it; negative numbers stay numbers for pandas."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from negtui.classroom.db import DB_NAME, ResultsDB
from negtui.classroom.dbtypes import Decision, now_iso
from negtui.csvcells import NUMBER, cell, plain, write_rows
from tests.paths import PILL

A = '=HYPERLINK("http://example.com/","click")'
B = '@SUM(1+1)*cmd|" /C calc"!A0'
ADA, BEN = "-2+3+cmd|' /C calc'!A0", "+1+cmd"  # `trainees add` refuses both: a database written by other means
SCENARIO = "=1+2"
FORMULA = tuple("=+-@\t\r")


def _formulas(text: str) -> list[str]:
    """The cells of a CSV text a spreadsheet would run: a formula's first character, and not a plain number."""
    return [c for row in csv.reader(io.StringIO(text)) for c in row
            if c.startswith(FORMULA) and not re.fullmatch(NUMBER, c)]


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    """The course file and the data directory: one finished table of the pill, its seats A and B renamed, with a
    decision each (one of them a negative cost's alternative), and a game alone under way."""
    text = PILL.read_text().replace('"A"', json.dumps(A)).replace('"B"', json.dumps(B))
    (tmp_path / "pill.json").write_text(text)
    course = tmp_path / "course.toml"
    course.write_text(f'name = "c"\ntitle = "C"\n\n[[exercises]]\nid = "pill"\ntitle = "Pill"\n'
                      f'scenario = "pill.json"\nhumans = [{json.dumps(A)}, {json.dumps(B)}]\n')
    data = tmp_path / "data"
    with ResultsDB.open(data):
        pass
    with sqlite3.connect(data / DB_NAME) as con:
        con.executemany("INSERT INTO trainees (name, created) VALUES (?, ?)", [(ADA, now_iso()), (BEN, now_iso())])
    with ResultsDB.open(data) as db:
        table = db.tables.opened("c", "pill", "-")
        db.tables.over(table)
        payoffs = [-3.5, 30.0]
        for k, (seat, name) in enumerate(((A, ADA), (B, BEN))):
            numbers = {"reference": "mean", "cost": 2.0,
                       "yours": {"who": "you", "values": {"myopic": -3.5, "upper": -1.0}, "partner": B, "offer": [],
                                 "words": "nothing", "accept": False},
                       "others": [{"who": "upper", "values": {"myopic": -1.5, "upper": 0.5}, "partner": A,
                                   "offer": [], "words": f"{A} commits bait", "accept": True}],
                       "agreeing": [B]}
            game = db.game_started(name, "c", "pill", SCENARIO, "d", seat, "/r.jsonl", table_id=table)
            db.game_finished(game, payoff=payoffs[k], payoffs=payoffs, baseline=-2.0, counterfactuals={},
                             welfare_optimum=60.0, efficiency=-0.1, duration=60.0, seat_optimum=30.0,
                             table_efficiency=0.44, bot_turns=0, mode="practice",
                             decisions=[Decision(k, "propose", f"-{k}+1 {A}", 2.0, numbers)])
    return course, data


def test_the_class_export_writes_no_formula(hostile, cli) -> None:
    course, data = hostile
    out = data.parent / "debrief"
    res = cli("class", "--export", out, "--course", course, "--data-dir", data)
    assert res.exit_code == 0, res.output
    files = sorted((out / "data").glob("*.csv"))
    assert [f.name for f in files] == ["01-pill-costly.csv", "01-pill-seats.csv", "01-pill-tables.csv"]
    for f in files:
        assert _formulas(f.read_text(encoding="utf-8")) == [], f.name
    seats = pd.read_csv(out / "data" / "01-pill-seats.csv")
    assert list(seats["seat"]) == ["'" + A, "'" + B] and list(seats["trainee"]) == ["'" + ADA, "'" + BEN]
    assert seats["payoff"].dtype == float and list(seats["payoff"]) == [-3.5, 30.0]  # numbers, not text
    costly = pd.read_csv(out / "data" / "01-pill-costly.csv")
    assert set(costly["choice"]) == {"'-0+1 " + A, "'-1+1 " + A}


def test_results_decisions_and_the_gradebooks_write_no_formula(hostile, cli) -> None:
    course, data = hostile
    for extra in ((), ("--decisions",), ("--gradebook",), ("--gradebook", "--wide")):
        res = cli("results", "--csv", "--course", course, "--data-dir", data, *extra)
        assert res.exit_code == 0, res.output
        assert _formulas(res.stdout) == [], extra
        rows = pd.read_csv(io.StringIO(res.stdout))
        assert set(rows["trainee"].map(plain)) == {ADA, BEN}, extra  # the whole name after the quote
        if extra == ():
            assert set(rows["seat"]) == {"'" + A, "'" + B} and set(rows["scenario"]) == {"'" + SCENARIO}
            assert rows["payoff"].dtype == float and sorted(rows["payoff"]) == [-3.5, 30.0]
            assert (rows["baseline"] == -2.0).all() and (rows["efficiency"] == -0.1).all()
        if extra == ("--decisions",):
            assert set(rows["choice"]) == {"'-0+1 " + A, "'-1+1 " + A} and set(rows["agreeing"]) == {"'" + B}
            assert rows["value_myopic"].dtype == float and (rows["value_myopic"] == -3.5).all()


@pytest.mark.parametrize("text", [A, B, ADA, BEN, "\t=1", "\r=1", "'quoted", "''", "-", "=", "+x", "@"])
def test_a_formula_is_quoted_and_given_back_whole(text: str) -> None:
    written = cell(text)
    assert written.startswith("'") and plain(written) == text.replace("\r", "\n")


def test_a_carriage_return_in_a_text_cannot_split_a_row() -> None:
    """Python's writer leaves a field holding a lone carriage return unquoted (its lines end with a line feed):
    every reader then split the row there.  A carriage return is written as a line break, quoted."""
    out = io.StringIO()
    write_rows(out, ["name", "payoff"], [{"name": "Ada\rLovelace", "payoff": -1.5}, {"name": "x\r\ny", "payoff": 2}])
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert rows == [["name", "payoff"], ["Ada\nLovelace", "-1.5"], ["x\ny", "2"]]


@pytest.mark.parametrize("value", [-3.5, "-3.5", "+2", "-1e-3", ".5", 0, None, True, "plain", "a=b", ""])
def test_numbers_and_plain_text_are_written_as_they_are(value: object) -> None:
    assert cell(value) == value
