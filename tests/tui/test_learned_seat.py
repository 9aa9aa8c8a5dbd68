"""The seat dialog seats the learned lens: a bot of the shipped model plays its turn in the app."""

from __future__ import annotations

import pytest

from negtui.tui.screens.seats import SeatsScreen

pytestmark = pytest.mark.asyncio


async def test_the_seat_dialog_seats_a_learned_bot_that_plays(settle, pill_app):
    app = pill_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SeatsScreen)
        assert "learned" in app.screen.choices
        app.screen.choose("A", plays="learned")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.game.seats["A"].lenses == ("learned", "learned")
        await pilot.press("space")  # A proposes first: its bot decides with the model
        await settle(pilot)
        assert len(app.game.events) == 1 and app.game.events[0].proposer == 0


async def test_two_models_of_ones_own_are_told_apart_by_their_files_names(screen_text, pill_app, tmp_path):
    """A `learned:PATH` seat's cell shows the model's file name, whole in the dialog at 80×24: two models
    differ there (as `learned:mod…` both read alike)."""
    import numpy as np

    from negtui.seats import Seat
    from tests.engine.test_learned_lens import network_arrays

    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        np.savez(tmp_path / name / f"mod-{name}.npz", **network_arrays())
    one, two = (f"learned:{tmp_path / name / f'mod-{name}.npz'}" for name in ("one", "two"))
    app = pill_app(A=Seat.lens(one), B=Seat.lens(two, "lower"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SeatsScreen)
        text = screen_text(app)
        cells = [ln for ln in text.splitlines() if "▾" in ln]  # the seat grid's rows
        row_a = next(ln for ln in cells if "A · Alice" in ln)
        row_b = next(ln for ln in cells if "B · Bob" in ln)
        assert row_a.split("Alice", 1)[1].split()[:6] == ["mod-one.npz", "▾", "its", "own", "lens", "▾"], row_a
        assert row_b.split("Bob", 1)[1].split()[:4] == ["mod-two.npz", "▾", "lower", "▾"], row_b
        assert "…" not in row_a + row_b
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.game.seats["A"].lenses == (one, one) and app.game.seats["B"].lenses == (two, "lower")
