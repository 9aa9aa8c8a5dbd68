"""`FitTable`: the tables of panes and dialogs (`Table(box=None, padding=(0, 1))`), drawn as plain lines of
text when every cell fits on its line, and by Rich's `Table` otherwise.  Strings (cells, headers, title,
caption) are plain text, not markup.

Rich lays a table out in general: it measures every cell, shares the width out among the columns, wraps
cells and renders each through its own padding, which for the few short columns of a coach pane or an offer
preview costs ten times the lines themselves (and those panes are drawn anew after every decision, on every
trainee's screen).  When each cell fits its column at its natural width, the layout is known beforehand:
each column as wide as its widest cell, a space either side.  `FitTable` draws exactly those cells then
(the tests hold it to Rich's drawing cell for cell), and hands anything else to Rich.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text


@dataclass
class _Column:
    header: str | Text
    justify: str
    style: str
    min_width: int | None
    rich: dict[str, Any] = field(default_factory=dict)  # what only Rich's table reads (no_wrap, overflow…)


@cache
def _wrapping() -> Console:
    """A console to wrap lines at a width given: Rich's wrapping asks for one."""
    return Console()


def stacked(parts: list[Text | FitTable]) -> RenderableType:
    """Parts one under the other: one text when every table among them fitted as text (a widget draws text
    without Rich's rendering), a Rich group otherwise."""
    texts = [p for p in parts if isinstance(p, Text)]
    return Text("\n").join(texts) if len(texts) == len(parts) else Group(*parts)


def _text(cell: str | Text) -> Text:
    """A cell as drawn: a string is plain text, never console markup (where Rich's table reads markup and
    emoji codes): its words are often a scenario's, a trainee's or a program's, and `[/]` in a name would
    end the app, `[link=…]` send the terminal a hyperlink.  Style comes as a `Text`."""
    return cell if isinstance(cell, Text) else Text(cell)


class FitTable:
    """What a `Table(box=None, padding=(0, 1))` built with `add_column`, `add_row` and `add_section` draws;
    a title and a caption (left-justified) as Rich draws them."""

    def __init__(self, *, title: str | None = None, caption: str | None = None, show_header: bool = True) -> None:
        self.title, self.caption, self.show_header = title, caption, show_header
        self.columns: list[_Column] = []
        self.rows: list[list[str | Text]] = []
        self._sections: list[int] = []  # rows after which Rich's table starts a section (nothing drawn, box-less)

    def add_column(self, header: str | Text = "", *, justify: str = "left", style: str = "",
                   min_width: int | None = None, **rich: Any) -> None:
        self.columns.append(_Column(header, justify, style, min_width, rich))

    def add_row(self, *cells: str | Text) -> None:
        self.rows.append(list(cells) + [""] * (len(self.columns) - len(cells)))

    def add_section(self) -> None:
        self._sections.append(len(self.rows))

    def rich(self) -> Table:
        """The same table as Rich's: drawn when a cell does not fit."""
        title = None if self.title is None else Text(self.title, style="table.title")  # Rich styles a str so
        caption = None if self.caption is None else Text(self.caption, style="table.caption")
        t = Table(box=None, padding=(0, 1), title=title, caption=caption, title_justify="left",
                  caption_justify="left", show_header=self.show_header)
        for c in self.columns:
            t.add_column(_text(c.header), justify=c.justify, style=c.style or None,  # type: ignore[arg-type]
                         min_width=c.min_width, **c.rich)
        for k, row in enumerate(self.rows):
            t.add_row(*(_text(cell) for cell in row))
            if k + 1 in self._sections:
                t.add_section()
        return t

    def lines(self, width: int) -> list[Text] | None:
        """The table's lines, or None if it is wider than `width` or a cell is justified other than left or
        right: Rich then lays it out."""
        if not self.columns or any(c.justify not in ("left", "right") for c in self.columns):
            return None
        rows = [[_text(c.header) for c in self.columns]] if self.show_header else []
        rows += [[_text(cell) for cell in row] for row in self.rows]
        if not rows:  # nothing to measure the columns by: Rich's own widths
            return None
        split = [[cell.split("\n", allow_blank=True) for cell in row] for row in rows]
        widths = []
        for k, c in enumerate(self.columns):
            w = max((part.cell_len for row in split for part in row[k]), default=0)
            widths.append(max(w, c.min_width or 0))
        total = sum(widths) + 2 * len(widths)
        if total > width:
            return None
        out: list[Text] = []
        if self.title:
            out += self._note(self.title, "table.title", total)
        for n, row in enumerate(split):
            header = self.show_header and n == 0
            height = max(len(parts) for parts in row)
            for y in range(height):
                line = Text()
                for parts, w, c in zip(row, widths, self.columns, strict=True):
                    base = "table.header" if header else c.style
                    # a header's lines sit at the bottom of its row, a cell's at the top
                    at = y - (height - len(parts)) if header else y
                    cell = Text(" ", style=base)
                    if 0 <= at < len(parts):
                        part = parts[at]
                        pad = " " * (w - part.cell_len)  # in the cell's own style, as Rich justifies it
                        if c.justify == "right":
                            cell.append(pad, part.style)
                        cell.append_text(part)
                        if c.justify == "left":
                            cell.append(pad, part.style)
                    else:
                        cell.append(" " * w)
                    cell.append(" ")
                    line.append_text(cell)
                out.append(line)
        if self.caption:
            out += self._note(self.caption, "table.caption", total)
        return out

    @staticmethod
    def _note(note: str, style: str, width: int) -> list[Text]:
        """A title or caption, wrapped at the table's width and each line padded to it, as Rich draws it."""
        return list(Text(note, style=style).wrap(_wrapping(), width, justify="left"))

    def text(self, width: int) -> Text | None:
        """The table as one text (to join with other texts), or None as `lines` says."""
        lines = self.lines(width)
        return None if lines is None else Text("\n").join(lines)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text(options.max_width)
        if text is None:
            yield self.rich()
            return
        yield from text.render(console, end="\n")  # joined, each line's own style is a span: rendered with it

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.rich())
