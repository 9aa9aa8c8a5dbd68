"""The trainer's console driven through the pilot, against the server's table keeper and a real table
process: who is online and where, a table paused and resumed, a seat kept, a message to a table and a
notice to the whole class received, a table watched live, the class debrief with its plot, and the
export of every decision."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import threading
from pathlib import Path

import pytest
from textual.widgets import TabbedContent
from typer.testing import CliRunner

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import Decision
from negtui.classroom.debrief import class_debrief
from negtui.cli import app as cli
from negtui.console.app import ClassApp, ConsoleHelp
from negtui.console.dialogs import AssignScreen
from negtui.console.screen import ClassScreen
from negtui.table.source import TableSource, sit
from negtui.tui.screens.dialogs import ConfirmScreen
from negtui.tui.screens.say import SayScreen
from negtui.tui.screens.table import TableScreen
from tests.keeper import Server


def _numbers(t: int, cost: float) -> dict:
    """A decision's coaching numbers as the coach files them (coach.assess.describe)."""
    return {"turn": t, "player": "A", "phase": "propose", "reference": "mean", "cost": cost,
            "yours": {"who": "you", "values": {"myopic": 1.0, "upper": 2.0, "lower": 0.0}, "partner": "B",
                      "offer": [], "words": "nothing", "accept": False},
            "others": [{"who": "upper", "values": {"myopic": 4.0, "upper": 5.0, "lower": 3.0}, "partner": "B",
                        "offer": [["A", "bait"]], "words": "A takes the bait", "accept": True},
                       {"who": "lower", "values": {"myopic": 1.0, "upper": 2.0, "lower": 0.0}, "partner": "B",
                        "offer": [], "words": "nothing", "accept": False}],
            "agreeing": ["lower"]}


def _finished(db: ResultsDB, name: str, seat: str, payoffs: list[float], table: int | None, cost: float) -> None:
    game = db.game_started(name, "tables", "pill", "poison-pill", "d", seat, "/r.jsonl", table_id=table)
    db.game_finished(game, payoff=payoffs["AB".index(seat)], payoffs=payoffs, baseline=0.0, counterfactuals={},
                     welfare_optimum=20.0, efficiency=sum(payoffs) / 20.0, duration=60.0,
                     decisions=[Decision(0, "propose", "to B: nothing (rejected)", cost, _numbers(0, cost))])


def _seed_results(db: ResultsDB) -> None:
    """Two tables of the pill exercise finished, and one game played alone."""
    for name in ("dave", "erin"):
        db.add_trainee(name)
    one, two = db.tables.opened("tables", "pill", "-"), db.tables.opened("tables", "pill", "-")
    for t in (one, two):
        db.tables.over(t)
    _finished(db, "dave", "A", [10.0, 6.0], one, 3.0)
    _finished(db, "erin", "B", [10.0, 6.0], one, 0.0)
    _finished(db, "dave", "B", [2.0, 2.0], two, 1.5)
    _finished(db, "erin", "A", [12.0, 4.0], None, 0.5)


async def show_tab(pilot, app: ClassApp, key: str, shown: str, wait_until) -> None:
    """The console's tab of that key, and its list on screen."""
    await pilot.press(key)
    await wait_until(pilot, lambda: app.screen.query_one(shown).is_on_screen, f"the tab of {key}")


def _cells(app: ClassApp, table: str) -> list[str]:
    dt = app.screen.query_one(table)
    return [" | ".join(str(c) for c in dt.get_row_at(r)) for r in range(dt.row_count)]


@pytest.mark.slow
@pytest.mark.asyncio
async def test_the_console_lists_people_steers_a_table_and_debriefs_the_class(server: Server, wait_until,
                                                                             screen_text, tmp_path: Path) -> None:
    course = load_course(server.keeper.course_path)
    db = server.db
    db.add_trainee("trainer")
    db.classroom.set_trainer("trainer")
    _seed_results(db)
    alice_session = db.session_started("alice", "127.0.0.1", "fp")
    db.classroom.place(alice_session, "in the lobby")
    db.session_started("bob", "127.0.0.1", "fp")
    opened = server.open("pill", "alice")
    alice = await asyncio.to_thread(sit, Path(opened["socket"]), "alice")
    bob = await asyncio.to_thread(sit, Path(opened["socket"]), "bob")
    _listen(alice), _listen(bob)
    table_id = opened["table"]
    try:
        app = ClassApp(course, db, data_dir=server.data)
        async with app.run_test(size=(160, 50)) as pilot:
            await wait_until(pilot, lambda: any("alice" in r and "in the lobby" in r
                                                for r in _cells(app, "#people-list")), "alice in the lobby")
            people = _cells(app, "#people-list")
            assert any("bob" in r and "online" in r for r in people)
            assert any("carol" in r and "offline" in r for r in people)
            assert "2 online" in screen_text(app)

            await show_tab(pilot, app, "2", "#table-list", wait_until)
            await wait_until(pilot, lambda: any(r.startswith(f"{table_id} ") and "playing" in r
                                                for r in _cells(app, "#table-list")), "the table playing")
            row = next(r for r in _cells(app, "#table-list") if r.startswith(f"{table_id} "))
            assert "alice, bob" in row and "1/" in row
            # the live view: whose decision the table waits for (A proposes first: alice), and since when
            await wait_until(pilot, lambda: db.tables.get(table_id).deciding == "A", "the table filing who moves")
            assert db.tables.get(table_id).idle() is not None
            await pilot.press("r")
            await wait_until(pilot, lambda: any(r.startswith(f"{table_id} ") and " alice 0:0" in r
                                                for r in _cells(app, "#table-list")), "alice to move, in the list")
            screen = app.screen
            assert isinstance(screen, ClassScreen)
            dt = screen.query_one("#table-list")
            dt.move_cursor(row=next(k for k, r in enumerate(_cells(app, "#table-list"))
                                    if r.startswith(f"{table_id} ")))
            await wait_until(pilot, lambda: f"table {table_id} ·" in str(screen.query_one("#table-detail").render()),
                             "the highlighted table's detail")
            detail = str(screen.query_one("#table-detail").render())
            assert "A alice●" in detail and "B bob●" in detail and "so far alice 0.00 (-30.00)" in detail
            await pilot.press("p")
            await wait_until(pilot, lambda: alice.view.paused, "alice told of the pause")
            await wait_until(pilot, lambda: any(r.startswith(f"{table_id} ") and "paused" in r
                                                for r in _cells(app, "#table-list")), "the console showing it")
            await pilot.press("p")
            await wait_until(pilot, lambda: not bob.view.paused, "the table going on")

            await pilot.press("m")  # a message to the table, everyone at it
            await wait_until(pilot, lambda: isinstance(app.screen, SayScreen), "the message dialog")
            await pilot.press(*"five minutes", "enter")
            await wait_until(pilot, lambda: _heard(alice, "five minutes"), "alice reading the message")

            await pilot.press("b")  # a notice to the whole class
            await wait_until(pilot, lambda: isinstance(app.screen, SayScreen), "the notice dialog")
            await pilot.press(*"back at ten", "enter")
            await wait_until(pilot, lambda: db.classroom.notices_after(0) != [], "the notice filed")
            assert db.classroom.notices_after(0)[0][2] == "back at ten"

            await pilot.press("w")  # watch the table live
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table watched")
            watched = app.live
            assert isinstance(watched, TableSource) and watched.me is None
            await wait_until(pilot, lambda: "alice" in screen_text(app) and "five minutes" in screen_text(app),
                             "the table's people and messages")
            await pilot.press("q")  # a watcher leaves without a question
            await wait_until(pilot, lambda: isinstance(app.screen, ClassScreen), "back at the console")
            assert app.live is None and watched.client.closed

            await pilot.press("e")  # call time: the game ends as it stands, filed as the trainer ended it
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "asked before calling time")
            assert "Call time at table" in screen_text(app)
            await pilot.press("y")
            await wait_until(pilot, lambda: alice.game.over and bob.game.over, "the game over for both")
            assert alice.game.ended == bob.game.ended == "trainer" and not alice.view.closed
            await wait_until(pilot, lambda: db.tables.get(table_id).status == "over", "the table filed", timeout=60)
            row = db.tables.get(table_id)
            assert row.ending == "trainer" and row.turn < row.turns
            assert {g.status for g in db.games("tables", "pill") if g.table_id == table_id} == {"finished"}
            await pilot.press("r")
            await wait_until(pilot, lambda: any(r.startswith(f"{table_id} ") and "ended by the trainer" in r
                                                for r in _cells(app, "#table-list")), "the console saying so")
            listed = next(r for r in _cells(app, "#table-list") if r.startswith(f"{table_id} "))
            assert f"{row.turn + 1}/{row.turns}" in listed  # the turn it ended at, not the last

            await pilot.press("3")
            await wait_until(pilot, lambda: "outcome" in screen_text(app), "the class debrief")
            text = screen_text(app)
            assert "4 tables (or games alone) finished" in text
            assert "A · Alice" in text and "B · Bob" in text and "●" in text and "baseline" in text
            assert "table 1" in text or f"table {table_id}" in text
            assert "A takes the bait (upper)" in text  # the costliest decision and its better alternative
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: isinstance(app.screen, ConsoleHelp), "the console's keys")
            assert "tell the whole class" in screen_text(app)
            await pilot.press("escape")
    finally:
        alice.close()
        bob.close()


def _listen(source: TableSource) -> threading.Thread:
    """Take in the table's lines as a person's app would (no app listens for these people)."""
    def run() -> None:
        while (line := source.client.receive()) is not None:
            source.receive(line)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _heard(source: TableSource, text: str) -> bool:
    return any(s.text == text and s.sender == "trainer" for s in source.view.said)


@pytest.mark.asyncio
async def test_a_list_focused_as_its_tab_opens_never_brings_its_tab_back(server: Server, wait_until) -> None:
    """Each tab's list takes the focus as the tab opens, and Textual both defers a focus and opens the tab of
    whatever gets it: a tab key pressed while the list of the tab before was being focused was undone."""
    course = load_course(server.keeper.course_path)
    app = ClassApp(course, server.db, data_dir=server.data)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("#people-list")
                         and app.screen.query_one("#people-list").is_on_screen, "the console")
        screen = app.screen
        assert isinstance(screen, ClassScreen)
        screen.set_focus(None)
        screen.query_one("#people-list").focus()  # on its way, as the People tab opened…
        screen.action_tab("tables")  # …when the trainer pressed 2
        await wait_until(pilot, lambda: app.focused is screen.query_one("#table-list")
                         and screen.query_one("#table-list").is_on_screen, "the tables list on show and focused")
        await pilot.pause(0.2)
        assert screen.query_one(TabbedContent).active == "tables" and app.focused is screen.query_one("#table-list")
        assert screen.query_one("#table-list").is_on_screen and not screen.query_one("#people-list").is_on_screen


@pytest.mark.asyncio
async def test_the_trainer_keeps_a_seat_at_a_forming_table(server: Server, wait_until) -> None:
    course = load_course(server.keeper.course_path)
    db = server.db
    opened = server.open("pill", "alice")
    alice = await asyncio.to_thread(sit, Path(opened["socket"]), "alice")
    try:
        app = ClassApp(course, db, data_dir=server.data)
        async with app.run_test(size=(120, 40)) as pilot:
            # the People tab on show: its tabs are mounted
            await wait_until(pilot, lambda: app.screen.query("#people-list")
                             and app.screen.query_one("#people-list").is_on_screen, "the console")
            await show_tab(pilot, app, "2", "#table-list", wait_until)
            await wait_until(pilot, lambda: app.screen.query_one("#table-list").is_on_screen
                             and any("forming" in r for r in _cells(app, "#table-list")), "the table")
            await pilot.press("a")
            await wait_until(pilot, lambda: isinstance(app.screen, AssignScreen)
                             and [w.is_mounted for w in app.screen.query("Select")] == [True, True], "the seat dialog")
            app.screen.query_one("#seat").value = "B"
            app.screen.query_one("#trainee").value = "carol"
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: any("alice, carol" in r for r in _cells(app, "#table-list")),
                             "B kept for carol")
            assert not db.tables.get(opened["table"]).free_seats(2)  # nobody else may take it
            carol = await asyncio.to_thread(sit, Path(opened["socket"]), "carol")
            assert carol.view.you == "B"
            await wait_until(pilot, lambda: any("playing" in r for r in _cells(app, "#table-list")), "the start")
            carol.close()
    finally:
        alice.close()


@pytest.mark.asyncio
async def test_a_trainees_app_says_where_it_is_and_shows_the_trainers_notices(server: Server, wait_until) -> None:
    from negtui.trainee.training import TrainingApp

    course = load_course(server.keeper.course_path)
    db = server.db
    db.classroom.notice("said before alice came")
    session = db.session_started("alice", "127.0.0.1", "fp")
    app = TrainingApp(course, db, "alice", data_dir=server.data, session_id=session, hub=server.path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: db.classroom.online()[0].place == "in the lobby", "the lobby's place")
        db.classroom.notice("come back to the room at 10:30")
        await wait_until(pilot, lambda: any("10:30" in n.message for n in app._notifications), "the notice")
        assert not any("before alice" in n.message for n in app._notifications)
        await pilot.press("end", "enter", "ctrl+s")  # the exercise played alone, past its briefing
        await wait_until(pilot, lambda: "Alone as B · Bob, turn" in db.classroom.online()[0].place, "the game's place",
                         timeout=30)


def test_the_class_debrief_counts_each_table_once_and_each_seat_against_its_baseline(tmp_path: Path) -> None:
    from tests.keeper import COURSE

    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    with ResultsDB.open(tmp_path / "data") as db:
        _seed_results(db)
        d = class_debrief(db, course, "pill")
    assert d.played == 3 and d.unfinished == 0
    a, b = d.seats
    assert [o.payoff for o in a.outcomes] == [10.0, 2.0, 12.0]
    assert [o.person for o in a.outcomes] == ["dave", None, "erin"]  # a bot played A at table 2
    assert a.mean == pytest.approx(8.0) and b.mean == pytest.approx(4.0)
    assert sorted(t.total for t in d.tables) == [4.0, 16.0, 16.0]
    assert [c.cost for c in d.costliest] == [3.0, 1.5, 0.5]  # the costless decision is not listed
    assert d.costliest[0].turn == 1 and d.costliest[0].better == "to B: A takes the bait (upper)"


def test_the_class_debrief_names_a_table_by_the_trainers_name_for_it(tmp_path: Path) -> None:
    from tests.keeper import COURSE

    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    with ResultsDB.open(tmp_path / "data") as db:
        db.add_trainee("dave")
        north, other = db.tables.opened("tables", "pill", "-", "north"), db.tables.opened("tables", "pill", "-")
        _finished(db, "dave", "A", [10.0, 6.0], north, 3.0)
        _finished(db, "dave", "B", [2.0, 2.0], other, 1.5)
        d = class_debrief(db, course, "pill")
    assert sorted(t.where for t in d.tables) == sorted(["table north", f"table {other}"])
    assert [c.where for c in d.costliest] == ["table north", f"table {other}"]


def test_results_decisions_exports_every_decision_with_its_coaching_numbers(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        _seed_results(db)
    runner = CliRunner()
    out = runner.invoke(cli, ["results", "--decisions", "--csv", "--data-dir", str(data)])
    assert out.exit_code == 0, out.output
    rows = list(csv.DictReader(io.StringIO(out.output)))
    assert len(rows) == 4
    first = rows[0]
    assert (first["trainee"], first["exercise"], first["seat"], first["turn"], first["cost"]) == (
        "dave", "pill", "A", "1", "3.0")
    assert first["upper_choice"] == "to B: A takes the bait" and float(first["upper_value"]) == 4.0
    assert float(first["value_upper"]) == 2.0 and first["agreeing"] == "lower"
    out = runner.invoke(cli, ["results", "--decisions", "--json", "--trainee", "erin", "--table", "1",
                              "--data-dir", str(data)])
    (only,) = json.loads(out.output)
    assert only["trainee"] == "erin" and only["table"] == 1 and only["numbers"]["reference"] == "mean"
    out = runner.invoke(cli, ["results", "--decisions", "--data-dir", str(data), "--exercise", "nothing"])
    assert out.exit_code == 0 and "0 decision(s)" in out.output


def test_watch_lists_only_the_games_being_played_now(cli, tmp_path: Path) -> None:
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        for name in ("alice", "bob", "carol"):
            db.add_trainee(name)
        here, gone = db.session_started("alice", "p", "f"), db.session_started("bob", "p", "f")
        db.game_started("alice", "c", "solo", "s", "d", "A", "/alice.jsonl", session_id=here)
        db.game_started("bob", "c", "solo", "s", "d", "A", "/bob.jsonl", session_id=gone)
        db.session_ended(gone, "connection lost")  # the app went without filing the game
        table = db.tables.opened("c", "pair", "-")
        db.game_started("carol", "c", "pair", "s", "d", "B", "", table_id=table)  # her seat, taken
        assert "carol" not in cli("watch", "--data-dir", data).output  # the table waits for people
        db.tables.started(table, "/table.jsonl", 6, {})
        out = cli("watch", "--data-dir", data)
        assert out.exit_code == 0
        assert "alice" in out.output and "carol" in out.output and "at table 1" in out.output
        assert "bob" not in out.output
        db.tables.closed(table, "the trainer ended the table")
        assert "carol" not in cli("watch", "--data-dir", data).output


def test_a_tables_row_says_its_round_stands_still_while_it_waits_for_someone() -> None:
    from negtui.classroom.dbtypes import TableRow
    from negtui.console.rows import state_of

    waiting = TableRow(1, "c", "e", "-", "playing", "", None, None, None, (), 0, None, round_left=500.0)
    assert state_of(waiting, 2).plain == "playing · 8:20 left (stopped)"
    running = TableRow(1, "c", "e", "-", "playing", "", None, None, None, (), 0, None, round_left=500.0,
                       round_ends="2999-01-01T00:00:00.000Z")
    assert "stopped" not in state_of(running, 2).plain


def test_the_live_view_says_who_is_to_move_who_is_missing_and_who_has_waited_longest() -> None:
    """A table's row in the console: the person its game waits for, by name, and for how long (orange after a
    minute, red after three); a bot to move by its player; who is away from their seat or has not come to the
    seat kept for them; across the class, who has kept a table waiting longest."""
    from datetime import UTC, datetime, timedelta

    from negtui.classroom.dbtypes import TableRow
    from negtui.console.rows import absent_of, longest_idle, to_move_of
    from negtui.table.views import Occupant

    now = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    ago = lambda s: (now - timedelta(seconds=s)).isoformat(timespec="milliseconds").replace("+00:00", "Z")  # noqa: E731
    people = (Occupant("B", "human", "alice", True, True), Occupant("S", "human", "bob", False, True),
              Occupant("C", "upper", "dave", False, True), Occupant("D", "upper", None, False, False))
    north = TableRow(1, "c", "e", "-", "playing", "", None, None, None, people, 3, None, deciding="B",
                     deciding_since=ago(75), name="north")
    south = TableRow(2, "c", "e", "-", "playing", "", None, None, None, people, 3, None, deciding="S",
                     deciding_since=ago(200), name="south")
    bots = TableRow(3, "c", "e", "-", "playing", "", None, None, None, people, 3, None, deciding="D",
                    deciding_since=ago(500))
    names = {"B": "Buyer", "S": "Seller", "D": "Dealer"}
    assert to_move_of(north, names, now).plain == "alice 1:15"
    assert to_move_of(south, names, now).plain == "bob 3:20 ○ away"
    assert to_move_of(bots, names, now).plain == "Dealer (bot)"
    assert absent_of(north).plain == "bob ○ away, dave ○ not here yet"
    forming = TableRow(5, "c", "e", "-", "forming", "", None, None, None, people, 0, None)
    assert absent_of(forming).plain == "bob ○ not here yet, dave ○ not here yet"  # nobody has left a seat yet
    name, table, idle = longest_idle([north, south, bots], now)
    assert (name, table.called, round(idle)) == ("bob", "table south", 200)  # a bot's wait is nobody's
    over = TableRow(4, "c", "e", "-", "over", "", None, None, None, people, 3, None, deciding="B",
                    deciding_since=ago(999))
    assert to_move_of(over, names, now).plain == "" and absent_of(over).plain == ""
