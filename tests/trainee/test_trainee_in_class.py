"""What a trainee sees of the class the trainer runs, driven through the pilot against the server's table
keeper (opening the tables the console asks for) and real table processes: the empty tables the trainer
opens, listed and taken in the picker; the lobby following the class without a key pressed (a table opened
or ended, results released); the trainer's messages kept to read again in the lobby and at a table; a
roster's names for its tables on every screen; every seat of a six-party table, and who is away, on the
table pane at 80x24; and a latecomer taking a seat a bot plays at a table under way, picked or given."""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import OptionList, Select

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.console.app import ClassApp
from negtui.console.dialogs import AssignScreen
from negtui.table.source import sit
from negtui.table.steer import steer
from negtui.trainee.messages import MessagesScreen
from negtui.trainee.table_picker import TableChoice, TablePicker
from negtui.trainee.training import TrainingApp
from negtui.tui.screens.table import TableScreen
from tests.keeper import COURSE, Server
from tests.waiting import wait_for_async

CLASS = COURSE + """
[[exercises]]
id = "access"
title = "Humanitarian access, three of six"
scenario = "humanitarian-access"
humans = 3

[[exercises]]
id = "car"
title = "A car sale, private limits"
scenario = "private-car-sale"
humans = ["B", "S"]
information = "private"
"""

pytestmark = pytest.mark.asyncio


@pytest.fixture
def classroom(tmp_path: Path) -> Generator[Server]:
    """The server with its loop answering the console's requests for tables, as `negtui serve` runs it."""
    course = tmp_path / "course.toml"
    course.write_text(CLASS)
    s = Server(tmp_path / "data", course)
    s.db.add_trainee("dave")
    requests = asyncio.run_coroutine_threadsafe(s.keeper.serve_requests(0.1), s.loop)
    yield s
    requests.cancel()
    s.stop()


async def _opened(db: ResultsDB, request: int) -> int:
    """The table the server opened for a request of the console's."""
    await wait_for_async(lambda: db.tables.request_answer(request)[0] != "waiting", "the server's answer")
    status, table, why = db.tables.request_answer(request)
    assert status == "opened" and table is not None, why
    return table


async def test_the_empty_tables_the_trainer_opens_are_listed_and_taken(classroom: Server, wait_until,
                                                                      screen_text) -> None:
    db = classroom.db
    first = await _opened(db, db.tables.request("tables", "pill", {}, "tom"))
    second = await _opened(db, db.tables.request("tables", "pill", {}, "tom"))
    args = Path(f"/proc/{classroom.keeper.open[first].process.pid}/cmdline").read_bytes().split(b"\0")
    assert b"--by-trainer" in args  # it waits for people past the minute an empty table a trainee left has
    course = load_course(classroom.keeper.course_path)
    app = TrainingApp(course, db, "alice", data_dir=classroom.data, hub=classroom.path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: "2 waiting for people" in screen_text(app), "the lobby, two tables waiting")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TablePicker), "the table picker")
        await wait_until(pilot, lambda: f"table {second}" in screen_text(app), "both tables listed")
        text = screen_text(app)
        assert f"table {first}" in text and "Alice: free · Bob: free" in text
        await pilot.press("down", "ctrl+s")  # the second table, in its first free seat
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "alice at the table", timeout=60)
        assert app.table_id == second and app.live is not None and app.live.view.you == "A"
        assert len(db.tables.live("tables", "pill")) == 2  # no third table opened
        app.live.close()


def _app(server: Server, name: str = "alice", session: bool = True) -> TrainingApp:
    """A trainee's app as the server starts it: with a session, its class tick runs."""
    db = server.db
    sid = db.session_started(name, "127.0.0.1", "fp") if session else None
    return TrainingApp(load_course(server.keeper.course_path), db, name, data_dir=server.data, session_id=sid,
                       hub=server.path)


def _entry(app: TrainingApp, k: int) -> str:
    """The lobby's k-th entry, as plain text."""
    prompt = app.screen.query_one(OptionList).get_option_at_index(k).prompt
    return prompt.plain if isinstance(prompt, Text) else str(prompt)


def _lobby_line(app: TrainingApp, screen_text, title: str) -> str:
    """The lobby's entry of an exercise: its title's line and the status line under it."""
    lines = screen_text(app).splitlines()
    k = next(k for k, line in enumerate(lines) if title in line)
    return lines[k] + " " + lines[k + 1]


async def test_the_lobby_follows_the_class_without_a_key_pressed(classroom: Server, wait_until, screen_text) -> None:
    db = classroom.db
    app = _app(classroom)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: "results held by the trainer" in _lobby_line(app, screen_text, "A car sale"),
                         "the car sale's results held")
        assert "waiting for people" not in _lobby_line(app, screen_text, "The poison pill")
        first = await _opened(db, db.tables.request("tables", "pill", {}, "tom"))
        second = await _opened(db, db.tables.request("tables", "pill", {}, "tom"))
        await wait_until(pilot, lambda: "2 waiting for people" in _lobby_line(app, screen_text, "The poison pill"),
                         "the trainer's two tables in the lobby", timeout=10)
        db.classroom.release("tables", "car")  # the console's l
        await wait_until(pilot, lambda: "held" not in _lobby_line(app, screen_text, "A car sale"),
                         "the results released in the lobby", timeout=10)
        for table in (first, second):  # the console's E
            row = db.tables.get(table)
            assert row is not None
            await asyncio.to_thread(steer, Path(row.socket), {"type": "end"})
        await wait_until(pilot, lambda: "waiting" not in _lobby_line(app, screen_text, "The poison pill"),
                         "the ended tables gone from the lobby", timeout=10)


async def test_the_trainers_messages_are_kept_to_read_again_in_the_lobby_and_at_a_table(classroom: Server, wait_until,
                                                                                       screen_text) -> None:
    db = classroom.db
    db.classroom.notice("said before alice came: round one starts at ten")
    app = _app(classroom)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: "round one starts at ten" in screen_text(app), "the earlier message")
        assert not app._notifications  # a latecomer reads it in the lobby; it is not news
        db.classroom.notice("the car sale opens in five minutes")
        await wait_until(pilot, lambda: any("five minutes" in n.message for n in app._notifications), "the notice")
        await wait_until(pilot, lambda: "car sale opens in five minutes" in str(app.screen.query_one("#messages")
                                                                                 .render()), "the lobby's messages")
        app.clear_notifications()
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, MessagesScreen), "every message")
        text = screen_text(app)
        assert text.index("car sale opens") < text.index("round one starts")  # newest first
        await pilot.press("escape")
        await pilot.press("enter")  # the pill, at a new table
        await wait_until(pilot, lambda: isinstance(app.screen, TablePicker), "the table picker")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "alice at the table", timeout=60)
        await wait_until(pilot, lambda: "the trainer to the whole class" in screen_text(app),
                         "the table pane's messages")
        db.classroom.notice("ten minutes left in this round")
        await wait_until(pilot, lambda: "ten minutes left in this round" in
                         app.screen.query_one("#table-talk").plain, "the new message on the table pane")
        assert "round one starts at ten" in app.screen.query_one("#table-talk").plain
        assert app.live is not None
        app.live.close()


async def test_a_rosters_names_for_its_tables_are_what_the_trainees_read(classroom: Server, wait_until,
                                                                       screen_text) -> None:
    db = classroom.db
    north = await _opened(db, db.tables.request("tables", "pill", {"A": "alice"}, "tom", "north"))
    row = db.tables.get(north)
    assert row is not None and row.name == "north" and row.called == "table north"
    app = _app(classroom)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: "your seat, kept for you" in screen_text(app), "alice's kept seat")
        assert "The poison pill, in pairs as A · Alice  (table north)" in _entry(app, 0)
        await pilot.press("home", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "alice at table north", timeout=60)
        assert app.live is not None and app.live.view.title.endswith("· table north")
        assert app.place().startswith("table north: The poison pill, in pairs as A · Alice, ")
        app.live.close()
    bob = _app(classroom, "bob")
    async with bob.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: "1 waiting for people" in screen_text(bob), "the table in bob's lobby")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(bob.screen, TablePicker) and "table north" in screen_text(bob),
                         "table north in the picker")


async def test_every_seat_of_a_six_party_table_and_who_is_away_show_at_80x24(classroom: Server, wait_until,
                                                                             screen_text) -> None:
    db = classroom.db
    table = await _opened(db, db.tables.request("tables", "access", {"Armed_Group": "bob"}, "tom"))
    row = db.tables.get(table)
    assert row is not None
    app = _app(classroom, session=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.enter_table(app.course.exercise("access"), TableChoice(table, "Community_Council"))
        await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "alice at the table", timeout=60)
        await wait_until(pilot, lambda: "bob ○ not here yet" in screen_text(app), "bob's kept seat at 80x24")
        text = screen_text(app)
        for seat in ("UN Humanitarian Coordinator", "NGO Consortium", "Host Government", "Donor Group"):
            assert f"{seat}  free" in text  # every seat on a line of its own, whole where it fits
        assert "Armed Group  bob ○ not here yet" in text and "Community Council  you" in text
        bob = await asyncio.to_thread(sit, Path(row.socket), "bob")
        seats = app.screen.query_one("#table-seats")
        await wait_until(pilot, lambda: "Armed Group  bob ● online" in seats.plain, "bob sat down")
        await asyncio.to_thread(steer, Path(row.socket), {"type": "start"})
        await wait_until(pilot, lambda: app.live is not None and app.live.view.started, "the start")
        bob.close()
        await wait_until(pilot, lambda: "Armed Group  bob ○ away" in seats.plain, "bob away")
        assert len(seats.plain.splitlines()) == 6 and max(len(line) for line in seats.plain.splitlines()) \
            <= seats.size.width  # a line a seat, none wrapped past the pane (an offer's dialog is on screen now)
        assert app.live is not None
        app.live.close()


async def test_a_latecomer_picks_a_seat_a_bot_plays_at_a_table_under_way(classroom: Server, wait_until,
                                                                         screen_text) -> None:
    db = classroom.db
    table = await _opened(db, db.tables.request("tables", "pill", {}, "tom"))
    row = db.tables.get(table)
    assert row is not None
    alice = await asyncio.to_thread(sit, Path(row.socket), "alice", "A")
    await asyncio.to_thread(steer, Path(row.socket), {"type": "start"})  # the trainer's s: a bot plays B
    bob = _app(classroom, "bob")
    async with bob.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: "1 under way with a seat open" in screen_text(bob),
                         "the open seat in the lobby", timeout=10)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(bob.screen, TablePicker) and "open: sit down to take it over" in
                         screen_text(bob), "the bot's seat marked open")
        assert f"table {table}  under way" in screen_text(bob)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(bob.screen, TableScreen), "bob at the table", timeout=60)
        assert bob.live is not None and bob.live.view.you == "B" and bob.table_id == table
        bob.live.close()
    alice.close()


async def test_the_trainer_gives_a_latecomer_a_bots_seat_from_the_console(classroom: Server, wait_until,
                                                                         screen_text) -> None:
    db = classroom.db
    table = await _opened(db, db.tables.request("tables", "pill", {}, "tom"))
    row = db.tables.get(table)
    assert row is not None
    alice = await asyncio.to_thread(sit, Path(row.socket), "alice", "A")
    await asyncio.to_thread(steer, Path(row.socket), {"type": "start"})
    console = ClassApp(load_course(classroom.keeper.course_path), db, data_dir=classroom.data)
    async with console.run_test(size=(160, 50)) as pilot:
        await pilot.press("2")
        await wait_until(pilot, lambda: "playing" in screen_text(console), "the table under way in the console")
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(console.screen, AssignScreen), "the latecomer's dialog")
        dialog = console.screen
        assert "Give a latecomer a seat at table" in screen_text(console)
        dialog.query_one("#seat", Select).value = "B"
        dialog.query_one("#trainee", Select).value = "dave"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: "keeps B · Bob for dave" in screen_text(console), "the seat given")
    dave = _app(classroom, "dave")
    async with dave.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: "your seat, kept for you" in screen_text(dave), "dave's kept seat")
        assert _entry(dave, 0).endswith(f"as B · Bob  (table {table}, under way: a bot plays it until you sit down)")
        await pilot.press("home", "enter")
        await wait_until(pilot, lambda: isinstance(dave.screen, TableScreen), "dave at the table", timeout=60)
        assert dave.live is not None and dave.live.view.you == "B" and dave.live.view.started
        dave.live.close()
    alice.close()
