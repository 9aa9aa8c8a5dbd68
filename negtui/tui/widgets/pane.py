"""What every pane of the game screen shares: state bound from the game view, and drawing only while on
screen.  A pane in a hidden tab notes that its state changed and draws when its tab is opened, so an
autoplayed turn redraws what can be seen and nothing else."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from negtui.play.views import Snapshot


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


class TextPane(Widget):
    """A pane of styled text that repaints without a screen re-layout while its line count holds:
    the panes redrawn on every autoplayed turn must not make the whole screen reflow."""

    DEFAULT_CSS = "TextPane { height: auto; }"

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._text = Text()
        self._lines = 1

    def show_text(self, text: Text) -> None:
        lines = text.plain.count("\n") + 1
        relayout = lines != self._lines
        self._text, self._lines = text, lines
        self.refresh(layout=relayout)

    def render(self) -> Text:
        return self._text

    @property
    def plain(self) -> str:
        return self._text.plain

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._lines


class StaticPane(Drawn, Static):
    """A pane drawn as a Rich renderable (tables), re-laid out as its content needs."""

    DEFAULT_CSS = "StaticPane { height: auto; }"

    def show(self, content: RenderableType) -> None:
        self.update(content)
