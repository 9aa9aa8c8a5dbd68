"""The console's steering of the whole class at once: seating it (tables opened by the server with seats kept,
console/seating.py), starting every forming table, pausing, going on or ending every table, the round's time
for one table or all, and releasing an exercise's held results.  A mixin of the console's screen: each
request goes to every table concerned over its socket, in a worker, and the status line says how many
answered."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work

from negtui.classroom.dbtypes import DBError, TableRow, table_called
from negtui.classroom.seating import TablePlan
from negtui.console.seating import SeatingScreen, TimeScreen
from negtui.table.client import TableGone
from negtui.table.steer import steer
from negtui.tui import palette
from negtui.tui.labels import clock_words
from negtui.tui.screens.dialogs import ConfirmScreen

if TYPE_CHECKING:
    from negtui.console.host import ConsoleHost

OPENING = 60.0  # seconds the console waits for the server to open a table it asked for
CALL_TIME_ALL = ("Every game under way ends as it stands: the commitments made bind, the results are filed with the "
                 "payoffs they give, and every trainee sees the end and the debrief. Tables still waiting for people "
                 "close, and nothing is filed for them. y calls time, n keeps them going.")


class ClassWide:
    """What the console's screen does to every table at once (mixed into ClassScreen)."""

    tables: dict[int, TableRow]
    trainees: list[Any]

    if TYPE_CHECKING:
        @property
        def host(self) -> ConsoleHost: ...

        def set_status(self, text: str | Text) -> None: ...
        def action_refresh(self) -> None: ...
        def _table(self) -> TableRow | None: ...
        class_read: bool
        app: Any

    # --- seating --------------------------------------------------------------------------------------------
    def action_seat(self) -> None:
        if not self.class_read:  # a seating planned before the class is read would call every trainee unknown
            self.set_status("still reading the class from the database; press o again in a moment")
            return
        names = [t.name for t in self.trainees if not t.trainer]
        self.app.push_screen(SeatingScreen(self.host.course, names, seed=int(time.time())), self._open_tables)

    def _open_tables(self, plans: list[TablePlan] | None) -> None:
        if plans:
            self.set_status(f"asking the server to open {len(plans)} table{'s' * (len(plans) != 1)}…")
            self._request(plans)

    @work(thread=True, group="seating")
    def _request(self, plans: list[TablePlan]) -> None:
        db, course = self.host.db, self.host.course.course.name
        try:
            ids = [db.tables.request(course, p.exercise, p.seats, "console", p.name) for p in plans]
        except DBError as err:
            self.app.call_from_thread(self.set_status, Text(str(err), style=palette.NEGATIVE))
            return
        deadline = time.monotonic() + OPENING
        answers: dict[int, tuple[str, int | None, str | None]] = {}
        while len(answers) < len(ids) and time.monotonic() < deadline:
            for r in ids:
                if r not in answers:
                    status, table, why = db.tables.request_answer(r)
                    if status != "waiting":
                        answers[r] = (status, table, why)
            time.sleep(0.2)
        names = {r: p.name for r, p in zip(ids, plans, strict=True)}
        opened = [table_called(a[1], names[r]) for r, a in answers.items() if a[0] == "opened" and a[1] is not None]
        refused = sorted({str(a[2]) for a in answers.values() if a[0] == "refused"})
        waiting = len(ids) - len(answers)
        text = Text(f"{len(opened)} table{'s' * (len(opened) != 1)} opened"
                    + (f" ({', '.join(opened)})" if opened else "") + ", their seats kept")
        if refused:
            text.append(f"; refused: {'; '.join(refused)}", style=palette.NEGATIVE)
        if waiting:
            text.append(f"; {waiting} not answered yet: is negtui serve running for this course?",
                        style=palette.NEGATIVE)
        self.app.call_from_thread(self.set_status, text)
        self.app.call_from_thread(self.action_refresh)

    # --- every table at once --------------------------------------------------------------------------------
    def action_start_all(self) -> None:
        self._every({"type": "start"}, lambda t: t.status == "forming",
                    "started (bots play the empty seats; a kept seat is its trainee's when they come)")

    def action_pause_all(self) -> None:
        # a forming table too: one started a moment ago may not be filed as playing yet, and a table paused
        # before its game starts starts paused
        self._every({"type": "pause"}, lambda t: t.live and not t.paused, "paused: every clock stops")

    def action_resume_all(self) -> None:
        self._every({"type": "resume"}, lambda t: t.live and t.paused, "going on")

    def action_end_all(self) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self._every({"type": "end"}, lambda t: t.live, "told: time is called")

        self.app.push_screen(ConfirmScreen("Call time at every open table?", CALL_TIME_ALL), answered)

    def action_time(self) -> None:
        t = self._table()
        if t is not None and t.live:
            self.app.push_screen(TimeScreen(t.called), lambda got: self._set_time(got, [t]))

    def action_time_all(self) -> None:
        self.app.push_screen(TimeScreen("every open table"), lambda got: self._set_time(got, None))

    def _set_time(self, got: tuple[float, bool] | None, tables: list[TableRow] | None) -> None:
        """The round's time for these tables (None: every live table, as the database has them)."""
        if got is not None:
            seconds, extend = got
            words = f"{clock_words(seconds)} more" if extend else f"{clock_words(seconds)} from now"
            self._steer_all(tables, {"type": "time", "seconds": seconds, "extend": extend},
                            f"the round's time: {words}", lambda t: t.live)

    def _every(self, request: dict, which: Any, done: str) -> None:
        self.set_status(f"asking every table ({request['type']})…")
        self._steer_all(None, request, done, which)

    @work(thread=True, group="steer-all")
    def _steer_all(self, tables: list[TableRow] | None, request: dict, done: str, which: Any = None) -> None:
        """Ask each table; with `which`, every live table it picks, as the database has them now (the lists on
        screen may be a refresh behind: a table started a moment ago)."""
        if tables is None:
            try:
                tables = [t for t in self.host.db.tables.live(self.host.course.course.name) if which(t)]
            except DBError as err:
                self.app.call_from_thread(self.set_status, Text(str(err), style=palette.NEGATIVE))
                return
            if not tables:
                self.app.call_from_thread(self.set_status, f"no table to ask ({request['type']})")
                return
        failed = []
        for t in tables:
            try:
                steer(Path(t.socket), request)
            except TableGone as err:
                failed.append(f"{t.called}: {err}")
        n = len(tables) - len(failed)
        # none done: what was not done, without the words about what doing it does
        text = Text(f"{n} table{'s' * (n != 1)} {done}" if n else f"no table {done.split(' (')[0]}")
        if failed:
            text.append("; " + "; ".join(failed), style=palette.NEGATIVE)
        self.app.call_from_thread(self.set_status, text)
        self.app.call_from_thread(self.action_refresh)

    # --- results --------------------------------------------------------------------------------------------
    def action_release(self) -> None:
        t = self._table()
        if t is None:
            self.set_status("highlight a table of the exercise whose results to release")
            return
        ex = self.host.course.exercise(t.exercise)

        def answered(yes: bool | None) -> None:
            if yes:
                try:
                    self.host.db.classroom.release(self.host.course.course.name, ex.id)
                except DBError as err:
                    self.set_status(Text(str(err), style=palette.NEGATIVE))
                    return
                self.set_status(f"{ex.title}: results released to the trainees")

        self.app.push_screen(ConfirmScreen(f"Release the results of {ex.title!r}?", "Trainees then see its "
                                           "leaderboard and their best results; under private roles the other "
                                           "side's results tell a role's values, so release them once every table "
                                           "has played. y releases, n keeps them held."), answered)
