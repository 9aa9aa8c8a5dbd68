"""The seat dialog seats the learned lens: a bot of the shipped model plays its turn in the app."""

from __future__ import annotations

import pytest

from negtui.tui.screens.seats import SeatsScreen

pytestmark = pytest.mark.asyncio


async def test_the_seat_dialog_seats_a_learned_bot_that_plays(settle, pill_app):
    app = pill_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SeatsScreen)
        assert "learned" in app.screen.choices
        app.screen.choose("A", plays="learned")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.game.seats["A"].lenses == ("learned", "learned")
        await pilot.press("space")  # A proposes first: its bot decides with the model
        await settle(pilot)
        assert len(app.game.events) == 1 and app.game.events[0].proposer == 0
