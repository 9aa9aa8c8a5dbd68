"""Players as people read them on a small terminal: the display name wherever the id only spells it with
`_` (river-basin's Midstream_State is "Midstream State"), in the hint, the welfare dialog and the end of
the game; and the hint's decisions wrapped at words at 80×24, never cut mid-word into a column of eight."""

from __future__ import annotations

import pytest

from negtui.agents import AgentOptions
from negtui.coach.assess import choice_words
from negtui.coach.closing import Closing
from negtui.engine import get_rules
from negtui.play.live import LiveGame
from negtui.play.sources import Ending
from negtui.scenario import load_scenario
from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import PartnerScreen
from negtui.tui.screens.welfare import WelfareScreen
from tests.paths import RIVER_BASIN

pytestmark = pytest.mark.asyncio
IDS = ("Midstream_State", "Upstream_State", "Development_Bank", "River_Basin_Organisation", "Hydropower_Consortium")


def river_app() -> NegtuiApp:
    seats = {"Midstream_State": Seat.human()}
    return NegtuiApp(RIVER_BASIN, seats=seats, ask_seats=False, record=False, partner="greedy", sims=4)


async def test_the_hint_at_80_columns_names_players_by_name_and_wraps_at_words(screen_text, wait_until):
    """80 columns as on an 80×24 terminal (the side pane's width), tall enough to show the whole hint."""
    app = river_app()
    async with app.run_test(size=(80, 60)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "Midstream State's partner dialog")
        await pilot.press("escape", "h")
        await wait_until(pilot, lambda: "hint · turn 1" in screen_text(app), "the hint in the coach pane")
        text = screen_text(app)
        side = app.screen.query_one("#side").region
        pane = [ln[side.x:side.right] for ln in text.splitlines()[side.y:side.bottom]]
        words = " ".join(pane).split()
        assert not [i for i in IDS if i in text], text
        assert "hint · turn 1 · Midstream State's offer" in " ".join(words)
        hint = app.game.hint()
        assert hint is not None
        for c in hint.others:  # every word of every decision whole on some line of the pane
            missing = [w for w in choice_words(app.game.neg.game, c).split() if w not in words]
            assert not missing, (missing, "\n".join(pane))


async def test_the_welfare_dialog_names_players_by_name(screen_text, wait_until):
    app = river_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "Midstream State's partner dialog")
        await pilot.press("escape", "w")
        await wait_until(pilot, lambda: isinstance(app.screen, WelfareScreen) and app.screen.result is not None,
                         "the welfare optimum", timeout=60)
        text = screen_text(app)
        assert "Midstream State" in text and "Development Bank" in text
        assert not [i for i in IDS if i in text], text


async def test_the_end_of_the_game_names_your_seat_once(screen_text, wait_until):
    sc = load_scenario(RIVER_BASIN)
    game = LiveGame(sc, get_rules("paper"), {pid: Seat.lens("myopic", partner="greedy", sims=4) for pid in
                                             sc.player_ids}, options=AgentOptions())
    while not game.over:
        for move in game.think():
            game.submit(move)
    mid = sc.player_ids.index("Midstream_State")
    ending = Ending(game, [mid], {lens: v[0] for lens, v in game.history.items()}, closing=Closing())
    app = NegtuiApp(None, record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.push_screen(DebriefScreen(ending))
        await wait_until(pilot, lambda: "your game as" in screen_text(app), "the debrief")
        text = " ".join(screen_text(app).split())
        assert "your game as Midstream State" in text
        assert "(Midstream State)" not in text and not [i for i in IDS if i in text], text
    game.close()
