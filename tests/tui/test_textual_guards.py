"""Guards around the pinned Textual version (negtui/tui/textual_guards.py), each shown to matter: the
test fails with the guard removed."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

import pytest
from textual.message import Message

from negtui.tui import textual_guards, textual_styles
from tests.paths import PILL


class Ping(Message):
    """A message nobody handles: something for a screen's message loop to do."""


def test_a_toast_made_as_its_notification_expires_does_not_freeze_the_app():
    """The rack makes a toast for a notification that has not expired; if it expires in the instant
    before the toast is made, the toast's timer gets a negative delay. In a separate process: unguarded,
    Textual's timer loop spins forever."""
    script = f'''
import asyncio, time
from pathlib import Path
from textual.notifications import Notification
from textual.widgets._toast import Toast, ToastHolder, ToastRack
from negtui.tui.app import NegtuiApp

async def main():
    app = NegtuiApp(Path({str(PILL)!r}), ask_seats=False, record=False)
    async with app.run_test(notifications=True) as pilot:
        await pilot.pause()
        note = Notification("expiring", timeout=0.001)
        time.sleep(0.01)
        toast = Toast(note)  # made after the notification expired
        assert toast._timeout < 0
        await app.screen.query_one(ToastRack).mount(ToastHolder(toast))
        deadline = time.monotonic() + 10  # unguarded, the loop never comes back here
        while toast.is_attached and time.monotonic() < deadline:
            await pilot.pause(0.05)
        print("toast gone" if not toast.is_attached else "toast still shown after 10 s")
        await pilot.press("q")

asyncio.run(main())
'''
    try:
        res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("the app froze on a toast with a negative delay")
    assert res.returncode == 0, res.stderr
    assert "toast gone" in res.stdout


@contextmanager
def screens_laid_out() -> Iterator[list[str]]:
    """The screens laid out while the block runs, by class name."""
    from textual.screen import Screen

    laid_out: list[str] = []
    real = Screen._refresh_layout

    def spy(self, *args, **kwargs):
        laid_out.append(type(self).__name__)
        return real(self, *args, **kwargs)

    Screen._refresh_layout = spy  # type: ignore[method-assign]
    try:
        yield laid_out
    finally:
        Screen._refresh_layout = real  # type: ignore[method-assign]


async def partner_dialog_settled(app, pilot, wait_until) -> None:
    """A's partner dialog over the game, both laid out (the dialog's backdrop of the game drawn and settled)."""
    from negtui.tui.screens.dialogs import PartnerScreen

    await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog A's turn opens")
    partner = app.screen
    await app.workers.wait_for_complete()
    await wait_until(pilot, lambda: partner._settling is None and partner._backdrop is not None,
                     "the partner dialog's backdrop to settle")


@pytest.mark.asyncio
async def test_a_dialog_pushed_does_not_lay_out_the_screens_below_again(wait_until):
    """Unguarded, the dialog's first resize reached every screen below and each reflowed in full."""
    from negtui.seats import Seat
    from negtui.tui.screens.dialogs import HelpScreen
    from tests.tui.conftest import pill_app

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        below = [type(s).__name__ for s in app.screen_stack]
        with screens_laid_out() as laid_out:
            app.push_screen(HelpScreen("play"))
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen) and app.screen._backdrop is not None,
                             "Help laid out and drawn")
            await pilot.pause()  # what its first resize passed on is handled
    assert "HelpScreen" in laid_out
    assert not set(laid_out) & set(below), laid_out


@pytest.mark.asyncio
async def test_a_dialog_closed_does_not_lay_out_the_screen_below_again(wait_until):
    """Unguarded, removing the closed dialog from the app laid out the screen it uncovered in full, although
    the dialog was never part of it (a trainee closes a dialog a dozen times a game)."""
    from negtui.seats import Seat
    from negtui.tui.screens.dialogs import HelpScreen, PartnerScreen
    from tests.tui.conftest import pill_app

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the partner dialog A's turn opens")
        await app.workers.wait_for_complete()
        await pilot.press("escape")  # the partner dialog is kept for the next turn: Help is removed as it closes
        game = app.screen_stack[-1]
        help_ = HelpScreen("play")
        app.push_screen(help_)
        await wait_until(pilot, lambda: app.screen is help_ and help_._backdrop is not None, "Help open")
        with screens_laid_out() as laid_out:
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is game and not help_.is_attached, "Help gone")
            for _ in range(3):
                await pilot.pause()
    assert laid_out == [], laid_out


@contextmanager
def unguarded(cls: type, name: str) -> Iterator[None]:
    """Textual's own hook in place of the guard's while the block runs."""
    guarded = getattr(cls, name)
    setattr(cls, name, textual_guards.original(cls, name))
    try:
        yield
    finally:
        setattr(cls, name, guarded)


async def confirm_laid_out(wait_until, without: tuple[type, str] | None = None) -> list[str]:
    """The screens laid out from pushing a yes-or-no question over A's partner dialog until it settles;
    `without`: that hook Textual's own meanwhile (the app puts the guards in place as it is made)."""
    from negtui.seats import Seat
    from negtui.tui.screens.dialogs import ConfirmScreen
    from tests.tui.conftest import pill_app

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32), notifications=True) as pilot:  # a toast rack on every screen
        await partner_dialog_settled(app, pilot, wait_until)
        question = ConfirmScreen("Sure?", "A question with no scrolling and no toast.")
        with unguarded(*without) if without else nullcontext(), screens_laid_out() as laid_out:
            app.push_screen(question)
            await wait_until(pilot, lambda: app.screen is question and question._backdrop is not None, "the question")
            for _ in range(6):  # what its first size and its mounting asked for is laid out
                await pilot.pause(0.05)
    return laid_out


@pytest.mark.asyncio
async def test_a_dialog_opening_is_laid_out_once(wait_until):
    """Unguarded it was laid out three times, each layout followed by a frame: as it resumed, as its first
    size arrived as a resize, and for what its widgets asked for while it was composed; and once more as
    Textual reported it mounted."""
    assert await confirm_laid_out(wait_until) == ["ConfirmScreen"]


@pytest.mark.asyncio
@pytest.mark.parametrize(("cls", "name"), [("Widget", "_size_updated"), ("Screen", "_on_layout"),
                                           ("Screen", "_refresh_layout"), ("Screen", "_screen_resized"),
                                           ("AwaitMount", "__await__")])
async def test_each_layout_guard_matters(cls, name, wait_until):
    """Without any one of them the dialog is laid out again (or the screens below it are)."""
    from textual.screen import Screen
    from textual.widget import AwaitMount, Widget

    laid_out = await confirm_laid_out(wait_until, ({"Widget": Widget, "Screen": Screen, "AwaitMount": AwaitMount}[cls],
                                                   name))
    assert len(laid_out) > 1, laid_out


@pytest.mark.parametrize(("cls", "name", "parameters", "guard"), textual_guards.GUARDS,
                         ids=[f"{g[0].__name__}.{g[1]}" for g in textual_guards.GUARDS])
def test_the_private_hooks_the_guards_wrap_are_still_textuals(cls, name, parameters, guard):
    """Each guard wraps a private method of the pinned Textual: an upgrade that renames, moves or reshapes
    one fails here, by name, rather than as an app that no longer starts (or a guard that no longer guards)."""
    hook = textual_guards.original(cls, name)
    assert name in cls.__dict__ or getattr(cls, name).negtui_original is hook, f"{cls.__name__}.{name} is gone"
    function = hook.fget if isinstance(hook, property) else hook
    assert function.__module__.startswith("textual."), f"{cls.__name__}.{name} is no longer Textual's own"
    assert tuple(inspect.signature(function).parameters) == parameters


@pytest.mark.asyncio
@pytest.mark.parametrize("guarded", [True, False])
async def test_a_screen_under_an_opaque_one_is_neither_laid_out_nor_drawn_until_it_shows(guarded, wait_until):
    """The game covered by a screen of its own (as a lobby is by a game) changes: unguarded, Textual counted
    it visible, laid it out and drew it; guarded it is laid out once it shows again."""
    from textual.app import App
    from textual.screen import Screen
    from textual.widgets import Static

    from negtui.seats import Seat
    from tests.tui.conftest import pill_app

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        app.pop_screen()
        game = app.screen
        cover = Screen()
        await app.push_screen(cover)
        await cover.mount(Static("over the game"))
        for _ in range(3):
            await pilot.pause()
        with unguarded(App, "_background_screens") if not guarded else nullcontext(), screens_laid_out() as laid_out:
            game.query_one("#status").refresh(layout=True)
            for _ in range(6):
                await pilot.pause(0.05)
        assert (laid_out == []) is guarded, laid_out
        app.pop_screen()
        await wait_until(pilot, lambda: app.screen is game, "the game shown again")
        with screens_laid_out() as laid_out:
            game.query_one("#status").refresh(layout=True)
            for _ in range(6):
                await pilot.pause(0.05)
        assert type(game).__name__ in laid_out


@pytest.mark.asyncio
@pytest.mark.parametrize("guarded", [True, False])
async def test_a_toast_rack_told_there_is_nothing_to_show_asks_for_no_layout(guarded, wait_until):
    """A screen resuming tells its rack the notifications; with none, unguarded, the rack set its hidden
    display to hidden and Textual laid the screen out again (the first screen of a trainee's app, each time)."""
    from textual.widgets._toast import ToastRack

    from negtui.seats import Seat
    from tests.tui.conftest import pill_app

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        rack = app.screen.get_child_by_type(ToastRack)
        with unguarded(ToastRack, "show") if not guarded else nullcontext(), screens_laid_out() as laid_out:
            rack.show(app._notifications)
            for _ in range(4):
                await pilot.pause(0.05)
        assert not rack.display and not rack.children
        assert (laid_out == []) is guarded, laid_out
        app.notify("a toast")  # one to show is shown, guarded or not
        await wait_until(pilot, lambda: rack.display and rack.children, "the toast shown")


def test_what_the_guards_read_of_textual_is_still_there():
    """The attributes the guards read: a toast's `_timeout` (set as it is made) and a screen's compositor size."""
    from textual.notifications import Notification
    from textual.screen import Screen
    from textual.widgets._toast import Toast

    assert isinstance(Toast(Notification("x", timeout=1))._timeout, float)
    assert Screen()._compositor.size is not None
    assert Screen()._layout_required is False  # cleared by the update timer's layout alone, unguarded
    source = inspect.getsource(importlib.import_module("textual.screen"))
    assert "._screen_resized(" in source  # Textual passes a resize on to the screens below through it


def test_importing_the_app_installs_no_guard_and_making_one_does():
    """The guards are put in place by the app as it is made, not as a side effect of an import."""
    script = '''
from textual.screen import Screen
from textual.widgets._toast import Toast
import negtui.tui.app
hooks = (Toast._on_mount, Screen._screen_resized)
print("imported:", [h.__module__ for h in hooks])
negtui.tui.app.NegtuiApp(None, record=False)
hooks = (Toast._on_mount, Screen._screen_resized)
print("made:", [h.__module__ for h in hooks])
'''
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "imported: ['textual.widgets._toast', 'textual.screen']" in res.stdout, res.stdout
    assert "made: ['negtui.tui.textual_guards', 'negtui.tui.textual_guards']" in res.stdout, res.stdout


@pytest.mark.asyncio
async def test_css_parsed_before_forking_leaves_an_app_nothing_to_parse_until_its_theme_changes(monkeypatch,
                                                                                                 wait_until):
    """The fork server parses every widget class's CSS (`preparse`); a trainee's app then opens the game and
    a dialog without parsing any.  Another theme is other variables: its CSS is parsed anew, and drawn."""
    from textual.css import stylesheet

    from negtui.seats import Seat
    from negtui.tui.app import NegtuiApp
    from tests.tui.conftest import pill_app

    assert textual_guards.preparse(NegtuiApp(None, record=False)) > 30
    parsed: list[object] = []
    parse = stylesheet.parse
    monkeypatch.setattr(stylesheet, "parse", lambda *a, **k: parsed.append(a[2]) or parse(*a, **k))
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        assert parsed == []
        background = app.screen.styles.background
        app.theme = "textual-light"
        await wait_until(pilot, lambda: app.screen.styles.background != background, "the light theme drawn")
        assert parsed, "a theme's variables are part of what the rules were parsed with"


def test_css_parsed_once_is_not_parsed_again_by_a_second_stylesheet(monkeypatch):
    """Unguarded, each stylesheet (a new app, or a screen's CSS making its app parse everything again) parsed
    every source anew."""
    from textual.app import App
    from textual.css import stylesheet

    textual_guards.install()
    calls: list[object] = []
    parse = stylesheet.parse
    monkeypatch.setattr(stylesheet, "parse", lambda *a, **k: calls.append(a[2]) or parse(*a, **k))
    variables = App().get_css_variables()
    css = "Widget { color: $primary; } #guarded-once { height: 3; }"
    for _ in range(3):
        sheet = stylesheet.Stylesheet(variables=variables)
        sheet.add_source(css, read_from=("test", "guarded"), is_default_css=True)
        assert len(sheet.rules) == 2
    assert calls == [("test", "guarded")]
    with unguarded(stylesheet.Stylesheet, "_parse_rules"):
        sheet = stylesheet.Stylesheet(variables=variables)
        sheet.add_source(css, read_from=("test", "guarded"), is_default_css=True)
        assert len(sheet.rules) == 2
    assert len(calls) == 2


@contextmanager
def frames_drawn() -> Iterator[list[tuple[str, bool]]]:
    """Each frame the app draws meanwhile: (the screen drawn, whether every cell of it was)."""
    from textual._compositor import Compositor
    from textual.screen import Screen

    drawn: list[tuple[str, bool]] = []
    real = Screen._compositor_refresh
    real_full = Compositor.render_full_update

    def spy(self):
        if self is self.app.screen and self._compositor._dirty_regions and not getattr(self, "_negtui_paint_held",
                                                                                          False):
            drawn.append((type(self).__name__, self.size.region in self._compositor._dirty_regions))
        return real(self)

    Screen._compositor_refresh = spy  # type: ignore[method-assign]
    try:
        yield drawn
    finally:
        Screen._compositor_refresh = real  # type: ignore[method-assign]
        assert Compositor.render_full_update is real_full


@pytest.mark.asyncio
@pytest.mark.parametrize("guarded", [True, False])
async def test_a_screen_shown_for_the_first_time_is_drawn_in_full_once(guarded, wait_until):
    """Its first layout draws every cell; unguarded, the repaint Textual asks for as it resumes drew them all
    again a frame later."""
    from textual.screen import Screen

    from negtui.tui.screens.dialogs import ConfirmScreen

    app = pill_app_of_a()
    async with app.run_test(size=(100, 32)) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        question = ConfirmScreen("Sure?", "A question.")
        with unguarded(Screen, "_on_screen_resume") if not guarded else nullcontext(), frames_drawn() as drawn:
            app.push_screen(question)
            await wait_until(pilot, lambda: app.screen is question and question._backdrop is not None, "the question")
            for _ in range(6):
                await pilot.pause(0.05)
    full = [screen for screen, whole in drawn if whole]
    assert full == (["ConfirmScreen"] if guarded else ["ConfirmScreen", "ConfirmScreen"]), drawn


@pytest.mark.asyncio
@pytest.mark.parametrize("guarded", [True, False])
async def test_a_screen_under_a_dialog_repaints_through_it_once_it_settles(guarded, wait_until):
    """A line of the game below the partner dialog changes (a countdown's, say): guarded, nothing is drawn
    while the game keeps handling messages, and once it settles the dialog draws the game anew, repainting
    that line alone.  Unguarded, the dialog was repainted over the line at once and again for each message
    the game handled after (the game marked the line for a repaint once more each time it passed it on)."""
    from textual.screen import Screen

    from negtui.tui.screens import modal

    app = pill_app_of_a()
    async with app.run_test(size=(100, 32)) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        partner, game = app.screen, app.screen_stack[-2]
        if not guarded:  # Textual's frame too (the screen's update timer was made with the guarded hook)
            game._update_timer._callback = textual_guards.original(Screen, "_on_timer_update").__get__(game)
        with unguarded(Screen, "_compositor_refresh") if not guarded else nullcontext(), frames_drawn() as drawn:
            game.set_status("a status line of another length, to show through the dimming")
            for _ in range(6):
                await pilot.pause(0.05)
                game.post_message(Ping())  # the game has messages to handle, as a running game does
            at_once = list(drawn)
            await pilot.pause(modal.SETTLE * 1.5)
            await wait_until(pilot, lambda: partner._settling is None, "the backdrop drawn anew")
            await pilot.pause()
        fresh = modal.dimmed(game, partner._below.color, partner.visual_style.rich_style, partner.size)
    if guarded:
        assert at_once == [], at_once
        assert drawn == [("PartnerScreen", False)], drawn  # the line, not the screen
        backdrop = partner._backdrop[1].strips
        assert "a status line of another length" in "".join(seg.text for strip in backdrop for seg in strip)
        assert [[(ch, seg.style) for seg in strip for ch in seg.text] for strip in backdrop] == \
            [[(ch, seg.style) for seg in strip for ch in seg.text] for strip in fresh]  # as if drawn whole
    else:
        assert len(at_once) >= 3, at_once


@pytest.mark.asyncio
@pytest.mark.parametrize("guarded", [True, False])
async def test_a_line_changed_under_a_dialog_shows_though_the_screen_was_asked_to_repaint_whole(guarded, wait_until):
    """Pushing a dialog asks the screen below for a whole repaint, which its next frame makes in place of its
    widgets' repaints: a status line changed in that frame never reached the dialog's backdrop.  Guarded,
    that whole repaint (which shows nothing under a kept backdrop) is dropped, and the line shows."""
    from textual.screen import Screen

    from negtui.tui.screens import modal

    app = pill_app_of_a()
    async with app.run_test(size=(100, 32)) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        partner, game = app.screen, app.screen_stack[-2]
        if not guarded:  # the screen's update timer was made with the guarded hook: Textual's own in its place
            game._update_timer._callback = textual_guards.original(Screen, "_on_timer_update").__get__(game)
        with frames_drawn() as drawn:
            # in one step, as it happens when both come before the game's next frame: the status line changed
            # and its repaint handed to the screen (as the line's idle and Screen._on_update do), the whole
            # repaint pushing the dialog asked for still pending, and then that frame
            game.set_status("a status line of another length, to show through the dimming")
            status = game.query_one("#status")
            status._repaint_required = False
            game._dirty_widgets.add(status)
            game._repaint_required = True
            game._update_timer._callback()
            await pilot.pause(modal.SETTLE * 1.5)
            await wait_until(pilot, lambda: partner._settling is None, "the backdrop drawn anew")
            await pilot.pause()
    backdrop = "".join(seg.text for strip in partner._backdrop[1].strips for seg in strip)
    assert ("a status line of another length" in backdrop) == guarded
    assert drawn == ([("PartnerScreen", False)] if guarded else []), drawn


def pill_app_of_a():
    from negtui.seats import Seat
    from tests.tui.conftest import pill_app

    return pill_app(A=Seat.human(), B=Seat.lens("upper"))


async def styles_through_a_game(wait_until, guarded: bool) -> tuple[list[dict[str, list[str]]], int]:
    """Every node's CSS as computed, at each step of a game (the partner dialog, the offer builder with a cell
    chosen, Help over the game, back to the game): each node's place and rules, at each step; and how many
    rules were checked against a node, working its styles out."""
    from textual.css.stylesheet import Stylesheet

    from negtui.tui.screens.dialogs import HelpScreen

    app = pill_app_of_a()
    checked = [0]
    check_rule = Stylesheet.__dict__["_check_rule"].__func__

    def counted(cls, rule_set, css_path_nodes):
        checked[0] += 1
        return check_rule(cls, rule_set, css_path_nodes)

    def css() -> dict[str, list[str]]:
        return {f"{type(screen).__name__} {i}: {node.css_identifier_styled}": node.styles.base.css_lines
                for screen in app.screen_stack for i, node in enumerate(screen.walk_children(with_self=True))}

    steps = []
    Stylesheet._check_rule = classmethod(counted)  # type: ignore[method-assign,assignment]
    try:
        with unguarded(Stylesheet, "apply") if not guarded else nullcontext():
            async with app.run_test(size=(100, 32)) as pilot:
                await partner_dialog_settled(app, pilot, wait_until)
                steps.append(css())
                await pilot.press("enter", "enter")  # A's offer to B: the builder, B's first cell chosen
                await pilot.pause(0.2)
                steps.append(css())
                app.push_screen(HelpScreen("play"))
                await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "Help")
                await pilot.pause(0.2)
                steps.append(css())
                await pilot.press("escape", "escape")
                await pilot.pause(0.2)
                steps.append(css())
    finally:
        Stylesheet._check_rule = classmethod(check_rule)  # type: ignore[method-assign,assignment]
    return steps, checked[0]


@pytest.mark.asyncio
async def test_styles_remembered_are_the_styles_textual_works_out(wait_until):
    """A stylesheet remembers the rules it worked out for a node's place and state in the tree (its own and
    its ancestors' types, ids, classes and pseudo-classes) and gives them to the next node in the same place
    and state: every node's CSS is the same as Textual's at every step, and far fewer rules are checked."""
    remembered, checked = await styles_through_a_game(wait_until, guarded=True)
    textuals, checked_by_textual = await styles_through_a_game(wait_until, guarded=False)
    assert [len(step) for step in remembered] == [len(step) for step in textuals]
    assert min(len(step) for step in remembered) > 20
    assert remembered == textuals
    assert checked <= checked_by_textual * 0.65, (checked, checked_by_textual)  # about 0.55 (0.72 before the
    # pseudo-classes that count were narrowed to those the node's rules test, and what was worked out kept
    # across the parses a new widget class brings)


@pytest.mark.asyncio
@pytest.mark.parametrize("held", [True, False])
async def test_a_game_screen_is_painted_once_its_panes_have_drawn_at_their_first_sizes(held, monkeypatch,
                                                                                       wait_until):
    """The game screen's panes draw at the sizes its first layout gives them (the forecasts pane its table,
    the matrix its list or grid for its box) and ask for a second layout: its first layout paints nothing,
    and the screen's first frame shows them drawn.  Painted at once, the first frame showed empty panes and
    the next drew the whole screen again."""
    from negtui.seats import Seat
    from negtui.tui.screens.game import GameScreen
    from negtui.tui.widgets.panes import Forecasts
    from tests.tui.conftest import pill_app

    monkeypatch.setattr(GameScreen, "PAINTED_AFTER_FIRST_SIZES", held)
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    forecast_lines: list[int] = []  # the forecasts pane's lines at each frame of the game screen

    with frames_drawn() as drawn:
        from textual.screen import Screen

        spied = Screen._compositor_refresh

        def counting(self):
            if isinstance(self, GameScreen) and self is self.app.screen and self._compositor._dirty_regions \
                    and not getattr(self, "_negtui_paint_held", False):  # a layout that paints nothing
                forecast_lines.append(len(self.query_one(Forecasts)._lines))
            return spied(self)

        Screen._compositor_refresh = counting  # type: ignore[method-assign]
        try:
            async with app.run_test(size=(100, 32)) as pilot:
                await partner_dialog_settled(app, pilot, wait_until)
        finally:
            Screen._compositor_refresh = spied  # type: ignore[method-assign]
    game = [whole for screen, whole in drawn if screen == "LiveScreen"]
    assert game and game[0], drawn  # its first frame draws every cell
    if held:
        assert forecast_lines[0] > 3, forecast_lines  # a line per player under the heads, from the first frame
        assert game.count(True) == 1, drawn
    else:
        assert forecast_lines[0] <= 1, forecast_lines  # drawn before the pane had its size: empty
        assert game.count(True) >= 1 and len(game) >= 2, drawn


def test_what_a_stylesheet_worked_out_carries_over_the_rules_a_new_widget_class_adds():
    """An app parses its stylesheet anew for each widget class it first shows: what was worked out for a node
    holds still unless a rule added may apply to it (its last selector names one of the node's types,
    classes or id); a rule gone, or one that applies to every node, leaves nothing."""
    from types import SimpleNamespace

    def rule(*names: str) -> SimpleNamespace:
        return SimpleNamespace(selector_names=set(names))

    static, button = frozenset({"*", "Static", "Widget"}), frozenset({"*", "Button", "Widget", ".-primary"})
    old = [rule("Static"), rule("Widget")]
    memo = (old, {static: (("focus",), ()), button: ((), ())},
            {("static key",): ("static rules", (False,) * 4, static),
             ("button key",): ("button rules", (False,) * 4, button)})
    added = old + [rule("Button"), rule(".-primary")]
    rules, tested, styled = textual_styles._carried_over(memo, added)
    assert rules is added
    assert list(tested) == [static] and list(styled) == [("static key",)]
    assert textual_styles._carried_over(memo, [old[0], rule("Button")])[2] == {}  # a rule gone
    assert textual_styles._carried_over(memo, old + [rule("*")])[2] == {}  # a rule for every node
    assert textual_styles._carried_over(None, old) == (old, {}, {})
