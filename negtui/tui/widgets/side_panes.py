"""The side panes: one line naming them and one pane shown at a time.

Textual's `TabbedContent` gives every pane a tab widget, an underline, a content pane and a switcher:
18 of the game screen's 41 widgets, and a switch between panes cost 54 ms of relayout and animation.
Here the names are one line (a click on one opens it, as its number key does) and the panes sit in a
`ContentSwitcher`, which only shows one child and hides the one before."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import ContentSwitcher

from negtui.tui import palette

# pane id -> (its key, its title, its title where the line is short)
TITLES = {"table": ("6", "Table", "Table"), "goals": ("1", "Goals", "Goals"),
          "forecasts": ("2", "Forecasts", "Fcst"), "log": ("3", "Log", "Log"),
          "network": ("4", "Network", "Net"), "coach": ("5", "Coach", "Coach")}


class PaneNames(Widget):
    """The side panes by name and key, the open one marked; clicking a name opens that pane."""

    DEFAULT_CSS = """
    PaneNames { height: 1; background: $panel; color: $text-muted; }
    """
    active: reactive[str] = reactive("")

    def __init__(self, panes: list[str], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.panes = panes

    def render(self) -> Text:
        width = self.size.width or 80
        for numbered, short, gap in ((True, False, 2), (True, False, 1), (False, False, 1), (False, True, 1)):
            line = self._line(numbered, short, gap)
            if line.cell_len <= width:
                return line
        line.truncate(width, overflow="ellipsis")
        return line

    def _line(self, numbered: bool, short: bool, gap: int) -> Text:
        out = Text(no_wrap=True)
        for k, pane in enumerate(self.panes):
            key, title, brief = TITLES[pane]
            name = (f"{key} " if numbered else "") + (brief if short else title)
            click = Style(meta={"@click": f"screen.pane({pane!r})"})
            if k:
                out.append(" " * gap)
            if pane == self.active:
                out.append(name, Style.parse(f"bold reverse {palette.SKY}") + click)
            else:
                out.append(name, click)
        return out


class SidePanes(ContentSwitcher):
    """The panes themselves, one shown at a time (each child's id is its pane's name)."""

    DEFAULT_CSS = "SidePanes { height: 1fr; }"
