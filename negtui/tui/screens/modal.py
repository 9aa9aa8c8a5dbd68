"""The base of every dialog: a modal screen that dims the screen below once, not on every repaint.

Textual draws a modal screen's translucent background by compositing the whole screen below and
tinting every cell, each time the dialog itself is repainted; a dialog is repainted several times as it
lays out (its key bar, a list growing, a preview line changing), so a dialog cost about as much as three
full-screen redraws.  Over SSH that is every trainee's CPU.  The dimmed picture is kept per terminal size
instead, and drawn again when the screen below has been laid out anew (a resize, a pane appearing) and
settled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, TypeVar

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.color import Color
from textual.css.styles import RulesMap
from textual.geometry import Region, Size
from textual.renderables.background_screen import BackgroundScreen
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style
from textual.timer import Timer
from textual.visual import RenderOptions, Visual
from textual.widget import Widget
from textual.widgets import Button, Input, Select

from negtui.tui.screen_base import NegtuiModalScreen

R = TypeVar("R")
SETTLE = 0.5  # seconds without a new layout below before the backdrop is drawn again
SHORT = 32  # terminal rows under which a dialog is drawn compact: no blank lines, buttons and fields one row high


class Backdrop(Visual):
    """Lines already drawn: the screen below, dimmed."""

    def __init__(self, strips: list[Strip]) -> None:
        self.strips = strips

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        return self.strips if height is None else self.strips[:height]

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return container_width

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self.strips)


def dimmed(screen: Screen, tint: Color, base: RichStyle, size: Size) -> list[Strip]:
    """The screen as last composed, every style tinted once and laid on the dialog's own style (`base`):
    the screen's own lines rather than Rich's rendering of them, and a few dozen styles blended rather
    than every cell's."""
    return _tinted(screen._compositor.render_strips(size), tint, base)


def dimmed_lines(screen: Screen, tint: Color, base: RichStyle, size: Size,
                 lines: set[int]) -> dict[int, Strip] | None:
    """Some lines of the screen as composed now, dimmed as `dimmed` does: only the widgets on those lines
    render (a countdown's line, not the whole screen).  None if a line is not wholly covered by widgets."""
    ys = sorted(y for y in lines if 0 <= y < size.height)
    if not ys:
        return {}
    crop = Region(0, ys[0], size.width, ys[-1] - ys[0] + 1)
    chops = screen._compositor._render_chops(crop, lines.__contains__)
    joined = []
    for y in ys:
        cuts = list(chops[y].values())
        if any(cut is None for cut in cuts):
            return None
        joined.append(Strip.join(cuts))
    return dict(zip(ys, _tinted(joined, tint, base)))


def _tinted(strips: list[Strip], tint: Color, base: RichStyle) -> list[Strip]:
    blend = tint_segments(tint, base)
    return [Strip(blend(strip), strip.cell_length) for strip in strips]


def tint_segments(tint: Color, base: RichStyle) -> Callable[[Strip], list[Segment]]:
    """What Textual's `BackgroundScreen` does to each segment, done once per distinct style."""
    styles: dict[RichStyle | None, RichStyle] = {}

    def tinted(style: RichStyle | None) -> RichStyle:
        plain = RichStyle() if style is None else style.clear_meta_and_links()
        color = (Color.from_rich_color(plain.color) + tint).rich_color if plain.color is not None else None
        bgcolor = (Color.from_rich_color(plain.bgcolor) + tint).rich_color if plain.bgcolor is not None else None
        return base + plain + RichStyle.from_color(color, bgcolor)

    def blend(strip: Strip) -> list[Segment]:
        out = []
        for text, style, control in strip:
            if control:
                out.append(Segment(text, style, control))
                continue
            try:
                new = styles[style]
            except KeyError:
                new = styles[style] = tinted(style)
            out.append(Segment(text, new))
        return out

    return blend


class Dialog(NegtuiModalScreen[R]):
    """A modal screen whose dimmed background is drawn once per terminal size."""

    draws_below_once = True  # what the screen below repaints shows only once it is laid out (screen_base.py)
    _backdrop: tuple[Size, Backdrop] | None = None
    _below: BackgroundScreen | None = None  # what the backdrop was last drawn of (its screen's layouts watched)
    _lines: set[int] | None = None  # the lines of the screen below to draw anew (None: every line)
    _settling: Timer | None = None
    _resizing = False
    SCROLLS: ClassVar[str | None] = None  # the part of the box that scrolls (a selector), fitted to the terminal

    def on_mount(self) -> None:
        self._fit_height()
        # after every layout of the dialog (its first, a resize, what it shows grown), its sizes then current
        self.screen_layout_refresh_signal.subscribe(self, lambda _screen: self.fit_scrolling())

    def on_resize(self) -> None:
        self._fit_height()

    def _fit_height(self) -> None:
        """On a short terminal (80×24) a dialog's padding, its titles' blank lines and its buttons' borders
        took half its rows: a seat dialog had none left for the seats.  There it is drawn compact (class
        `-short`, app.tcss), its buttons and fields one row high."""
        short = self.app.size.height < SHORT
        self.set_class(short, "-short")
        for widget in self.query("Button, Input, Select").results():
            if isinstance(widget, (Button, Input, Select)):
                widget.compact = short

    def rows_for(self, box: Widget) -> int:
        """The rows the dialog's box may take: its max-height, of the screen over the key bar."""
        keys = sum(child.outer_size.height for child in self.children if child.styles.dock == "bottom")
        space = Size(self.size.width, self.size.height - keys)
        tallest = box.styles.max_height
        return int(tallest.resolve(space, self.app.size)) if tallest is not None else space.height

    def fit_scrolling(self) -> None:
        """The part that scrolls (`SCROLLS`) fitted to the rows the rest of the box leaves; called after each
        layout of the dialog."""
        if self.SCROLLS is not None:
            for scroller in self.query(self.SCROLLS).results():
                self.fit_scroller(scroller)

    def fit_scroller(self, scroller: Widget) -> None:
        """A scrolling part of the dialog's box given the rows its other parts leave, so that it scrolls
        within the terminal rather than run past its edge (a box of `height: auto` is cut, not shrunk)."""
        box = scroller.parent
        if not isinstance(box, Widget) or not box.size:
            return
        others = sum(outer_height(child) for child in box.children if child is not scroller and child.display)
        height = max(3, self.rows_for(box) - box.styles.gutter.height - others)
        if scroller.max_scroll_y == 0 and outer_height(scroller) <= height:
            return  # all of it shows: the dialog is laid out once, as it opens (screen_base)
        set_max_height(scroller, height)

    def render(self) -> RenderableType | Visual:  # type: ignore[override]  # a widget may render a Visual
        below = super().render()
        size = self.size
        if not isinstance(below, BackgroundScreen) or not size:  # opaque, or not laid out yet
            return below
        if self._below is None or self._below.screen is not below.screen:
            # its next layout (a resize, a pane appearing) is drawn anew
            below.screen.screen_layout_refresh_signal.subscribe(self, self._below_laid_out)
        self._below = below
        if self._backdrop is None or self._backdrop[0] != size:
            self._resizing = self._resizing or self._backdrop is not None  # drawn before at another size
            self._backdrop = (size, Backdrop(dimmed(below.screen, below.color, self.visual_style.rich_style, size)))
            self._lines = set()  # every line drawn now
        return self._backdrop[1]

    def below_changed(self, screen: Screen, regions: list[Region]) -> None:
        """The screen below repainted `regions` (a countdown's line, a pane's), as it reports (screen_base.py):
        drawn anew once it settles, unless the dialog's own box hides them all (they show as it closes)."""
        box = next(iter(self.query("#dialog")), None)
        shown = [r for r in regions if box is None or not box.region.contains_region(r)]
        if not shown:
            return
        if self._lines is not None:
            self._lines.update(y for r in shown for y in r.line_range)
        self._settle()

    def _below_laid_out(self, _screen: Screen) -> None:
        """Drawn anew once the screen below has settled: a move behind the dialog lays it out several
        times in a few frames, and each drawing of the backdrop costs a full-screen redraw.  After a
        resize every layout is drawn at once: a backdrop of the old size would show for a moment."""
        self._lines = None  # every line
        self._settle()

    def _settle(self) -> None:
        """The backdrop drawn anew once the screen below has settled.  A dialog kept for the game's next
        decision but closed now draws nothing: its backdrop is drawn as it opens."""
        if not self.is_attached or self not in self.app.screen_stack:
            self._backdrop = None
            if self._settling is not None:
                self._settling.stop()
                self._settling = None
            return
        if self._resizing:
            self._backdrop = None
            self.refresh()
        if self._settling is None:
            self._settling = self.set_timer(SETTLE, self._redraw_backdrop)
        else:
            self._settling.reset()

    def _redraw_backdrop(self) -> None:
        """The screen below drawn anew, and only its lines that changed repainted: a pane filled in beside
        the dialog is a few lines, not a full-screen frame (nor a full screen sent to the terminal)."""
        self._settling = None
        self._resizing = False
        lines, self._lines = self._lines, set()
        old, self._backdrop = self._backdrop, None
        stack, size = self.app.screen_stack, self.size
        under = stack[stack.index(self) - 1] if self in stack[1:] else None
        if (old is None or old[0] != size or self._below is None or self._below.screen is not under
                or self.app.screen is not self):  # covered: drawn as it shows again
            self.refresh()
            return
        style = self.visual_style.rich_style
        drawn = None if lines is None else dimmed_lines(under, self._below.color, style, size, lines)
        if drawn is None:  # laid out anew: every line
            strips = dimmed(under, self._below.color, style, size)
        else:  # what widgets repainted: those lines
            strips = list(old[1].strips)
            for y, strip in drawn.items():
                strips[y] = strip
        self._backdrop = (size, Backdrop(strips))
        changed = [Region(0, y, size.width, 1) for y, (was, now) in enumerate(zip(old[1].strips, strips)) if was != now]
        if changed:
            self.refresh(*changed)


def outer_height(widget: Widget) -> int:
    """The rows a widget takes in a vertical layout, its margins included."""
    margin = widget.styles.margin
    return widget.outer_size.height + margin.top + margin.bottom


def set_max_height(widget: Widget, height: int) -> bool:
    """A widget's max-height set to `height` rows, unless it is that already (each setting lays the screen out
    anew); whether it changed."""
    now = widget.styles.max_height
    if now is not None and now.cells == height:
        return False
    widget.styles.max_height = height
    return True
