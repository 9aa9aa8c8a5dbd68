"""The console starts and ends a class's tables as a trainer expects: `S` starts only the tables someone sits
at (a table whose kept seats nobody has come to waits, and the status line names who it waits for), a seat
kept for someone who has not come is a bot's and no game of theirs until they sit down; `E` calls time at every
table, each game under way ending as it stands and filed as finished (ended by the trainer), never abandoned."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from negtui.classroom.course_loading import load_course
from negtui.console.app import ClassApp
from negtui.table.source import TableSource, sit
from negtui.tui.screens.dialogs import ConfirmScreen
from tests.console.test_seating import _listen
from tests.keeper import Server


@pytest.mark.slow
@pytest.mark.asyncio
async def test_start_all_skips_a_table_nobody_sits_at_and_call_time_files_the_games_as_they_stand(
        server: Server, wait_until, screen_text) -> None:
    db = server.db
    db.add_trainee("dave")
    empty, why = server.run(server.keeper.open_for("pill", "trainer tom", {"A": "dave"}))  # dave: not logged in
    assert empty is not None, why
    playing, why = server.run(server.keeper.open_for("pill", "trainer tom", {"A": "alice", "B": "bob"}))
    assert playing is not None, why
    socket = Path(db.tables.get(playing).socket)
    people: list[TableSource] = []
    app = ClassApp(load_course(server.keeper.course_path), db, data_dir=server.data)
    try:
        alice = await asyncio.to_thread(sit, socket, "alice")  # bob does not come
        _listen(alice)
        people.append(alice)
        async with app.run_test(size=(160, 50)) as pilot:
            await wait_until(pilot, lambda: getattr(app.screen, "class_read", False), "the class read")
            await pilot.press("2")
            await pilot.press("S")
            await wait_until(pilot, lambda: "1 table started" in screen_text(app), "the start answered", timeout=60)
            assert f"table {empty}: nobody has sat down at this table yet (kept: A for dave)" in screen_text(app)
            await wait_until(pilot, lambda: alice.view.started, "alice's table started")
            assert db.tables.get(empty).status == "forming"  # dave's table waits for him
            assert alice.game.seats["B"].agent == "lens"  # a bot in bob's seat meanwhile
            await wait_until(pilot, lambda: db.tables.get(playing).status == "playing", "the table playing")
            filed = [(r["trainee"], r["status"]) for r in db.results("tables")]
            assert filed == [("alice", "playing")]  # no game of bob's, nor of dave's
            bob = await asyncio.to_thread(sit, socket, "bob")  # late: his kept seat, taken from the bot
            _listen(bob)
            people.append(bob)
            assert bob.view.you == "B"
            await wait_until(pilot, lambda: sorted(r["trainee"] for r in db.results("tables")) == ["alice", "bob"],
                             "bob's game filed as he sat down")

            await pilot.press("E")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "asked before calling time")
            await pilot.press("y")
            await wait_until(pilot, lambda: alice.game.over, "alice's game over")
            assert alice.game.ended == "trainer"
            await wait_until(pilot, lambda: db.tables.get(playing).status == "over", "the table filed", timeout=60)
            assert db.tables.get(playing).ending == "trainer"
            await wait_until(pilot, lambda: db.tables.get(empty).status == "closed", "the empty table closed")
            payoffs = [float(v) for v in alice.game.neg.returns(alice.game.state)]
            filed = sorted((r["trainee"], r["status"], r["payoff"]) for r in db.results("tables"))
            assert filed == [("alice", "finished", payoffs[0]), ("bob", "finished", payoffs[1])]
    finally:
        for source in people:
            source.close()
