"""A course's table as the results database sees it (the table's process files through it, and only it)."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from negtui.classroom.course import LoadedCourse
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import DBError
from negtui.classroom.results import keep
from negtui.classroom.seatbook import seat_rules
from negtui.coach.closing import Closing
from negtui.coach.debrief import debrief
from negtui.play.live import LiveGame
from negtui.table.endings import ending_of
from negtui.table.events import TableEvents
from negtui.table.source import who_sits
from negtui.table.views import Occupant


class TableResults(TableEvents):
    """What a table of a course leaves in the results database, filed as the table's events come: who sits
    where, the turn and who it waits for, how it ended, and each trainee's game with the debrief's numbers.
    Writes go in order on a thread of their own, so the table's event loop never waits for the database's
    lock; the checks that decide whether a seat may be taken wait for the writes queued before them."""

    def __init__(self, db: ResultsDB, course: LoadedCourse, exercise: str, table_id: int,
                 log: Any = None) -> None:
        self.db, self.course, self.exercise, self.table_id = db, course, exercise, table_id
        self.log = log or (lambda line: None)
        self.rules = seat_rules(course, exercise)
        self.games: dict[str, int] = {}  # player id -> the game row of the person in that seat
        self.sitters: tuple[Occupant, ...] = ()
        self.game: LiveGame | None = None
        self.record: str | None = None  # the record's path, once the game has started
        self.turn = -1
        self.deciding: str | None = None  # the player whose decision the game waits for, as last filed
        self.started_at = 0.0
        self._db = ThreadPoolExecutor(max_workers=1, thread_name_prefix="table-db")

    async def _now(self, check: Any, *args: Any) -> str | None:
        """A check in the database, on its thread after the writes queued before it: None, or why it refused."""
        def run() -> str | None:
            try:
                check(*args)
            except DBError as err:  # the rule that refuses, or a database that cannot say: no seat either way
                return str(err)
            return None

        return await asyncio.get_running_loop().run_in_executor(self._db, run)

    def _later(self, write: Any, *args: Any) -> None:
        """A database write in order on the database's thread; a failure is logged, the table goes on."""
        def run() -> None:
            try:
                write(*args)
            except DBError as err:
                self.log(f"results: {err}")

        self._db.submit(run)

    def close(self) -> None:
        self._db.shutdown(wait=True)

    # --- the table's life ---------------------------------------------------------------------------------
    async def admit(self, name: str, player: str) -> str | None:
        """The seat is claimed as the trainee's game here, in the transaction that checks the exercise's rules
        (seatbook.py): whatever their other sessions do, they get it only if it may be theirs."""
        return await self._now(self._claim, name, player)

    def _claim(self, name: str, player: str) -> None:
        game_id = self.db.seats.claim(self.table_id, name, player, self.rules, self.record)
        if self.record is not None:  # a seat taken after the start: their game is under way
            self.games[player] = game_id

    def gave_up(self, name: str, player: str) -> None:
        self._later(self.db.seats.given_up, self.table_id, name)

    async def may_keep(self, name: str, player: str) -> str | None:
        return await self._now(self.db.seats.may_keep, self.table_id, name, player, self.rules)

    def people(self, people: list[dict[str, Any]]) -> None:
        self.sitters = who_sits(people)
        self._later(self.db.tables.seated, self.table_id, self.sitters)

    def started(self, game: LiveGame) -> None:
        self.game, self.started_at = game, time.monotonic()
        self.record = str(game.record_path) if game.record_path else ""
        ids = game.neg.game.player_ids
        self._later(self.db.tables.started, self.table_id, self.record or None,
                    game.neg.game.T, dict(zip(ids, (float(v) for v in game.baseline), strict=True)))
        self.moved(game)  # where everyone stands before the first move
        # the people sitting down: a seat kept for someone not here yet is a bot's, and no game of theirs until
        # they come (then it is filed as they sit down, `_claim`)
        seated = {s.player: s.name for s in self.sitters if s.name is not None and s.person_seat and s.online}
        self._later(self._games_started, seated)

    def _games_started(self, seated: dict[str, str]) -> None:
        """The game of every person sitting at the table starts."""
        games, refused = self.db.seats.started(self.table_id, self.record or "", seated, self.rules)
        self.games.update(games)
        for why in refused:
            self.log(f"no game filed for {why}")

    def moved(self, game: LiveGame) -> None:
        ids = game.neg.game.player_ids
        if game.state.t != self.turn or game.over:
            self.turn = game.state.t
            payoffs = dict(zip(ids, (float(v) for v in game.neg.returns(game.state)), strict=True))
            self._later(self.db.tables.progress, self.table_id, self.turn, payoffs)
        deciding = None if game.over else ids[game.deciding]
        if deciding != self.deciding:  # who the game waits for, and since when (the trainer's live view)
            self.deciding = deciding
            self._later(self.db.tables.deciding, self.table_id, deciding)

    def paused(self, paused: bool) -> None:
        self._later(self.db.tables.paused, self.table_id, paused)

    def round(self, left: float | None, running: bool) -> None:
        self._later(self.db.tables.round, self.table_id, left, running)

    async def over(self, game: LiveGame, closing: Closing) -> None:
        """Every trainee's result, with the debrief's numbers (the table's), then the table's row: over."""
        duration = time.monotonic() - self.started_at
        self.moved(game)  # the turn it ended at, and the payoffs as it stood
        await asyncio.get_running_loop().run_in_executor(self._db, self._keep_all, game, closing, duration)

    def _keep_all(self, game: LiveGame, closing: Closing, duration: float) -> None:
        game.assess_pending()
        seated = {pid: gid for pid, gid in self.games.items() if gid >= 0}
        optimum = closing.welfare
        for pid, game_id in seated.items():
            i = game.neg.game.index_of(pid)
            d = debrief(game.neg, i, game.state, game.assessments)
            d.counterfactual = dict(closing.counterfactual.get(pid, {}))
            if optimum is not None:
                d.welfare_optimum, d.seat_at_optimum = optimum[0], optimum[1][i]
            try:
                keep(self.db, game_id, game, d, duration)
            except DBError as err:
                self.log(f"results: {pid}: {err}")
        try:
            self.db.tables.over(self.table_id, ending_of(game.ended))
        except DBError as err:
            self.log(f"results: {err}")

    def closed(self, why: str) -> None:
        # a game that is over is filed by `over` once its debriefs' numbers are in (cut short by the close:
        # as far as they got), never abandoned: the trainees played it to the end
        over = self.game is not None and self.game.over
        self._later(self.db.tables.closed, self.table_id, why, not over)
