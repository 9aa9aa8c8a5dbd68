"""Saying something at a table: to everyone or to one party, a line of text (bots do not read it)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Select, Static

from negtui.table.talk import MAX_CHARS
from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.keybar import KeyBar

EVERYONE = "*"
NOTE = "People read it at once and it is kept in the game's record; bots do not read messages."


class SayScreen(Dialog[tuple[str | None, str] | None]):
    """Dismissed with (addressee or None for everyone, text), or None."""

    BINDINGS = [Binding("escape", "cancel", "back")]

    def __init__(self, others: list[tuple[str, str]], to: str | None = None, *,
                 title: str = "Say something at the table", everyone: str = "everyone at the table",
                 note: str = NOTE) -> None:
        """`others`: (player id, how it reads) of everyone but the person speaking."""
        super().__init__()
        self.others, self.to = others, to
        self.title_text, self.everyone, self.note = title, everyone, note

    def compose(self) -> ComposeResult:
        yield KeyBar()
        with Vertical(id="dialog", classes="dialog wide"):
            yield Label(self.title_text, classes="dialog-title")
            options = [(self.everyone, EVERYONE), *((f"only {label}", pid) for pid, label in self.others)]
            yield Select(options, value=self.to or EVERYONE, allow_blank=False, id="to")
            yield Input(placeholder="your message; enter sends it", max_length=MAX_CHARS, id="text")
            yield Static(self.note + " escape: back without sending", classes="dim")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        to = self.query_one(Select).value
        self.dismiss((None if to == EVERYONE else str(to), event.value))

    def action_cancel(self) -> None:
        self.dismiss(None)
