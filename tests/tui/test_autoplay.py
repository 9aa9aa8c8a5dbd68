"""Autoplay in the app: a whole game that ends as the command line's, and a pause that stops after the
current turn."""

from __future__ import annotations

import json

import pytest

from negtui.tui.app import NegtuiApp
from negtui.tui.screens.summary import SummaryScreen
from tests.paths import SIX

pytestmark = pytest.mark.asyncio


async def test_autoplay_six_party_to_the_end_matches_the_command_line(screen_text, wait_until, play_screen, payoffs,
                                                                      cli):
    app = NegtuiApp(SIX, ask_seats=False, record=False, sims=4, partner="greedy")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        await pilot.press("plus", "plus")
        assert ps.autoplay.speed == 0
        await pilot.press("r")
        assert ps.autoplay.running or app.game.events
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the end of autoplay", timeout=30)
        assert app.game.over and not ps.autoplay.running
        assert len(app.game.events) == app.game.neg.game.T == 24
        await wait_until(pilot, lambda: "Game over" in screen_text(app), "the summary drawn")
        mine = [round(v, 6) for v in payoffs(app)]
    res = cli("autoplay", str(SIX), "--partner", "greedy", "--sims", "4", "--json")
    assert res.exit_code == 0, res.output
    assert mine == [round(v, 6) for v in json.loads(res.stdout)["payoffs"]]


async def test_autoplay_pause_stops_after_the_current_turn(screen_text, settle, play_screen, autoplay_clock):
    app = NegtuiApp(SIX, ask_seats=False, record=False, sims=4, partner="greedy")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        clock = autoplay_clock(ps)  # the pause between turns ends when the test says, however slow the bots
        await pilot.press("minus", "minus", "minus")  # two seconds between turns: time to look, even on a busy machine
        assert ps.autoplay.speed == 5
        await pilot.press("r")
        await settle(pilot)
        assert ps.autoplay.running and len(app.game.events) == 1
        assert "▶▶ 2s" in screen_text(app)
        assert [delay for delay, _ in clock.pending] == [2.0]  # the next turn waits on its timer
        await pilot.press("r")  # pause while the next turn waits on its timer
        assert not ps.autoplay.running
        clock.due()  # the two seconds are over
        await settle(pilot)
        assert len(app.game.events) == 1, "a turn was played after autoplay was paused"
        await pilot.press("n")  # stepping still works while paused
        await settle(pilot)
        assert len(app.game.events) == 2 and not ps.autoplay.running
        assert not clock.pending  # and schedules no autoplayed turn
