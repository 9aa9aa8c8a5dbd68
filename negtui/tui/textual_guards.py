"""Guards around Textual behaviour that negtui cannot live with, each tied to the pinned version.

A notification's toast starts a timer for the time the notification has left, computed when the toast
is made.  The rack checks that the notification has not expired just before, but a toast made in the
same instant the notification expires (a thread switch between the two is enough, and on a busy
training server it happens) gets a negative delay, and Textual's timer loop, given a negative
interval, spins forever without yielding: the app freezes at 100% CPU, deaf even to SIGHUP.  Found
under `bench/bench_serve.py` at 50 sessions; the guard gives such a toast the shortest delay instead.

A screen pushed onto the stack receives its first size as a resize, and passes it on to every screen
below it that shows through (each dialog's dimmed background): each of those is laid out and drawn in
full again although its size has not changed.  On a training server that was a whole-screen reflow of
the game below every dialog, and, the layout being news to the dialog's backdrop, a second backdrop
half a second later.  The guard passes a resize on only to a screen not yet laid out at that size;
whatever else changed on it is laid out by its own refresh, as before.

A screen shown for the first time was laid out three times or more, each layout followed by a frame:
as it resumed, again as its own first size reached it as a resize, and again for every request made
while it was being composed.  Each new widget's first size set its virtual size, a reactive that asks
for a layout although only a scrollbar (which asks for its own) depends on it; a widget's request, sent
to the screen as the widget idles, still asked for a layout when a full layout had been made since it
was sent (the widget forgets its ancestors' arrangements as it sends it: any layout after that measures
it); and a layout made on resuming or on a resize leaves the screen's "layout required" flag as it was
(only the update timer's layout clears it).  The guards set a widget's size without asking for a layout,
drop the requests sent before the screen's latest full layout, and clear the flag at every full layout.
Last, pushing a screen awaits its mounting and then asks for a layout of it, although by then it has been
laid out with everything it composed (what its widgets mount or change later asks for its own): the guard
asks only for a screen not laid out yet.  A dialog is laid out once as it opens, a debrief whose
scrollbar appears twice.

Textual counts the screen just below the top one as visible, the top one opaque or not: its update timer
lays it out and draws it, and each region it draws makes the top screen repaint that region too.  A
lobby refreshing its list as a game opened over it was laid out twice and repainted the game's screen.
The guard counts a screen below as visible only through a translucent screen above it (a dialog).

Every screen, as it resumes, tells its toast rack the notifications to show, and the rack sets its
`display` from them: with none to show, "none" over the "none" of its own CSS, which Textual takes for a
change and answers with a layout of the screen.  Each screen shown was laid out once more for it, a
frame after its first layout.  The guard leaves a rack with nothing to show and nothing shown as it is.

A screen popped off the stack is removed from the app, and the removal asks its parent, the app, for a
layout: the screen uncovered was laid out in full once more, although the dialog was never part of it.
The guard removes a screen as a node of no parent's layout.

A screen shown for the first time is laid out as it resumes, and that layout draws every cell; Textual
then asks for a repaint of the whole screen all the same, and the next frame drew every cell again (a
frame of 2 to 4 ms for each screen and dialog a trainee opens).  The guard withdraws that request when
the layout has just drawn the screen.

A screen whose widgets draw at the sizes its first layout gives them (the game screen's panes, its matrix
choosing a list or a grid for its box) asks for a second layout at once: its first frame showed empty panes
and the next drew the screen again.  A screen class with `PAINTED_AFTER_FIRST_SIZES` is arranged by its
first layout and painted at the update timer's next tick, after its widgets have answered their first
sizes: one frame, complete.  And a tick that both lays a screen out and repaints it whole (a focus set
while it was composed asks for that) paints it once, not twice.

A screen under a dialog passes every region it repaints on to the dialog, and marks itself to be
repainted there again; the dialog repaints the region, and the mark brings the same region back a frame
later: a game under an answer dialog had the whole dialog repainted every tenth of a second for as long
as its screen had messages to handle.  negtui's dialogs draw the screen below themselves, dimmed once
(negtui/tui/screens/modal.py): under such a dialog the guard tells the dialog what the screen below
repainted, and the dialog draws it anew once it settles, repainting the lines that changed (a countdown
beside it goes on ticking); what its own box hides shows when it closes.  Pushing a dialog asks the screen
below for a whole repaint, which its next frame makes in place of its widgets' own: a line changed in that
frame never reached the dialog.  Under a kept backdrop the guard drops that whole repaint, which would show
nothing.

How Textual styles nodes is guarded in textual_styles.py (CSS parsed once per process and theme, styles
remembered for a place and state in the tree); `install` puts those guards in place with these.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from textual._time import get_time
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode, NoScreen
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.widgets._toast import Toast, ToastRack

from negtui.tui.textual_styles import _parsed_once, _styled_from_memory

SHORTEST = 0.01  # seconds: an expired toast is removed on the next tick


def _toast_timeout(mount: Callable[..., Any]) -> Callable[..., Any]:
    def _on_mount(self: Toast, event: Any) -> None:
        self._timeout = max(SHORTEST, self._timeout)
        mount(self, event)

    return _on_mount


def _same_size_relayout(resized: Callable[..., Any]) -> Callable[..., Any]:
    def _screen_resized(self: Screen, size: Size) -> None:
        if self._compositor.size == size and (self is not self.app.screen or not self._layout_required):
            return  # a screen below the one pushed, or the one pushed, already laid out at this size
        resized(self, size)

    return _screen_resized


def _sized_in_place(size_updated: Callable[..., Any]) -> Callable[..., Any]:
    def _size_updated(self: Widget, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return size_updated(self, size, virtual_size, container_size, layout=False)

    return _size_updated


def _laid_out_when(refresh_layout: Callable[..., Any]) -> Callable[..., Any]:
    def _refresh_layout(self: Screen, size: Size | None = None, scroll: bool = False) -> None:
        if scroll:
            refresh_layout(self, size, scroll)
            return
        first = getattr(self, "_negtui_laid_out", None) is None
        self._negtui_laid_out = get_time()  # type: ignore[attr-defined]  # the clock of Textual's messages
        self._layout_required = False  # what asked for a layout so far is laid out now (Textual keeps the flag)
        if self._repaint_required and self.is_current and not self.app._batch_count:
            # a repaint of the whole screen asked for too: made by the paint that follows this layout
            self._repaint_required = False
            self._dirty_widgets.add(self)
        if not (first and getattr(self, "PAINTED_AFTER_FIRST_SIZES", False) and self.is_current
                and not self.app._batch_count):
            refresh_layout(self, size, scroll)
            return
        # arranged, not painted: the regions to paint are kept, and the update timer's next tick paints them,
        # after what the widgets drew at their first sizes (and the layout they asked for)
        self._negtui_paint_held = True  # type: ignore[attr-defined]
        try:
            refresh_layout(self, size, scroll)
        finally:
            self._negtui_paint_held = False  # type: ignore[attr-defined]
        self.refresh()

    return _refresh_layout


def _covered_by_a_layout(on_layout: Callable[..., Any]) -> Callable[..., Any]:
    async def _on_layout(self: Screen, message: Any) -> None:
        laid_out = getattr(self, "_negtui_laid_out", None)
        if laid_out is not None and message.time < laid_out:
            message.stop()  # sent, the arrangements it changed forgotten, before a full layout since
            message.prevent_default()
            return
        await on_layout(self, message)

    return _on_layout


def preparse(app: App) -> int:
    """Parse the CSS of every widget class imported so far under `app`'s theme, as an app registering that
    class would: done once before forking, it leaves each child nothing to parse.  The number of sources."""
    install()
    sheet = Stylesheet(variables=app.get_css_variables())
    classes: list[type[DOMNode]] = []
    stack: list[type[DOMNode]] = [DOMNode]
    while stack:
        cls = stack.pop()
        classes.append(cls)
        stack.extend(cls.__subclasses__())
    for path in app.css_path:
        sheet.read(path)
    sheet.parse()
    default_css: Callable[[object], list[tuple[Any, str, int, str]]] = DOMNode._get_default_css  # type: ignore[assignment]
    sources = {(read_from, css, tie_breaker, scope) for cls in classes
               # a class's CSS is parsed once for each place it takes among a subclass's bases
               for read_from, css, tie_breaker, scope in default_css(
                   SimpleNamespace(_node_bases=DOMNode._css_bases(cls)))}  # all the method reads of a node
    for read_from, css, tie_breaker, scope in sources:
        sheet._parse_rules(css, read_from, True, tie_breaker, scope)
    return len(sheet.source) + len(sources)


def _drawn_by_its_layout(resume: Callable[..., Any]) -> Callable[..., Any]:
    def _on_screen_resume(self: Screen, event: Any) -> None:
        laid_out = getattr(self, "_negtui_laid_out", None)
        resume(self, event)
        if (laid_out is None and getattr(self, "_negtui_laid_out", None) is not None and self.is_current
                and not self.app._batch_count and not getattr(self, "PAINTED_AFTER_FIRST_SIZES", False)):
            # shown for the first time and drawn in full by that layout: the repaint asked for after it is moot
            # (not so for a screen painted after its first sizes: that repaint is its first frame)
            self._repaint_required = False
            self._dirty_regions.clear()
            self._repaint_regions.clear()

    return _on_screen_resume


def _under_a_kept_backdrop(compositor_refresh: Callable[..., Any]) -> Callable[..., Any]:
    def _compositor_refresh(self: Screen) -> None:
        if getattr(self, "_negtui_paint_held", False):
            return  # its first layout, which paints nothing (PAINTED_AFTER_FIRST_SIZES)
        app = self.app
        top: Any = app.screen
        if top is not self and getattr(top, "draws_below_once", False) and self in app._background_screens:
            changed = [w.region for w in self._dirty_widgets if w is not self and w.region]
            if changed:  # a widget's content (the screen's own repaint, as it is covered, changes nothing)
                top.below_changed(self, changed)
            self._compositor._dirty_regions.clear()
            self._dirty_widgets.clear()
            return
        compositor_refresh(self)

    return _compositor_refresh


def _covered_repaint_moot(on_timer_update: Callable[..., Any]) -> Callable[..., Any]:
    def _on_timer_update(self: Screen) -> None:
        top: Any = self.app.screen
        if self._repaint_required and top is not self and getattr(top, "draws_below_once", False):
            # its own repaint, asked for as the dialog was pushed, changes nothing under a kept backdrop; made,
            # it would stand for its widgets' repaints in the same frame, and the dialog would not learn of them
            self._repaint_required = False
        on_timer_update(self)

    return _on_timer_update


def _nothing_to_toast(show: Callable[..., Any]) -> Callable[..., Any]:
    def show_(self: ToastRack, notifications: Any) -> None:
        if not notifications and not self.display and not self.children:
            return  # hidden, empty, and to stay so
        show(self, notifications)

    return show_


def _seen_through(background_screens: Callable[..., Any]) -> Callable[..., Any]:
    def _background_screens(self: App) -> list[Screen]:
        stack = self._screen_stack
        if stack and stack[-1].styles.background.a == 1:
            return []  # nothing shows through an opaque screen
        return background_screens(self)

    return _background_screens


class _GuardedProperty(property):
    """A property a guard wraps: a plain property takes no attribute naming Textual's own."""


def _laid_out_when_mounted(await_: Callable[..., Any]) -> Callable[..., Any]:
    def __await__(self: AwaitMount) -> Any:
        screen = self._parent
        if isinstance(screen, Screen) and self._widgets == [screen]:  # the screen being pushed, nothing else
            return _screen_mounted(screen).__await__()
        return await_(self)

    return __await__


async def _screen_mounted(screen: Screen) -> None:
    """Textual's wait for a pushed screen's mounting, without the layout of a screen laid out already."""
    await screen._mounted_event.wait()
    if getattr(screen, "_negtui_laid_out", None) is None:
        screen.refresh(layout=True)
    try:
        screen.app._update_mouse_over(screen)
    except NoScreen:
        pass


def _removed_alone(remove: Callable[..., Any]) -> Callable[..., Any]:
    def remove_screen(self: Screen) -> Any:
        if self._parent is self.app:
            return self.app._prune(self, parent=None)  # a screen leaving the stack is no part of the one below
        return remove(self)

    return remove_screen


# Textual's private hooks the guards wrap, the parameters each takes, and the guard: a Textual upgrade that
# renames or reshapes one fails tests/tui/test_textual_guards.py, not an app that no longer starts
GUARDS: tuple[tuple[type, str, tuple[str, ...], Callable[[Callable[..., Any]], Callable[..., Any]]], ...] = (
    (Toast, "_on_mount", ("self", "_"), _toast_timeout),
    (ToastRack, "show", ("self", "notifications"), _nothing_to_toast),
    (Screen, "_screen_resized", ("self", "size"), _same_size_relayout),
    (Screen, "remove", ("self",), _removed_alone),
    (Screen, "_refresh_layout", ("self", "size", "scroll"), _laid_out_when),
    (Screen, "_on_layout", ("self", "message"), _covered_by_a_layout),
    (Screen, "_on_screen_resume", ("self", "event"), _drawn_by_its_layout),
    (Screen, "_compositor_refresh", ("self",), _under_a_kept_backdrop),
    (Screen, "_on_timer_update", ("self",), _covered_repaint_moot),
    (AwaitMount, "__await__", ("self",), _laid_out_when_mounted),
    (Widget, "_size_updated", ("self", "size", "virtual_size", "container_size", "layout"), _sized_in_place),
    (Stylesheet, "_parse_rules", ("self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"),
     _parsed_once),
    (Stylesheet, "apply", ("self", "node", "animate", "cache"), _styled_from_memory),
    (App, "_background_screens", ("self",), _seen_through),  # a property: its getter is wrapped
)


def original(cls: type, name: str) -> Callable[..., Any]:
    """Textual's own method, whether or not a guard wraps it."""
    hook = getattr(cls, name)
    return getattr(hook, "negtui_original", hook)


def install() -> None:
    """Put every guard in place, once; each app calls it as it is made (NegtuiApp.__init__), so importing
    negtui's modules changes nothing in Textual."""
    for cls, name, _parameters, guard in GUARDS:
        hook = getattr(cls, name)
        if getattr(hook, "negtui_original", None) is not None:
            continue
        getter = hook.fget if isinstance(hook, property) else None
        guarded: Any = guard(hook) if getter is None else _GuardedProperty(guard(getter))
        guarded.negtui_original = hook
        setattr(cls, name, guarded)
