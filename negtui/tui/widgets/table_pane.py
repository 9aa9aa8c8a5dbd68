"""The side pane of a table's game: who sits in each seat (a person, online or away, or a bot), whose
decision the table waits for and its clock, your role, and what has been said, newest last.

Four text panes, each repainted only where its lines change: the head (the table and its state), the
seats (a line each, whatever the pane's width: a seat's name is cut before what is said of it), your role,
and what was said.  The seats come before the role, so a short terminal shows who is at the table and who
is away without scrolling.  The clock's tick redraws the seats alone, so a second going by repaints the one
line with the clock on it, and nothing is laid out again."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget

from negtui.engine import shown_turn
from negtui.names import cut, player_label, player_labels
from negtui.play.views import Snapshot
from negtui.scenario import Scenario
from negtui.table.talk import Said
from negtui.table.views import Occupant, TableView
from negtui.tui import palette
from negtui.tui.labels import clock_words
from negtui.tui.widgets.pane import Drawn, TextPane

SAID_SHOWN = 200  # the latest messages on the pane
NOTICES_SHOWN = 5  # the trainer's newest messages to the class under them (the lobby lists every one)
PERSON_CHARS = 16  # a person's name on a seat's line (cut with '…'; the seat's name gives way first)


class TableText(TextPane):
    """A part of the table pane: sentences wrapped at the pane's width."""

    WRAP = True


class SeatLines(TextPane):
    """The seats, a line each at any width: each line is a mark, the seat's name and what is said of it
    (who holds it, online or away, the clock); where the line is too long the name is cut with '…', never
    the rest, so a narrow pane still tells who is away."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._rows: list[tuple[Text, Text, Text]] = []  # (mark, name, what is said of it)

    def show_rows(self, rows: list[tuple[Text, Text, Text]]) -> None:
        self._rows = rows
        self.show_text(self._lines_at(self._width or self.size.width))

    def _lines_at(self, width: int) -> Text:
        out = Text(no_wrap=True, overflow="ellipsis")
        for k, (mark, name, rest) in enumerate(self._rows):
            if k:
                out.append("\n")
            room = width - mark.cell_len - rest.cell_len
            shown = name if width <= 0 or name.cell_len <= room else Text(cut(name.plain, max(room, 4)), name.style)
            out.append_text(mark)
            out.append_text(shown)
            out.append_text(rest)
        return out

    def _split(self, width: int) -> None:
        if self._rows and width != self._width:
            self._text = self._lines_at(width)
        super()._split(width)


class TablePane(Drawn, Widget):
    DEFAULT_CSS = """
    TablePane { height: auto; }
    TablePane > #table-seats, TablePane > #table-role, TablePane > #table-talk { margin-top: 1; }
    TablePane > #table-role.empty { display: none; }
    """

    table: reactive[TableView | None] = reactive(None, always_update=True, repaint=False)
    # the messages drawn: how many, the last, who, and the trainer's to the class
    _said: tuple[int, Said | None, dict[str, str], tuple[tuple[str, str], ...]] = (-1, None, {}, ())

    def compose(self) -> ComposeResult:
        yield TableText(id="table-head")
        yield SeatLines(id="table-seats")
        yield TableText(id="table-role")
        yield TableText(id="table-talk")

    def watch_table(self) -> None:
        self.request_draw()

    def draw(self) -> None:
        snap, view = self.snapshot, self.table
        if snap is None or view is None:
            return
        self.query_one("#table-head", TextPane).show_text(self._head(snap, view))
        self.draw_seats()
        role = self._role(snap, view)
        pane = self.query_one("#table-role", TextPane)
        pane.set_class(not role.plain, "empty")
        pane.show_text(role)
        names = speakers(view, snap.game.scenario)
        said = (len(view.said), view.said[-1] if view.said else None, names, view.class_messages)
        if said != self._said:
            self._said = said
            self.query_one("#table-talk", TextPane).show_text(self._talk(view, names))
            if isinstance(self.parent, VerticalScroll):
                self.parent.scroll_end(animate=False)  # a new message: in view

    def tick(self) -> None:
        """A second of the decision's clock: the seats' lines redrawn (only the clock's line changes)."""
        if self.is_mounted and self.is_on_screen:
            self.draw_seats()
        else:
            self._stale = True

    def draw_seats(self) -> None:
        """The seats' lines, the decision's clock on the line of the seat deciding."""
        snap, view = self.snapshot, self.table
        if snap is None or view is None:
            return
        sc = snap.game.scenario
        ids = snap.game.player_ids
        if not view.started:
            deciding: set[str] = set()
        elif snap.waiting_on is not None:  # a simultaneous turn: every seat it waits for that this screen knows of
            deciding = {ids[i] for i in snap.waiting_on}
        else:
            deciding = set() if snap.deciding is None else {ids[snap.deciding]}
        rows = [self._occupant(o, player_label(p), you=o.player == view.you, deciding=o.player in deciding,
                               view=view) for o, p in zip(view.occupants, sc.players)]
        self.query_one("#table-seats", SeatLines).show_rows(rows)

    @staticmethod
    def _head(snap: Snapshot, view: TableView) -> Text:
        head = Text(view.title, style="bold")
        if view.closed:
            head.append(f"\nclosed: {view.closed}", style=palette.NEGATIVE)
        elif view.paused:
            head.append("\npaused by the trainer" if view.trainer else "\npaused", style=palette.NEGATIVE)
        elif not view.started:
            head.append("\n" + waiting_words(view), style="dim")
        elif view.notices and not snap.over:  # the round timer's latest word, until the game ends
            head.append(f"\n⏱ {view.notices[-1]}", style=f"bold {palette.NEGATIVE}")
        if view.you is None:
            head.append(f"\nyou are watching{' as the trainer' if view.trainer else ''}: every value and every "
                        "message; q goes back", style="dim")
        return head

    @staticmethod
    def _role(snap: Snapshot, view: TableView) -> Text:
        """What only this seat is told: that values are private, and its confidential role."""
        head = Text()
        if view.private and not snap.over and view.you is not None:
            head.append("private roles: you know your own values only; the end reveals everyone's", style="dim")
        if view.role:
            head.append("\n" if head else "")
            head.append("your role", style="bold")
            head.append(" (only you see it)\n", style="dim")
            head.append(" ".join(view.role.split()))
        return head

    @staticmethod
    def _talk(view: TableView, names: Mapping[str, str]) -> Text:
        """What was said at the table, then the trainer's newest messages to the whole class: the newest of
        both at the bottom, where the pane scrolls to."""
        talk = Text("said at the table", style="bold")
        talk.append("  (m to say something; bots do not read messages)", style="dim")
        if not view.said:
            talk.append("\nnothing yet", style="dim")
        for said in view.said[-SAID_SHOWN:]:
            talk.append("\n")
            talk.append_text(said_line(said, view.you, names))
        if view.class_messages:
            talk.append("\n\nthe trainer to the whole class", style=f"bold {palette.ORANGE}")
            earlier = len(view.class_messages) - NOTICES_SHOWN
            if earlier > 0:
                talk.append(f"  ({earlier} earlier: m in the lobby lists them)", style="dim")
            for at, text in view.class_messages[-NOTICES_SHOWN:]:
                talk.append(f"\n{at} ", style="dim")
                talk.append(text)
        return talk

    @staticmethod
    def _occupant(o: Occupant, label: str, *, you: bool, deciding: bool, view: TableView) -> tuple[Text, Text, Text]:
        """(the mark of the seat deciding, the seat's name, who holds it and whether they are here)."""
        mark = Text("▶ " if deciding else "  ", style=palette.SKY)
        name = Text(label, style="bold" if you else "")
        rest = Text()
        if you:
            rest.append("  you", style="bold")
        elif o.is_person and not o.name:
            rest.append("  free", style="dim")
        elif o.is_person:  # offline: not sat down yet (a seat kept for them before the start), or gone since
            rest.append(f"  {cut(o.name or '', PERSON_CHARS)}")
            rest.append(" ● online" if o.online else " ○ away" if view.started else " ○ not here yet",
                        style=palette.POSITIVE if o.online else palette.NEGATIVE)
        else:
            rest.append(f"  {o.seat} bot", style="dim")
            if o.person_seat and o.name:
                rest.append(f" for {cut(o.name, PERSON_CHARS)} ○ away", style=palette.NEGATIVE)
        left = view.seconds_left()
        if deciding and left is not None and view.clock is not None and view.clock[0] == o.player:
            rest.append(f"  {clock_words(left)} left", style=palette.NEGATIVE if left < 15 else "")
        return mark, name, rest


def waiting_words(view: TableView) -> str:
    """What a table that has not started waits for, and who can start it: a course's trainer; at a table
    opened with `negtui table open` nobody can, and only the time its host set brings the bots in."""
    if view.trainer:
        return "waiting for every person's seat to be taken (or the trainer to start)"
    if view.starts_anyway:
        return ("waiting for every person's seat to be taken, or for the time whoever opened the table set: then "
                "bots take the empty seats")
    return "waiting for every person's seat to be taken"


def speakers(view: TableView, sc: Scenario) -> dict[str, str]:
    """Each seat as a message names it: its label, and the person in it where one sits or sat there, so
    the class reads "Donor Group (alice)" rather than a seat id."""
    labels = player_labels(sc)
    return {o.player: labels.get(o.player, o.player) + (f" ({o.name})" if o.person_seat and o.name else "")
            for o in view.occupants}


def said_line(said: Said, you: str | None, names: Mapping[str, str] | None = None) -> Text:
    """'t3 Donor Group (alice) → everyone: …', with 'you' for this person."""
    names = names or {}
    who = "you" if said.sender == you else names.get(said.sender, said.sender)
    to = "everyone" if said.to is None else "you" if said.to == you else names.get(said.to, said.to)
    line = Text(f"t{shown_turn(said.t)} ", style="dim")
    line.append(f"{who} → {to}: ", style="bold")
    line.append(said.text)
    return line
