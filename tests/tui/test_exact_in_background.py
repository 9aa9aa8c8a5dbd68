"""The exact lens on a game too large to solve at once: the app opens at once, solves in a worker with its
progress on the status line, adds the exact forecasts when done, and can cancel the solve."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from negtui.play.sources import LiveSource
from negtui.tui.app import NegtuiApp

pytestmark = pytest.mark.asyncio


@pytest.fixture
def held_solve(monkeypatch) -> Iterator[threading.Event]:
    """The background solve held after its first turn until the test sets the event (or the solve is
    cancelled): whether it is still under way when a key is pressed then depends on the test, not on how fast
    the machine solves."""
    gate = threading.Event()
    real = LiveSource.solve_exact

    def solve_exact(self, progress):
        def held(done: int, total: int) -> None:
            progress(done, total)
            while not gate.wait(0.05):
                progress(done, total)  # raises once the solve is cancelled

        real(self, held)

    monkeypatch.setattr(LiveSource, "solve_exact", solve_exact)
    yield gate
    gate.set()  # a solve still held ends with the test


def _exact_game(tmp_path: Path, players: int, rounds: int) -> Path:
    """A generated game of 8 players × 2 actions (16 cells): small enough for the app's exact lens,
    too large to solve in a blink (2^16 masks × (turns + 1))."""
    from negtui.generator import GeneratorParams, generate
    from negtui.scenario import write_scenario

    path = tmp_path / f"exact-{players}-{rounds}.json"
    write_scenario(generate(GeneratorParams(players=players, actions=2, rounds=rounds, seed=3)), path)
    return path


async def test_a_larger_exact_solve_runs_in_the_background_and_joins_the_forecasts(screen_text, wait_until, tmp_path,
                                                                                  held_solve):
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
        await wait_until(pilot, lambda: "solving the exact game" in screen_text(app), "the solve under way")
        assert not app.game.exact_ready and "exact" not in app.screen.query_one("#forecast-table").render().plain
        held_solve.set()
        await wait_until(pilot, lambda: app.game.exact_ready, "the exact solution", timeout=60)
        await wait_until(pilot, lambda: "exact solution ready" in screen_text(app), "the status to say it is ready")
        assert "exact" in app.screen.query_one("#forecast-table").render().plain.split("\n")[1]


async def test_the_background_exact_solve_can_be_cancelled(screen_text, wait_until, play_screen, tmp_path,
                                                          held_solve):
    path = _exact_game(tmp_path, 8, 5)
    app = NegtuiApp(path, ask_seats=False, record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        await wait_until(pilot, lambda: ps.exact_solving and "c cancel solve" in screen_text(app),
                         "the solve to start, and its cancel key shown")
        await pilot.press("c")
        await wait_until(pilot, lambda: not ps.exact_solving, "the solve to stop", timeout=30)
        await wait_until(pilot, lambda: "exact solve cancelled" in screen_text(app)
                         and "c cancel solve" not in screen_text(app), "the status to say it stopped, its key gone")
        assert not app.game.exact_ready and "exact" not in app.game.lenses
        await pilot.press("n")  # the game goes on without it
        await wait_until(pilot, lambda: app.game.state.t == 1, "a turn")


def _first_mover(path: Path) -> str:
    from negtui.engine import Negotiation, get_rules
    from negtui.scenario import load_scenario

    neg = Negotiation.from_scenario(load_scenario(path), get_rules("paper"))
    return neg.game.player_ids[neg.proposer(neg.initial_state())]


@pytest.mark.slow
async def test_an_exact_seat_opens_at_once_and_moves_when_the_background_solve_is_done(screen_text, wait_until,
                                                                                   tmp_path, held_solve):
    """A seat playing the exact lens does not solve the game before the first screen (it froze the terminal
    for half a minute on the six-party game): the app draws, solves in a worker with progress, and the
    exact seat's step waits for the solution, then moves."""
    from negtui.seats import Seat

    path = _exact_game(tmp_path, 8, 3)
    who = _first_mover(path)
    app = NegtuiApp(path, seats={who: Seat(agent="lens", propose_lens="exact", respond_lens="exact")},
                    ask_seats=False, record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.game.state.t == 0 and not app.game.valuation.exact_solved  # drawn before any solve (~6 s)
        await pilot.press("space")  # the exact seat's step: it waits for the solve rather than solving in a blink
        await wait_until(pilot, lambda: f"{who} plays the exact lens" in screen_text(app), "the wait to be said")
        assert app.game.state.t == 0
        held_solve.set()
        await wait_until(pilot, lambda: app.game.state.t == 1, "the exact seat's move after the solve", timeout=60)
        assert app.game.valuation.exact_solved


@pytest.mark.slow
async def test_cancelling_the_solve_an_exact_seat_waits_for_says_how_to_go_on(screen_text, wait_until, play_screen,
                                                                            tmp_path, held_solve):
    from negtui.seats import Seat

    path = _exact_game(tmp_path, 8, 5)
    who = _first_mover(path)
    app = NegtuiApp(path, seats={who: Seat(agent="lens", propose_lens="exact", respond_lens="exact")},
                    ask_seats=False, record=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        assert not app.game.valuation.exact_solved  # the first screen came before any solve
        ps = play_screen(app)
        await wait_until(pilot, lambda: ps.exact_solving, "the solve to start")
        await pilot.press("space")
        await pilot.pause()
        assert app.game.state.t == 0
        await pilot.press("c")
        await wait_until(pilot, lambda: not ps.exact_solving, "the solve to stop", timeout=30)
        await wait_until(pilot, lambda: "cannot move without it" in " ".join(screen_text(app).split()),
                         "the status to say the seat waits")
        assert "n solves again" in " ".join(screen_text(app).split())
        assert app.game.state.t == 0 and not app.game.valuation.exact_solved
        await pilot.press("n")  # solves again
        await wait_until(pilot, lambda: ps.exact_solving, "the solve to start again")
        await pilot.press("c")
        await wait_until(pilot, lambda: not ps.exact_solving, "the solve to stop again", timeout=30)
        await pilot.press("n")  # and once more, to the end: the seat moves when it is solved
        await wait_until(pilot, lambda: ps.exact_solving, "the solve to start a third time")
        held_solve.set()
        await wait_until(pilot, lambda: app.game.state.t == 1, "the exact seat's move after the solve", timeout=60)
