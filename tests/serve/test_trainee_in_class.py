"""What a trainee sees of the class the trainer runs, driven through the pilot against the server's table
keeper (opening the tables the console asks for) and real table processes: the empty tables the trainer
opens, listed and taken in the picker."""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from pathlib import Path

import pytest

from negtui.classroom.course import load_course
from negtui.classroom.db import ResultsDB
from negtui.trainee.table_picker import TablePicker
from negtui.trainee.training import TrainingApp
from negtui.tui.screens.table import TableScreen
from tests.serve.conftest import COURSE, Server
from tests.waiting import wait_for_async

pytestmark = pytest.mark.asyncio


@pytest.fixture
def classroom(tmp_path: Path) -> Generator[Server]:
    """The server with its loop answering the console's requests for tables, as `negtui serve` runs it."""
    course = tmp_path / "course.toml"
    course.write_text(COURSE)
    s = Server(tmp_path / "data", course)
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
