"""The gradebook a registrar imports (`negtui results --gradebook --csv --wide`): one row per trainee keyed by
their student id, a group of columns per exercise, read with pandas as a registrar's import would.  A class of
three trainees and two exercises (one played alone with attempts, one at tables): the grades are worked out by
hand here, each flag (a bot played wholly or partly, every decision timed out, the trainer ended the game) is
set by one game, and the student ids come from `trainees add|set|import`."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pandas as pd
import pytest

from negtui.classroom import db as dbmod
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import Decision
from negtui.classroom.gradebook import GRADEBOOK_COLUMNS
from negtui.classroom.wide_gradebook import has_ending

COURSE = """\
name = "reg"
title = "For the registrar"

[[exercises]]
id = "solo"
title = "The pill, alone"
scenario = "poison-pill"
seat = "B"
attempts = 3
score = "gain"

[[exercises]]
id = "pair"
title = "The pill, in pairs"
scenario = "poison-pill"
humans = ["A", "B"]
"""
HOSTILE_ID = '=HYPERLINK("http://example.com/","x")'
WIDE = ["trainee", "student_id",
        "solo_best_gain", "solo_gain_at_optimum", "solo_grade_pct_of_optimum", "solo_status", "solo_attempts_used",
        "solo_bot_played", "solo_all_timed_out", "solo_ended_by_trainer",
        "pair_best_payoff", "pair_payoff_at_optimum", "pair_grade_pct_of_optimum", "pair_status",
        "pair_attempts_used", "pair_bot_played", "pair_all_timed_out", "pair_ended_by_trainer"]


def _finish(db: ResultsDB, name: str, exercise: str, payoff: float, *, seat_optimum: float | None = 40.0,
            table: int | None = None, bot_turns: int = 0, decisions: int = 1, timed_out: int = 0) -> None:
    game = db.game_started(name, "reg", exercise, "poison-pill", "d", "B", "/r.jsonl", table_id=table)
    made = [Decision(t, "propose", "no offer", 0.0, {}, timed_out=t < timed_out) for t in range(decisions)]
    db.game_finished(game, payoff=payoff, payoffs=[10.0, payoff], baseline=30.0, counterfactuals={},
                     welfare_optimum=70.0, efficiency=None, duration=5.0, decisions=made, seat_optimum=seat_optimum,
                     bot_turns=bot_turns, mode="practice")


def _ended(db: ResultsDB, table: int, how: str) -> None:
    """How a table's game ended, in the column the tables' rows keep it in (added here if this file has none)."""
    with db.write() as conn:
        if not any(r[1] == "ending" for r in conn.execute("PRAGMA table_info(tables)")):
            conn.execute("ALTER TABLE tables ADD COLUMN ending TEXT")
        conn.execute("UPDATE tables SET ending = ? WHERE id = ?", (how, table))


@pytest.fixture
def klass(tmp_path: Path) -> tuple[Path, Path]:
    """ada: two games alone (gains 7 then 2, optimum gain 10), a table where every decision timed out and the trainer
    ended it; ben: two alone (gains 20 then −5), a table a bot played wholly (he never sat down) that ended by
    its turns, an attempt abandoned; cy: nothing alone, a table a bot played partly, whose optimum was not filed
    and whose ending is not known; tom: a trainer who never played."""
    course = tmp_path / "course.toml"
    course.write_text(COURSE)
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        for name in ("ada", "ben", "cy", "tom"):
            db.add_trainee(name)
        db.classroom.set_trainer("tom")
        _finish(db, "ada", "solo", 37.0)
        _finish(db, "ada", "solo", 32.0)
        tables = [db.tables.opened("reg", "pair", "-") for _ in range(3)]
        _finish(db, "ada", "pair", 24.0, seat_optimum=30.0, table=tables[0], decisions=3, timed_out=3)
        _finish(db, "ben", "solo", 50.0)
        _finish(db, "ben", "solo", 25.0)
        db.game_abandoned(db.game_started("ben", "reg", "solo", "poison-pill", "d", "B", "/r.jsonl"))
        _finish(db, "ben", "pair", 0.0, seat_optimum=30.0, table=tables[1], bot_turns=6, decisions=0)
        _finish(db, "cy", "pair", 12.0, seat_optimum=None, table=tables[2], bot_turns=2, decisions=2, timed_out=1)
        _ended(db, tables[0], "trainer")
        _ended(db, tables[1], "turns")
    return course, data


def _wide(cli, course: Path, data: Path, *extra: str) -> pd.DataFrame:
    out = cli("results", "--gradebook", "--wide", "--csv", "--course", course, "--data-dir", data, *extra)
    assert out.exit_code == 0, out.output
    return pd.read_csv(io.StringIO(out.stdout), dtype_backend="numpy_nullable")


def test_one_row_per_trainee_with_grades_flags_and_student_ids(klass, cli, tmp_path: Path) -> None:
    course, data = klass
    assert cli("trainees", "set", "ada", "--student-id", " S-001 ", "--data-dir", data).exit_code == 0
    roster = tmp_path / "class.csv"
    roster.write_text("Email,Student_ID,Trainee\nb@uni.example,S-002,ben\n")  # the registrar's own columns, any order
    out = cli("trainees", "import", roster, "--data-dir", data)
    assert out.exit_code == 0 and "1 set" in out.stdout, out.output

    book = _wide(cli, course, data)
    assert list(book.columns) == WIDE
    assert list(book["trainee"]) == ["ada", "ben", "cy"]  # one row each; a trainer who never played is no trainee
    assert list(book["student_id"].fillna("")) == ["S-001", "S-002", ""]
    row = book.set_index("trainee")
    # alone, by gain over the baseline (30): the best game counts; the optimum's gain is 40 − 30 = 10
    assert tuple(row.loc["ada", ["solo_best_gain", "solo_gain_at_optimum", "solo_grade_pct_of_optimum"]]) == (
        7.0, 10.0, 70.0)
    assert tuple(row.loc["ben", ["solo_best_gain", "solo_grade_pct_of_optimum"]]) == (20.0, 100.0)  # 200 %: held
    assert tuple(row.loc["ada", ["solo_status", "solo_attempts_used", "solo_bot_played", "solo_all_timed_out",
                                 "solo_ended_by_trainer"]]) == ("finished", 2, "no", False, False)
    assert tuple(row.loc["ben", ["solo_status", "solo_attempts_used"]]) == ("finished", 2)  # practice: once finished
    assert row.loc["cy", "solo_status"] == "not started" and row.loc["cy", "solo_attempts_used"] == 0
    assert row.loc[["cy"], ["solo_best_gain", "solo_grade_pct_of_optimum", "solo_bot_played",
                            "solo_ended_by_trainer"]].isna().all(axis=None)  # nothing played: blank, not 0
    # at tables, by payoff: 24 of the seat's 30 at the optimum
    assert tuple(row.loc["ada", ["pair_best_payoff", "pair_payoff_at_optimum", "pair_grade_pct_of_optimum",
                                 "pair_bot_played", "pair_all_timed_out", "pair_ended_by_trainer"]]) == (
        24.0, 30.0, 80.0, "no", True, True)
    assert tuple(row.loc["ben", ["pair_best_payoff", "pair_grade_pct_of_optimum", "pair_bot_played",
                                 "pair_all_timed_out", "pair_ended_by_trainer"]]) == (0.0, 0.0, "wholly", False, False)
    assert tuple(row.loc["cy", ["pair_best_payoff", "pair_bot_played", "pair_all_timed_out"]]) == (
        12.0, "partly", False)  # one of two decisions timed out: not every one
    assert row.loc[["cy"], ["pair_payoff_at_optimum", "pair_grade_pct_of_optimum",
                            "pair_ended_by_trainer"]].isna().all(axis=None)  # not filed: blank, never 0
    assert str(book["solo_attempts_used"].dtype) == "Int64" and str(book["pair_all_timed_out"].dtype) == "boolean"

    last = _wide(cli, course, data, "--count", "last").set_index("trainee")
    assert tuple(last.loc["ada", ["solo_last_gain", "solo_grade_pct_of_optimum"]]) == (2.0, 20.0)
    assert tuple(last.loc["ben", ["solo_last_gain", "solo_grade_pct_of_optimum"]]) == (-5.0, 0.0)  # below: 0

    some = _wide(cli, course, data, "--exercise", "pair", "--trainee", "cy")
    assert list(some.columns) == WIDE[:2] + WIDE[10:] and list(some["trainee"]) == ["cy"]


def test_without_the_ending_column_the_trainers_end_is_not_known(tmp_path: Path, cli,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A results file without the column that says how a table's game ended: the flag is blank at tables (not
    False), and known False for games played alone, which only their player ends."""
    lacking = tuple(script for script in dbmod.MIGRATIONS if not re.search(r"\bending\b", script))
    monkeypatch.setattr(dbmod, "MIGRATIONS", lacking)  # the schema as it is but for that column, if it has it
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", len(lacking))
    course = tmp_path / "course.toml"
    course.write_text(COURSE)
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_trainee("ada")
        _finish(db, "ada", "solo", 37.0)
        _finish(db, "ada", "pair", 24.0, seat_optimum=30.0, table=db.tables.opened("reg", "pair", "-"))
        assert not has_ending(db)
    book = _wide(cli, course, data)
    assert not book.loc[0, "solo_ended_by_trainer"] and pd.isna(book.loc[0, "pair_ended_by_trainer"])
    assert book.loc[0, "pair_grade_pct_of_optimum"] == 80.0


def test_a_hostile_student_id_is_no_formula(klass, cli) -> None:
    course, data = klass
    out = cli("trainees", "set", "ben", "--student-id", HOSTILE_ID, "--data-dir", data)
    assert out.exit_code == 0, out.output
    text = cli("results", "--gradebook", "--wide", "--csv", "--course", course, "--data-dir", data).stdout
    cells = [c for row in csv.reader(io.StringIO(text)) for c in row]
    assert "'" + HOSTILE_ID in cells and HOSTILE_ID not in cells


def test_the_long_form_is_as_it_was(klass, cli) -> None:
    course, data = klass
    cli("trainees", "set", "ada", "--student-id", "S-001", "--data-dir", data)
    out = cli("results", "--gradebook", "--csv", "--course", course, "--data-dir", data)
    book = pd.read_csv(io.StringIO(out.stdout))
    assert list(book.columns) == list(GRADEBOOK_COLUMNS) == [
        "trainee", "course", "exercise", "mode", "score_by", "attempts_used", "attempts_allowed", "status",
        "best_score", "last_score", "finished", "abandoned", "bot_turns"]
    assert len(book) == 6 and "S-001" not in out.stdout


@pytest.mark.parametrize(("args", "said"), [
    (("--wide",), "give --gradebook --wide"),
    (("--gradebook", "--count", "last"), "--count picks the game of the wide gradebook"),
    (("--gradebook", "--wide", "--count", "worst"), "--count is best or last, not 'worst'"),
    (("--gradebook", "--wide", "--exercise", "nope"), "no exercise 'nope' in course 'reg'"),
])
def test_a_wrong_option_is_said(klass, cli, args: tuple[str, ...], said: str) -> None:
    course, data = klass
    out = cli("results", *args, "--course", course, "--data-dir", data)
    assert out.exit_code == 2 and said in out.stderr and "Traceback" not in out.output


def test_no_two_exercises_columns_can_share_a_name() -> None:
    """An exercise's column is its id and a suffix; ids are any letters, digits, '-' and '_', so two exercises'
    columns could only meet if one suffix ended another (`a` + `_x_y` is `a_x` + `_y`)."""
    from negtui.classroom.course import Exercise
    from negtui.classroom.scoring import OBJECTIVES
    from negtui.classroom.wide_gradebook import COUNTS, FIRST_COLUMNS, columns_of

    suffixes = {column.removeprefix("e") for score in OBJECTIVES for count in COUNTS
                for column in columns_of(Exercise(id="e", title="E", scenario="s", score=score), count)}
    assert not [(a, b) for a in suffixes for b in suffixes if a != b and a.endswith(b)]
    assert not [c for c in FIRST_COLUMNS for s in suffixes if c.endswith(s)]
