"""The gradebook (`negtui results --gradebook`): one row per trainee and exercise of a course, read with pandas as a
trainer would; the games' export with each game's mode, attempt and score; and a results file from before these
columns, upgraded by its migration."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from negtui.classroom import db as dbmod
from negtui.classroom.db import DB_NAME, ResultsDB
from negtui.classroom.gradebook import GRADEBOOK_COLUMNS

COURSE = """\
name = "grades"
title = "Graded"

[[exercises]]
id = "solo"
title = "The pill, alone"
scenario = "poison-pill"
seat = "B"
attempts = 3
score = "gain"

[[exercises]]
id = "exam"
title = "The pill, graded"
scenario = "poison-pill"
seat = "B"
attempts = 2
mode = "assessment"
score = "table_total"

[[exercises]]
id = "pair"
title = "The pill, in pairs"
scenario = "poison-pill"
humans = ["A", "B"]
"""


def _finish(db: ResultsDB, name: str, exercise: str, payoff: float, *, table: int | None = None,
            bot_turns: int = 0) -> None:
    game = db.game_started(name, "grades", exercise, "poison-pill", "d", "B", "/r.jsonl", table_id=table)
    db.game_finished(game, payoff=payoff, payoffs=[10.0, payoff], baseline=30.0, counterfactuals={},
                     welfare_optimum=60.0, efficiency=payoff / 30.0, duration=5.0, decisions=[], seat_optimum=30.0,
                     table_efficiency=(10.0 + payoff) / 60.0, bot_turns=bot_turns,
                     mode="assessment" if exercise == "exam" else "practice")


@pytest.fixture
def graded(tmp_path: Path) -> tuple[Path, Path]:
    """ada: two practice games finished and one under way, an assessment abandoned; ben: both assessment attempts
    used (one under way) and a table where a bot played three turns for him; cy: nothing; tom: a trainer."""
    course = tmp_path / "course.toml"
    course.write_text(COURSE)
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        for name in ("ada", "ben", "cy", "tom"):
            db.add_trainee(name)
        db.classroom.set_trainer("tom")
        _finish(db, "ada", "solo", 37.0)
        _finish(db, "ada", "solo", 30.0)
        db.game_started("ada", "grades", "solo", "poison-pill", "d", "B", "/r.jsonl")
        db.game_abandoned(db.game_started("ada", "grades", "exam", "poison-pill", "d", "B", "/r.jsonl"))
        _finish(db, "ben", "exam", 20.0)
        db.game_started("ben", "grades", "exam", "poison-pill", "d", "B", "/r.jsonl")
        table = db.tables.opened("grades", "pair", "-")
        _finish(db, "ben", "pair", 30.0, table=table, bot_turns=3)
    return course, data


def test_the_gradebook_has_one_row_per_trainee_and_exercise(graded, cli) -> None:
    course, data = graded
    out = cli("results", "--gradebook", "--csv", "--course", course, "--data-dir", data)
    assert out.exit_code == 0, out.output
    book = pd.read_csv(io.StringIO(out.stdout), dtype_backend="numpy_nullable")
    assert list(book.columns) == list(GRADEBOOK_COLUMNS)
    assert len(book) == 9 and (book.groupby(["trainee", "exercise"]).size() == 1).all()  # 3 trainees × 3 exercises
    assert set(book["trainee"]) == {"ada", "ben", "cy"}  # a trainer who never played is no trainee
    row = book.set_index(["trainee", "exercise"])
    assert tuple(row.loc[("ada", "solo"), ["mode", "score_by", "attempts_used", "attempts_allowed", "status"]]) == (
        "practice", "gain", 2, 3, "in progress")
    assert tuple(row.loc[("ada", "solo"), ["best_score", "last_score", "finished"]]) == (7.0, 0.0, 2)  # gains
    assert tuple(row.loc[("ada", "exam"), ["mode", "attempts_used", "status", "abandoned"]]) == (
        "assessment", 1, "abandoned", 1)  # an assessment counts as soon as it starts
    assert pd.isna(row.loc[("ada", "exam"), "best_score"])
    assert tuple(row.loc[("ben", "exam"), ["attempts_used", "attempts_allowed", "status", "best_score"]]) == (
        2, 2, "in progress", 30.0)  # table total: 10 + 20
    assert tuple(row.loc[("ben", "pair"), ["status", "bot_turns", "best_score"]]) == ("finished", 3, 30.0)
    assert pd.isna(row.loc[("ben", "pair"), "attempts_allowed"])  # unlimited
    assert (row.loc["cy", "status"] == "not started").all() and (row.loc["cy", "attempts_used"] == 0).all()

    rows = json.loads(cli("results", "--gradebook", "--json", "--course", course, "--trainee", "ada",
                          "--data-dir", data).stdout)
    assert [r["exercise"] for r in rows] == ["solo", "exam", "pair"] and rows[2]["status"] == "not started"
    assert "2 of 3" in cli("results", "--gradebook", "--course", course, "--data-dir", data).stdout
    refused = cli("results", "--gradebook", "--course", "grades", "--data-dir", data)
    assert refused.exit_code == 2 and "needs the course file" in refused.stderr


def test_each_game_says_its_mode_attempt_and_score(graded, cli) -> None:
    course, data = graded
    out = cli("results", "--csv", "--course", course, "--data-dir", data)
    games = pd.read_csv(io.StringIO(out.stdout), dtype_backend="numpy_nullable")
    assert len(games) == 7 and str(games["table"].dtype) == "Int64" and str(games["attempt"].dtype) == "Int64"
    ada = games[games["trainee"] == "ada"]
    assert list(ada["mode"]) == ["practice"] * 3 + ["assessment"]
    assert ada["attempt"].tolist()[:2] == [1, 2] and pd.isna(ada["attempt"].iloc[2])  # practice: once finished
    assert ada["attempt"].iloc[3] == 1 and list(ada["score"].iloc[:2]) == [7.0, 0.0]
    ben = games[games["trainee"] == "ben"]
    assert list(ben["attempt"]) == [1, 2, 1] and ben["score"].iloc[0] == 30.0  # the exam's table total
    pair = ben.iloc[2]
    assert (pair["table"], pair["bot_turns"], bool(pair["bot_played"])) == (1, 3, True)
    assert pair["efficiency"] == pytest.approx(1.0) and pair["table_efficiency"] == pytest.approx(40 / 60)
    # by name only, the course's objectives are unknown: no score, the mode the game was filed with
    plain = pd.read_csv(io.StringIO(cli("results", "--csv", "--course", "grades", "--data-dir", data).stdout))
    assert plain["score"].isna().all() and plain["mode"].iloc[0] == "practice"


def test_an_older_results_file_keeps_the_tables_efficiency_apart(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:  # a file from before the seat's own efficiency
        before = 4  # schema version 4: the migration after it moves `efficiency` to `table_efficiency`
        m.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:before])
        m.setattr(dbmod, "SCHEMA_VERSION", before)
        with ResultsDB.open(tmp_path) as db:
            db.add_trainee("ada")
            game = db.game_started("ada", "c", "e", "s", "d", "A", "/r.jsonl")
            with db.write() as conn:
                conn.execute("UPDATE games SET status = 'finished', payoff = 3, efficiency = 0.8 WHERE id = ?",
                             (game,))
                conn.execute("INSERT INTO decisions (game_id, turn, phase, choice, cost, numbers)"
                             " VALUES (?, 0, 'propose', 'no offer', 1.0, '{}')", (game,))
    with ResultsDB.open(tmp_path) as db:
        (row,) = db.results()
        assert (row["efficiency"], row["table_efficiency"], row["bot_played"]) == (None, 0.8, None)
        assert [r["timed_out"] for r in db.decisions()] == [False]
    with sqlite3.connect(tmp_path / DB_NAME) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == len(dbmod.MIGRATIONS)
