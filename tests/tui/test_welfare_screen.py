"""The welfare screen: the optimum marked on the matrix until the next turn, other objectives, and a solve
cancelled or left running when the app quits (its worker process does not outlive it)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from textual.widgets import Select, Static

from negtui.seats import Seat
from negtui.tui.screens.welfare import WelfareScreen
from negtui.welfare import WelfareJob

pytestmark = pytest.mark.asyncio


async def test_the_welfare_optimum_is_marked_on_the_matrix_until_the_next_turn(screen_text, wait_until, play_screen,
                                                                               pill_app):
    """m on the welfare screen closes it and marks ◇◇ the cells the optimum still needs; the legend names
    the objective; the mark goes with the next turn (the optimum was of the position it was solved at)."""
    app = pill_app(A=Seat.lens("myopic"), B=Seat.lens("myopic"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, WelfareScreen) and app.screen.result is not None,
                         "the welfare result")
        await pilot.press("m")
        await pilot.pause()
        assert app.screen is ps
        await wait_until(pilot, lambda: "◇◇ utilitarian optimum" in screen_text(app)
                         and screen_text(app).count("◇◇ bait") == 2, "the optimum marked on the matrix and the legend")
        text = screen_text(app)
        assert "◇◇ bait" in text and "◇◇ poison" not in text and "◇◇ side" not in text
        assert text.count("◇◇ bait") == 2  # A's bait and B's bait: 30 each
        assert "◇◇ utilitarian optimum" in text
        await pilot.press("n")
        await wait_until(pilot, lambda: app.game.state.t == 1, "the next turn")
        await wait_until(pilot, lambda: "◇◇" not in screen_text(app), "the mark gone with the turn")


# a worker that reads its request and never answers: a solve that lasts until it is killed
_HELD = (sys.executable, "-c", "import sys, time; sys.stdin.read(); time.sleep(600)")


def _held(job) -> subprocess.Popen:
    assert job is not None and not job.done(), "the held solve ended on its own"
    return job._proc


async def test_welfare_optimum_shown_then_a_solve_cancelled(screen_text, wait_until, play_screen, pill_app,
                                                            monkeypatch):
    app = pill_app()
    procs: list[subprocess.Popen] = []
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            ps = play_screen(app)
            await pilot.press("w")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, WelfareScreen)
            status = scr.query_one("#welfare-status", Static)
            await wait_until(pilot, lambda: "welfare " in str(status.content), "the welfare result")
            assert scr.result.welfare == pytest.approx(60.0)
            assert scr.result.payoffs == pytest.approx([30.0, 30.0])
            shown = str(status.content)
            assert "utilitarian: welfare 60.00, the largest sum of payoffs" in shown
            adds = str(scr.query_one("#welfare-adds", Static).content)
            assert "the optimum adds: A commits bait; B commits bait" in adds  # which commitments reach it
            await wait_until(pilot, lambda: all(word in screen_text(app) for word in ("optimum", "30.0", "gap")),
                             "the optimum's table drawn")
            # another objective: solved at once, the old table gone, its number explained
            scr.query_one("#objective", Select).value = "nash"
            await pilot.pause()
            assert scr.result is None and "solving nash" in str(status.content)
            await wait_until(pilot, lambda: scr.result is not None, "the Nash result")
            assert "nash: welfare" in str(status.content) and "largest product of payoffs" in str(status.content)
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is ps

            monkeypatch.setattr(WelfareJob, "command", _HELD)  # from here on, solves last until cancelled
            await pilot.press("w")
            await wait_until(pilot, lambda: isinstance(app.screen, WelfareScreen) and app.screen.job is not None,
                             "the solve to start")
            scr = app.screen
            procs.append(_held(scr.job))
            status = scr.query_one("#welfare-status", Static)
            assert "solving utilitarian" in str(status.content)
            await pilot.press("c")
            await pilot.pause()
            assert "solve cancelled" in str(status.content)
            assert scr.job is None and scr.result is None
            assert procs[-1].wait(timeout=5) == -signal.SIGKILL  # the worker process is gone
            await wait_until(pilot, lambda: not any(w.group == "welfare" for w in app.workers),
                             "the wait for the cancelled solve to end")
            await pilot.pause()  # whatever it posted is handled
            assert "solve cancelled" in str(status.content)  # no late result
            # solve again, and quit the app while it runs: the worker process must not outlive the app
            await pilot.click("#solve")
            await wait_until(pilot, lambda: scr.job is not None, "the solve to start again")
            procs.append(_held(scr.job))
            assert "solving utilitarian" in str(status.content)
        assert procs[-1].wait(timeout=5) == -signal.SIGKILL, "the worker process outlived the app"
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


async def test_the_cancel_key_is_offered_only_while_a_solve_runs(wait_until, pill_app, monkeypatch):
    """"c cancel solve" is on the dialog's key bar (and its button enabled) while a solve runs, and not once
    it has ended, solved or cancelled: there is nothing to cancel then."""
    from textual.widgets import Button

    from negtui.tui.widgets.keybar import KeyBar

    app = pill_app()
    procs: list[subprocess.Popen] = []
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("w")
            await wait_until(pilot, lambda: isinstance(app.screen, WelfareScreen) and app.screen.result is not None,
                             "the welfare result")
            scr = app.screen
            bar = scr.query_one(KeyBar)

            def offered() -> bool:
                return any(action.endswith("cancel_solve") for *_, action in bar.shown)

            await wait_until(pilot, lambda: not offered(), "c cancel solve gone from the key bar once solved")
            assert scr.query_one("#cancel", Button).disabled
            monkeypatch.setattr(WelfareJob, "command", _HELD)  # a solve that lasts until it is cancelled
            await pilot.click("#solve")
            await wait_until(pilot, lambda: scr.job is not None and offered(), "c cancel solve offered while it runs")
            procs.append(_held(scr.job))
            assert not scr.query_one("#cancel", Button).disabled
            await pilot.press("c")
            await wait_until(pilot, lambda: not offered(), "c cancel solve gone once the solve is cancelled")
            assert scr.job is None and scr.query_one("#cancel", Button).disabled
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
