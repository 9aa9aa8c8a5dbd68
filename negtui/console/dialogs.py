"""The console's own dialog: keeping a seat for a trainee at a table waiting for people, or giving a latecomer
a seat a bot plays at a table under way."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, Select, Static

from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.keybar import KeyBar


class AssignScreen(Dialog[tuple[str, str] | None]):
    """Dismissed with (trainee, seat), or None."""

    BINDINGS = [Binding("escape", "cancel", "back"), Binding("ctrl+s", "done", "keep the seat")]

    def __init__(self, table: str, seats: list[tuple[str, str]], trainees: list[tuple[str, str]],
                 under_way: bool = False) -> None:
        """`table`: how it is named; `seats`: (player id, how it reads) of the seats that may be kept;
        `trainees`: (name, how it reads); `under_way`: the table's game has started (a bot plays each seat)."""
        super().__init__()
        self.table, self.seats, self.trainees, self.under_way = table, seats, trainees, under_way

    def compose(self) -> ComposeResult:
        yield KeyBar()
        with Vertical(id="dialog", classes="dialog wide"):
            yield Label(f"{'Give a latecomer a seat' if self.under_way else 'Keep a seat'} at {self.table}",
                        classes="dialog-title")
            yield Select([(text, pid) for pid, text in self.seats], prompt="the seat", id="seat")
            yield Select([(text, name) for name, text in self.trainees], prompt="the trainee", id="trainee")
            yield Static("The game is under way: the bot goes on playing the seat until the trainee sits down, "
                         "then they play it from where the game stands. They find it at the top of their lobby. "
                         "ctrl+s keeps it for them, escape: back" if self.under_way else
                         "The seat waits for them: the table starts when everyone it was kept for has sat down (or "
                         "when you start it; a bot then plays it until they come). They find it in the lobby as "
                         "their table. ctrl+s keeps it, escape: back", classes="dim")

    def on_mount(self) -> None:
        self.query_one("#seat", Select).focus()

    def action_done(self) -> None:
        seat, trainee = self.query_one("#seat", Select).value, self.query_one("#trainee", Select).value
        if seat is Select.NULL or trainee is Select.NULL:
            self.notify("pick a seat and a trainee", severity="warning")
            return
        self.dismiss((str(trainee), str(seat)))

    def action_cancel(self) -> None:
        self.dismiss(None)
