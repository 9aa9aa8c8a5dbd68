"""The exact lens on a game too large to solve at once: the app opens at once, solves in a worker with its
progress on the status line, adds the exact forecasts when done, and can cancel the solve."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.tui.app import NegtuiApp

pytestmark = pytest.mark.asyncio


def _exact_game(tmp_path: Path, players: int, rounds: int) -> Path:
    """A generated game of 8 players × 2 actions (16 cells): small enough for the app's exact lens,
    too large to solve in a blink (2^16 masks × (turns + 1))."""
    from negtui.generator import GeneratorParams, generate
    from negtui.scenario import write_scenario

    path = tmp_path / f"exact-{players}-{rounds}.json"
    write_scenario(generate(GeneratorParams(players=players, actions=2, rounds=rounds, seed=3)), path)
    return path


async def test_a_larger_exact_solve_runs_in_the_background_and_joins_the_forecasts(screen_text, wait_until, tmp_path):
    """Over EXACT_AT_ONCE states the app opens at once, solves the exact game in a worker with its
    progress on the status line, and adds the exact column when it is done."""
    from negtui.engine.exact import state_space
    from negtui.play import EXACT_AT_ONCE, EXACT_IN_APP_LIMIT

    path = _exact_game(tmp_path, 8, 1)
    app = NegtuiApp(path, ask_seats=False, record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert EXACT_AT_ONCE < state_space(app.game.neg.game) <= EXACT_IN_APP_LIMIT
        await pilot.press("2")
        await wait_until(pilot, lambda: "solving the exact game" in screen_text(app) or app.game.exact_ready,
                         "the solve under way")
        await wait_until(pilot, lambda: app.game.exact_ready, "the exact solution", timeout=60)
        await pilot.pause(0.3)
        assert "exact solution ready" in screen_text(app)
        assert "exact" in app.screen.query_one("#forecast-table").render().plain.split("\n")[1]


async def test_the_background_exact_solve_can_be_cancelled(screen_text, wait_until, play_screen, tmp_path):
    path = _exact_game(tmp_path, 8, 5)
    app = NegtuiApp(path, ask_seats=False, record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        await wait_until(pilot, lambda: ps.exact_solving, "the solve to start")
        assert "c cancel solve" in screen_text(app)
        await pilot.press("c")
        await wait_until(pilot, lambda: not ps.exact_solving, "the solve to stop", timeout=30)
        assert "exact solve cancelled" in screen_text(app)
        assert not app.game.exact_ready and "exact" not in app.game.lenses
        assert "c cancel solve" not in screen_text(app)
        await pilot.press("n")  # the game goes on without it
        await wait_until(pilot, lambda: app.game.state.t == 1, "a turn")
