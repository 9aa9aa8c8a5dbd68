"""A Rich renderable (a table, a group of them) drawn by a Textual widget, rendered once per width; and
`SteadyStatic`, the Static that draws them so and asks for a layout only when its height changes.

Textual wraps a Rich renderable in a `RichVisual`, which renders it in full to measure its height, again
to draw it, and again whenever its widget is repainted with nothing new (a focus moving, a dialog's
backdrop drawn over it): a debrief's tables cost three renderings or more where one gives the same lines.
`RenderedOnce` keeps the lines of its one rendering at the width last asked for, and the strips drawn
from them under each base style; a new content is a new `RenderedOnce`.
"""

from __future__ import annotations

from itertools import islice

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual._context import active_app
from textual.css.scalar import Unit
from textual.css.styles import RulesMap
from textual.geometry import Size
from textual.render import measure
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Static


class RenderedOnce(Visual):
    """Draws as Textual's `RichVisual` draws the same renderable: the same options, the same height (its
    count of line ends) and the widget's style laid under every segment, as Textual's `post_render` does."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable
        self._width = -1
        self._lines: list[list[Segment]] = []
        self._newlines = 0
        self._strips: dict[RichStyle, list[Strip]] = {}

    def _render_at(self, width: int) -> None:
        if width == self._width:
            return
        app = active_app.get()
        options = app.console_options.update(highlight=False).update_width(width)
        segments = list(app.console.render(self.renderable, options))
        self._newlines = sum(text.count("\n") for text, _, _ in segments)
        self._lines = list(Segment.split_and_crop_lines(segments, width, include_new_lines=False, pad=False))
        self._width = width
        self._strips.clear()

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return measure(active_app.get().console, self.renderable, container_width, container_width=container_width)

    def get_height(self, rules: RulesMap, width: int) -> int:
        self._render_at(width)
        return self._newlines

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        self._render_at(width)
        base = style.rich_style
        strips = self._strips.get(base)
        if strips is None:
            strips = self._strips[base] = [Strip([Segment(text, base + seg_style) for text, seg_style, _ in line])
                                           for line in self._lines]
        return strips if height is None else list(islice(strips, height))


class SteadyStatic(Static):
    """A Static drawn as a Rich renderable (tables) that asks for a layout of its screen only when its
    height changes: a number arriving in a table of the same rows repaints it and nothing else.  Its
    tables are rendered once per width (`RenderedOnce`); text is Textual's to wrap, as in any Static."""

    DEFAULT_CSS = "SteadyStatic { height: auto; }"
    _key: object = None
    _laid_out: tuple[int, int] | None = None  # (width, height) of its content at the last layout

    def __init__(self, content: RenderableType = "", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.update(content, layout=False)

    def update(self, content: RenderableType = "", *, layout: bool = True) -> None:  # type: ignore[override]
        super().update(content if isinstance(content, (str, Text, Visual)) else RenderedOnce(content), layout=layout)

    def show(self, content: RenderableType, key: object = None) -> None:
        """`key`: what the content was made from, when that is cheaper to compare than the content (a pane
        may compare it itself before making the content, and then show it with the same key)."""
        if key is not None and key == self._key:
            return
        self._key = key
        self.update(content, layout=False)
        width = self.size.width
        height = self._boxed(Static.get_content_height(self, self.size, self.size, width)) if width else -1
        if (width, height) != self._laid_out:
            self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        height = super().get_content_height(container, viewport, width)
        self._laid_out = (width, self._boxed(height))
        return height

    def _boxed(self, height: int) -> int:
        """The lines its box gives content of this height: a content within its min- and max-height in cells
        changes no layout (any other unit: every height counts)."""
        styles = self.styles
        low, high = styles.min_height, styles.max_height
        gutter = styles.gutter.height if styles.box_sizing == "border-box" else 0
        if low is not None and low.unit == Unit.CELLS:
            height = max(height, int(low.value) - gutter)
        if high is not None and high.unit == Unit.CELLS:
            height = min(height, int(high.value) - gutter)
        return height
