"""`negtui class`: the trainer's console as an app, on the trainer's terminal or over SSH for a
trainer account.  It reads the results database the server and the tables write, steers tables over
their sockets, and watches one as the play screen, read-only, following every move by itself."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.table import Table
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Label, Static

from negtui.agents.options import AgentOptions
from negtui.classroom.course import LoadedCourse
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import DBError, TableRow
from negtui.console.screen import ClassScreen
from negtui.table.client import TableGone
from negtui.table.source import TableSource, watch
from negtui.tui.app import NegtuiApp
from negtui.tui.confined import Confined
from negtui.tui.screens.modal import Dialog
from negtui.tui.screens.table import TableScreen
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.rendered import SteadyStatic


class ClassApp(NegtuiApp):
    seat_changes = False  # the tables' seats are the tables' to change
    shows_paths = False  # over SSH the console runs on the server: its paths say nothing to the trainer

    def __init__(self, course: LoadedCourse, db: ResultsDB, *, data_dir: Path, session_id: int | None = None) -> None:
        super().__init__(None, ask_seats=False, record=False, data_dir=data_dir, options=AgentOptions(elsewhere=True))
        self.course, self.db, self.session_id = course, db, session_id
        self.animation_level = "none"

    def open_first(self) -> None:
        self.push_screen(ClassScreen())
        if self.session_id is not None:
            try:
                self.db.classroom.place(self.session_id, "the trainer's console")
            except DBError:
                pass

    # --- watching a table -----------------------------------------------------------------------------------
    def watch_table(self, t: TableRow) -> None:
        self._watch(t.id, Path(t.socket))

    @work(thread=True, exclusive=True, group="watch")
    def _watch(self, table_id: int, socket: Path) -> None:
        try:
            source = watch(socket)
        except TableGone as err:
            self.call_from_thread(self.notify, f"table {table_id}: {err}", severity="error")
            return
        self.call_from_thread(self._watching, source)

    def _watching(self, source: TableSource) -> None:
        if self.live is not None:
            source.close()
            return
        self.live = source
        self.push_screen(TableScreen(source))

    def may_retry(self) -> bool:
        return False

    def after_game(self) -> None:
        self.close_game()

    def leave_game(self) -> None:
        self.close_game()

    def action_help(self) -> None:
        if isinstance(self.screen, ClassScreen):
            self.push_screen(ConsoleHelp())
        else:
            super().action_help()


KEYS = (
    ("1 2 3", "the people, the tables, the class debrief"),
    ("arrows", "move in a list"),
    ("w, enter", "watch the highlighted table (on the people tab: the table that person sits at) as it is "
                 "played: every value, every message; q comes back here"),
    ("s", "start a forming table now: bots take the seats nobody took (a table nobody sits at does not start)"),
    ("p", "pause a table (decisions wait, the clock stops), or let it go on"),
    ("e", "call time at a table (asks first): its game ends as it stands and is filed with its payoffs, every "
          "trainee gets the debrief; a table nobody has played at closes"),
    ("S P G E T", "the same for every table: start, pause, go on, call time, the round's time"),
    ("m", "a message to one table: everyone, or one seat; kept in its record"),
    ("a", "keep a seat at a forming table for a trainee: the table waits for them"),
    ("b", "tell the whole class: everyone online sees it, wherever they are"),
    ("r", "read the lists again now (they refresh every two seconds)"),
    ("q", "quit the console (the tables go on)"),
)


class ConsoleHelp(Dialog[None]):
    BINDINGS = [Binding("escape,q,question_mark", "close", "close")]

    def compose(self) -> ComposeResult:
        yield KeyBar()
        t = Table(box=box.SIMPLE, show_header=False)
        t.add_column(style="bold", no_wrap=True)
        t.add_column()
        for key, text in KEYS:
            t.add_row(key, text)
        with VerticalScroll(id="dialog", classes="dialog wide"):
            yield Label("The trainer's console — keys  (escape, q or ? closes)", classes="dialog-title")
            yield SteadyStatic(t)
            yield Static("Payoffs so far: what each player would get were the game to end now; in brackets, the "
                         "difference from the No-Negotiation baseline (what the seat gets acting alone, with no "
                         "deal). The class debrief counts finished games only.", classes="dim")

    def action_close(self) -> None:
        self.dismiss(None)


if TYPE_CHECKING:  # the console's app is what its screen asks of its host
    from negtui.console.host import ConsoleHost

    def _hosts(app: ClassApp) -> ConsoleHost:
        return app


class ServedClassApp(Confined, ClassApp):
    """The console for a trainer account over SSH: it runs on the server, so nothing it offers acts there."""
