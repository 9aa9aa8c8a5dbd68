"""A trainee's app at a course's table, driven through the pilot against the server's table keeper and a
real table process: the lobby lists the exercise as a table, the picker opens a new table and shows who
has joined, the app sits at it, leaving asks and goes back to the lobby, and the seat is taken again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.table.source import TableSource, sit
from negtui.trainee.hub import ask
from negtui.trainee.table_picker import TablePicker
from negtui.trainee.training import TrainingApp
from negtui.tui.screens.dialogs import ConfirmScreen
from negtui.tui.screens.table import TableScreen
from tests.keeper import Server

pytestmark = pytest.mark.asyncio


async def test_a_trainee_opens_a_table_from_the_lobby_leaves_it_and_comes_back(server: Server, wait_until,
                                                                               screen_text) -> None:
    course = load_course(server.keeper.course_path)
    with ResultsDB.open(server.data) as db:
        app = TrainingApp(course, db, "alice", data_dir=server.data, hub=server.path)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: "a table of 2 people" in screen_text(app), "the lobby")
            await pilot.press("enter")  # the first exercise: a table of two
            await wait_until(pilot, lambda: isinstance(app.screen, TablePicker), "the table picker")
            text = screen_text(app)
            assert "+ open a new table" in text and "people play Alice, Bob" in text
            await pilot.press("ctrl+s")  # a new table, in the first seat: the server starts its process
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen), "the table", timeout=60)
            source = app.live
            assert isinstance(source, TableSource) and source.view.you == "A"
            (row,) = db.tables.live("tables", "pill")
            bob = await asyncio.to_thread(sit, Path(row.socket), "bob")
            await wait_until(pilot, lambda: source.view.started, "the start")
            await wait_until(pilot, lambda: "bob" in screen_text(app), "bob on alice's screen")
            await pilot.press("escape")  # alice is asked for a partner first; not yet
            await pilot.press("q")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question before leaving")
            await pilot.press("y")
            await wait_until(pilot, lambda: "back to your table" in screen_text(app), "the lobby's way back")
            assert app.live is None and source.client.closed
            await pilot.press("home")  # the way back is listed first
            await pilot.press("enter")
            await wait_until(pilot, lambda: any(isinstance(s, TableScreen) for s in app.screen_stack),
                             "the table again")
            again = app.live
            assert isinstance(again, TableSource) and again is not source and again.view.you == "A"
            assert again.view.started and again.game.state == bob.game.state  # the same game, where it is
            bob.close()
            again.close()


async def test_ctrl_n_in_the_picker_opens_a_new_table_whatever_is_highlighted(server: Server, wait_until,
                                                                              screen_text) -> None:
    answer = await asyncio.to_thread(ask, server.path, {"op": "open", "exercise": "pill"})
    carol = await asyncio.to_thread(sit, Path(answer["socket"]), "carol")  # table 1: carol waits for a second
    first = answer["table"]
    course = load_course(server.keeper.course_path)
    with ResultsDB.open(server.data) as db:
        app = TrainingApp(course, db, "alice", data_dir=server.data, hub=server.path)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: "a table of 2 people" in screen_text(app), "the lobby")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, TablePicker) and f"table {first}" in
                             screen_text(app), "the picker, carol's table listed and highlighted")
            assert "^n open a new table" in screen_text(app)
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: isinstance(app.screen, TableScreen) and "Bob  you" in screen_text(app),
                             "alice at a new table", timeout=60)
            assert app.table_id is not None and app.table_id != first
            assert sorted(r.id for r in db.tables.live("tables", "pill")) == [first, app.table_id]
            app.live.close()
    carol.close()
