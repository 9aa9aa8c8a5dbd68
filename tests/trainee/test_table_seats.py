"""A course's tables take a seat only when the results database says it may be taken (seatbook.py), checked by
the table's process before it shows the seat anything: a trainee logged in twice holds one attempt of a
table exercise, a confidential role is read from one seat only, and a seat the trainer keeps binds its
trainee.  Real table processes, opened by the server's table keeper; people sit as the app does."""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from pathlib import Path

import pytest
from textual.widgets import OptionList

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.classroom.gradebook import gradebook
from negtui.classroom.seatbook import seat_rules
from negtui.table.client import TableGone
from negtui.table.source import sit
from negtui.table.steer import steer
from negtui.trainee.lobby import LobbyScreen
from negtui.trainee.table_picker import TablePicker
from negtui.trainee.training import TrainingApp
from tests.keeper import Server
from tests.waiting import wait_for

ROLE_A = "You are Alice: the pill is your secret weapon."
ROLE_B = "You are Bob: you must avoid the pill at any cost."
COURSE = f"""\
name = "seats"
title = "Seats"

[[exercises]]
id = "exam"
title = "The pill in pairs, graded once"
scenario = "poison-pill"
humans = ["A", "B"]
mode = "assessment"
attempts = 1

[[exercises]]
id = "secret"
title = "The pill in pairs, private roles"
scenario = "poison-pill"
humans = ["A", "B"]
information = "private"
[exercises.roles]
A = "{ROLE_A}"
B = "{ROLE_B}"
"""


@pytest.fixture
def seats(tmp_path: Path) -> Generator[Server]:
    course = tmp_path / "course.toml"
    course.write_text(COURSE)
    s = Server(tmp_path / "data", course)
    yield s
    s.stop()


def _socket(server: Server, table_id: int) -> Path:
    row = server.db.tables.get(table_id)
    assert row is not None
    return Path(row.socket)


def _held(server: Server, table_id: int, name: str) -> str | None:
    row = server.db.tables.get(table_id)
    held = row.holds(name) if row is not None else None
    return held.player if held is not None else None


@pytest.mark.asyncio
async def test_a_session_whose_picker_said_one_play_left_cannot_sit_at_a_classmates_table_too(
        seats: Server, wait_until, screen_text) -> None:
    """Her second session opens the picker (one play left); her first sits at a table of her own, bob opens his;
    the second session picks bob's table: refused, with where her seat is, and the gradebook says 1 of 1."""
    course = load_course(seats.keeper.course_path)
    with ResultsDB.open(seats.data) as db:
        app = TrainingApp(course, db, "alice", data_dir=seats.data, hub=seats.path)
        async with app.run_test(size=(140, 44), notifications=True) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "0 plays of 1" in
                             screen_text(app), "the lobby, one play left")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, TablePicker), "the table picker")
            picker = app.screen
            own = await asyncio.to_thread(seats.open, "exam")  # her first session's own table
            first = await asyncio.to_thread(sit, Path(own["socket"]), "alice", "A")
            theirs = await asyncio.to_thread(seats.open, "exam", "bob")
            bob = await asyncio.to_thread(sit, Path(theirs["socket"]), "bob", "A")
            await wait_until(pilot, lambda: [r.id for r in picker.rows] == [own["table"], theirs["table"]],
                             "both tables in the picker", timeout=30)
            picker.query_one(OptionList).highlighted = 1  # bob's table, seat B free
            await pilot.pause()
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: any("could not sit down" in n.message for n in app._notifications),
                             "the refusal", timeout=30)
            (told,) = [n.message for n in app._notifications if "could not sit down" in n.message]
            assert f"you sit at table {own['table']} of this exercise already" in told
            assert app.live is None
            carol = await asyncio.to_thread(sit, Path(own["socket"]), "carol")  # her own table fills and starts
            await asyncio.to_thread(wait_for, lambda: [g for g in db.results("seats") if g["trainee"] == "alice"
                                                       and g["record_path"]], "alice's game started")
            (row,) = [r for r in gradebook(db, course.course) if r["trainee"] == "alice" and r["exercise"] == "exam"]
            assert (row["attempts_used"], row["attempts_allowed"]) == (1, 1)
            assert [g["table"] for g in db.results("seats") if g["trainee"] == "alice"] == [own["table"]]
            for source in (first, bob, carol):
                source.close()


def test_a_confidential_role_is_read_from_one_seat_only(seats: Server) -> None:
    """Alice reads A's role at her table and leaves before the start; B's seat, there, at bob's table or at a
    table where the trainer keeps A for carol, never shows her B's role; the trainer cannot keep B for her."""
    mine = seats.open("secret")
    path = Path(mine["socket"])
    alice = sit(path, "alice", "A")
    assert alice.view.role == ROLE_A
    alice.close()
    wait_for(lambda: _held(seats, mine["table"], "alice") is None, "her seat given up")
    refusal = r"you have been shown the confidential role of Alice \(A\) in this exercise: at its tables you sit as " \
              r"Alice \(A\) only"
    with pytest.raises(TableGone, match=refusal) as err:
        sit(path, "alice", "B")
    assert ROLE_B not in str(err.value)
    theirs = seats.open("secret", "bob")
    bob = sit(Path(theirs["socket"]), "bob", "A")
    with pytest.raises(TableGone, match=refusal):
        sit(Path(theirs["socket"]), "alice")  # the seat left is B
    kept, why = seats.run(seats.keeper.open_for("secret", "trainer tom", {"A": "carol"}))
    assert kept is not None, why
    wait_for(lambda: _held(seats, kept, "carol") == "A", "A kept for carol")
    with pytest.raises(TableGone, match=refusal):
        sit(_socket(seats, kept), "alice", "A")  # A is carol's: she would be given B
    with pytest.raises(TableGone, match=r"alice has been shown the role of Alice \(A\) in this exercise"):
        steer(_socket(seats, kept), {"type": "assign", "name": "alice", "seat": "B"})
    again = sit(path, "alice", "A")  # her own role, at any table
    assert (again.view.you, again.view.role) == ("A", ROLE_A)
    assert seats.db.seats.role_seen("alice", "seats", "secret") == "A"
    for source in (bob, again):
        source.close()


def test_a_seat_the_trainer_keeps_binds_its_trainee_and_stays_hers_when_she_leaves(seats: Server) -> None:
    kept, why = seats.run(seats.keeper.open_for("exam", "trainer tom", {"A": "alice"}))
    assert kept is not None, why
    wait_for(lambda: _held(seats, kept, "alice") == "A", "A kept for alice in the table's row")
    own = seats.open("exam")
    with pytest.raises(TableGone, match=rf"the trainer keeps Alice \(A\) at table {kept} for you"):
        sit(Path(own["socket"]), "alice", "A")
    alice = sit(_socket(seats, kept), "alice", "B")
    assert alice.view.you == "A"  # the seat kept for her, whatever she asked
    alice.close()  # before the start: the seat is still kept for her
    wait_for(lambda: (r := seats.db.tables.get(kept)) is not None and not any(o.online for o in r.people),
             "alice gone from the table")
    bob = sit(_socket(seats, kept), "bob", "A")
    assert bob.view.you == "B"
    assert _held(seats, kept, "alice") == "A"
    bob.close()


@pytest.mark.asyncio
async def test_the_picker_offers_only_the_seat_whose_role_she_has_been_shown(tmp_path: Path, wait_until,
                                                                              screen_text) -> None:
    from textual.widgets import Select
    from textual.widgets._select import InvalidSelectValueError

    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_trainee("alice")
        table = db.tables.opened("seats", "secret", "/nowhere.sock")
        db.seats.claim(table, "alice", "B", seat_rules(course, "secret"))  # shown B's role, then left
        db.seats.given_up(table, "alice")
        db.tables.closed(table, "nobody else came")
        app = TrainingApp(course, db, "alice", data_dir=data)
        async with app.run_test(size=(140, 44)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "private roles" in
                             screen_text(app), "the lobby")
            await pilot.press("down", "enter")
            await wait_until(pilot, lambda: isinstance(app.screen, TablePicker), "the table picker")
            picker = app.screen
            await wait_until(pilot, lambda: picker.role == "B", "the role she was shown, read")
            seat = picker.query_one("#seat", Select)
            assert seat.value == "B"
            with pytest.raises(InvalidSelectValueError):
                seat.value = "A"  # not among the seats offered
