"""What an exercise ranks by, and the leaderboard it makes.

A course sets each exercise's scoring objective (`Exercise.score`); a finished game's row holds all it
needs (the trainee's payoff and baseline, every player's payoff).  Leaderboards rank seat by seat: two
roles of one game start from different positions, so ranking them together rewards the seat, not the
negotiator."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from negtui.classroom.dbtypes import GameRow

OBJECTIVES: dict[str, str] = {  # objective -> how the debrief and the leaderboard name it
    "payoff": "your payoff",
    "gain": "your gain over the No-Negotiation baseline",
    "table_total": "the table's total payoff",
    "table_minimum": "the table's lowest payoff",
}
SHORT: dict[str, str] = {"payoff": "payoff", "gain": "gain", "table_total": "table total",
                         "table_minimum": "table minimum"}


def score(objective: str, payoff: float | None, payoffs: Iterable[float] | None,
          baseline: float | None) -> float | None:
    """A game's score under `objective`; None when the game holds no such number (unfinished)."""
    if payoff is None:
        return None
    if objective == "payoff":
        return payoff
    if objective == "gain":
        return None if baseline is None else payoff - baseline
    everyone = list(payoffs or ())
    if not everyone:
        return None
    return sum(everyone) if objective == "table_total" else min(everyone)


def row_score(objective: str, row: GameRow) -> float | None:
    return score(objective, row.payoff, row.payoffs, row.baseline)


@dataclass(frozen=True)
class Standing:
    """One trainee's place among those who played one seat."""

    rank: int
    trainee: str
    best: float
    plays: int  # finished games in this seat


def standings(rows: Iterable[GameRow], objective: str) -> dict[str, list[Standing]]:
    """Per seat, each trainee's best score, best first (ties by name); seats in the order first played."""
    best: dict[str, dict[str, tuple[float, int]]] = {}
    for row in rows:
        value = row_score(objective, row)
        if value is None:
            continue
        people = best.setdefault(row.seat, {})
        old, plays = people.get(row.trainee, (value, 0))
        people[row.trainee] = (max(old, value), plays + 1)
    out: dict[str, list[Standing]] = {}
    for seat, scores in best.items():
        order = sorted(scores.items(), key=lambda kv: (-kv[1][0], kv[0]))
        out[seat] = [Standing(k, name, value, plays) for k, (name, (value, plays)) in enumerate(order, start=1)]
    return out


def personal_best(by_seat: dict[str, list[Standing]], trainee: str) -> float | None:
    """A trainee's best score in any seat, from `standings`."""
    return max((s.best for rows in by_seat.values() for s in rows if s.trainee == trainee), default=None)
