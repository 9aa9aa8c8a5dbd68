"""What every pane of the game screen shares: state bound from the game view, and drawing only while on
screen.  A pane in a hidden tab notes that its state changed and draws when its tab is opened, so an
autoplayed turn redraws what can be seen and nothing else.

A redraw costs what it changes: a pane whose text did not change repaints nothing, a text pane repaints
only the lines that changed, and the screen is laid out again only when a pane's height changes (a
layout of the game screen costs as much as a frame, and over SSH every trainee's frames share the
machine)."""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Region, Size
from textual.reactive import reactive
from textual.widget import Widget

from negtui.play.views import Snapshot
from negtui.tui.widgets.rendered import SteadyStatic


class Drawn:
    """Mixin of a pane widget: `draw()` renders its bound state; `request_draw()` is what watchers call.
    Every pane binds the snapshot; a pane that shows more binds that too and asks to draw when it changes."""

    snapshot: reactive[Snapshot | None] = reactive(None, always_update=True, repaint=False)
    _stale = False

    def watch_snapshot(self) -> None:
        self.request_draw()

    def draw(self) -> None:
        raise NotImplementedError

    def request_draw(self) -> None:
        node: Widget = self  # type: ignore[assignment]
        if node.is_mounted and node.is_on_screen:
            self._stale = False
            self.draw()
        else:
            self._stale = True

    def on_show(self) -> None:
        if self._stale:
            self._stale = False
            self.draw()


def same_text(a: Text, b: Text) -> bool:
    """Whether two texts draw alike (Rich's equality leaves out the base style)."""
    return a.plain == b.plain and a.spans == b.spans and a.style == b.style


class TextPane(Widget):
    """A pane of styled text kept as the lines it draws: a new text repaints only the lines that differ,
    and asks for a layout of the screen only when its number of lines changes (and its height is its
    content's).  `WRAP` panes wrap their text at the pane's width themselves, so they know each line."""

    DEFAULT_CSS = "TextPane { height: auto; }"
    WRAP = False

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._text = Text()
        self._drawn = Text()  # what is rendered: the text's lines as they are drawn
        self._lines: list[Text] = [Text()]
        self._width = 0  # the width the lines were made for

    def show_text(self, text: Text) -> None:
        if same_text(text, self._text):
            return
        self._text = text
        old = self._lines
        self._split(self._width)
        new = self._lines
        known = self.WRAP or text.no_wrap  # a text left to Textual to wrap: its drawn lines are not known here
        if len(new) != len(old) or not known or not self.size:
            self.refresh(layout=len(new) != len(old) and self._auto_height)
            return
        width = self.size.width
        changed = [Region(0, y, width, 1) for y, (a, b) in enumerate(zip(old, new)) if not same_text(a, b)]
        if changed:
            self.refresh(*changed)

    @property
    def _auto_height(self) -> bool:
        height = self.styles.height
        return height is None or height.is_auto

    def _split(self, width: int) -> None:
        self._width = width
        text = self._text
        if self.WRAP and width > 0:
            lines = list(text.wrap(self.app.console, width))
            self._lines = lines or [Text()]
            self._drawn = Text("\n", no_wrap=True, overflow="crop").join(self._lines)
            return
        self._lines = list(text.split("\n", allow_blank=True)) or [Text()]
        self._drawn = text

    def render(self) -> Text:
        return self._drawn

    @property
    def plain(self) -> str:
        return self._text.plain

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width != self._width:
            self._split(width)
        return len(self._lines)

    def on_resize(self) -> None:
        if self.WRAP and self.size.width and self.size.width != self._width:
            self._split(self.size.width)
            self.refresh(layout=self._auto_height)


class StaticPane(Drawn, SteadyStatic):
    """A pane drawn as a Rich renderable, not drawn at all when the key it is shown with is the one it shows
    already."""

    DEFAULT_CSS = "StaticPane { height: auto; }"
