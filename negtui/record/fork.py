"""Forking a record: what a game continued from any recorded turn starts with.

A record says who played; it never decides what runs or where a key goes.  Records are shared (a
trainer hands them out, researchers exchange them), signed or not, and a seat a record names as an outside
program (`cmd`) or a language model (`llm`) would run the record's command, or send the reader's API key
to the record's address, the moment the game went on.  So every game continued from a record starts with
lens bots where the record had programs and models; only the person continuing it can give such a seat
again (`--seat`, or the seats of the app's command line)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from negtui.engine.negotiation import Negotiation, State
from negtui.record.digest import state_digest
from negtui.record.format import Parent
from negtui.record.replay import Replay
from negtui.scenario.untrusted import one_line
from negtui.seats import DEFAULT_LENS, Seat

LABEL_CHARS = 60  # of a recorded program's or model's name, as a notice repeats it


@dataclass(frozen=True)
class RecordedSeats:
    """The seats a record names before a turn, as a continued game may take them: people and lens bots as
    recorded, a lens bot wherever the record names a program or a model (`stood_in`, by player id)."""

    seats: dict[str, Seat]
    stood_in: dict[str, Seat] = field(default_factory=dict)

    def notice(self, names: dict[str, str] | None = None, *, how: str = "--seat") -> str:
        """What the person continuing the game should know: which recorded seats a lens bot plays, and
        how to give them again (`how`: the command line's option, or the words of another place).  Empty
        when the record names no program or model.  The record's own words are cleaned and cut: they may
        hold anything."""
        if not self.stood_in:
            return ""
        parts, hints = [], []
        for k, (pid, seat) in enumerate(self.stood_in.items()):
            who = one_line((names or {}).get(pid) or pid, LABEL_CHARS)
            kind = "a program" if seat.agent == "cmd" else "a model"
            parts.append(f"{who} {'was ' if k == 0 else ''}{kind} ({one_line(seat.label, LABEL_CHARS)})")
            spelled = one_line(pid, LABEL_CHARS)
            hints.append(f"{spelled}=cmd:COMMAND" if seat.agent == "cmd" else f"{spelled}=llm:MODEL")
        bots = "/".join(sorted({str(self.seats[pid].label) for pid in self.stood_in}))
        them = "it" if len(parts) == 1 else "them"
        give = " ".join(f"--seat {h}" for h in hints) if how == "--seat" else how
        return (f"in the record, {_and(parts)}: {bots} bots play {them}, as a record never decides what runs; "
                f"{give} gives {them} again")


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def recorded_seats(replay: Replay, t: int, lens: str = DEFAULT_LENS) -> RecordedSeats:
    """The seats in force before turn t, with a `lens` bot for every program or model the record names
    (people and lens bots stay as recorded)."""
    seats, stood_in = {}, {}
    for pid, seat in replay.seats_at(t).items():
        if seat.agent in ("cmd", "llm"):
            stood_in[pid] = seat
            seats[pid] = Seat.lens(lens)
        else:
            seats[pid] = seat
    return RecordedSeats(seats, stood_in)


@dataclass(frozen=True)
class Fork:
    neg: Negotiation
    seats: list[Seat]  # the recorded seats in force at the turn (programs and models stood in for), changed
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


def fork(replay: Replay, turn: int | None = None, changes: dict[str, Seat] | None = None,
         lens: str = DEFAULT_LENS) -> Fork:
    """Continue from the state before `turn` (default: after the last recorded turn), with the seats
    recorded then (a `lens` bot for each program or model) and `changes`, the seats the person gave;
    raises IndexError for a turn outside the record."""
    t = replay.last_turn if turn is None else turn
    start = replay.state_at(t)
    recorded = recorded_seats(replay, t, lens)
    seats = {**recorded.seats, **(changes or {})}
    ids = replay.neg.game.player_ids
    return Fork(replay.neg, [seats.get(pid) or Seat.human() for pid in ids], start, parent_at(replay, t),
                replay.record.header.information or "public")
