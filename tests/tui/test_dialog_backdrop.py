"""Dialogs dim the screen below themselves (negtui/tui/screens/modal.py): the same cells Textual's own
translucent background gives, drawn once however often the dialog repaints, and drawn anew when the
screen below changes size."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.visual import Visual, visualize

from negtui.seats import Seat
from negtui.tui.screens import modal
from negtui.tui.screens.dialogs import HelpScreen, PartnerScreen
from tests.tui.conftest import pill_app

pytestmark = pytest.mark.asyncio


def cells(strips) -> list[list[tuple[str, object]]]:
    """Each line as (character, style) per cell: how segments are split is no matter."""
    return [[(ch, seg.style) for seg in strip for ch in seg.text] for strip in strips]


@pytest.mark.parametrize("size", [(100, 32), (80, 24)])
async def test_the_backdrop_is_textuals_translucent_background_cell_for_cell(size, wait_until, play_screen):
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog A's turn opens")
        await pilot.press("right", "enter")  # something on the board to dim
        await wait_until(pilot, lambda: app.screen is play_screen(app) and app.screen.source.partner is not None,
                         "the offer A builds")
        await pilot.pause()  # and the board laid out with it
        below = app.screen
        app.push_screen(HelpScreen("play"))
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen._backdrop is not None,
                         "Help's backdrop")
        dialog = app.screen
        ours = dialog._backdrop[1].strips
        textual = Visual.to_strips(dialog, visualize(dialog, BackgroundScreen(below, dialog.styles.background)),
                                   size[0], size[1], dialog.visual_style)
        assert len(ours) == size[1]
        assert cells(ours) == cells(textual)
        assert any(ch.strip() for line in cells(ours) for ch, _ in line)  # not a blank screen


async def partner_dialog_settled(pilot, wait_until) -> tuple[PartnerScreen, Screen]:
    """A's partner dialog, as A's first turn opens it, settled over the game: the dialog and the game."""
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog A's turn opens")
    partner = app.screen
    await settled(pilot, wait_until, partner)
    return partner, app.screen_stack[-2]


async def settled(pilot, wait_until, dialog: modal.Dialog) -> None:
    """The game screen's first layouts are over and the dialog has drawn its backdrop of them: the backdrop
    drawn, none on its way, and still the same one a settling period later (the game below may lay out once
    more from its first frames, after the dialog's first drawing)."""
    await pilot.app.workers.wait_for_complete()
    for _ in range(10):
        await wait_until(pilot, lambda: dialog._settling is None and dialog._backdrop is not None,
                         "the backdrop to settle")
        drawn = dialog._backdrop
        await pilot.pause(modal.SETTLE * 2)
        if dialog._backdrop is drawn and dialog._settling is None:
            return
    raise AssertionError("the backdrop was drawn anew in each of ten settling periods")


async def test_the_backdrop_is_drawn_once_per_size_not_per_repaint(monkeypatch, wait_until):
    drawn = []
    real = modal.dimmed
    monkeypatch.setattr(modal, "dimmed", lambda *a: drawn.append(a[3]) or real(*a))
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog A's turn opens")
        await settled(pilot, wait_until, app.screen)
        before = len(drawn)
        app.push_screen(HelpScreen("play"))
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen._backdrop is not None,
                         "Help's backdrop")
        await pilot.pause(modal.SETTLE * 2)  # nothing changed below: no second drawing once it settles
        for _ in range(5):
            app.screen.refresh()
            await pilot.pause()
        assert len(drawn) == before + 1 and app.screen._settling is None  # and none on its way
        await pilot.resize_terminal(90, 30)
        await wait_until(pilot, lambda: app.screen._backdrop is not None and app.screen._backdrop[0] == (90, 30),
                         "the backdrop drawn at 90×30")
        assert drawn[-1] == (90, 30)


async def test_a_dialog_under_another_draws_its_backdrop_anew_only_when_it_is_on_top_again(monkeypatch, wait_until):
    """The game below lays out anew while Help is open over the partner dialog: the partner dialog forgets its
    picture of the game but draws none while Help covers it (Help shows its own picture of it), and draws
    the game anew, once, when Help closes."""
    drawn: list[object] = []
    real = modal.dimmed
    monkeypatch.setattr(modal, "dimmed", lambda *a: drawn.append(a[0]) or real(*a))
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        partner, game = await partner_dialog_settled(pilot, wait_until)
        app.push_screen(HelpScreen("play"))
        await wait_until(pilot, lambda: drawn and drawn[-1] is partner, "Help's backdrop")
        before = len(drawn)
        game.refresh(layout=True)  # the game below laid out anew
        await wait_until(pilot, lambda: partner._backdrop is None, "the partner dialog to forget its backdrop")
        for _ in range(3):
            app.screen.refresh()
            await pilot.pause()
        assert len(drawn) == before  # nothing drawn under Help
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is partner and partner._backdrop is not None, "the partner on top")
        assert drawn[before:] == [game]


async def test_a_kept_dialog_closed_draws_nothing_when_the_game_below_lays_out(wait_until):
    """The partner dialog is kept for the game's next turn once closed; each layout of the game meanwhile (a
    move is one) started its settling timer and repainted it, unseen.  Closed, it only forgets its backdrop,
    and draws the game anew as it opens again."""
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        partner, game = await partner_dialog_settled(pilot, wait_until)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is game, "the partner dialog closed")
        assert partner.is_attached and partner not in app.screen_stack  # kept
        repainted: list[object] = []
        partner.refresh = lambda *a, **k: repainted.append(a) or partner  # type: ignore[method-assign]
        game.refresh(layout=True)
        await wait_until(pilot, lambda: partner._backdrop is None, "the partner dialog to forget its backdrop")
        assert partner._settling is None
        await pilot.pause(modal.SETTLE * 1.5)
        assert repainted == []
        del partner.refresh
        await pilot.press("p")  # the partner dialog again
        await wait_until(pilot, lambda: app.screen is partner and partner._backdrop is not None, "the dialog reopened")


async def test_the_backdrop_drawn_anew_repaints_only_the_lines_that_changed(wait_until):
    """The game below the partner dialog changes a line and lays out: the dialog draws its backdrop anew and
    repaints that line, not the whole screen (a full frame, and a full screen sent to the terminal)."""
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        partner, game = await partner_dialog_settled(pilot, wait_until)
        before = partner._backdrop[1].strips
        asked: list[tuple] = []
        real = partner.refresh
        partner.refresh = lambda *regions, **kw: asked.append(regions) or real(*regions, **kw)  # type: ignore[method-assign]
        game.set_status("a status line of another length, to show through the dimming")
        game.refresh(layout=True)
        await wait_until(pilot, lambda: asked, "the backdrop drawn anew")
        await pilot.pause()
        after = partner._backdrop[1].strips
        lines = [y for y, (a, b) in enumerate(zip(before, after)) if a != b]
        assert 1 <= len(lines) <= 2, lines  # the status line (and what wraps of it)
        assert asked == [tuple(Region(0, y, 100, 1) for y in lines)]
        fresh = modal.dimmed(game, partner._below.color, partner.visual_style.rich_style, partner.size)
        assert cells(after) == cells(fresh)
