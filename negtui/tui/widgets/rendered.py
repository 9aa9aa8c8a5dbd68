"""A Rich renderable (a table, a group of them) drawn by a Textual widget, rendered once per width.

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
from textual._context import active_app
from textual.css.styles import RulesMap
from textual.render import measure
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual


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
