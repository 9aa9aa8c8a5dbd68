"""The round's clock at a table (the course's `game_time`) and how a game ends before its last turn.

The round runs only while the game can go on: it stops while the trainer pauses the table and while the table
can do nothing but wait for a person who is away (their decision is next, or every decision still open in a
simultaneous turn is an absent person's) — an hour away is not an hour of the round lost.  Everyone is told "5
minutes left" and "1 minute left" as it passes them (where the round had more than that when it was set).  At
zero the game ends as it stands; the trainer's "call time" ends it the same way.

A mixin of `TableHost`: the host owns the game and the loop that plays it, this part the round's time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from negtui.play.live import LiveGame
from negtui.table.clock import RoundClock
from negtui.table.endings import ENDED_BY
from negtui.table.events import TableEvents
from negtui.table.sitting import Sitting

NOTICES = (300.0, 60.0)  # seconds left at which everyone is told


def round_notice(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes} minute{'s' * (minutes != 1)} left in the round"


class RoundTime:
    round_clock: RoundClock
    game: LiveGame | None
    paused: bool
    sitting: Sitting
    events: TableEvents
    log: Callable[[str], None]
    _wake: asyncio.Event
    _round_waits: str | None  # the absent person's seat the round's clock is stopped for
    _notices_due: list[float]  # the notices not given yet, of the round as last set
    notices: list[dict[str, Any]]  # every notice given, for a late joiner's welcome

    if TYPE_CHECKING:  # the host's
        def _broadcast(self, message: dict[str, Any]) -> None: ...
        def note_recording(self) -> None: ...

    def _absent_awaited(self) -> str | None:
        """The seat of the away person the table can only wait for now, if any (the first, in a simultaneous turn
        whose open decisions are all absent people's)."""
        game = self.game
        if game is None or game.over:
            return None
        ids = game.neg.game.player_ids
        if game.neg.game.simultaneous:
            open_ = sorted({game.neg.current_player(w) for w in game.neg.waiting(game.state)})
        elif game.waiting_for_person():
            open_ = [game.deciding]
        else:
            return None
        people = [self.sitting.people.get(ids[i]) if game.is_human(i) else None for i in open_]
        if not open_ or any(p is None or p.online for p in people):
            return None
        return ids[open_[0]]

    def _sync_round(self) -> bool:
        """Run the round's clock while the game can go on, stop it otherwise; everyone told when that changed
        (True then)."""
        clock = self.round_clock
        if clock.budget is None and clock.deadline is None:
            return False  # no limit
        waits = None if self.paused else self._absent_awaited()
        run = self.game is not None and not self.game.over and not self.paused and waits is None
        if run == clock.running and waits == self._round_waits:
            return False
        self._round_waits = waits
        if run:
            clock.run()
        else:
            clock.stop()
        self._round_changed()
        return True

    def _round_line(self) -> dict[str, Any]:
        """The round's clock as clients are told it; stopped for an absent person: whose seat."""
        line = self.round_clock.line()
        return {**line, "waiting": self._round_waits} if self._round_waits and not line["running"] else line

    def _round_changed(self) -> None:
        clock = self.round_clock
        self._broadcast(self._round_line())
        self.events.round(clock.left(), clock.running)

    def set_time(self, seconds: float, extend: bool) -> None:
        self.round_clock.set(seconds, extend)
        self._arm_notices()
        self._round_changed()

    def _arm_notices(self) -> None:
        """The notices of a round with this much left: those it has more time than."""
        left = self.round_clock.left()
        self._notices_due = [] if left is None else [s for s in NOTICES if left > s]

    def _give_notices(self) -> None:
        """Tell everyone of a notice the round's time has just passed (the latest one only, after a jump)."""
        left = self.round_clock.left()
        if left is None or not self.round_clock.running or self.game is None or self.game.over:
            return
        passed = [s for s in self._notices_due if left <= s]
        if not passed:
            return
        self._notices_due = [s for s in self._notices_due if left > s]
        text = round_notice(min(passed))
        notice = {"type": "notice", "text": text, "t": self.game.state.t}
        self.notices.append(notice)
        self._broadcast(notice)
        self.log(text)

    # --- the end before the last turn -----------------------------------------------------------------------
    def time_up(self) -> None:
        """The round's time ran out: the game ends as it stands."""
        self._end_game("clock")

    def call_time(self) -> None:
        """The trainer calls time: the game ends as it stands, its results filed with the payoffs it gives."""
        self._end_game("trainer")

    def _end_game(self, why: str) -> None:
        """End the game before its last turn as it stands (the commitments made bind): the play loop then tells
        everyone it is over and files it, as at its last turn."""
        game = self.game
        if game is None or game.over:
            return
        game.end_now(why)
        self.note_recording()
        self.log(f"{ENDED_BY[why]} at turn {game.state.t + 1}: the game ends as it stands")
        self._wake.set()
