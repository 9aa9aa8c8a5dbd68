"""What the results database of `negtui serve` hands out: its rows as values, the columns of its
results table, and its error; kept apart from the SQL so that the app's training screens read them
without the database code."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from negtui.table.views import Occupant

# the columns of `results()`, in order: a CSV of them has a header even when there are no rows.  `efficiency`
# is the seat's own (its payoff over its payoff at the welfare optimum), `table_efficiency` the table's total
# over the optimum; `mode`, `attempt` and `score` follow the course's exercises where the course is known
RESULT_COLUMNS: tuple[str, ...] = (
    "trainee", "course", "exercise", "scenario", "seat", "status", "started", "finished", "duration", "payoff",
    "baseline", "improvement", "counterfactual_myopic", "counterfactual_upper", "counterfactual_lower",
    "welfare_optimum", "efficiency", "decisions", "record_path", "table",
    "mode", "attempt", "score", "seat_optimum", "table_efficiency", "bot_turns", "bot_played",
)

class DBError(Exception):
    """A request the results database cannot carry out as given; the message says why."""


@dataclass(frozen=True)
class Key:
    fingerprint: str
    comment: str
    added: str


@dataclass(frozen=True)
class Trainee:
    name: str
    created: str
    keys: list[Key] = field(default_factory=list)
    invite_pending: bool = False
    games: int = 0
    trainer: bool = False  # a trainer's account: the console over SSH
    student_id: str | None = None  # the registrar's id for them (the wide gradebook's key)


@dataclass(frozen=True)
class Decision:
    """One choice the trainee made, with what it cost them under the coaching lens and the numbers shown."""

    turn: int
    phase: str  # 'propose' or 'respond'
    choice: str
    cost: float
    numbers: dict[str, Any] = field(default_factory=dict)
    timed_out: bool = False  # the clock decided (a pass or a rejection when the person's time ran out)


@dataclass(frozen=True)
class GameRow:
    id: int
    trainee: str
    session_id: int | None
    course: str
    exercise: str
    scenario: str
    scenario_digest: str
    seat: str
    record_path: str
    status: str
    started: str
    finished: str | None
    duration: float | None
    payoff: float | None
    payoffs: list[float] | None
    baseline: float | None
    counterfactuals: dict[str, float] | None
    welfare_optimum: float | None
    efficiency: float | None  # the seat's payoff over its payoff at the welfare optimum
    table_id: int | None = None  # a game several trainees shared
    mode: str | None = None  # 'practice' or 'assessment' (None: filed before negtui kept it)
    seat_optimum: float | None = None  # the seat's payoff at the welfare optimum
    table_efficiency: float | None = None  # the table's total over the welfare optimum (`efficiency`: the seat's)
    bot_turns: int | None = None  # turns a bot played in the person's seat (None: not known)


@dataclass(frozen=True)
class TableRow:
    id: int
    course: str
    exercise: str
    socket: str
    status: str  # 'forming', 'playing', 'over' or 'closed'
    opened: str
    started: str | None
    ended: str | None
    end_reason: str | None
    people: tuple[Occupant, ...]  # every seat, as the table last told
    turn: int
    record_path: str | None
    payoffs: dict[str, float] | None = None  # each player's payoff were the game to end now
    baseline: dict[str, float] | None = None  # each player's No-Negotiation payoff
    turns: int | None = None  # the game's length
    paused: bool = False  # the trainer paused it
    round_left: float | None = None  # seconds of the round's time left when its clock last stopped (or started)
    round_ends: str | None = None  # while the round's clock runs: when it runs out (now_iso's spelling)
    ending: str | None = None  # once over: 'turns' (its last turn played), 'clock' or 'trainer' (ended as it stood)
    name: str | None = None  # the trainer's name for it (a roster's); None: it goes by its number
    deciding: str | None = None  # while its game is under way: the player whose decision it waits for
    deciding_since: str | None = None  # since when (now_iso's spelling)

    @property
    def called(self) -> str:
        """How everyone names the table: "table north" (a roster's name), or "table 3"."""
        return table_called(self.id, self.name)

    @property
    def live(self) -> bool:
        return self.status in ("forming", "playing")

    def time_left(self, now: datetime | None = None) -> float | None:
        """Seconds of the round's time left now (None: no limit)."""
        if self.round_ends is not None:
            end = datetime.fromisoformat(self.round_ends.replace("Z", "+00:00"))
            return max(0.0, (end - (now or datetime.now(UTC))).total_seconds())
        return self.round_left

    def idle(self, now: datetime | None = None) -> float | None:
        """Seconds the game has waited for `deciding`'s decision (None: it waits for nobody)."""
        if self.deciding is None or self.deciding_since is None or self.status != "playing":
            return None
        since = datetime.fromisoformat(self.deciding_since.replace("Z", "+00:00"))
        return max(0.0, ((now or datetime.now(UTC)) - since).total_seconds())

    def holds(self, name: str) -> Occupant | None:
        return next((s for s in self.people if s.name == name), None)

    def free_seats(self, room: int) -> list[str]:
        """The seats a newcomer may take, when fewer than `room` people sit at the table."""
        if not self.live or sum(s.name is not None for s in self.people) >= room:
            return []
        return [s.player for s in self.people if s.person_seat and s.name is None]


def now_iso(delta: float = 0.0) -> str:
    """UTC, fixed width (milliseconds always present), so text order is time order in SQL comparisons."""
    t = datetime.now(UTC) + timedelta(seconds=delta)
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


TABLE_NAME_CHARS = 40  # a table's name as it is kept and shown (a roster's cell may be longer)


def table_called(table_id: int, name: str | None) -> str:
    """A table as every screen and message names it: by the trainer's name for it where it has one."""
    return f"table {name}" if name else f"table {table_id}"
