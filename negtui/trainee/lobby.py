"""A trainee's screens around the games: enrolment, the course lobby (exercises, status, best results,
leaderboards, games to resume) and an exercise's briefing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from negtui.classroom.course import Exercise
from negtui.classroom.dbtypes import DBError, GameRow, TableRow
from negtui.classroom.scoring import OBJECTIVES, SHORT, Standing, personal_best, standings
from negtui.names import player_names
from negtui.trainee.briefing import BriefingScreen
from negtui.trainee.feed import LobbyState, Message, lobby_state, messages_text
from negtui.trainee.messages import MessagesScreen
from negtui.trainee.table_picker import TableChoice, TablePicker
from negtui.tui import palette
from negtui.tui.labels import rules_words
from negtui.tui.screen_base import NegtuiScreen
from negtui.tui.widgets.fit_table import FitTable
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.options import Options
from negtui.tui.widgets.rendered import SteadyStatic

if TYPE_CHECKING:
    from negtui.classroom.course import LoadedCourse
    from negtui.classroom.db import ResultsDB


class LobbyHost(Protocol):
    """What the lobby and the enrolment screen ask of the training app."""

    trainee: str
    course: LoadedCourse
    db: ResultsDB

    def redeem(self, code: str) -> bool: ...

    def enrolled(self) -> None: ...

    def exercise_title(self, exercise_id: str) -> str: ...

    def plays_left(self, ex: Exercise) -> int | None: ...

    def plays_used(self, ex: Exercise) -> int: ...

    def abandon_left(self) -> None: ...

    def resume(self, row: GameRow) -> None: ...

    def start_exercise(self, exercise_id: str, seat: str) -> None: ...

    def enter_table(self, exercise: Exercise, choice: TableChoice) -> None: ...

    def seat_label(self, exercise_id: str, seat: str) -> str: ...

    @property
    def rooms(self) -> dict[str, int]: ...

    @property
    def messages(self) -> list[Message]: ...


class TrainingScreen(NegtuiScreen[None]):
    """A screen of the training app, around the games."""

    @property
    def host(self) -> LobbyHost:
        return cast("LobbyHost", self.app)


class EnrolScreen(TrainingScreen):
    """The first login with a new key: the trainer's one-time code binds it to the trainee."""

    BINDINGS = [Binding("ctrl+q,escape", "app.quit", "quit")]
    TRIES = 3

    def __init__(self) -> None:
        super().__init__()
        self.tries = 0

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Label(f"Welcome, {self.host.trainee}", classes="dialog-title")
            yield Static("This key is new here. Type the enrolment code your trainer gave you to bind it to your "
                         "name; from then on the key alone lets you in.")
            yield Input(placeholder="code, e.g. 1a2b-3c4d", id="code")
            yield Static("", id="enrol-status")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self.host.redeem(event.value.strip()):
            self.host.enrolled()
            return
        self.tries += 1
        left = self.TRIES - self.tries
        if left <= 0:
            self.app.exit(message="enrolment refused: wrong code", return_code=1)
            return
        self.query_one("#enrol-status", Static).update(
            Text(f"that code is wrong, used or expired ({left} tr{'ies' if left > 1 else 'y'} left)",
                 style=palette.NEGATIVE))
        event.input.value = ""


class LobbyScreen(TrainingScreen):
    BINDINGS = [Binding("enter", "open", "play", show=False), Binding("m", "messages", "messages"),
                Binding("q", "app.quit", "quit"), Binding("question_mark", "app.help", "help")]
    MESSAGES_SHOWN = 3  # the newest of the trainer's messages beside the list (m: every one)
    state: LobbyState | None = None  # what of the class the entries were last listed from

    def compose(self) -> ComposeResult:
        app = self.host
        yield Static(Text(f" {app.course.course.title} · {app.trainee} ", style="bold reverse"), id="topbar")
        with Horizontal(id="lobby"):
            yield Options(id="exercises")
            with VerticalScroll(id="lobby-side"):
                yield SteadyStatic("", id="messages")
                if app.course.course.description:
                    yield Static(Text(app.course.course.description.strip() + "\n", style="dim"), id="course-info")
                yield SteadyStatic("", id="exercise-info")
                yield SteadyStatic("", id="leaderboard")
        yield Static("enter: play the highlighted exercise (or resume a game) · q: quit", id="status")
        yield KeyBar()

    _listed = False  # listed since the lobby was last covered (as it mounted, or as a game closed over it)
    _listings = 0  # how many times the entries were listed
    _shown: tuple[int, int] | None = None  # the entry shown beside the list, and in which listing

    def on_mount(self) -> None:
        self.refresh_list()
        self.show_messages()
        self.query_one(OptionList).focus()

    def show_messages(self) -> None:
        """The trainer's newest messages at the top of the side pane (m lists every one)."""
        messages = self.host.messages
        shown = messages_text(messages[-self.MESSAGES_SHOWN:])
        if len(messages) > self.MESSAGES_SHOWN:
            shown.append(f"\n(m: all {len(messages)} messages)", style="dim")
        if shown:
            shown.append("\n")
        self.query_one("#messages", SteadyStatic).show(shown)

    def action_messages(self) -> None:
        self.app.push_screen(MessagesScreen(self.host.messages))

    def on_screen_suspend(self) -> None:
        self._listed = False

    def on_screen_resume(self) -> None:
        # listed once as it is uncovered, not again for the game that closed over it, and not at all when it
        # is covered again at once (a briefing closing as its game opens)
        if not self._listed and self.app.screen is self:
            self.refresh_list()

    def refresh_list(self) -> None:
        self._listed = True
        self.host.abandon_left()
        self.entries: list[GameRow | TableRow | Exercise] = []  # a game to resume, a table to go back to, an exercise
        tables, state = self._read_class()
        items = self._table_entries(tables) + self._resumable_entries() + self._exercise_entries(state)
        self._listings += 1
        lst = self.query_one(OptionList)
        keep = lst.highlighted
        if items and lst.option_count == len(items):  # the same entries, words changed (a play counted, a best)
            for k, item in enumerate(items):  # in place: no layout, and the list stays scrolled where it was
                lst.replace_option_prompt_at_index(k, item.prompt)
        else:
            lst.clear_options()
            lst.add_options(items)
        if items:
            lst.highlighted = min(keep or 0, len(items) - 1)
            self._show(lst.highlighted)

    def _read_class(self) -> tuple[list[TableRow], LobbyState]:
        """What the class holds now, read once per listing: each exercise's standings (the leaderboard shown as
        the highlight moves), the results the trainer holds, the tables open and who waits at them."""
        app = self.host
        self.boards = {ex.id: standings(app.db.games(app.course.course.name, ex.id), ex.score)
                       for ex in app.course.course.exercises}
        try:
            released = app.db.classroom.released(app.course.course.name)
        except DBError:
            released = set()
        # results held by the trainer: under private roles the other side's result tells a role's values
        self.held = {ex.id for ex in app.course.course.exercises if ex.results_held and ex.id not in released}
        try:
            tables = app.db.tables.live(app.course.course.name)
        except DBError:
            tables = []
        self.state = state = lobby_state(tables, released, app.trainee, app.rooms)
        return tables, state

    def _table_entries(self, tables: list[TableRow]) -> list[Option]:
        """The tables the trainee holds a seat at: one to go back to, or one the trainer kept for them."""
        app, items = self.host, []
        for table in tables:
            held = table.holds(app.trainee)
            if held is None:
                continue
            title = app.exercise_title(table.exercise)
            # the trainer's seating, not sat down yet (at a table under way: a bot plays the seat meanwhile)
            kept = not held.online and (table.status == "forming" or not held.is_person)
            items.append(Option(Text.assemble((("your seat, kept for you  " if kept else "back to your table  "),
                                               f"bold {palette.ORANGE}"),
                                              f"{title} as {app.seat_label(table.exercise, held.player)}",
                                              (f"  ({table.called}"
                                               + (", under way: a bot plays it until you sit down" if kept and
                                                  table.status == "playing" else "") + ")", "dim"))))
            self.entries.append(table)
        return items

    def _resumable_entries(self) -> list[Option]:
        """The trainee's own games left unfinished in this course (a table's game is the table's to end)."""
        app, items = self.host, []
        for row in app.db.unfinished_games(app.trainee):
            if row.course != app.course.course.name or row.table_id is not None:
                continue  # a table's game is the table's to end
            if not row.record_path:
                continue  # starting in another session of theirs: its record is not named yet
            if not Path(row.record_path).exists():  # left before its first turn: nothing to resume
                app.db.game_abandoned(row.id)
                continue
            title = app.exercise_title(row.exercise)
            items.append(Option(Text.assemble(("resume  ", f"bold {palette.ORANGE}"),
                                              f"{title} as {app.seat_label(row.exercise, row.seat)}",
                                              (f"  (started {row.started[:16].replace('T', ' ')})", "dim"))))
            self.entries.append(row)
        return items

    def _exercise_entries(self, state: LobbyState) -> list[Option]:
        """Every exercise of the course, with the trainee's plays, their best and the tables waiting for people."""
        items = []
        for k, ex in enumerate(self.host.course.course.exercises, start=1):
            t = Text(f"{k}. {ex.title}", style="bold")
            if not ex.guided:
                t.append("  assessment", style=f"bold {palette.ORANGE}")
            t.append(f"\n   {self._exercise_status(ex, state)}", style="dim")
            items.append(Option(t))
            self.entries.append(ex)
        return items

    def _exercise_status(self, ex: Exercise, state: LobbyState) -> str:
        app = self.host
        used = app.plays_used(ex)
        best = personal_best(self.boards[ex.id], app.trainee)
        status = f"{used} play{'s' * (used != 1)}" + (f" of {ex.attempts}" if ex.attempts else "")
        if not ex.guided:
            lost = app.db.grades.abandoned(app.trainee, app.course.course.name, ex.id)
            status += f" ({lost} abandoned)" if lost else ""
        if ex.is_table:
            waiting, under_way = state.waiting(ex.id)
            status = (f"a table of {app.rooms[ex.id]} people · "
                      + (f"{waiting} waiting for people · " if waiting else "")
                      + (f"{under_way} under way with a seat open · " if under_way else "") + status)
        if ex.id in self.held:
            status += " · results held by the trainer"
        elif best is not None:
            status += f" · best {best:z.1f}" + ("" if ex.score == "payoff" else f" ({SHORT[ex.score]})")
        if ex.attempts is not None and used >= ex.attempts:
            status += " · no plays left"
        return status

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show(event.option_index)

    def _show(self, k: int | None) -> None:
        if k is None or k >= len(self.entries) or (k, self._listings) == self._shown:
            return  # the highlight that listing the entries moves is shown already: no second layout for it
        self._shown = (k, self._listings)
        app, item = self.host, self.entries[k]
        ex = item if isinstance(item, Exercise) else app.course.exercise(item.exercise)
        sc = app.course.scenarios[ex.id]
        info = Text(ex.title, style="bold")
        names = {p.id: p.display for p in sc.players}
        you = (f"at a table of {ex.room(sc.player_ids)} people"
               + (" (" + ", ".join(names[pid] for pid in ex.people_seats(sc.player_ids)) + ")"
                  if isinstance(ex.humans, list) else "") if ex.is_table
               else "a seat of your choice" if ex.seat == "any" else ex.seat)
        info.append(f"\n{sc.name} · {len(sc.players)} players · {len(sc.goals)} goals · {rules_words(ex.rules)} rules"
                    f" · you play {you}\n")
        if ex.briefing:
            info.append(ex.briefing + "\n")
        if not ex.guided:
            info.append("An assessment: no hints, suggestions or solver's numbers while you play; the debrief "
                        "coaches. Every game you start counts as an attempt; leaving one keeps it to resume, until "
                        "it is left longer than the server's idle timeout.\n", style=palette.ORANGE)
        # a layout only if their heights change: back from a game, the words are those of before but a number
        self.query_one("#exercise-info", SteadyStatic).show(info)
        self.query_one("#leaderboard", SteadyStatic).show(
            Text("The results of this exercise are held by the trainer until every table has played: under "
                 "private roles the other side's results would tell you its values.", style="dim")
            if ex.id in self.held else leaderboard(ex, self.boards[ex.id], app.trainee,
                                                   names=dict(zip(sc.player_ids, player_names(sc), strict=True))))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_open(event.option_index)

    def action_open(self, k: int | None = None) -> None:
        k = self.query_one(OptionList).highlighted if k is None else k
        if k is None or k >= len(self.entries):
            return
        item = self.entries[k]
        if isinstance(item, GameRow):
            self.host.resume(item)
            return
        if isinstance(item, TableRow):
            held = item.holds(self.host.trainee)
            if held is not None:
                self.host.enter_table(self.host.course.exercise(item.exercise),
                                      TableChoice(item.id, held.player, item.called))
            return
        busy = self._unfinished(item)
        if busy:
            self.query_one("#status", Static).update(Text(busy, style=palette.NEGATIVE))
            return
        left = self.host.plays_left(item)
        if left == 0:
            self.query_one("#status", Static).update(Text(f"no plays of '{item.title}' left",
                                                          style=palette.NEGATIVE))
            return

        if item.is_table:
            def sit(choice: TableChoice | None, exercise: Exercise = item) -> None:
                if choice is not None:
                    self.host.enter_table(exercise, choice)

            app = self.host
            self.app.push_screen(TablePicker(item, app.course.scenarios[item.id], app.db, app.course.course.name,
                                             app.trainee), sit)
            return

        def go(seat: str | None, exercise: Exercise = item) -> None:
            if seat is not None:
                self.host.start_exercise(exercise.id, seat)

        self.app.push_screen(BriefingScreen(item, self.host.course.scenarios[item.id]), go)


    def _unfinished(self, ex: Exercise) -> str:
        """Why an assessment cannot start again now (its game under way is to be resumed), or ''."""
        if ex.guided:
            return ""
        if any(isinstance(e, (GameRow, TableRow)) and e.exercise == ex.id for e in self.entries):
            return f"your game of '{ex.title}' is under way: resume it from the top of the list"
        return ""


def leaderboard(ex: Exercise, by_seat: dict[str, list[Standing]], reader: str, per_seat: int = 5,
                names: dict[str, str] | None = None) -> FitTable:
    """The exercise's best scores under its objective, seat by seat (roles are never ranked together, each
    named as `names` has it: names.player_names); an anonymous board names only the trainee reading it."""
    board = FitTable(title=f"leaderboard by seat (best {SHORT[ex.score]})")
    for col in ("seat", "#", "trainee", "best", "plays"):
        board.add_column(col, justify="right" if col in ("#", "best", "plays") else "left")
    for seat, rows in by_seat.items():
        mine = [r for r in rows if r.trainee == reader]
        shown = rows[:per_seat] + [r for r in mine if r.rank > per_seat]
        for k, r in enumerate(shown):
            you = r.trainee == reader
            name = r.trainee if ex.leaderboard == "named" else "you" if you else "·"
            board.add_row((names or {}).get(seat, seat) if k == 0 else "", str(r.rank),
                          Text(name, style="bold" if you else ""),
                          f"{r.best:z.1f}", str(r.plays))
    if not by_seat:
        board.add_row("", "", "nobody has finished it yet", "", "")
    else:
        board.caption = (f"{SHORT[ex.score]}: {OBJECTIVES[ex.score]}"
                         + ("; anonymous: only your own name is shown" if ex.leaderboard == "anonymous" else ""))
    return board
