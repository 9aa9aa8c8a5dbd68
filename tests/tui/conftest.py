"""Helpers for driving the app through Textual's pilot, each handed to the tests as a fixture of its name:

- `screen_text`, `settle` and `wait_until`: in tests/conftest.py (the table tests drive the app too);
- `play_screen(app)`: the one GameScreen on the screen stack;
- `pill_app(**seats)`: the app on the poison pill with those seats, no seat dialog, no record;
- `payoffs(app)`: the session's payoffs now;
- `record_game(path, scenario=SIX, lens="myopic")`: `negtui autoplay --record` (greedy partner, 4 sims).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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


def payoffs(app) -> list[float]:
    return [float(v) for v in app.game.neg.returns(app.game.state)]


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
