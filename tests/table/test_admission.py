"""A table seats a person only once whoever keeps its results admits them (`TableEvents.admit`): the person
refused is told why and let go with nothing of the seat (no welcome: no role, no values), and the trainer's
keeping of a seat asks the same keeper first (`may_keep`)."""

from __future__ import annotations

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
