"""The console's screen: who is online and where, every table of the course with its progress, and the
class debrief, in three tabs; the trainer steers the highlighted table from the keyboard.  The lists
are read from the results database every couple of seconds in a worker; a request to a table goes
over its socket in a worker too, so a slow table never freezes the console."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from negtui.classroom.classbook import Present
from negtui.classroom.dbtypes import DBError, TableRow, Trainee
from negtui.console.classwide import ClassWide
from negtui.console.debrief_pane import DebriefPane
from negtui.console.dialogs import AssignScreen
from negtui.console.host import ConsoleHost
from negtui.console.rows import (
    IDLE_ALARM,
    IDLE_WARN,
    absent_of,
    bot_seats,
    longest_idle,
    person_row,
    seats_of,
    standing_of,
    state_of,
    to_move_of,
    turn_of,
)
from negtui.names import player_label, player_labels, player_names
from negtui.table.client import TableGone
from negtui.table.endings import how_ended
from negtui.table.steer import steer
from negtui.table.views import Occupant
from negtui.tui import palette
from negtui.tui.labels import clock_words
from negtui.tui.screens.dialogs import ConfirmScreen
from negtui.tui.screens.say import SayScreen
from negtui.tui.widgets.keybar import KeyBar


class KeyedTabs(TabbedContent):
    """Tabs that change only by the trainer's keys.  Textual opens the tab of any widget that takes the
    focus, and defers a focus: the list of the tab just left, focused as that tab opened, brought it back
    when the trainer pressed another tab's key in between (the header said one tab, the other stayed)."""

    def on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        event.prevent_default()  # Textual's own handler opens the focused widget's tab; the screen refocuses


REFRESH = 2.0  # seconds between readings of the database
CALL_TIME = ("Its game ends as it stands: the commitments made bind, the results are filed with the payoffs they "
             "give, and every trainee at it sees the end and the debrief. y calls time, n keeps it going.")
TABLE_KEYS = ("start", "pause", "end", "say", "assign", "time")


class ClassLoaded(Message):
    def __init__(self, trainees: list[Trainee], online: list[Present], tables: list[TableRow]) -> None:
        super().__init__()
        self.trainees, self.online, self.tables = trainees, online, tables


class ClassScreen(ClassWide, Screen[None]):
    BINDINGS = [
        Binding("1", "tab('people')", "people"), Binding("2", "tab('tables')", "tables"),
        Binding("3", "tab('debrief')", "debrief"),
        Binding("w", "watch", "watch"), Binding("s", "start", "start"), Binding("p", "pause", "pause/resume"),
        Binding("e", "end", "call time"), Binding("m", "say", "message"), Binding("a", "assign", "keep a seat"),
        Binding("t", "time", "round time"), Binding("o", "seat", "seat the class"),
        Binding("S", "start_all", "start all"), Binding("P", "pause_all", "pause all"),
        Binding("G", "resume_all", "all go on"), Binding("E", "end_all", "call time for all"),
        Binding("T", "time_all", "time for all"), Binding("l", "release", "release results"),
        Binding("b", "broadcast", "tell the class"), Binding("r", "refresh", "refresh"),
        Binding("q", "app.quit", "quit"),
    ]
    DEFAULT_CSS = """
    ClassScreen TabbedContent { height: 1fr; }
    ClassScreen DataTable { height: 1fr; }
    ClassScreen #table-detail { height: auto; max-height: 8; padding: 0 1; border-top: solid $panel; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[int, TableRow] = {}
        self.at_table: dict[str, int] = {}  # trainee -> the live table they sit at
        self.trainees: list[Trainee] = []
        self.online: list[Present] = []
        self.class_read = False  # the first reading of the class has arrived

    @property
    def host(self) -> ConsoleHost:
        return cast(ConsoleHost, self.app)

    def compose(self) -> ComposeResult:
        app = self.host
        yield Static(Text(f" {app.course.course.title} · the trainer's console ", style="bold reverse"), id="topbar")
        with KeyedTabs(initial="people"):
            with TabPane("1 People", id="people"):
                yield DataTable(id="people-list", cursor_type="row", zebra_stripes=True)
            with TabPane("2 Tables", id="tables"):
                yield DataTable(id="table-list", cursor_type="row", zebra_stripes=True)
                yield Static("", id="table-detail")
            with TabPane("3 Class debrief", id="debrief"):
                yield DebriefPane(app.course, app.db)
        yield Static("", id="status")
        yield KeyBar()

    def on_mount(self) -> None:
        people = self.query_one("#people-list", DataTable)
        people.add_columns("who", "online", "since", "where")
        tables = self.query_one("#table-list", DataTable)
        tables.add_columns("table", "state", "turn", "to move", "missing", "people", "exercise")
        self.set_status("1 people · 2 tables · 3 class debrief · ? every key")
        self.action_refresh()
        self.set_interval(REFRESH, self.action_refresh)

    def set_status(self, text: str | Text) -> None:
        self.query_one("#status", Static).update(text)

    # --- reading the class ------------------------------------------------------------------------------
    def action_refresh(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="class-load")
    def _load(self) -> None:
        db, course = self.host.db, self.host.course.course.name
        try:
            message = ClassLoaded(db.trainees(), db.classroom.online(), db.tables.recent(course))
        except DBError as err:
            self.app.call_from_thread(self.set_status, Text(str(err), style=palette.NEGATIVE))
            return
        self.post_message(message)

    def on_class_loaded(self, message: ClassLoaded) -> None:
        self.trainees, self.online = message.trainees, message.online
        self.class_read = True
        self.tables = {t.id: t for t in message.tables}
        self.at_table = {s.name: t.id for t in message.tables if t.live for s in t.people if s.name}
        by_name: dict[str, list[Present]] = {}
        for p in message.online:
            by_name.setdefault(p.name, []).append(p)
        order = sorted(message.trainees, key=lambda t: (t.name not in by_name, t.name))
        _fill(self.query_one("#people-list", DataTable), [
            (t.name, person_row(t, by_name.get(t.name, []), message.tables, self._labels))
            for t in order])
        course = self.host.course
        rows = []
        for t in message.tables:
            title, room = self._title(t)
            names = ", ".join(s.name for s in t.people if s.name) or (
                "nobody yet" if t.status == "forming" else "nobody")
            players = self._names(t.exercise)
            rows.append((str(t.id), (Text(t.name or str(t.id), style="bold"), state_of(t, room), Text(turn_of(t)),
                                     to_move_of(t, players), absent_of(t), Text(names), Text(title))))
        _fill(self.query_one("#table-list", DataTable), rows)
        self._detail()
        self.refresh_bindings()
        people = len({p.name for p in message.online})
        live = sum(t.live for t in message.tables)
        top = Text(f" {course.course.title} · the trainer's console · {people} online · {live} "
                   f"table{'s' * (live != 1)} open ", style="bold reverse")
        waiting = longest_idle(message.tables)
        if waiting is not None and waiting[2] >= IDLE_WARN:  # who has kept a table waiting longest
            name, t, idle = waiting
            top.append(f" longest wait: {name} at {t.called}, {clock_words(idle)} ",
                       style=f"bold reverse {palette.NEGATIVE if idle >= IDLE_ALARM else palette.ORANGE}")
        self.query_one("#topbar", Static).update(top)

    def _labels(self, exercise: str) -> dict[str, str]:
        """The exercise's seats as dialogs name them (names.player_labels), by player id."""
        sc = self.host.course.scenarios.get(exercise)
        return player_labels(sc) if sc is not None else {}

    def _names(self, exercise: str) -> dict[str, str]:
        """The exercise's players in a word each (names.player_names), by player id."""
        sc = self.host.course.scenarios.get(exercise)
        return dict(zip(sc.player_ids, player_names(sc), strict=True)) if sc is not None else {}

    def _title(self, t: TableRow) -> tuple[str, int]:
        """The table's exercise as the course names it, and how many people it seats."""
        course = self.host.course
        try:
            ex = course.exercise(t.exercise)
        except KeyError:  # a table of an exercise the course no longer has
            return t.exercise, len(t.people)
        return ex.title, ex.room(course.scenarios[ex.id].player_ids)

    # --- which table ------------------------------------------------------------------------------------
    def _tab(self) -> str:
        tabs = self.query(TabbedContent)
        return tabs.first().active if tabs else ""

    def _table(self) -> TableRow | None:
        """The highlighted table (on the people tab: the table the highlighted person sits at)."""
        if self._tab() == "tables":
            key = _key(self.query_one("#table-list", DataTable))
            return self.tables.get(int(key)) if key else None
        if self._tab() == "people":
            name = _key(self.query_one("#people-list", DataTable))
            table_id = self.at_table.get(name or "")
            return self.tables.get(table_id) if table_id is not None else None
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "watch":
            t = self._table()
            return t is not None and t.live
        if action in TABLE_KEYS:
            t = self._table()
            if self._tab() != "tables" or t is None or not t.live:
                return False
            return {"start": t.status == "forming", "assign": t.status == "forming" or bool(bot_seats(t)),
                    "pause": t.status == "playing"}.get(action, True)
        if action == "release":
            t = self._table()
            if t is None:
                return False
            try:
                return self.host.course.exercise(t.exercise).results_held
            except KeyError:  # a table of an exercise the course no longer has
                return False
        return True

    def on_data_table_row_highlighted(self) -> None:
        self.refresh_bindings()
        self._detail()

    def _detail(self) -> None:
        """The highlighted table's seats and how everyone stands, under the list (room to wrap)."""
        key = _key(self.query_one("#table-list", DataTable))
        t = self.tables.get(int(key)) if key else None
        text = Text()
        if t is not None:
            text.append(f"{t.called} · {self._title(t)[0]}", style="bold")
            if t.status == "closed" and t.end_reason:
                text.append(f" · closed: {t.end_reason}", style="dim")
            elif t.status == "over" and (ended := how_ended(t.ending, t.turn, t.turns)):
                text.append(f" · over, {ended}", style="dim")
            text.append("\n")
            text.append("seats  ", style="dim")
            names = self._names(t.exercise)
            text.append_text(seats_of(t, names))
            standing = standing_of(t, names)
            if standing:
                text.append("\nso far ", style="dim")
                text.append_text(standing)
                text.append("\n(each payoff were the game to end now; in brackets, against the No-Negotiation "
                            "baseline)", style="dim")
        self.query_one("#table-detail", Static).update(text)

    def on_data_table_row_selected(self) -> None:
        if self.check_action("watch", ()):
            self.action_watch()

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        if tab == "debrief":
            self.query_one(DebriefPane).reload()
        self.call_after_refresh(self._focus_tab)

    def on_tabbed_content_tab_activated(self) -> None:
        self.refresh_bindings()
        self.call_after_refresh(self._focus_tab)

    def on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        """A list focused in a tab no longer open (a focus deferred past a tab key): the open tab's list
        takes the keys."""
        if event.tab_pane.id != self._tab():
            self.call_after_refresh(self._focus_tab)

    def _focus_tab(self) -> None:
        """The list of the tab on show takes the keys (arrows, enter)."""
        main = {"people": "#people-list", "tables": "#table-list", "debrief": "#class-exercises"}.get(self._tab())
        if main:
            self.query_one(main).focus()

    # --- steering -------------------------------------------------------------------------------------------
    def action_watch(self) -> None:
        t = self._table()
        if t is not None:
            self.set_status(f"joining {t.called} to watch…")
            self.host.watch_table(t)

    def action_start(self) -> None:
        self._ask(self._table(), {"type": "start"}, "started: bots take the seats nobody took")

    def action_pause(self) -> None:
        t = self._table()
        if t is not None:
            self._ask(t, {"type": "resume" if t.paused else "pause"}, "goes on" if t.paused else "paused")

    def action_end(self) -> None:
        t = self._table()
        if t is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._ask(t, {"type": "end"}, "ended: the trainer called time" if t.status == "playing" else
                          "closed before its game started")

        if t.status == "forming":
            question = ConfirmScreen(f"Close {t.called}?", "Its game has not started: the table closes, and nothing "
                                     "is filed for anyone at it. y closes it, n keeps it open.")
        else:
            question = ConfirmScreen(f"Call time at {t.called}?", CALL_TIME)
        self.app.push_screen(question, answered)

    def action_say(self) -> None:
        t = self._table()
        if t is None:
            return
        sc = self.host.course.scenarios.get(t.exercise)
        others = [(p.id, player_label(p)) for p in sc.players] if sc is not None else []

        def send(result: tuple[str | None, str] | None) -> None:
            if result is not None and result[1].strip():
                to, text = result
                self._ask(t, {"type": "say", "to": to, "text": text}, "told")

        self.app.push_screen(SayScreen(others, title=f"A message to {t.called}", note=(
            "Everyone it is for reads it at once, from the trainer; it is kept in the game's record.")), send)

    def action_assign(self) -> None:
        t = self._table()
        if t is None:
            return
        labels = self._labels(t.exercise)

        def seat(s: Occupant) -> str:
            who = "" if not s.name else f" ({s.name} sits in it)" if s.online else f" (kept for {s.name})"
            return labels.get(s.player, s.player) + who + (f" (the {s.seat} bot plays it)" if not s.is_person else "")

        # before the start every person's seat; once under way, the seats a bot plays that nobody holds
        seats = [(s.player, seat(s)) for s in (t.people if t.status == "forming" else bot_seats(t)) if s.person_seat]
        online = {p.name for p in self.online}
        names = [(tr.name, tr.name + ("" if tr.name in online else " (offline)") +
                  (f" (at {self.tables[self.at_table[tr.name]].called})" if tr.name in self.at_table else ""))
                 for tr in sorted(self.trainees, key=lambda tr: (tr.name not in online, tr.name))
                 if not tr.trainer]

        def chosen(result: tuple[str, str] | None) -> None:
            if result is not None:
                name, seat = result
                self._ask(t, {"type": "assign", "name": name, "seat": seat},
                          f"keeps {labels.get(seat, seat)} for {name}")

        self.app.push_screen(AssignScreen(t.called, seats, names, under_way=t.status == "playing"), chosen)

    def action_broadcast(self) -> None:
        def send(result: tuple[str | None, str] | None) -> None:
            if result is None:
                return
            try:
                sent = self.host.db.classroom.notice(result[1])
            except DBError as err:
                self.set_status(Text(str(err), style=palette.NEGATIVE))
                return
            self.set_status("everyone online sees it now" if sent else "nothing to send")

        self.app.push_screen(SayScreen([], title="Tell the whole class", everyone="everyone online", note=(
            "Everyone online sees it at once, wherever they are: the lobby, a game alone, a table. It is not kept "
            "in any game's record (to keep it with a game, send it to that table with m).")), send)

    def _ask(self, t: TableRow | None, request: dict, done: str) -> None:
        if t is not None:
            self.set_status(f"asking {t.called}…")
            self._steer(t.called, Path(t.socket), request, f"{t.called} {done}")

    @work(thread=True, group="steer")
    def _steer(self, called: str, socket: Path, request: dict, done: str) -> None:
        try:
            steer(socket, request)
        except TableGone as err:
            self.app.call_from_thread(self.set_status, Text(f"{called}: {err}", style=palette.NEGATIVE))
            return
        self.app.call_from_thread(self.set_status, done)
        self.app.call_from_thread(self.action_refresh)


def _key(table: DataTable) -> str | None:
    if table.row_count == 0:
        return None
    try:
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
    except Exception:  # no row under the cursor
        return None


def _fill(table: DataTable, rows: Sequence[tuple[str, tuple[Text, ...]]]) -> None:
    """Replace the rows, the cursor staying on the same key when it is still there."""
    keep = _key(table)
    table.clear()
    for key, cells in rows:
        table.add_row(*cells, key=key)
    keys = [k for k, _ in rows]
    if keep in keys:
        table.move_cursor(row=keys.index(keep), animate=False)
