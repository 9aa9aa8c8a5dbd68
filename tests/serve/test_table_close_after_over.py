"""A table closed as its game ends (the server stopped while the table worked out the debriefs' numbers) keeps
its trainees' games for the results the table files next; a table closed mid-game abandons them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from negtui.classroom.db import ResultsDB
from negtui.scenario import load_scenario
from negtui.scenario.library import find
from negtui.serve.table_child import TableResults


@pytest.mark.parametrize(("over", "status"), [(True, "playing"), (False, "abandoned")])
def test_a_table_closed_after_its_game_is_over_leaves_its_games_to_be_filed(tmp_path, over, status) -> None:
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("alice")
        table = db.tables.opened("class", "trap", "-")
        game = db.game_started("alice", "class", "trap", "coalition-trap", "d", "A", "r.jsonl", table_id=table)
        course = SimpleNamespace(scenarios={"trap": load_scenario(find("coalition-trap"))})  # what it reads of one
        results = TableResults(db, course, "trap", table)  # type: ignore[arg-type]
        results.game = SimpleNamespace(over=over)
        results.closed("the training server stopped")
        results.close()  # the database's thread done
        row = db.rows("SELECT status FROM games WHERE id = ?", (game,))[0]
        assert row[0] == status
        assert db.tables.get(table).status == "closed"
