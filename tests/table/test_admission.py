"""A table seats a person only once whoever keeps its results admits them (`TableEvents.admit`): the person
refused is told why and let go with nothing of the seat (no welcome: no role, no values), and the trainer's
keeping of a seat asks the same keeper first (`may_keep`)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from negtui.table.client import TableGone
from negtui.table.events import TableEvents
from negtui.table.host import TableHost
from negtui.table.steer import steer
from tests.table.conftest import Person, Running, table_spec


class Doorman(TableEvents):
    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []
        self.gone: list[tuple[str, str]] = []

    async def admit(self, name: str, player: str) -> str | None:
        self.asked.append((name, player))
        return "you may not read that role" if name == "mallory" else None

    def gave_up(self, name: str, player: str) -> None:
        self.gone.append((name, player))

    async def may_keep(self, name: str, player: str) -> str | None:
        return f"{name} may not have {player}" if name == "mallory" else None


def test_a_person_the_keeper_refuses_is_shown_nothing_of_the_seat(tmp_path: Path) -> None:
    doorman = Doorman()
    spec = table_spec(tmp_path, roles={"A": "the secret of A", "B": "the secret of B"})
    table = Running(TableHost(spec, tmp_path / "t.sock", events=doorman), tmp_path / "t.sock")
    try:
        mallory = Person(table.path, "mallory", "B")
        refused = mallory.expect("refused")
        assert refused == {"type": "refused", "why": "you may not read that role", "final": True}
        alice = Person(table.path, "alice", "B")
        assert alice.expect("welcome")["role"] == "the secret of B"
        assert mallory.lines.empty() and mallory.seen == [refused]  # no welcome, nor any line after the refusal
        assert doorman.asked == [("mallory", "B"), ("alice", "B")]
        assert all(p["name"] != "mallory" for p in alice.expect("people")["people"])
        with pytest.raises(TableGone, match="mallory may not have A"):
            steer(table.path, {"type": "assign", "name": "mallory", "seat": "A"})
        steer(table.path, {"type": "assign", "name": "bob", "seat": "A"})
        alice.close()
        table.stop()
        assert doorman.gone == [("alice", "B")]  # left before the start: the seat given up
    finally:
        table.stop()


def test_the_trainer_gives_a_latecomer_a_seat_a_bot_plays_once_the_game_is_under_way(open_table, person,
                                                                                     tmp_path: Path) -> None:
    table = open_table(table_spec(tmp_path, people=("A", "B")))
    alice = person(table.path, "alice", "A")
    alice.expect("welcome")
    steer(table.path, {"type": "start"})
    assert alice.expect("started")["seats"]["B"]["agent"] == "lens"  # nobody came for B: a bot plays it
    with pytest.raises(TableGone, match="A is alice's seat"):
        steer(table.path, {"type": "assign", "name": "carol", "seat": "A"})
    steer(table.path, {"type": "assign", "name": "carol", "seat": "B"})  # carol is late: B is kept for her
    kept = alice.expect("people", lambda m: m["people"][1]["name"] == "carol")["people"][1]
    assert (kept["online"], kept["seat"]["agent"]) == (False, "lens")  # the bot plays on until she sits down
    with pytest.raises(TableGone, match="carol holds B at this table already"):
        steer(table.path, {"type": "assign", "name": "carol", "seat": "B"})
    dave = person(table.path, "dave", "B")
    assert dave.expect("refused")["why"] == "every seat for a person at this table is taken"
    carol = person(table.path, "carol")
    assert carol.expect("welcome")["you"] == "B"
    alice.expect("people", lambda m: m["people"][1]["seat"]["agent"] == "human" and m["people"][1]["online"])


def test_an_empty_table_the_trainer_opened_waits_for_people_where_a_trainees_closes(open_table, wait_for,
                                                                                   tmp_path: Path) -> None:
    from tests.table.conftest import FakeClock

    clock = FakeClock()
    kept = open_table(spec=table_spec(tmp_path, opened_by_trainer=True), clock=clock)
    left = open_table(clock=clock)  # a table a trainee opened and left before anyone else came
    clock.advance(61)  # past a minute with nobody at either
    wait_for(lambda: left.host.ended == "nobody was at the table", "the trainee's empty table closed")
    time.sleep(0.6)  # three of the trainer's table's looks at its clocks (every 0.2 s) past the minute
    assert kept.host.ended is None
    clock.advance(3_600)  # the course's hour with nobody connected: then it closes too
    wait_for(lambda: kept.host.ended == "nobody was at the table", "the trainer's empty table closed at last")
