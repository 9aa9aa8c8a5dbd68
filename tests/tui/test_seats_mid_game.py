"""Seats changed mid-game: a bot's seat given to a person and back, each keeping its settings."""

from __future__ import annotations

import pytest

from negtui.seats import Seat
from negtui.tui.screens.dialogs import PartnerScreen
from negtui.tui.screens.seats import SeatsScreen

pytestmark = pytest.mark.asyncio


async def test_switching_seats_mid_game(settle, wait_until, pill_app):
    app = pill_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert not app.game.is_human(0)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SeatsScreen)
        app.screen.choose("A", plays="human")
        app.screen.choose("B", plays="myopic")
        await pilot.click("#done")
        await pilot.pause()
        assert app.game.seats["A"] == Seat.human()
        assert app.game.seats["B"] == Seat.lens("myopic", seed=1)  # B keeps its bot's search settings
        assert app.game.is_human(0) and app.game.seating.respond_lens(1) == "myopic"
        # it is A's turn and A is human now: the partner dialog opens
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog")
        await pilot.press("escape")
        # and back to a bot: stepping plays A's turn
        await pilot.press("s")
        await pilot.pause()
        app.screen.choose("A", plays="upper")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.game.seats["A"] == Seat.lens("upper")  # a person's seat given to a bot: bot 0's settings
        await pilot.press("space")
        await settle(pilot)
        assert len(app.game.events) == 1 and app.game.events[0].proposer == 0
