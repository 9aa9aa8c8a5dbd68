"""Forking a record: what a game continued from any recorded turn starts with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from negtui.engine.negotiation import Negotiation, State
from negtui.record.digest import state_digest
from negtui.record.format import Parent
from negtui.record.replay import Replay
from negtui.seats import Seat


@dataclass(frozen=True)
class Fork:
    neg: Negotiation
    seats: list[Seat]  # the recorded seats in force at the turn, with the requested changes
    start: State
    parent: Parent
    information: str = "public"  # what the seats know (engine.knowledge), as the record says

    @property
    def played_by_hand(self) -> list[str]:
        """Players whose seats are people (they cannot continue a game headless)."""
        return [pid for pid, seat in zip(self.neg.game.player_ids, self.seats) if seat.is_human]


def parent_at(replay: Replay, t: int) -> Parent:
    s = replay.state_at(t)
    return Parent(file=str(Path(replay.record.source).resolve()), turn=t, digest=state_digest(s.t, s.bits))


def fork(replay: Replay, turn: int | None = None, changes: dict[str, Seat] | None = None) -> Fork:
    """Continue from the state before `turn` (default: after the last recorded turn); raises IndexError
    for a turn outside the record."""
    t = replay.last_turn if turn is None else turn
    start = replay.state_at(t)
    seats = replay.seats_at(t)
    seats.update(changes or {})
    ids = replay.neg.game.player_ids
    return Fork(replay.neg, [seats.get(pid) or Seat.human() for pid in ids], start, parent_at(replay, t),
                replay.record.header.information or "public")
