"""The app on a disk that fills mid-game: the game goes on to its end, and a toast says recording stopped
and what the record keeps."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from negtui.tui.app import NegtuiApp
from tests.paths import SIX

pytestmark = pytest.mark.asyncio
FULL = Path("/dev/full")


@pytest.mark.skipif(not FULL.exists(), reason="this system has no /dev/full")
async def test_the_game_goes_on_when_the_disk_fills_and_the_app_says_so(screen_text, settle, wait_until, tmp_path):
    app = NegtuiApp(SIX, ask_seats=False, record=True, data_dir=tmp_path, partner="greedy", sims=4)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        await wait_until(pilot, lambda: app.game is not None, "the game", timeout=30)
        await settle(pilot)
        writer = app.game._writer
        full = os.open(FULL, os.O_WRONLY)
        os.dup2(full, writer._fd)  # every write from now on fails as on a full disk
        os.close(full)
        await pilot.press("r")  # autoplay
        await wait_until(pilot, lambda: app.game.record_failed is not None, "the failed write", timeout=60)

        def toasts() -> str:
            return " ".join(line.split("▌", 1)[1].strip() for line in screen_text(app).splitlines() if "▌" in line)

        await wait_until(pilot, lambda: "recording stopped" in toasts(), "the toast")
        assert "recording stopped: the disk is full; nothing was recorded. The game goes on unrecorded." in toasts()
        await wait_until(pilot, lambda: app.game.over, "the game's end", timeout=120)
    assert not list(tmp_path.glob("records/*.jsonl"))  # a record with nothing in it is not kept
