"""What a person's app shows of the table around the game: who sits where (a person or a bot, online
or not), what was said, the clock of the decision under way, whether the table is paused or closed."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import ClassVar

from negtui.table.talk import Said


@dataclass(frozen=True)
class Occupant:
    player: str
    seat: str  # the seat's label: human, upper, …
    name: str | None  # the person who holds (or held) it
    online: bool
    person_seat: bool  # a seat for a person (a bot may hold it meanwhile)

    @property
    def is_person(self) -> bool:
        return self.seat == "human"


@dataclass(frozen=True)
class TableView:
    KEPT: ClassVar[int] = 500  # messages an app keeps on screen

    title: str
    you: str | None
    occupants: tuple[Occupant, ...] = ()
    said: tuple[Said, ...] = ()
    clock: tuple[str, float, float] | None = None  # (player, seconds left when told, when told (monotonic))
    round: tuple[float, float, bool] | None = None  # the round's time: (seconds left when told, when, running)
    started: bool = False
    paused: bool = False
    closed: str = ""  # why the table closed early
    role: str = ""  # this person's confidential briefing
    private: bool = False  # each person knows only their own values until the game is over
    trainer: bool = True  # a course's table, which a trainer steers; False: one opened with `negtui table open`
    starts_anyway: bool = False  # after a time set when it opened, bots take the seats nobody has taken
    notices: tuple[str, ...] = ()  # what the table's round timer told everyone ("5 minutes left in the round")
    round_waits: str | None = None  # the absent person's seat the round's clock is stopped for
    class_messages: tuple[tuple[str, str], ...] = ()  # the trainer's to the whole class: (when, text), oldest first

    def but(self, **changes: object) -> TableView:
        return replace(self, **changes)  # type: ignore[arg-type]

    def seconds_left(self, now: float | None = None) -> float | None:
        if self.clock is None:
            return None
        _, seconds, told = self.clock
        return max(0.0, seconds - ((time.monotonic() if now is None else now) - told))

    def round_left(self, now: float | None = None) -> float | None:
        """Seconds of the round's time left (None: no limit)."""
        if self.round is None:
            return None
        seconds, told, running = self.round
        if not running:
            return seconds
        return max(0.0, seconds - ((time.monotonic() if now is None else now) - told))

    @property
    def counting(self) -> bool:
        """A clock runs down on screen: the decision's, or the round's."""
        return self.clock is not None or (self.round is not None and self.round[2])

    def occupant(self, player: str) -> Occupant | None:
        return next((o for o in self.occupants if o.player == player), None)
