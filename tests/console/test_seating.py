"""The trainer seats and runs the class from the console (a roster's reading and a random seating are
tests/classroom/test_seating.py's): tables opened by the server with their seats kept,
every forming table started with bots in the empty seats, every table paused (every clock stops) and given
its round time, a round timer ending the games as they stand, and results held until released."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from negtui.classroom.course_loading import load_course
from negtui.console.app import ClassApp
from negtui.console.seating import SeatingScreen, TimeScreen
from negtui.record import load_record
from negtui.table.source import TableSource, sit
from negtui.tui.screens.dialogs import ConfirmScreen
from tests.keeper import CLASS, TRIO, Server


@pytest.fixture
def classroom(tmp_path: Path):
    course = tmp_path / "course.toml"
    course.write_text(TRIO)
    s = Server(tmp_path / "data", course)
    for name in CLASS[3:]:
        s.db.add_trainee(name)
    requests = asyncio.run_coroutine_threadsafe(s.keeper.serve_requests(0.1), s.loop)  # the server's own loop
    yield s
    requests.cancel()
    s.stop()


def _listen(source: TableSource) -> None:
    def run() -> None:
        while (line := source.client.receive()) is not None:
            source.receive(line)

    threading.Thread(target=run, daemon=True).start()


@pytest.mark.slow
@pytest.mark.asyncio
async def test_the_console_seats_a_roster_starts_pauses_and_times_the_class(classroom: Server, wait_until, screen_text,
                                                                           tmp_path: Path) -> None:
    server, db = classroom, classroom.db
    roster = tmp_path / "roster.csv"
    roster.write_text("trainee,exercise,table,seat\n" + "".join(
        f"{name},trio,{'red' if k < 3 else 'blue'},{'ABC'[k % 3]}\n" for k, name in enumerate(CLASS)))
    course = load_course(server.keeper.course_path)
    app = ClassApp(course, db, data_dir=server.data)
    people: list[TableSource] = []
    try:
        async with app.run_test(size=(160, 50)) as pilot:
            await wait_until(pilot, lambda: getattr(app.screen, "class_read", False), "the class read")
            await pilot.press("o")
            await wait_until(pilot, lambda: isinstance(app.screen, SeatingScreen), "the seating dialog")
            dialog = app.screen
            dialog.query_one("#how", Select).value = "roster"
            dialog.query_one("#detail", Input).value = str(roster)
            await wait_until(pilot, lambda: "table blue" in str(dialog.query_one("#plan").render()), "the plan shown")
            plan = str(dialog.query_one("#plan").render())
            assert "table red" in plan and "alice" in plan and "frank" in plan
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: "2 tables opened" in screen_text(app), "the two tables opened", timeout=90)
            assert "2 tables opened (table red, table blue)" in screen_text(app)  # the roster's names for them
            await wait_until(pilot, lambda: sorted(o.name for t in db.tables.live("tables", "trio") for o in t.people
                                                   if o.name) == sorted(CLASS), "every seat kept in the tables' rows")
            tables = db.tables.live("tables", "trio")
            assert len(tables) == 2 and [t.name for t in tables] == ["red", "blue"]
            assert {(o.player, o.name) for o in tables[0].people} | {(o.player, o.name) for o in tables[1].people} == {
                ("A", "alice"), ("B", "bob"), ("C", "carol"), ("A", "dave"), ("B", "erin"), ("C", "frank")}
            assert "results held by the trainer" not in screen_text(app)  # the trainer sees everything

            # two of each table's three sit down; the third stays away: "start all" seats a bot for them
            for t in tables:
                for o in [o for o in t.people if o.name][:2]:
                    source = await asyncio.to_thread(sit, Path(t.socket), o.name)
                    _listen(source)
                    people.append(source)
            await pilot.press("2")
            await wait_until(pilot, lambda: " red " in screen_text(app) and " blue " in screen_text(app),
                             "the tables listed by their names")
            await pilot.press("S")
            await wait_until(pilot, lambda: all(s.view.started for s in people), "every table started")
            await wait_until(pilot, lambda: all(s.view.round is not None and s.view.round[2] for s in people),
                             "every round's clock running")
            await pilot.press("P")
            await wait_until(pilot, lambda: all(s.view.paused for s in people), "every table paused")
            await wait_until(pilot, lambda: all(s.view.clock is None and s.view.round is not None
                                                and not s.view.round[2] for s in people), "every clock stopped")
            await pilot.press("T")
            await wait_until(pilot, lambda: isinstance(app.screen, TimeScreen), "the time dialog")
            await pilot.press(*"0.05", "enter")  # three seconds for every table
            await wait_until(pilot, lambda: all(s.view.round is not None and s.view.round[0] <= 3.0 for s in people),
                             "the new time at every table")
            await pilot.press("G")
            await wait_until(pilot, lambda: all(s.game.over for s in people), "the clock ending every game",
                             timeout=90)
            assert all(s.game.ended == "clock" for s in people)
            await wait_until(pilot, lambda: all(r.status in ("over", "closed") for r in db.tables.recent("tables")
                                                if r.exercise == "trio"), "the tables' rows over", timeout=90)
            for r in db.tables.recent("tables"):
                if r.exercise == "trio" and r.record_path:
                    assert load_record(Path(r.record_path)).result.ended == "clock"

            # held results (private roles): released by the trainer
            assert "trio" not in db.classroom.released("tables")
            await pilot.press("2")
            screen = app.screen
            screen.query_one("#table-list").move_cursor(row=0)
            await pilot.press("l")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the release confirmation")
            await pilot.press("y")
            await wait_until(pilot, lambda: "trio" in db.classroom.released("tables"), "the results released")
    finally:
        for s in people:
            s.client.close()



@pytest.mark.asyncio
@pytest.mark.parametrize("hostile, words", [
    ('"' + "z" * 140_000 + '",pill,1,A\n', "line 2: a cell over the limit of 1,000 characters"),
    ("b\x00ob,pill,1,A\n", "line 2: a control character (U+0000)"),
])
async def test_a_hostile_roster_is_shown_in_the_seating_dialog_and_the_console_stays_up(
        server: Server, wait_until, tmp_path: Path, hostile: str, words: str) -> None:
    bad, good = tmp_path / "bad.csv", tmp_path / "good.csv"
    bad.write_text("trainee,exercise,table,seat\n" + hostile)
    good.write_text("trainee,exercise,table,seat\nalice,pill,1,A\nbob,pill,1,B\n")
    app = ClassApp(load_course(server.keeper.course_path), server.db, data_dir=server.data)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: getattr(app.screen, "class_read", False), "the class read")
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, SeatingScreen), "the seating dialog")
        dialog = app.screen
        dialog.query_one("#how", Select).value = "roster"
        dialog.query_one("#detail", Input).value = str(bad)
        await wait_until(pilot, lambda: words in str(dialog.query_one("#plan").render()), "the roster's mistake")
        assert f"{bad}: invalid roster (1 problem)" in str(dialog.query_one("#plan").render())
        assert app.is_running and app.screen is dialog
        dialog.query_one("#detail", Input).value = str(good)
        await wait_until(pilot, lambda: "table 1" in str(dialog.query_one("#plan").render()), "the good roster's plan")
