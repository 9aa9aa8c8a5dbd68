"""Helpers for driving the app through Textual's pilot, each handed to the tests as a fixture of its name:

- `screen_text(app)`: what the terminal shows now, as plain text;
- `await settle(pilot)`: bot workers finished and their results on the screen;
- `await wait_until(pilot, cond, what)`: poll until `cond()` holds, failing with the screen after a timeout;
- `play_screen(app)`: the one GameScreen on the screen stack;
- `pill_app(**seats)`: the app on the poison pill with those seats, no seat dialog, no record;
- `payoffs(app)`: the session's payoffs now;
- `record_game(path, scenario=SIX, lens="myopic")`: `negtui autoplay --record` (greedy partner, 4 sims).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.game import GameScreen
from tests.paths import PILL, SIX


def screen_text(app) -> str:
    """What the terminal shows now, as plain text (the same render an SVG screenshot is made from)."""
    w, h = app.size
    console = Console(width=w, height=h, file=io.StringIO(), force_terminal=True, color_system="truecolor",
                      record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def settle(pilot) -> None:
    """Let bot workers finish and their results reach the screen (a worker hands its decision over with
    call_from_thread, which returns once the screen has handled it)."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def wait_until(pilot, cond: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}\n{screen_text(pilot.app)}")
        await pilot.pause(0.05)


def play_screen(app) -> GameScreen:
    screens = [s for s in app.screen_stack if isinstance(s, GameScreen)]
    assert len(screens) == 1, app.screen_stack
    return screens[0]


def pill_app(**seats: Seat) -> NegtuiApp:
    return NegtuiApp(PILL, seats=seats, ask_seats=False, record=False)


def payoffs(app) -> list[float]:
    return [float(v) for v in app.game.neg.returns(app.game.state)]


@pytest.fixture(name="screen_text", scope="session")
def screen_text_fixture():
    return screen_text


@pytest.fixture(name="settle", scope="session")
def settle_fixture():
    return settle


@pytest.fixture(name="wait_until", scope="session")
def wait_until_fixture():
    return wait_until


@pytest.fixture(name="play_screen", scope="session")
def play_screen_fixture():
    return play_screen


@pytest.fixture(name="pill_app", scope="session")
def pill_app_fixture():
    return pill_app


@pytest.fixture(name="payoffs", scope="session")
def payoffs_fixture():
    return payoffs


@pytest.fixture(scope="session")
def record_game(cli) -> Callable[..., Path]:
    def record_game(path: Path, scenario: Path = SIX, lens: str = "myopic") -> Path:
        res = cli("autoplay", scenario, "--lens", lens, "--partner", "greedy", "--sims", "4", "--record", path,
                  "--quiet")
        assert res.exit_code == 0, res.output
        return path

    return record_game
