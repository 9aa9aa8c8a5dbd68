"""A terminal below the app's minimum: one notice in place of a cut-up screen, keys that wait instead of
acting unseen, dialogs that open meanwhile covered too, and everything back as it was once it is large
enough."""

from __future__ import annotations

import pytest

from negtui.seats import Seat
from negtui.tui.screens.dialogs import HelpScreen
from negtui.tui.too_small import MIN_SIZE

pytestmark = pytest.mark.asyncio


def _words(text: str) -> str:
    return " ".join(text.split())


async def test_a_small_terminal_shows_the_notice_holds_keys_and_gives_the_game_back(pill_app, screen_text,
                                                                                    settle, wait_until):
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(40, 12)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: "This terminal is" in screen_text(app), "the notice")
        shown = _words(screen_text(app))
        assert shown == ("This terminal is 40×12. negtui needs at least 60×18. Enlarge the window: everything "
                         "comes back as it was. ctrl+q quits.")
        before = app.game.state
        await pilot.press("p", "space", "o", "q", "escape", "question_mark")  # none acts unseen
        await settle(pilot)
        assert app.game.state == before and app.is_running and not isinstance(app.screen, HelpScreen)
        await pilot.resize_terminal(MIN_SIZE.width, MIN_SIZE.height)
        await settle(pilot)
        await wait_until(pilot, lambda: "This terminal is" not in screen_text(app), "the notice gone at 60×18")
        await wait_until(pilot, lambda: "turn 1/2" in screen_text(app) and "bait" in screen_text(app), "the game back")
        await pilot.press("question_mark")  # keys act again
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await pilot.resize_terminal(MIN_SIZE.width - 1, MIN_SIZE.height)
        await settle(pilot)
        await wait_until(pilot, lambda: "This terminal is 59×18." in _words(screen_text(app)),
                         "the notice over the dialog as well")


async def test_a_dialog_opened_while_the_terminal_is_small_is_covered_and_ctrl_q_still_quits(pill_app,
                                                                                             screen_text, settle,
                                                                                             wait_until):
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.resize_terminal(50, 30)
        await settle(pilot)
        await wait_until(pilot, lambda: "This terminal is 50×30." in _words(screen_text(app)), "the notice")
        app.action_help()  # as a bot's offer or the game's end would open one: not by a key
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        await wait_until(pilot, lambda: _words(screen_text(app)).startswith("This terminal is 50×30."),
                         "the notice over the dialog")
        await pilot.resize_terminal(100, 30)
        await settle(pilot)
        await wait_until(pilot, lambda: "This terminal is" not in screen_text(app), "the notice gone at 100×30")
        assert isinstance(app.screen, HelpScreen)
        await pilot.resize_terminal(50, 30)
        await settle(pilot)
        await wait_until(pilot, lambda: "This terminal is 50×30." in _words(screen_text(app)), "the notice again")
        await pilot.press("ctrl+q")
        await settle(pilot)
    assert not app.is_running
