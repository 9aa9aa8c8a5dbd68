"""How a game starts: afresh from a scenario, or from a recorded game at a turn (taking over a replay,
resuming a trainee's game, retrying from a costly decision) — one description the app starts from."""

from __future__ import annotations

from dataclasses import dataclass, field

from negtui.engine.game import Game
from negtui.engine.negotiation import State
from negtui.engine.rules import Rules
from negtui.play.views import Earlier
from negtui.record.fork import parent_at, recorded_seats
from negtui.record.format import Parent
from negtui.record.replay import Replay
from negtui.scenario.model import Scenario
from negtui.seats import Seat


@dataclass(frozen=True)
class GameStart:
    scenario: Scenario
    rules: Rules
    seats: dict[str, Seat]
    start: State | None = None  # None: the beginning
    parent: Parent | None = None  # the record this game continues
    budget: int | None = None  # None: the scenario's
    earlier: Earlier = field(default_factory=Earlier)  # the turns before `start`, for the log and the trends
    guided: bool = True  # guidance while playing (False: an assessment, coached only in the debrief)
    compiled: Game | None = None  # the scenario compiled under `rules` and `budget` already: not compiled again


def earlier_of(replay: Replay, t: int) -> Earlier:
    """The recorded turns before turn t and the payoffs before each of them."""
    k = t - replay.first_turn
    return Earlier(tuple(replay.events[:k]), tuple(replay.neg.returns(s) for s in replay.states[:k]))


def from_record(replay: Replay, t: int, seats: dict[str, Seat] | None = None) -> GameStart:
    """A recorded game continued from before turn t: with the seats given, or those in force then (a lens
    bot for every program or model the record names: a record never decides what runs)."""
    rec = replay.record
    chosen = seats if seats is not None else recorded_seats(replay, t).seats
    return GameStart(rec.scenario, replay.neg.rules, chosen, start=replay.state_at(t), parent=parent_at(replay, t),
                     budget=rec.header.budget, earlier=earlier_of(replay, t))
