"""The seat dialog's table: a row per seat, and one for every seat at once, saying who plays it and what
a bot answers offers with.

One widget draws every row: two drop-downs a seat made the 22-player game's dialog cost a second to
draw.  The cursor sits on a cell; enter (or a click) asks the screen to offer that cell's choices."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

EVERY = ""  # the row that sets every seat
PLAYS, ANSWERS = 0, 1  # the columns
NAME_WIDTH = 22  # the name column at its narrowest, and at its widest (longer names are cut at a word)
NAME_WIDEST = 28
CELL_WIDTHS = (17, 22)  # plays, answers: the choice, its padding, the ▾ and a space
SET_ALL = "set all to…"


@dataclass
class SeatRow:
    """One row.  `plays` is a choice (or the value of an outside agent left as it is); `answers` is the
    lens a bot answers offers with, shown where the seat is a lens bot (`answering`): a person or an
    outside agent answers as it decides, and the choice waits for the seat to become a bot again."""

    pid: str
    label: str
    plays: str
    answers: str
    answering: bool
    choices: tuple[tuple[str, str], ...]  # (shown, value) a cell of the plays column offers
    answer_choices: tuple[tuple[str, str], ...]  # and of the answers column


class SeatGrid(Widget, can_focus=True):
    DEFAULT_CSS = """
    SeatGrid { height: auto; width: 1fr; }
    SeatGrid > .seat-grid--cursor { background: $block-cursor-background; color: $block-cursor-foreground;
                                    text-style: bold; }
    SeatGrid:blur > .seat-grid--cursor { background: $block-cursor-blurred-background; text-style: none; }
    SeatGrid > .seat-grid--every { text-style: italic; }
    SeatGrid > .seat-grid--dim { color: $text-muted; }
    """
    COMPONENT_CLASSES = {"seat-grid--cursor", "seat-grid--every", "seat-grid--dim"}
    BINDINGS = [Binding("up", "move(-1, 0)", "up", show=False), Binding("down", "move(1, 0)", "down", show=False),
                Binding("left", "move(0, -1)", "left", show=False),
                Binding("right", "move(0, 1)", "right", show=False),
                Binding("home", "move(-999, 0)", "first", show=False),
                Binding("end", "move(999, 0)", "last", show=False),
                Binding("enter,space", "open", "change")]

    cursor: reactive[tuple[int, int]] = reactive((1, PLAYS), always_update=True)

    class Open(Message):
        """The person asks to change a cell: the screen offers its choices."""

        def __init__(self, grid: SeatGrid, row: int, column: int) -> None:
            super().__init__()
            self.grid, self.row, self.column = grid, row, column

    def __init__(self, rows: list[SeatRow], *, name_width: int = NAME_WIDTH, id: str | None = None) -> None:
        super().__init__(id=id)
        self.name_width = name_width
        self.rows = [SeatRow(EVERY, "every seat", SET_ALL, SET_ALL, True, (), ()), *rows]
        self._every()
        self.cursor = (1 if rows else 0, PLAYS)

    def _every(self) -> None:
        """The every-seat row offers what any seat offers."""
        every, seats = self.rows[0], self.rows[1:]
        every.choices = tuple(dict.fromkeys(c for r in seats for c in r.choices))
        every.answer_choices = tuple(dict.fromkeys(c for r in seats for c in r.answer_choices))

    # --- what the screen asks ---------------------------------------------------------------------------
    def row(self, pid: str) -> SeatRow:
        return next(r for r in self.rows if r.pid == pid)

    def seats(self) -> list[SeatRow]:
        return self.rows[1:]

    def cell(self, row: int, column: int) -> tuple[str, tuple[tuple[str, str], ...]]:
        """A cell's value and the choices it offers."""
        r = self.rows[row]
        return (r.plays, r.choices) if column == PLAYS else (r.answers, r.answer_choices)

    def cell_region(self, row: int, column: int) -> Region:
        """Where a cell is on the screen (the screen's menu opens under it)."""
        x = self.region.x + self.name_width + (CELL_WIDTHS[PLAYS] if column == ANSWERS else 0)
        return Region(x, self.region.y + row, CELL_WIDTHS[column], 1)

    def changed(self) -> None:
        """Rows were changed by the screen (values, choices): draw them."""
        self._every()
        row, column = self.cursor
        if column == ANSWERS and not self.rows[row].answering:
            self.cursor = (row, PLAYS)
        self.refresh()

    # --- keys and the mouse ----------------------------------------------------------------------------
    def action_move(self, rows: int, columns: int) -> None:
        row = max(0, min(len(self.rows) - 1, self.cursor[0] + rows))
        column = max(PLAYS, min(ANSWERS, self.cursor[1] + columns))
        if column == ANSWERS and not self.rows[row].answering:
            column = PLAYS  # a person or an agent answers as it decides: no lens to pick
        self.cursor = (row, column)

    def action_open(self) -> None:
        row, column = self.cursor
        if column == ANSWERS and not self.rows[row].answering:
            return
        self.post_message(self.Open(self, row, column))

    def on_click(self, event: Click) -> None:
        row = event.y
        if not 0 <= row < len(self.rows):
            return
        column = ANSWERS if event.x >= self.name_width + CELL_WIDTHS[PLAYS] else PLAYS
        if column == ANSWERS and not self.rows[row].answering:
            column = PLAYS
        self.focus()
        self.cursor = (row, column)
        if event.x >= self.name_width:
            self.action_open()

    def watch_cursor(self, cursor: tuple[int, int]) -> None:
        self.show_cursor()
        self.refresh()

    def on_resize(self) -> None:
        self.show_cursor()  # a key that moved the cursor before the dialog was laid out scrolled nothing

    def show_cursor(self) -> None:
        """Scroll the list this grid is in so that the cursor's row shows."""
        parent = self.parent
        if isinstance(parent, Widget):
            parent.scroll_to_region(Region(0, self.virtual_region.y + self.cursor[0], 1, 1), animate=False)

    # --- drawing -----------------------------------------------------------------------------------------
    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.rows)

    def render(self) -> Text:
        cursor_style = self.get_component_rich_style("seat-grid--cursor")
        every_style = self.get_component_rich_style("seat-grid--every")
        dim = self.get_component_rich_style("seat-grid--dim")
        out = Text(no_wrap=True, overflow="ellipsis")
        for i, r in enumerate(self.rows):
            if i:
                out.append("\n")
            out.append(_fit(r.label, self.name_width), every_style if r.pid == EVERY else "")
            shown = [(_shown(r.plays, r.choices), PLAYS)]
            if r.answering:
                shown.append((_shown(r.answers, r.answer_choices), ANSWERS))
            for text, column in shown:
                style = cursor_style if (i, column) == self.cursor else (dim if r.pid == EVERY else "")
                out.append(" " + _fit(text, CELL_WIDTHS[column] - 4) + " ▾", style)
                out.append(" ")
        return out


def _shown(value: str, choices: tuple[tuple[str, str], ...]) -> str:
    return next((label for label, v in choices if v == value), value)


def name_width(labels: list[str]) -> int:
    """The name column: the longest name and a space, between NAME_WIDTH and NAME_WIDEST."""
    return max(NAME_WIDTH, min(NAME_WIDEST, max(map(len, labels), default=0) + 1))


def header(width: int = NAME_WIDTH) -> str:
    """The line over the grid naming its columns."""
    return "player".ljust(width) + " plays".ljust(CELL_WIDTHS[PLAYS]) + " answers offers with"


def _fit(text: str, width: int) -> str:
    return text.ljust(width) if len(text) <= width else text[:width - 1] + "…"
