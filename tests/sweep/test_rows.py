"""The Arrow view of results rows that the report's group-bys read."""

from __future__ import annotations

from negtui.sweep.rows import GAME, Rows, grouped, table_of


def test_groups_come_in_the_order_they_first_appear_and_last_means_the_last_row():
    t = table_of([{"method": "b", "seed": 1}, {"method": "a", "seed": 2}, {"method": "b", "seed": None}],
                 ["method", "seed"])
    assert list(grouped(t, ["method"], "seed")) == [("b",), ("a",)]
    assert grouped(t, ["method"], "seed") == {("b",): [1, None], ("a",): [2]}
    assert grouped(t, ["method"], "seed", "last") == {("b",): None, ("a",): 2}  # an empty cell is a value


def test_a_column_is_built_once_and_again_after_rows_are_added():
    rows = Rows([{"task": "t1", "sample": None}, {"task": "t2", "sample": 3}])
    assert rows.column(GAME).to_pylist() == ["t1", "t2#3"]  # report.game_key
    assert rows.column(GAME) is rows.column(GAME)
    rows.append({"task": "t3", "sample": 0})
    assert rows.table(["task", GAME]).column(GAME).to_pylist() == ["t1", "t2#3", "t3#0"]
