"""The console's seating of the class and its class-wide steering.

`o` opens a dialog: pick a table exercise, then seat the class at random with the roles balanced, from a
roster file (CSV: trainee, exercise, table, seat), or open empty tables; the plan is shown before anything
opens, then the server is asked to open each table with its seats kept (classroom.tablebook.request), and
each trainee finds their seat at the top of the lobby.  The class-wide keys steer every table at once: start
every forming table (bots take the empty seats), pause, go on, end (after a confirmation), and the round's
time for one table or all; `l` releases an exercise's held results to the trainees."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Select, Static

from negtui.classroom.course import LoadedCourse
from negtui.classroom.seating import RosterError, TablePlan, balanced, read_roster
from negtui.names import player_labels
from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.keybar import KeyBar

HOW = (("at random, every role played by as many trainees", "balanced"),
       ("from a roster file (CSV: trainee, exercise, table, seat)", "roster"),
       ("empty tables, for the trainees to pick", "empty"))


def plan_text(course: LoadedCourse, plans: list[TablePlan]) -> Text:
    """The plan as the trainer reads it before confirming: a line per table, seats by role."""
    out = Text()
    for plan in plans:
        labels = player_labels(course.scenarios[plan.exercise])
        seats = ", ".join(f"{labels.get(pid, pid)}: {name}" for pid, name in plan.seats.items()) or "nobody kept"
        out.append(f"table {plan.label} ", style="bold")
        out.append(f"({course.exercise(plan.exercise).title}) {seats}\n")
    return out


class SeatingScreen(Dialog[list[TablePlan] | None]):
    """Dismissed with the tables to open, or None."""

    BINDINGS = [Binding("escape", "cancel", "back"), Binding("ctrl+s", "done", "open the tables")]

    def __init__(self, course: LoadedCourse, trainees: list[str], seed: int = 0) -> None:
        super().__init__()
        self.course, self.trainees, self.seed = course, trainees, seed
        self.plans: list[TablePlan] = []

    def compose(self) -> ComposeResult:
        yield KeyBar()
        tables = [(ex.title, ex.id) for ex in self.course.course.exercises if ex.is_table]
        with Vertical(id="dialog", classes="dialog wide"):
            yield Label("Seat the class", classes="dialog-title")
            yield Select(tables, prompt="the table exercise", id="exercise")
            yield Select(list(HOW), value="balanced", allow_blank=False, id="how")
            yield Input(placeholder="roster file (for a roster) or how many empty tables", id="detail")
            yield Static("", id="plan")
            yield Static("Nothing opens until ctrl+s: the plan shows here first. Each trainee finds their seat at "
                         "the top of the lobby. escape: back", classes="dim")

    def on_mount(self) -> None:
        self.query_one("#exercise", Select).focus()

    def on_select_changed(self) -> None:
        self._plan()

    def on_input_changed(self) -> None:
        self._plan()

    def _plan(self) -> None:
        if not self.query("#plan"):  # a change while the dialog is being composed
            return
        exercise = self.query_one("#exercise", Select).value
        how = self.query_one("#how", Select).value
        detail = self.query_one("#detail", Input).value.strip()
        shown = self.query_one("#plan", Static)
        self.plans = []
        try:
            if how == "roster":
                if not detail:
                    shown.update(Text("type the roster file's path", style="dim"))
                    return
                self.plans = read_roster(Path(detail).expanduser(), self.course, set(self.trainees))
            elif exercise is Select.NULL:
                shown.update(Text("pick a table exercise", style="dim"))
                return
            elif how == "balanced":
                self.plans = balanced(self.course, str(exercise), self.trainees, self.seed)
            else:
                count = int(detail or "1")
                if not 1 <= count <= 50:
                    raise ValueError("between 1 and 50 tables")
                self.plans = [TablePlan(str(exercise), str(k + 1)) for k in range(count)]
        except RosterError as err:
            shown.update(Text(err.render(), style="red"))
            return
        except ValueError as err:
            shown.update(Text(f"how many tables: {err}", style="red"))
            return
        if not self.plans:
            shown.update(Text("nobody to seat: no trainee is enrolled", style="dim"))
            return
        shown.update(plan_text(self.course, self.plans))

    def action_done(self) -> None:
        if not self.plans:
            self.notify("nothing to open: pick an exercise and how to seat the class", severity="warning")
            return
        self.dismiss(self.plans)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TimeScreen(Dialog[tuple[float, bool] | None]):
    """Dismissed with (seconds, extend), or None: the round's time for one table or the class."""

    BINDINGS = [Binding("escape", "cancel", "back")]

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def compose(self) -> ComposeResult:
        yield KeyBar()
        with Vertical(id="dialog", classes="dialog"):
            yield Label(f"The round's time: {self.what}", classes="dialog-title")
            yield Input(placeholder="minutes: 20 sets it, +5 gives 5 more; enter", id="minutes")
            yield Static("The countdown shows on every trainee's screen; at zero the game ends as it stands. It "
                         "stops while a table is paused. escape: back", classes="dim")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        extend = text.startswith("+")
        try:
            minutes = float(text.lstrip("+"))
        except ValueError:
            minutes = -1.0
        if not 0 < minutes <= 7 * 24 * 60:
            self.notify("a number of minutes, above 0 (+N adds N)", severity="warning")
            return
        self.dismiss((minutes * 60, extend))

    def action_cancel(self) -> None:
        self.dismiss(None)

