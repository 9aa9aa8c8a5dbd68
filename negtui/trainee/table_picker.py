"""A table exercise before play: its briefing, the tables of it waiting for people (who has joined,
which seats are free), those under way with a seat a bot plays open to a latecomer, and a new table; the
trainee picks one and a seat, and the app sits them there.

The list is read again every second, so a table that fills up, starts or closes meanwhile is seen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from negtui.classroom.dbtypes import DBError, TableRow
from negtui.tui import palette
from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.options import Options

if TYPE_CHECKING:
    from negtui.classroom.course import Exercise
    from negtui.classroom.db import ResultsDB
    from negtui.scenario import Scenario

REFRESH = 1.0  # seconds between looks at the tables


@dataclass(frozen=True)
class TableChoice:
    table: int | None  # None: a new table
    seat: str
    called: str = ""  # how the table is named ("table north"), when it is one already open


def table_line(row: TableRow, players: dict[str, str], you: str) -> Text:
    """One table as the picker lists it: its name, state, and every seat with who holds it (a seat a bot plays
    at a table under way, nobody holding it, is open: a latecomer sitting down takes it over)."""
    t = Text(row.called, style="bold")
    t.append(f"  {'waiting for people' if row.status == 'forming' else f'under way, turn {row.turn + 1}'}\n   ",
             style="dim")
    for k, s in enumerate(row.people):
        if k:
            t.append(" · ")
        t.append(f"{players.get(s.player, s.player)}: ")
        if s.name is not None:
            who = "you" if s.name == you else s.name
            t.append(who, style="bold" if s.online else "dim")
            if not s.online:  # before the start: a seat the trainer keeps; after: someone who dropped
                t.append(" (kept by the trainer)" if row.status == "forming" else " (away)", style="dim")
        elif s.is_person:
            t.append("free", style=palette.POSITIVE)
        elif s.person_seat and row.status == "playing":
            t.append(f"{s.seat} bot", style="dim")
            t.append(" · open: sit down to take it over", style=palette.POSITIVE)
        else:
            t.append(f"{s.seat} bot", style="dim")
    return t


class TablePicker(Dialog[TableChoice | None]):
    DEFAULT_CSS = """
    TablePicker #dialog { height: 90%; }
    TablePicker .briefing { height: 1fr; min-height: 2; }
    TablePicker #tables { height: auto; max-height: 14; }
    TablePicker #seat { width: 1fr; max-width: 60; }
    TablePicker .form-label { width: 12; }
    """
    BINDINGS = [Binding("escape", "cancel", "back"), Binding("ctrl+s", "join", "sit down"),
                Binding("ctrl+n", "new_table", "open a new table"),
                Binding("ctrl+r", "look", "look again", show=False)]

    def __init__(self, exercise: Exercise, scenario: Scenario, db: ResultsDB, course: str, trainee: str) -> None:
        super().__init__()
        self.exercise, self.scenario, self.db, self.course, self.trainee = exercise, scenario, db, course, trainee
        self.players = {p.id: p.display for p in scenario.players}
        self.people_seats = exercise.people_seats(scenario.player_ids)
        self.room = exercise.room(scenario.player_ids)
        self.rows: list[TableRow] = []
        self.role: str | None = None  # the seat whose confidential role they have been shown: theirs only

    def compose(self) -> ComposeResult:
        yield KeyBar()
        ex = self.exercise
        with Vertical(id="dialog", classes="dialog wide"):
            yield Label(f"{ex.title} · a table of {self.room} people", classes="dialog-title")
            yield Options(id="tables")
            with Horizontal(classes="form-row"):
                yield Label("your seat", classes="form-label")
                yield Select([], allow_blank=True, id="seat")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Sit down (ctrl+s)", variant="primary", id="join")
                yield Button("Back (escape)", id="back")
            with VerticalScroll(classes="briefing"):
                yield Static(ex.briefing or self.scenario.description)
                yield Static(Text(self._rules(), style="dim"))

    def _rules(self) -> str:
        ex = self.exercise
        names = [self.players[pid] for pid in self.people_seats]
        seats = ", ".join(names) if isinstance(ex.humans, list) else f"any {self.room} of {', '.join(names)}"
        bots = len(self.players) - self.room
        parts = [f"people play {seats}" + (f"; bots play the other {bots} (bots do not read messages)" if bots
                                           else "")]
        parts.append(f"the game starts when {self.room} people have sat down"
                     + (f" or after {ex.wait:g} s, with bots in the empty seats" if ex.wait is not None else
                        " (or when the trainer starts it)"))
        if ex.decision_time:
            parts.append(f"{ex.decision_time:g} s per decision (then a pass, or a rejection)")
        if ex.information == "private":
            parts.append("roles are private: each of you sees only your own values (and a confidential role "
                         "once seated) until the end reveals everyone's")
        if ex.one_role:
            parts.append("the first seat whose role you are shown is the only one you may take at this "
                         "exercise's tables")
        parts.append(f"if you drop out your seat is kept {ex.grace:g} s, then "
                     + ("a bot takes it until you are back" if ex.on_drop == "bot" else "the table waits for you"))
        return "\n" + "; ".join(parts) + "."

    def on_mount(self) -> None:
        self.action_look()
        self.set_interval(REFRESH, self.action_look)
        self.query_one(OptionList).focus()

    def action_look(self) -> None:
        try:
            rows = self.db.tables.live(self.course, self.exercise.id)
            role = self.db.seats.role_seen(self.trainee, self.course, self.exercise.id) if self.exercise.one_role \
                else None
        except DBError as err:
            self.notify(str(err), severity="error")
            return
        rows = [r for r in rows if r.free_seats(self.room) or r.holds(self.trainee)]
        if rows == self.rows and role == self.role and self.query_one(OptionList).option_count:
            return  # as shown
        self.role = role
        lst = self.query_one(OptionList)
        # the highlight stays on what it was on (a table, or the new one) while tables come and go
        # (with no table listed before, "+ open a new table" was the only option, not a choice)
        was = self._highlighted() if lst.option_count else None
        new_one = lst.option_count > 0 and was is None and bool(self.rows)
        self.rows = rows
        lst.clear_options()
        lst.add_options([Option(table_line(r, self.players, self.trainee)) for r in rows]
                        + [Option(Text("+ open a new table", style="bold"))])
        ids = [r.id for r in rows]
        lst.highlighted = (len(rows) if new_one else ids.index(was.id) if was is not None and was.id in ids
                           else 0)
        self._seats()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._seats()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_join()

    def _highlighted(self) -> TableRow | None:
        k = self.query_one(OptionList).highlighted
        return self.rows[k] if k is not None and k < len(self.rows) else None

    def _seats(self) -> None:
        """The seats the highlighted table has free (your own, if you hold one there)."""
        row = self._highlighted()
        held = row.holds(self.trainee) if row is not None else None
        free = [held.player] if held else row.free_seats(self.room) if row is not None else self.people_seats
        if self.role is not None:  # the table would refuse any other
            free = [pid for pid in free if pid == self.role]
        select = self.query_one("#seat", Select)
        current = select.value
        select.set_options([(self.players.get(pid, pid), pid) for pid in free])
        if free:
            select.value = current if current in free else free[0]

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_join() if event.button.id == "join" else self.action_cancel()

    def action_join(self) -> None:
        seat = self.query_one("#seat", Select).value
        if not isinstance(seat, str):
            self.notify("no seat is free at that table" if self.role is None else
                        f"{self.players.get(self.role, self.role)}'s seat is not free at that table: you have been "
                        "shown that role, and may take no other", severity="error")
            return
        row = self._highlighted()
        self.dismiss(TableChoice(None if row is None else row.id, seat, "" if row is None else row.called))

    def action_new_table(self) -> None:
        """Sit down at a new table whatever is highlighted (the seat as chosen, if a new table has it)."""
        self.query_one(OptionList).highlighted = len(self.rows)
        self._seats()
        self.action_join()

    def action_cancel(self) -> None:
        self.dismiss(None)
