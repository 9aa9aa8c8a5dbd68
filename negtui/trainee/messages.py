"""Every message the trainer has sent the class, to read again (the notice that brought each one goes
after a few seconds)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from negtui.trainee.feed import RECENT, Message, messages_text
from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.keybar import KeyBar


class MessagesScreen(Dialog[None]):
    DEFAULT_CSS = """
    MessagesScreen #dialog { max-height: 90%; }
    MessagesScreen VerticalScroll { height: auto; max-height: 1fr; }
    """
    BINDINGS = [Binding("escape,m,q", "close", "back")]

    def __init__(self, messages: list[Message]) -> None:
        super().__init__()
        self.messages = list(messages)

    def compose(self) -> ComposeResult:
        yield KeyBar()
        with Vertical(id="dialog", classes="dialog wide"):
            yield Label("Messages from the trainer", classes="dialog-title")
            with VerticalScroll():
                yield Static(messages_text(self.messages, title="newest first") if self.messages else
                             Text(f"The trainer has sent the class no message in the last {RECENT / 3600:g} hours.",
                                  style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
