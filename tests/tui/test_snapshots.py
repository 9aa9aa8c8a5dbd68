"""SVG snapshots of the main screen at 80×24 and 160×50 (pytest-textual-snapshot; Textual is pinned in
pyproject.toml because the SVGs depend on its rendering).

Every snapshot is deterministic: no record (so no "recording this game" toast), bots seeded per seat, and the
picture is taken only once the bot workers are done and each turn is on the screen (waited for as a state,
never for a time).  Regenerate after an intended change of the
screen with `pytest tests/tui/test_snapshots.py --snapshot-update` and look at the SVGs before
committing them.
"""

from __future__ import annotations

import time

import pytest

from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.dialogs import PartnerScreen
from negtui.tui.screens.game import GameScreen
from tests.paths import PILL, SIX

MYOPIC = Seat.lens("myopic", partner="greedy", sims=4)


def six_party_app() -> NegtuiApp:
    """Six myopic bots (they make deals from the first turn, so the matrix and forecasts move)."""
    seats = {f"P{i}": MYOPIC for i in range(6)}
    return NegtuiApp(SIX, seats=seats, ask_seats=False, record=False, partner="greedy", sims=4)


async def _wait_for(pilot, cond, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await pilot.pause(0.05)


def _steps(n: int, pane: str | None = None):
    async def run_before(pilot) -> None:
        app = pilot.app
        await pilot.pause()
        for k in range(1, n + 1):
            await pilot.press("n")
            await app.workers.wait_for_complete()
            await _wait_for(pilot, lambda k=k: len(app.game.events) == k and not app.screen.thinking,
                            f"turn {k} played and the bot done thinking")
        assert len(app.game.events) == n
        if pane:
            await pilot.press(pane)
        await pilot.pause()

    return run_before


async def _offer_built(pilot) -> None:
    """A (human) offers B the bait alone: partner B, A.bait and B.bait toggled, cursor on B.bait."""
    await _wait_for(pilot, lambda: isinstance(pilot.app.screen, PartnerScreen), "the partner dialog")
    await pilot.press("down", "enter")
    await _wait_for(pilot, lambda: isinstance(pilot.app.screen, GameScreen), "the play screen")
    await pilot.press("enter", "down", "down", "enter")
    assert pilot.app.screen.source.cells == {0, 2}
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])
def test_snapshot_human_offer_being_built(snap_compare, size):
    app = NegtuiApp(PILL, seats={"A": Seat.human(), "B": Seat.lens("upper")}, ask_seats=False, record=False)
    assert snap_compare(app, terminal_size=size, run_before=_offer_built)


def test_snapshot_six_party_after_five_turns_80x24(snap_compare):
    assert snap_compare(six_party_app(), terminal_size=(80, 24), run_before=_steps(5))


def test_snapshot_six_party_network_pane_160x50(snap_compare):
    assert snap_compare(six_party_app(), terminal_size=(160, 50), run_before=_steps(5, pane="4"))


@pytest.mark.parametrize("size", [(120, 40), (200, 60)], ids=["120x40", "200x60"])
def test_snapshot_six_party_goals_pane(snap_compare, size):
    assert snap_compare(six_party_app(), terminal_size=size, run_before=_steps(5, pane="1"))
