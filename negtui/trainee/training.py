"""The app as a trainee meets it over SSH: the course lobby, an exercise's games with coaching, the
debrief, and the results kept in the database; the games themselves are the ordinary app's."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from negtui.agents.options import AgentOptions
from negtui.classroom.course import Exercise, LoadedCourse, scenario_digest
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import DBError, GameRow, table_called
from negtui.classroom.gradebook import Allowance, NoAttempt
from negtui.classroom.results import keep
from negtui.classroom.scoring import OBJECTIVES, score
from negtui.coach.debrief import Debrief
from negtui.engine.rules import get_rules
from negtui.names import player_label
from negtui.play.sources import Ending
from negtui.play.starts import GameStart, from_record
from negtui.record import Replay, load_record
from negtui.record.reader import RecordError
from negtui.table.client import TableGone
from negtui.table.source import TableSource, sit
from negtui.trainee.feed import KEPT, Message, lobby_state, since_login, table_rooms
from negtui.trainee.hub import ask
from negtui.trainee.lobby import EnrolScreen, LobbyHost, LobbyScreen
from negtui.trainee.table_picker import TableChoice
from negtui.tui.app import NegtuiApp
from negtui.tui.confined import Confined
from negtui.tui.screens.table import TableScreen

CLASS_TICK = 2.0  # seconds between telling the trainer's console where this app is (and hearing the class)
NOTICE_SECONDS = 15.0  # a message of the trainer's shows as a notice this long (then it is kept to read again)


class TrainingApp(Confined, NegtuiApp):
    seat_changes = False  # the trainee plays their seat; bots stay bots
    lessons_in_game = False  # the lesson is in the debrief
    shows_paths = False  # the records are on the trainer's machine
    asks_before_leaving = True  # back to the lobby, the game kept to resume

    def __init__(self, course: LoadedCourse, db: ResultsDB, trainee: str, *, data_dir: Path,
                 session_id: int | None = None, enrol_key: str | None = None, hub: str | None = None,
                 idle_timeout: float | None = None) -> None:
        """`hub` is the server's socket, where tables are asked for (none: table exercises cannot open);
        `idle_timeout` the server's: an assessment left longer than that is abandoned."""
        super().__init__(None, ask_seats=False, record=True, data_dir=data_dir,
                         options=AgentOptions(remote_bots=True))
        self.course, self.db, self.trainee = course, db, trainee
        self.session_id, self.enrol_key, self.hub = session_id, enrol_key, hub
        self.idle_timeout = idle_timeout
        self._continuing: int | None = None  # the game a resume continues
        self.exercise: Exercise | None = None  # the exercise being played
        self.seat = ""
        self.game_id: int | None = None
        self.game_started_at = 0.0
        self.table_id: int | None = None  # the table being played at
        self.table_called = ""  # how that table is named ("table north", "table 3")
        self._place = ""  # where this app last told the trainer's console it is
        self._notice = 0  # the last of the trainer's notices shown
        self._messages: list[Message] = []  # the trainer's messages to the class, to read again
        self.rooms = table_rooms(course)
        self.autoplay = True  # the bots' turns play on their own; the game waits for the trainee
        # over SSH an animated frame costs every trainee on the machine, and the tab underline's glide
        # under a dialog repaints the whole dimmed screen behind it each frame
        self.animation_level = "none"

    def open_first(self) -> None:
        try:  # the messages of the last hours, for a latecomer to read; none of them is news
            self._notice = self.db.classroom.last_notice()
            self._messages = [Message(*m) for m in self.db.classroom.notices_since(since_login(), KEPT)]
        except DBError:
            pass
        self.push_screen(EnrolScreen() if self.enrol_key else LobbyScreen())
        if self.session_id is not None:
            self.set_interval(CLASS_TICK, self._in_class)

    # --- the class around -----------------------------------------------------------------------------
    def place(self) -> str:
        """Where the trainee is, as the trainer's console lists it."""
        if self.enrol_key:
            return "enrolling their key"
        live, ex = self.live, self.exercise
        if live is None or ex is None:
            return "in the lobby"
        g = live.game
        at = f"{self.table_called}: " if self.table_id is not None else ""
        when = "the game is over" if g.over else f"turn {min(g.state.t + 1, g.neg.game.T)}/{g.neg.game.T}"
        return f"{at}{ex.title} as {self.seat_label(ex.id, self.seat)}, {when}"

    def seat_label(self, exercise_id: str, seat: str) -> str:
        """A seat as people read it (names.player_label): "A · Alice", "UN Humanitarian Coordinator"."""
        sc = self.course.scenarios.get(exercise_id)
        player = next((p for p in sc.players if p.id == seat), None) if sc is not None else None
        return player_label(player) if player is not None else seat

    @property
    def messages(self) -> list[Message]:
        return self._messages

    def _in_class(self) -> None:
        """Tell the console where this app is (when it changed), list the lobby again when what it shows of
        the class changed (a seat kept, a table opened or closed, results released), and hear the trainer's
        new messages."""
        assert self.session_id is not None  # the tick runs only for a session
        try:
            place = self.place()
            if place != self._place:
                self.db.classroom.place(self.session_id, place)
                self._place = place
            if isinstance(self.screen, LobbyScreen):
                course = self.course.course.name
                state = lobby_state(self.db.tables.live(course), self.db.classroom.released(course), self.trainee,
                                    self.rooms)
                if state != self.screen.state:
                    self.screen.refresh_list()
            news = [Message(*m) for m in self.db.classroom.notices_after(self._notice, KEPT)]
        except DBError:
            return  # the next tick tries again
        if news:
            self._heard(news)

    def _heard(self, news: list[Message]) -> None:
        """The trainer's new messages: a notice each, and kept where the trainee reads them again (the lobby,
        the table pane)."""
        self._notice = news[-1].id
        self._messages = (self._messages + news)[-KEPT:]
        at_table = isinstance(self.live, TableSource)
        again = "the table pane (6) keeps it" if at_table else "m in the lobby shows it again"
        for m in news:
            self.notify(f"{m.text}\n({again})", title="from the trainer", timeout=NOTICE_SECONDS)
        for screen in self.screen_stack:
            if isinstance(screen, LobbyScreen):
                screen.show_messages()
            elif isinstance(screen, TableScreen) and isinstance(self.live, TableSource):
                self.live.view = self.live.view.but(class_messages=self._notices())
                screen.view.table = self.live.view

    def _notices(self) -> tuple[tuple[str, str], ...]:
        return tuple((m.at, m.text) for m in self._messages)

    @property
    def records_dir(self) -> Path:
        return self.data_dir / "records" / self.trainee

    def announce_record(self, record: Path) -> None:
        """Silent: the path is on the trainer's machine, and the lobby offers to resume the game."""

    # --- enrolment ------------------------------------------------------------------------------------
    def redeem(self, code: str) -> bool:
        if self.enrol_key is None:
            return False
        try:
            return self.db.redeem(self.trainee, code, self.enrol_key)
        except DBError as err:
            self.notify(str(err), severity="error")
            return False

    def enrolled(self) -> None:
        self.enrol_key = None
        self.notify("your key is enrolled: next time it lets you in directly")
        self.switch_screen(LobbyScreen())

    # --- exercises ------------------------------------------------------------------------------------
    def exercise_title(self, exercise_id: str) -> str:
        try:
            return self.course.exercise(exercise_id).title
        except KeyError:
            return exercise_id

    def plays_used(self, ex: Exercise) -> int:
        """Finished games; in an assessment every game started."""
        return self.db.grades.attempts(self.trainee, self.course.course.name, ex.id, every_start=not ex.guided)

    def plays_left(self, ex: Exercise) -> int | None:
        if ex.attempts is None:
            return None
        return max(0, ex.attempts - self.plays_used(ex))

    def may_retry(self) -> bool:
        if isinstance(self.live, TableSource):
            return False  # a shared game is played once; its debrief still shows every decision
        if self.exercise is None or not self.exercise.guided:
            return False  # an assessment is played from the start, once per attempt
        return self.plays_left(self.exercise) != 0

    def abandon_left(self) -> None:
        """File the assessments left past the idle timeout as abandoned (they cannot be resumed)."""
        graded = self.course.course.graded
        if self.idle_timeout is None or not graded:
            return
        try:
            left = self.db.grades.abandon_left(self.course.course.name, graded, self.idle_timeout)
        except DBError:
            return
        if left:
            self.notify(f"{len(left)} assessment{'s' * (len(left) > 1)} left longer than "
                        f"{self.idle_timeout / 60:z.0f} min {'were' if len(left) > 1 else 'was'} filed as abandoned "
                        "(each counts as an attempt)", severity="warning", timeout=10)

    def start_exercise(self, exercise_id: str, seat: str) -> None:
        ex = self.course.exercise(exercise_id)
        self.exercise, self.seat = ex, seat
        seats = self.course.seats_for(ex.id, seat)
        self.start_game(GameStart(self.course.scenarios[ex.id], get_rules(ex.rules), seats))

    def start_game(self, how: GameStart) -> None:
        previous, continuing, self._continuing = self.live, self._continuing, None
        ex = self.exercise
        if ex is not None:
            how = replace(how, guided=ex.guided)
        claimed = None
        if ex is not None and continuing is None:
            try:  # the attempt first, counted where it is filed: another session of theirs may have started one
                claimed = self.db.game_started(self.trainee, self.course.course.name, ex.id, how.scenario.name,
                                               scenario_digest(how.scenario), self.seat, "", self.session_id,
                                               allowance=Allowance(ex.attempts, not ex.guided))
            except NoAttempt as err:
                self.notify(f"'{ex.title}' cannot start: {err}", severity="error", timeout=10)
                self._refresh_lobby()
                return
            except DBError as err:
                self.notify(f"results cannot be kept: {err}", severity="error", timeout=10)
        super().start_game(how)
        started = self.live is not None and self.live is not previous and ex is not None
        game_id = continuing if continuing is not None else claimed
        self.game_id = game_id if started else None
        try:
            if not started:
                if claimed is not None:
                    self.db.grades.unclaimed(claimed)  # it could not start: no attempt spent
                return
            assert self.live is not None and ex is not None  # started
            ses = self.live.game
            ses.hints, ses.coach_pane_first = ex.hints, True
            if game_id is not None:  # its record, now it has one (a resume's: the same game, and attempt)
                self.db.grades.continued(game_id, str(ses.record_path), self.session_id)
        except DBError as err:
            self.notify(f"results cannot be kept: {err}", severity="error", timeout=10)
            self.game_id = None
        self.game_started_at = time.monotonic()

    # --- tables ----------------------------------------------------------------------------------------------
    def enter_table(self, exercise: Exercise, choice: TableChoice) -> None:
        """Sit down at a table (a new one: the server opens it); the connecting is done in a worker."""
        if choice.table is None and self.hub is None:
            self.notify("tables are opened by the training server (negtui serve)", severity="error")
            return
        where = "a new table" if choice.table is None else choice.called or f"table {choice.table}"
        self.notify(f"sitting down at {where}…")
        self.run_worker(lambda: self._sit(exercise, choice), thread=True, group="table", exclusive=True)

    def _sit(self, exercise: Exercise, choice: TableChoice) -> None:
        if choice.table is None:
            assert self.hub is not None  # enter_table checked
            answer = ask(self.hub, {"op": "open", "exercise": exercise.id})
            socket = str(answer.get("socket", "")) if answer.get("ok") else None
            why = str(answer.get("why", ""))
            table_id = answer.get("table")
            called = table_called(table_id, None) if isinstance(table_id, int) else "a new table"
        else:
            row = self.db.tables.get(choice.table)
            socket = row.socket if row is not None and row.live else None
            why = "that table has closed"
            table_id = choice.table
            called = row.called if row is not None else table_called(choice.table, None)
        try:
            if socket is None:
                raise TableGone(why)
            source = sit(Path(socket), self.trainee, choice.seat)
        except TableGone as err:
            self.call_from_thread(self.notify, f"could not sit down: {err}", severity="error", timeout=8)
            return
        self.call_from_thread(self._seated, exercise, source, table_id if isinstance(table_id, int) else None,
                              called)

    def _seated(self, exercise: Exercise, source: TableSource, table_id: int | None, called: str) -> None:
        if self.live is not None:  # a game meanwhile (it cannot be: the lobby was on screen)
            source.close()
            return
        self.exercise, self.seat, self.game_id, self.table_id = exercise, source.view.you or "", None, table_id
        self.table_called = called
        source.view = source.view.but(class_messages=self._notices())  # the class's messages, on the table pane too
        self.live = source
        self.clear_notifications()  # "sitting down …" is done: the table's screen says where you are
        self.push_screen(TableScreen(source))

    def resume(self, row: GameRow) -> None:
        """An unfinished game from where its record stops (a fork of it, so the record stays as written)."""
        if not Path(row.record_path).exists():  # left before its first turn: the empty record was removed
            self.db.game_abandoned(row.id)
            self.notify("no turn was played in that game; it is filed as abandoned")
            self._refresh_lobby()
            return
        try:
            rp = Replay(load_record(row.record_path))
            ex = self.course.exercise(row.exercise)
        except (RecordError, KeyError) as err:
            self.notify(f"cannot resume: {err}", severity="error", timeout=10)
            return
        if rp.neg.is_terminal(rp.final):
            self.db.game_abandoned(row.id)
            self.notify("that game had ended; it is filed as abandoned")
            self._refresh_lobby()
            return
        try:  # this session takes the game first: no other session of theirs may play it on meanwhile
            self.db.grades.continued(row.id, row.record_path, self.session_id)
        except DBError as err:
            self.notify(f"cannot resume: {err}", severity="error", timeout=10)
            self._refresh_lobby()
            return
        self.exercise, self.seat, self._continuing = ex, row.seat, row.id
        # the course's seats, as a new play of the exercise has them (a record's seats are only a record's)
        self.start_game(from_record(rp, rp.last_turn, self.course.seats_for(ex.id, row.seat)))

    def _refresh_lobby(self) -> None:
        if isinstance(self.screen, LobbyScreen):
            self.screen.refresh_list()

    # --- the end of a game ------------------------------------------------------------------------------
    def score_words(self, ending: Ending) -> str | None:
        ex = self.exercise
        if ex is None or len(ending.people) != 1:
            return None
        game, i = ending.game, ending.people[0]
        payoffs = [float(v) for v in game.neg.returns(game.state)]
        value = score(ex.score, payoffs[i], payoffs, float(game.baseline[i]))
        if value is None:
            return None
        seat = self.seat_label(ex.id, game.neg.game.player_ids[i])
        return (f"score: {value:z.2f}, {OBJECTIVES[ex.score]} (the leaderboard ranks everyone who played {seat} "
                "by it)")

    def debriefed(self, debriefs: list[Debrief]) -> None:
        """Keep the result (once per game): the trainee's payoff, baseline, counterfactuals, welfare, and
        every decision with its coaching numbers."""
        ses, game_id = self.live.game if self.live is not None else None, self.game_id
        if ses is None or game_id is None or not debriefs:
            return
        self.game_id = None
        try:
            keep(self.db, game_id, ses, debriefs[0], time.monotonic() - self.game_started_at)
        except DBError as err:
            self.notify(f"the result could not be kept: {err}", severity="error", timeout=10)

    def after_game(self) -> None:
        """The debrief closed: back to the lobby (a retry, if asked for, starts after this)."""
        self.close_game()
        self.table_id = None
        if isinstance(self.screen, LobbyScreen):
            self._refresh_lobby()

    def leave_game(self) -> None:
        """Back to the lobby: a game alone can be resumed from there, a table's seat taken again."""
        self.after_game()


if TYPE_CHECKING:  # the training app is what its lobby asks of its host
    def _hosts(app: TrainingApp) -> LobbyHost:
        return app
