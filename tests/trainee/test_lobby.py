"""The lobby as a game closes over it: listed once, its entries' words changed in place."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.trainee.briefing import BriefingScreen
from negtui.trainee.lobby import LobbyScreen
from negtui.trainee.training import TrainingApp
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import PartnerScreen, RespondScreen

COURSE = """\
name = "twice"
title = "Twice"

[[exercises]]
id = "once"
title = "The poison pill"
scenario = "poison-pill"
seat = "B"
attempts = 3

[[exercises]]
id = "again"
title = "The poison pill again"
scenario = "poison-pill"
seat = "B"
"""


@pytest.mark.asyncio
async def test_a_lobby_uncovered_by_a_finished_game_is_listed_once_with_the_play_counted(
        tmp_path: Path, wait_until, screen_text) -> None:
    path = tmp_path / "course.toml"
    path.write_text(COURSE)
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_trainee("alice")
        app = TrainingApp(load_course(path), db, "alice", data_dir=data)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: "0 plays of 3" in screen_text(app), "the lobby")
            lobby = app.screen
            assert isinstance(lobby, LobbyScreen)
            entries = lobby.query_one(OptionList)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, BriefingScreen), "the briefing")
            await pilot.press("ctrl+s")
            while not isinstance(app.screen, DebriefScreen):  # B rejects what A offers and passes its turns
                await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen | PartnerScreen | DebriefScreen),
                                 "B's decision or the debrief")
                if not isinstance(app.screen, DebriefScreen):
                    shown = app.screen
                    await pilot.press("x")
                    await wait_until(pilot, lambda shown=shown: app.screen is not shown, "the decision taken")
            listed, first = lobby._listings, entries.get_option_at_index(0)
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is lobby and "1 play of 3" in screen_text(app),
                             "the lobby, the play counted")
            await pilot.pause(0.3)
            assert lobby._listings == listed + 1  # once as the game closed, not again as the lobby resumed
            assert entries.option_count == 2 and entries.highlighted == 0
            assert entries.get_option_at_index(0) is first  # its words replaced in place, the list not made anew
            assert "1 play of 3" in str(first.prompt)


@pytest.mark.asyncio
async def test_the_briefing_scrolls_with_the_arrows_and_page_keys_at_80x24(tmp_path: Path, wait_until) -> None:
    """At 80x24 a long briefing shows a scrollbar while focus is on the Start button: down, page down, up and
    page up move the briefing instead of doing nothing."""
    from textual.containers import VerticalScroll

    long = "\\n".join(f"Paragraph {k}: what your principal expects of this negotiation." for k in range(60))
    path = tmp_path / "course.toml"
    path.write_text(COURSE.replace('seat = "B"\nattempts = 3', f'seat = "B"\nattempts = 3\nbriefing = "{long}"', 1))
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_trainee("alice")
        app = TrainingApp(load_course(path), db, "alice", data_dir=data)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, BriefingScreen), "the briefing")
            briefing = app.screen.query_one(".briefing", VerticalScroll)
            await wait_until(pilot, lambda: briefing.max_scroll_y > 0, "a briefing longer than the dialog")
            assert briefing.scroll_y == 0
            await pilot.press("down")
            await wait_until(pilot, lambda: briefing.scroll_y >= 1, "a line down")
            line = briefing.scroll_y
            await pilot.press("pagedown")
            await wait_until(pilot, lambda: briefing.scroll_y > line + 1, "a page down")
            await pilot.press("pageup", "up")
            await wait_until(pilot, lambda: briefing.scroll_y == 0, "back at the top")
            assert isinstance(app.screen, BriefingScreen)  # nothing else was pressed
