"""A scenario the rule set cannot play (exclusive sets under `reference`) is refused before any seat is
chosen: on the command line with status 2, in the app with the reason and the scenarios to pick from,
never a blank screen."""

from __future__ import annotations

import subprocess
import sys

import pytest

from negtui.scenario import load_scenario
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.picker import PickerScreen
from negtui.tui.screens.seats import SeatsScreen
from tests.paths import ROOT

RIVER = ROOT / "scenarios" / "hnc" / "water" / "river-basin-treaty.json"


def test_play_refuses_it_before_the_app_opens():
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "play", str(RIVER), "--rules", "reference",
                          "--no-record"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "the reference rule set has no exclusive sets; play this scenario with --rules paper" in res.stderr


@pytest.mark.asyncio
async def test_the_app_says_why_and_offers_the_scenarios(screen_text, settle, wait_until, tmp_path):
    app = NegtuiApp(None, rules="reference", record=False, data_dir=tmp_path)

    def toast() -> str:
        shown = " ".join(line.split("▌", 1)[1].strip(" ▎") for line in screen_text(app).splitlines() if "▌" in line)
        return " ".join(shown.split())

    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PickerScreen)
        app.choose_seats(load_scenario(RIVER))
        await settle(pilot)
        assert not any(isinstance(s, SeatsScreen) for s in app.screen_stack)
        assert isinstance(app.screen, PickerScreen)
        await wait_until(pilot, lambda: "cannot play" in toast(), "the toast")
        assert "cannot play river-basin-treaty under reference rules: the reference rule set has no exclusive " \
               "sets; play this scenario with --rules paper" in toast()
