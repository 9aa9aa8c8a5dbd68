"""A table closed as its game ends (the server stopped while the table worked out the debriefs' numbers) keeps
its trainees' games for the results the table files next; a table closed mid-game abandons them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.classroom.table_results import TableResults
from tests.keeper import COURSE


@pytest.mark.parametrize(("over", "status"), [(True, "playing"), (False, "abandoned")])
def test_a_table_closed_after_its_game_is_over_leaves_its_games_to_be_filed(tmp_path, over, status) -> None:
    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("alice")
        table = db.tables.opened("tables", "trap", "-")
        db.tables.started(table, "r.jsonl", 6, {"A": 0.0})
        game = db.game_started("alice", "tables", "trap", "coalition-trap", "d", "A", "r.jsonl", table_id=table)
        results = TableResults(db, course, "trap", table)
        results.game = SimpleNamespace(over=over)
        results.closed("the training server stopped")
        results.close()  # the database's thread done
        row = db.rows("SELECT status FROM games WHERE id = ?", (game,))[0]
        assert row[0] == status
        assert db.tables.get(table).status == "closed"
