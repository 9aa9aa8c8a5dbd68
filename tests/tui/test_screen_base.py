"""negtui's screens, app and stylesheet: fewer layouts and frames than Textual's own, by overriding in our own
subclasses (negtui/tui/screen_base.py, stylesheet.py, toasts.py, app.py), never by replacing anything of
Textual's or Rich's.  Each economy is shown to matter: the test fails with our override removed."""

from __future__ import annotations

import inspect
import subprocess
import sys
from contextlib import nullcontext

import pytest
from textual.message import Message

from negtui.tui import stylesheet as negtui_stylesheet
from negtui.tui.screen_base import NegtuiScreen
from tests.paths import PILL
from tests.tui.layouts import as_textuals, frames_drawn, screens_laid_out


class Ping(Message):
    """A message nobody handles: something for a screen's message loop to do."""


NO_PATCH = """
import asyncio, inspect, sys, types
import textual.app, textual.screen, textual.widget, textual.widgets, textual.widgets._toast
import textual.css.stylesheet, textual.notifications, rich.style, rich.segment

def classes():
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("textual", "rich") and isinstance(module, types.ModuleType):
            for cls in vars(module).values():
                if inspect.isclass(cls) and cls.__module__ == name:
                    yield cls

before = {cls: dict(vars(cls)) for cls in classes()}
from pathlib import Path
from negtui.seats import Seat
from negtui.serve.zygote import preload
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.dialogs import HelpScreen

async def main():
    app = NegtuiApp(Path(sys.argv[1]), seats={"A": Seat.human(), "B": Seat.lens("upper")}, ask_seats=False,
                    record=False)
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        for _ in range(40):
            await pilot.pause(0.05)
        app.push_screen(HelpScreen("play"))
        app.notify("a toast")
        for _ in range(10):
            await pilot.pause(0.05)
        await pilot.press("escape")
        await pilot.pause(0.1)

preload(None)  # the fork server's preparation: every widget class's CSS parsed
asyncio.run(main())
def code(value):  # what a patch replaces: a function, a descriptor, a class (not a counter Textual keeps)
    return callable(value) or hasattr(value, "__get__")
changed = sorted(f"{cls.__module__}.{cls.__qualname__}.{name}" for cls, attrs in before.items()
                 for name, value in vars(cls).items()
                 if name in attrs and attrs[name] is not value and (code(value) or code(attrs[name])))
added = sorted(f"{cls.__module__}.{cls.__qualname__}.{name}" for cls, attrs in before.items()
               for name in vars(cls) if name not in attrs and not name.startswith("_abc"))
print("classes", len(before), "changed", changed, "added", added)
"""


def test_no_attribute_of_textual_or_rich_is_replaced_by_running_our_apps():
    """Every class of Textual and Rich keeps its own attributes while our app runs a game with a dialog and a
    toast, and after the fork server's preparation: what negtui does differently, it does in its subclasses."""
    res = subprocess.run([sys.executable, "-c", NO_PATCH, str(PILL)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    classes, _, rest = res.stdout.strip().partition(" changed ")
    assert int(classes.split()[1]) > 300, res.stdout  # Textual's and Rich's classes, widgets and screens among them
    assert rest == "[] added []", res.stdout


@pytest.mark.parametrize(("cls", "name"), [("Screen", "_refresh_layout"), ("Screen", "_screen_resized"),
                                           ("Screen", "_on_layout"), ("Screen", "_on_screen_resume"),
                                           ("Screen", "refresh"),
                                           ("Screen", "_compositor_refresh"), ("Screen", "_on_timer_update"),
                                           ("Screen", "remove"), ("App", "_background_screens"),
                                           ("App", "_refresh_notifications"), ("Stylesheet", "_parse_rules"),
                                           ("Stylesheet", "apply"), ("Stylesheet", "reparse")])
def test_what_we_override_is_still_textuals_to_override(cls, name):
    """Each override in our subclasses stands for a hook of the pinned Textual: an upgrade that renames, moves or
    reshapes one fails here, by name, rather than leaving an override nobody calls."""
    from textual.app import App
    from textual.css.stylesheet import Stylesheet
    from textual.screen import Screen

    from negtui.tui.app import NegtuiApp
    from negtui.tui.stylesheet import NegtuiStylesheet

    textuals, ours = {"Screen": (Screen, NegtuiScreen), "App": (App, NegtuiApp),
                      "Stylesheet": (Stylesheet, NegtuiStylesheet)}[cls]
    theirs = next(c.__dict__[name] for c in textuals.__mro__ if name in c.__dict__)
    theirs, mine = (getattr(f, "fget", f) for f in (theirs, ours.__dict__[name]))
    assert theirs.__module__.startswith("textual."), f"{cls}.{name} is no longer Textual's own"
    assert list(inspect.signature(mine).parameters) == list(inspect.signature(theirs).parameters)


TOAST_FREEZE = """
import asyncio, sys, time
from pathlib import Path
from textual.notifications import Notification, Notify
from textual.widgets._toast import Toast
from negtui.tui.app import NegtuiApp

class Expiring(Notification):
    # expired, yet not to the rack's check: the instant between that check and the toast being made
    @property
    def has_expired(self):
        return False

async def main():
    app = NegtuiApp(Path(sys.argv[1]), ask_seats=False, record=False)
    async with app.run_test(notifications=True) as pilot:
        await pilot.pause()
        note = Expiring("expiring", timeout=0.001)
        time.sleep(0.01)
        assert note.time_left < 0
        app.post_message(Notify(note))
        for _ in range(10):  # Textual's timer loop, given the toast's negative delay, never comes back here
            await pilot.pause(0.05)
        print("toasts", len(app.screen.query(Toast)))
        app.notify("a toast with time to show")
        for _ in range(5):
            await pilot.pause(0.05)
        print("toasts", len(app.screen.query(Toast)))

asyncio.run(main())
"""


def test_a_notification_that_expires_as_its_toast_is_made_does_not_freeze_the_app():
    """A toast made in the instant its notification expires got a negative delay, and Textual's timer loop
    spun forever on it, the app deaf even to SIGHUP.  The racks see no notification about to expire: the app
    goes on, shows no toast for it, and shows the next notification."""
    try:
        res = subprocess.run([sys.executable, "-c", TOAST_FREEZE, str(PILL)], capture_output=True, text=True,
                             timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the app froze on a toast with a negative delay")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["toasts", "0", "toasts", "1"], res.stdout


def test_a_notification_about_to_expire_is_left_out_of_what_a_rack_makes_toasts_of():
    from textual.notifications import Notification

    from negtui.tui.toasts import LAST_MOMENT, LastingNotifications

    notes = LastingNotifications()
    lasting, ending = Notification("lasting", timeout=5), Notification("ending", timeout=LAST_MOMENT / 2)
    notes.add(lasting).add(ending)
    assert list(notes) == [lasting]
    assert len(notes) == 2 and ending in notes  # its toast, if shown already, stays until its own timer ends it


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


async def confirm_laid_out(wait_until, without: str | None = None) -> list[str]:
    """The screens laid out from pushing a yes-or-no question over A's partner dialog until it settles;
    `without`: our screens without that override meanwhile."""
    from negtui.seats import Seat
    from negtui.tui.screens.dialogs import ConfirmScreen
    from tests.tui.conftest import pill_app

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32), notifications=True) as pilot:  # a toast rack on every screen
        await partner_dialog_settled(app, pilot, wait_until)
        question = ConfirmScreen("Sure?", "A question with no scrolling and no toast.")
        with as_textuals(NegtuiScreen, without) if without else nullcontext(), screens_laid_out() as laid_out:
            app.push_screen(question)
            await wait_until(pilot, lambda: app.screen is question and question._backdrop is not None, "the question")
            for _ in range(6):  # what its first size and its mounting asked for is laid out
                await pilot.pause(0.05)
    return laid_out


@pytest.mark.asyncio
async def test_a_dialog_opening_is_laid_out_once(wait_until):
    """Textual laid it out four times or more, each layout followed by a frame: as it resumed, as its first
    size arrived as a resize, for each request its widgets sent while it was composed, as its widgets' first
    sizes set their virtual sizes, and as Textual's mounting of a pushed screen ended (docs/upstream.md)."""
    assert await confirm_laid_out(wait_until) == ["ConfirmScreen"]


async def dialog_opened(wait_until, make) -> tuple[list[str], list[tuple[str, bool]], bool]:
    """The layouts and frames of a dialog (`make()`) pushed over A's partner dialog, until it settles, and
    whether a part of it shows a scrollbar."""
    app = pill_app_of_a()
    async with app.run_test(size=(100, 32)) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        dialog = make()
        with screens_laid_out() as laid_out, frames_drawn() as drawn:
            app.push_screen(dialog)
            await wait_until(pilot, lambda: app.screen is dialog and dialog._backdrop is not None, "the dialog")
            for _ in range(6):  # what its first sizes and its scrollbar asked for is laid out and drawn
                await pilot.pause(0.05)
        scrolls = any(widget.show_vertical_scrollbar for widget in dialog.query("*"))
    return laid_out, drawn, scrolls


@pytest.mark.asyncio
async def test_a_dialog_opening_is_drawn_in_one_frame(wait_until):
    """Its first layout draws every widget it sizes; each widget's virtual size, set by that layout, asked for
    a repaint too, and the next frame drew the widgets (the key bar, the box) again."""
    from negtui.tui.screens.dialogs import ConfirmScreen

    laid_out, drawn, scrolls = await dialog_opened(wait_until, lambda: ConfirmScreen("Sure?", "A question."))
    assert not scrolls
    assert laid_out == ["ConfirmScreen"]
    assert drawn == [("ConfirmScreen", True)], drawn


@pytest.mark.asyncio
async def test_a_dialog_whose_scrollbar_appears_is_laid_out_twice(wait_until):
    """Help's text is longer than its box: its first layout shows a scrollbar, which asks for a second layout
    (the text narrower beside it).  That layout sets the new scrollbar's virtual size, whose request for a
    third layout was kept (the compositor's widgets, looked through, leave scrollbars out): a third layout
    and frame for nothing."""
    from negtui.tui.screens.dialogs import HelpScreen

    laid_out, drawn, scrolls = await dialog_opened(wait_until, lambda: HelpScreen("play"))
    assert scrolls  # the second layout is the scrollbar's own
    assert laid_out == ["HelpScreen", "HelpScreen"], laid_out
    assert drawn == [("HelpScreen", True), ("HelpScreen", False)], drawn


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["_on_layout", "_refresh_layout", "_screen_resized", "refresh"])
async def test_each_layout_override_matters(name, wait_until):
    """Without any one of them the dialog is laid out more often (or the screens below it are)."""
    laid_out = await confirm_laid_out(wait_until, name)
    assert len(laid_out) > 1, laid_out


@pytest.mark.asyncio
@pytest.mark.parametrize("guarded", [True, False])
async def test_a_screen_under_an_opaque_one_is_neither_laid_out_nor_drawn_until_it_shows(guarded, wait_until):
    """The game covered by a screen of its own (as a lobby is by a game) changes: Textual counted it visible,
    laid it out and drew it; our app lays it out once it shows again."""
    from textual.screen import Screen
    from textual.widgets import Static

    from negtui.seats import Seat
    from negtui.tui.app import NegtuiApp
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
        with as_textuals(NegtuiApp, "_background_screens") if not guarded else nullcontext(), \
                screens_laid_out() as laid_out:
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
    """A screen resuming tells its rack the notifications; with none, Textual's rack set its hidden display to
    hidden and Textual laid the screen out again (the first screen of a trainee's app, each time)."""
    from textual.widgets._toast import ToastRack

    from negtui.seats import Seat
    from negtui.tui.app import NegtuiApp
    from tests.tui.conftest import pill_app

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32), notifications=True) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        rack = app.screen.get_child_by_type(ToastRack)
        with as_textuals(NegtuiApp, "_refresh_notifications") if not guarded else nullcontext(), \
                screens_laid_out() as laid_out:
            app._refresh_notifications()
            for _ in range(4):
                await pilot.pause(0.05)
        assert not rack.display and not rack.children
        assert (laid_out == []) is guarded, laid_out
        app.notify("a toast")  # one to show is shown, guarded or not
        await wait_until(pilot, lambda: rack.display and rack.children, "the toast shown")


@pytest.mark.asyncio
async def test_css_parsed_before_forking_leaves_an_app_nothing_to_parse_until_its_theme_changes(monkeypatch,
                                                                                                 wait_until):
    """The fork server parses every widget class's CSS (`preparse`); a trainee's app then opens the game and
    a dialog without parsing any.  Another theme is other variables: its CSS is parsed anew, and drawn."""
    from textual.css import stylesheet

    from negtui.seats import Seat
    from negtui.tui.app import NegtuiApp
    from tests.tui.conftest import pill_app

    assert negtui_stylesheet.preparse(NegtuiApp(None, record=False)) > 30
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
    """Textual's stylesheet (a new app's, or a screen's CSS making its app parse everything again) parsed every
    source anew."""
    from textual.app import App
    from textual.css import stylesheet
    calls: list[object] = []
    parse = stylesheet.parse
    monkeypatch.setattr(stylesheet, "parse", lambda *a, **k: calls.append(a[2]) or parse(*a, **k))
    variables = App().get_css_variables()
    css = "Widget { color: $primary; } #guarded-once { height: 3; }"
    for _ in range(3):
        sheet = negtui_stylesheet.NegtuiStylesheet(variables=variables)
        sheet.add_source(css, read_from=("test", "guarded"), is_default_css=True)
        assert len(sheet.rules) == 2
    assert calls == [("test", "guarded")]
    with as_textuals(negtui_stylesheet.NegtuiStylesheet, "_parse_rules"):
        sheet = negtui_stylesheet.NegtuiStylesheet(variables=variables)
        sheet.add_source(css, read_from=("test", "guarded"), is_default_css=True)
        assert len(sheet.rules) == 2
    assert len(calls) == 2


@pytest.mark.asyncio
@pytest.mark.parametrize("ours", [True, False])
async def test_a_screen_shown_for_the_first_time_is_drawn_in_full_once(ours, wait_until):
    """Its first layout draws every cell; the repaint Textual asks for as it resumes drew them all again a
    frame later."""
    from negtui.tui.screens.dialogs import ConfirmScreen

    app = pill_app_of_a()
    async with app.run_test(size=(100, 32)) as pilot:
        await partner_dialog_settled(app, pilot, wait_until)
        question = ConfirmScreen("Sure?", "A question.")
        with as_textuals(NegtuiScreen, "_on_screen_resume") if not ours else nullcontext(), frames_drawn() as drawn:
            app.push_screen(question)
            await wait_until(pilot, lambda: app.screen is question and question._backdrop is not None, "the question")
            for _ in range(6):
                await pilot.pause(0.05)
    assert [screen for screen, whole in drawn if whole] == ["ConfirmScreen"] * (1 if ours else 2), drawn


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
        if not guarded:  # Textual's frame too (the screen's update timer was made with our override)
            game._update_timer._callback = Screen._on_timer_update.__get__(game)
        with as_textuals(NegtuiScreen, "_compositor_refresh") if not guarded else nullcontext(), \
                frames_drawn() as drawn:
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
        if not guarded:  # the screen's update timer was made with our override: Textual's own in its place
            game._update_timer._callback = Screen._on_timer_update.__get__(game)
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
        with as_textuals(negtui_stylesheet.NegtuiStylesheet, "apply") if not guarded else nullcontext():
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
                    and not self._first_paint_held:  # a layout that paints nothing
                forecast_lines.append(len(self.query_one(Forecasts)._lines))
            return spied(self)

        Screen._compositor_refresh = counting  # type: ignore[method-assign]
        try:
            async with app.run_test(size=(100, 32)) as pilot:
                await partner_dialog_settled(app, pilot, wait_until)
        finally:
            Screen._compositor_refresh = spied  # type: ignore[method-assign]
    game = [whole for screen, whole in drawn if screen == "LiveScreen"]
    if held:  # the game shows complete: on its own frame, or (A's turn comes at once) under the partner dialog
        assert all(lines > 3 for lines in forecast_lines), forecast_lines  # a line per player under the heads
        assert game.count(True) <= 1 and all(game), drawn
    else:
        assert forecast_lines and forecast_lines[0] <= 1, forecast_lines  # drawn before the pane had its size
        assert game and game[0], drawn  # a whole frame of empty panes


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
    rules, tested, styled = negtui_stylesheet._carried_over(memo, added)
    assert rules is added
    assert list(tested) == [static] and list(styled) == [("static key",)]
    assert negtui_stylesheet._carried_over(memo, [old[0], rule("Button")])[2] == {}  # a rule gone
    assert negtui_stylesheet._carried_over(memo, old + [rule("*")])[2] == {}  # a rule for every node
    assert negtui_stylesheet._carried_over(None, old) == (old, {}, {})


def test_no_screen_of_ours_reuses_a_name_the_base_screen_keeps_its_state_in():
    """The base screen keeps its state in a few attributes; a screen class setting one of those names for
    its own ends (a table's clock once did, as `_ticking`) would break the base's frames."""
    import importlib
    import pkgutil
    import re

    import negtui

    for info in pkgutil.walk_packages(negtui.__path__, "negtui."):
        if info.name.startswith(("negtui.tui", "negtui.trainee", "negtui.console")):
            importlib.import_module(info.name)
    from textual.screen import Screen

    textuals = set(vars(type("Probe", (Screen,), {})))  # what Textual itself sets on every screen class
    state = [name for name, value in vars(NegtuiScreen).items()
             if name.startswith("_") and not name.startswith("__") and not callable(value) and name not in textuals]
    assert state
    screens: list[type] = []
    stack: list[type] = [NegtuiScreen]
    while stack:
        cls = stack.pop()
        screens.append(cls)
        stack.extend(cls.__subclasses__())
    assert len(screens) > 10
    for cls in screens[1:]:
        source = inspect.getsource(cls)
        reused = [name for name in state if re.search(rf"\bself\.{name}\s*[:=]", source) or name in vars(cls)]
        assert not reused, f"{cls.__qualname__} sets {reused}, the base screen's own"
