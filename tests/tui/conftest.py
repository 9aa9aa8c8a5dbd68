"""Helpers for driving the app through Textual's pilot, each handed to the tests as a fixture of its name:

- `screen_text`, `settle` and `wait_until`: in tests/conftest.py (the table tests drive the app too);
- `play_screen(app)`: the one GameScreen on the screen stack;
- `pill_app(**seats)`: the app on the poison pill with those seats, no seat dialog, no record;
- `payoffs(app)`: the session's payoffs now;
- `record_game(path, scenario=SIX, lens="myopic")`: `negtui autoplay --record` (greedy partner, 4 sims);
- `autoplay_clock(screen)`: the screen's autoplay waits on a clock the test moves (`AutoplayClock`);
- `laid_out(app)`: whether the screen on top is laid out at the terminal's size with nothing pending (a
  condition for `wait_until` before a test reads sizes, regions or text of a screen just opened).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.game import GameScreen
from tests.paths import PILL, SIX


def play_screen(app) -> GameScreen:
    screens = [s for s in app.screen_stack if isinstance(s, GameScreen)]
    assert len(screens) == 1, app.screen_stack
    return screens[0]


def pill_app(**seats: Seat) -> NegtuiApp:
    return NegtuiApp(PILL, seats=seats, ask_seats=False, record=False)


def laid_out(app) -> bool:
    """The screen on top laid out at the terminal's size, with no layout pending and nothing waiting for its
    next refresh: sizes, regions and the screen's text are then what the terminal shows."""
    screen = app.screen
    return screen._compositor.size == app.size and not screen._layout_required and not screen._callbacks


def payoffs(app) -> list[float]:
    return [float(v) for v in app.game.neg.returns(app.game.state)]


@pytest.fixture(name="play_screen", scope="session")
def play_screen_fixture():
    return play_screen


@pytest.fixture(name="pill_app", scope="session")
def pill_app_fixture():
    return pill_app


@pytest.fixture(name="laid_out", scope="session")
def laid_out_fixture():
    return laid_out


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


class AutoplayClock:
    """Autoplay's timers on a game screen, held: each pause between autoplayed turns is kept rather than
    scheduled, and is over only when the test says so (`due`).  What happens between two turns then
    depends on the test, not on how fast the machine plays them."""

    def __init__(self, screen: Any) -> None:
        self.screen = screen
        self.pending: list[tuple[float, Callable[[], None]]] = []

    def set_timer(self, delay: float, callback: Callable[[], None]) -> None:
        self.pending.append((delay, callback))

    def call_after_refresh(self, callback: Callable[[], None]) -> bool:
        return self.screen.call_after_refresh(callback)  # full speed: after the next repaint, as in the app

    def due(self) -> None:
        """Every pause asked for so far is over: the steps waiting on them run."""
        pending, self.pending = self.pending, []
        for _delay, callback in pending:
            callback()


@pytest.fixture
def autoplay_clock() -> Callable[[Any], AutoplayClock]:
    def hold(screen: Any) -> AutoplayClock:
        clock = AutoplayClock(screen)
        screen.autoplay.owner = clock
        return clock

    return hold
