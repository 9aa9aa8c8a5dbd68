"""A table starts when someone sits at it: the trainer's start, and the time a table waits before bots take the
empty seats, leave a table nobody has sat down at waiting (its kept seats name whom it waits for), so no game is
played by bots alone in seats kept for people who never came."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from negtui.table.client import TableGone
from negtui.table.steer import steer
from tests.table.conftest import table_spec


def test_the_trainer_cannot_start_a_table_nobody_sits_at(open_table, person, tmp_path: Path) -> None:
    table = open_table(table_spec(tmp_path, reserved={"A": "dave"}))
    with pytest.raises(TableGone, match=r"nobody has sat down at this table yet \(kept: A for dave\)"):
        steer(table.path, {"type": "start"})
    assert table.host.game is None
    alice = person(table.path, "alice")
    assert alice.expect("welcome")["you"] == "B"
    steer(table.path, {"type": "start"})
    started = alice.expect("started")
    assert started["seats"]["A"]["agent"] == "lens"  # dave's seat: a bot until he comes
    people = {p["player"]: p for p in alice.expect("people")["people"]}
    assert people["A"]["name"] == "dave" and not people["A"]["online"]  # still kept for him


def test_a_table_past_its_wait_starts_only_once_someone_sits_down(open_table, person, tmp_path: Path) -> None:
    table = open_table(table_spec(tmp_path, reserved={"A": "dave"}, start_after=0.1))
    time.sleep(1.0)  # five looks of the table's clock past its wait
    assert table.host.game is None
    alice = person(table.path, "alice")
    alice.expect("welcome")
    assert alice.expect("started")["seats"]["A"]["agent"] == "lens"
