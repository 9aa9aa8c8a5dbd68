"""The generator form refuses a game past negtui's limits inside the form, naming the field and its range,
where an 80×24 terminal shows it; the app stays up and the form takes a corrected value."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from negtui.tui.app import NegtuiApp
from negtui.tui.screens.picker import GenerateScreen
from negtui.tui.screens.seats import SeatsScreen
from tests.paths import TEACHING

pytestmark = pytest.mark.asyncio


async def test_players_past_the_limit_are_refused_in_the_form_at_80_by_24(screen_text, wait_until, laid_out,
                                                                         tmp_path):
    app = NegtuiApp(None, record=False, data_dir=tmp_path, scenarios_dir=TEACHING)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GenerateScreen), "the generator form")
        form = app.screen
        form.query_one("#gen-players", Input).value = "501"
        await pilot.press("enter")
        words = "players: must be between 3 and 500 (got 501)"
        await wait_until(pilot, lambda: laid_out(app) and words in screen_text(app), "the refusal on screen")
        assert app.is_running and app.screen is form and app.focused is form.query_one("#gen-players", Input)
        form.query_one("#gen-players", Input).value = "4"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog of the game made")
