"""Dialogs dim the screen below themselves (negtui/tui/screens/modal.py): the same cells Textual's own
translucent background gives, drawn once however often the dialog repaints, and drawn anew when the
screen below changes size."""

from __future__ import annotations

import pytest
from textual.renderables.background_screen import BackgroundScreen
from textual.visual import Visual, visualize

from negtui.seats import Seat
from negtui.tui.screens import modal
from negtui.tui.screens.dialogs import HelpScreen
from tests.tui.conftest import pill_app

pytestmark = pytest.mark.asyncio


def cells(strips) -> list[list[tuple[str, object]]]:
    """Each line as (character, style) per cell: how segments are split is no matter."""
    return [[(ch, seg.style) for seg in strip for ch in seg.text] for strip in strips]


@pytest.mark.parametrize("size", [(100, 32), (80, 24)])
async def test_the_backdrop_is_textuals_translucent_background_cell_for_cell(size):
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("right", "enter")  # something on the board to dim
        await pilot.pause()
        below = app.screen
        app.push_screen(HelpScreen("play"))
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, HelpScreen)
        ours = dialog._backdrop[1].strips
        textual = Visual.to_strips(dialog, visualize(dialog, BackgroundScreen(below, dialog.styles.background)),
                                   size[0], size[1], dialog.visual_style)
        assert len(ours) == size[1]
        assert cells(ours) == cells(textual)
        assert any(ch.strip() for line in cells(ours) for ch, _ in line)  # not a blank screen


async def test_the_backdrop_is_drawn_once_per_size_not_per_repaint(monkeypatch):
    drawn = []
    real = modal.dimmed
    monkeypatch.setattr(modal, "dimmed", lambda *a: drawn.append(a[3]) or real(*a))
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause(modal.SETTLE * 2)  # the game screen's first layouts are over
        before = len(drawn)  # the partner dialog A's turn opened
        app.push_screen(HelpScreen("play"))
        await pilot.pause(modal.SETTLE * 2)  # nothing changed below: no second drawing once it settles
        for _ in range(5):
            app.screen.refresh()
            await pilot.pause()
        assert len(drawn) == before + 1
        await pilot.resize_terminal(90, 30)
        await pilot.pause(0.2)
        assert drawn[-1] == (90, 30)
        assert app.screen._backdrop[0] == (90, 30)
