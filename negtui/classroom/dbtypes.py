"""What the results database of `negtui serve` hands out: its rows as values, the columns of its
results table, and its error; kept apart from the SQL so that the app's training screens read them
without the database code."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from negtui.table.views import Occupant

# the columns of `results()`, in order: a CSV of them has a header even when there are no rows
RESULT_COLUMNS: tuple[str, ...] = (
    "trainee", "course", "exercise", "scenario", "seat", "status", "started", "finished", "duration", "payoff",
    "baseline", "improvement", "counterfactual_myopic", "counterfactual_upper", "counterfactual_lower",
    "welfare_optimum", "efficiency", "decisions", "record_path", "table",
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


@dataclass(frozen=True)
class Decision:
    """One choice the trainee made, with what it cost them under the coaching lens and the numbers shown."""

    turn: int
    phase: str  # 'propose' or 'respond'
    choice: str
    cost: float
    numbers: dict[str, Any] = field(default_factory=dict)


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
    efficiency: float | None
    table_id: int | None = None  # a game several trainees shared


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

    @property
    def live(self) -> bool:
        return self.status in ("forming", "playing")

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
