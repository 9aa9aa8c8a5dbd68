"""`negtui play` holds garbage collection off while the app starts (start-up makes long-lived objects
only); the app resumes it once its first screen is out, or when it ends before that."""

from __future__ import annotations

import gc

import pytest

from negtui.tui.app import NegtuiApp, run_app
from negtui.tui.screens.seats import SeatsScreen
from tests.paths import PILL


@pytest.fixture
def collector_held():
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.enable()


@pytest.mark.asyncio
async def test_the_app_collects_again_once_its_first_screen_is_out(collector_held, wait_until):
    app = NegtuiApp(PILL, ask_seats=True, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog")
        await wait_until(pilot, gc.isenabled, "collecting again")
        assert gc.get_freeze_count() > 0  # what start-up made is set aside, not collected over and over


def test_an_app_that_ends_before_its_first_screen_collects_again(collector_held, tmp_path, monkeypatch):
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    monkeypatch.setenv("NEGTUI_HEADLESS", "1")
    assert run_app(NegtuiApp(broken, record=False)) == 2
    assert gc.isenabled()
