"""The base of negtui's screens: fewer layouts and frames than Textual's `Screen` makes, in our own subclass.

Every layout of a screen and every frame it paints is CPU on a training server, for every trainee; what a
screen of ours does differently from Textual's, and why:

- A screen pushed receives its first size as a resize and passes it on to every screen below that shows
  through (a dialog's dimmed background): each of those was laid out and drawn in full again although its size
  had not changed.  A resize reaches a screen here only if it is not laid out at that size yet.
- A screen shown for the first time was laid out three times or more: as it resumed, as its first size
  arrived, for each request its widgets sent while it was composed, and as its widgets' first sizes set their
  virtual sizes.  A request sent before the screen's latest full layout is dropped (that layout measured the
  widget), every full layout clears the screen's "layout required" flag (Textual clears it only in its update
  timer's layout), and what a widget (a scrollbar too) asks for as the layout sets its virtual size is withdrawn
  unless a scrollbar appears or goes: its layout, and the repaint of a widget the layout's own paint drew.  A
  whole repaint asked for with a layout is made by the layout's own paint, and the one Textual asks for after
  the first layout (which drew every cell) is withdrawn.
- Textual's mounting of a pushed screen asks for a whole layout of it once it is mounted, although it was laid
  out as it resumed with everything it composed: that request is withdrawn when nothing is pending.
- A screen class with `PAINTED_AFTER_FIRST_SIZES` (the game screen: its panes draw at the sizes its first
  layout gives them) paints nothing until its update timer's next tick, after its widgets have answered their
  first sizes: its first frame is complete.
- A screen under one of our dialogs (`draws_below_once`, screens/modal.py) tells the dialog what it repainted
  instead of making the dialog repaint it at once and again a frame later; the dialog draws it anew once it
  settles.  Its own whole repaint, asked for as the dialog was pushed, shows nothing there and is dropped.
- A screen popped off the stack is removed as a node of no parent's layout: its removal no longer lays out the
  screen it uncovers.

These override Textual's private hooks of `Screen`; a Textual release that renames one leaves the override
unused (the screen then behaves as Textual's own, a little slower), and tests/tui/test_screen_base.py fails
by name.  What only a change in Textual can fix for every screen is written up in docs/upstream.md.
"""

from __future__ import annotations

from typing import Any, Self, TypeVar

from textual import events, messages
from textual._time import get_time
from textual.await_remove import AwaitRemove
from textual.geometry import Region, Size
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

R = TypeVar("R")


class NegtuiScreen(Screen[R]):
    """A screen laid out once as it opens, drawn once, and quiet under a dialog."""

    PAINTED_AFTER_FIRST_SIZES = False  # True: the first layout arranges, the next tick paints (see above)
    _fully_laid_out = False  # by a full layout, once at least
    _full_layout_at = 0.0  # the clock of Textual's messages at the latest full layout
    _first_paint_held = False  # laid out for the first time, to be painted by the update timer's next tick
    _in_update_tick = False  # inside the update timer's tick
    _mount_layout_seen = False  # the whole layout asked for once it was mounted
    _laying_out = False  # inside a full layout

    def _screen_resized(self, size: Size) -> None:
        if self._compositor.size == size and (self is not self.app.screen or not self._layout_required):
            return  # a screen below the one pushed, or the one pushed, already laid out at this size
        super()._screen_resized(size)

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        if scroll:
            super()._refresh_layout(size, scroll)
            return
        first = not self._fully_laid_out
        self._fully_laid_out = True
        self._full_layout_at = get_time()
        self._layout_required = False  # what asked for a layout so far is laid out now (Textual keeps the flag)
        quiet = self.is_current and not self.app._batch_count
        if self._repaint_required and quiet:
            # a repaint of the whole screen asked for too: made by the paint that follows this layout
            self._repaint_required = False
            self._dirty_widgets.add(self)
        asked = self._layout_asked()
        held = first and self.PAINTED_AFTER_FIRST_SIZES and self.is_current
        # held: arranged, not painted; the update timer's next tick paints, after what the widgets drew at their
        # first sizes (and the layouts they and the screen's own first resize asked for meanwhile)
        self._first_paint_held = self._first_paint_held or held
        self._laying_out = True
        try:
            super()._refresh_layout(size, scroll)
        finally:
            self._laying_out = False
        self._sized_in_place(asked, painted=quiet and not held)
        if held:
            self.refresh()

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Self:
        """Textual's mounting of a pushed screen asks for a whole layout of it once it is mounted, although the
        screen was laid out as it resumed, with everything it composed (what changes later asks for its own): the
        first such request after its mounting is withdrawn when a full layout has been made and none is pending
        (docs/upstream.md)."""
        if (layout and repaint and not regions and not recompose and not self._mount_layout_seen
                and not self._laying_out and self._mounted_event.is_set()):
            self._mount_layout_seen = True
            if self._fully_laid_out and not self._layout_required and not self._layout_widgets:
                return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    async def _on_layout(self, message: messages.Layout) -> None:
        if self._fully_laid_out and message.time < self._full_layout_at:
            message.stop()  # sent before a full layout since, which measured the widget anew
            message.prevent_default()
            return
        await super()._on_layout(message)  # which stops the message: Textual's handler is not called twice

    def _layout_asked(self) -> dict[Widget, tuple[bool, bool, bool, object]]:
        """Each widget laid out now, its scrollbars included: whether it has asked for a layout, whether it shows
        its scrollbars, and where the compositor has it."""
        return {widget: (widget._layout_required, widget.show_vertical_scrollbar, widget.show_horizontal_scrollbar,
                         geometry)
                for widget, geometry in self._compositor.layers}

    def _sized_in_place(self, before: dict[Widget, tuple[bool, bool, bool, object]], painted: bool) -> None:
        """A layout gives each widget its size and virtual size, and a virtual size set asks for another layout
        of the screen and a repaint of the whole widget, although only the widget's scrollbars depend on it:
        Textual's layout, done, leaves every widget whose size changed (a scrollbar too) asking for one more
        layout, and drawn again a frame after the layout's own paint.  What a widget asked for during the layout,
        its scrollbars unchanged, is withdrawn; a scrollbar appearing or going still asks.  A layout that painted
        the screen drew every widget it moved or resized whole, with what the widget had asked to show: the
        widget's repaint is withdrawn with its layout (docs/upstream.md)."""
        for widget, geometry in self._compositor.layers:
            if widget._layout_required:
                asked, vertical, horizontal, was = before.get(widget, (False, False, False, None))
                if not asked and (vertical, horizontal) == (widget.show_vertical_scrollbar,
                                                            widget.show_horizontal_scrollbar):
                    widget._layout_required = False
                    if painted and geometry != was:
                        widget._repaint_required = False
                        widget._exchange_repaint_regions()  # drawn: nothing left for its next frame

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        event.prevent_default()  # Textual's handler, called here, is not called again further up the classes
        laid_out = self._fully_laid_out
        super()._on_screen_resume(event)
        if (not laid_out and self._fully_laid_out and self.is_current and not self.app._batch_count
                and not self.PAINTED_AFTER_FIRST_SIZES):
            # shown for the first time and drawn in full by that layout: the repaint asked for after it is moot
            # (not so for a screen painted after its first sizes: that repaint is its first frame)
            self._repaint_required = False
            self._dirty_regions.clear()
            self._repaint_regions.clear()

    def _compositor_refresh(self) -> None:
        if self._first_paint_held:
            if not self._in_update_tick:
                return  # laid out before its first frame, which the update timer paints (PAINTED_AFTER_FIRST_SIZES)
            self._first_paint_held = False  # that first frame
        app = self.app
        top: Any = app.screen
        if top is not self and getattr(top, "draws_below_once", False) and self in app._background_screens:
            changed = [w.region for w in self._dirty_widgets if w is not self and w.region]
            if changed:  # a widget's content (the screen's own repaint, as it is covered, changes nothing)
                top.below_changed(self, changed)
            self._compositor._dirty_regions.clear()
            self._dirty_widgets.clear()
            return
        super()._compositor_refresh()

    def _on_timer_update(self) -> None:
        top: Any = self.app.screen
        if self._repaint_required and top is not self and getattr(top, "draws_below_once", False):
            # its own repaint, asked for as the dialog was pushed, changes nothing under a kept backdrop; made,
            # it would stand for its widgets' repaints in the same frame, and the dialog would not learn of them
            self._repaint_required = False
        self._in_update_tick = True
        try:
            super()._on_timer_update()
        finally:
            self._in_update_tick = False

    def remove(self) -> AwaitRemove:
        if self._parent is self.app:
            return self.app._prune(self, parent=None)  # a screen leaving the stack is no part of the one below
        return super().remove()


class NegtuiModalScreen(ModalScreen[R], NegtuiScreen[R]):
    """A modal screen with the same economy (the base of every dialog).  ModalScreen first: Textual finds a
    class's CSS along its first bases, and ModalScreen's makes the screen translucent; it overrides none of
    NegtuiScreen's hooks."""
