"""The end of a game, for the person who played a seat: their payoff against the No-Negotiation
baseline, against lens bots replaying the same seat against the same opponents (counterfactual games),
and against the welfare optimum; and their costliest decisions, each a place to fork the game and try
again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from negtui.agents.options import AgentOptions
from negtui.agents.seating import Seating
from negtui.coach.assess import Assessment, coach_lenses
from negtui.engine.baseline import no_negotiation
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.turns import TurnDriver
from negtui.seats import DEFAULT_LENS, Seat

COSTLIEST = 3


@dataclass
class Debrief:
    player: int
    payoff: float
    baseline: float
    counterfactual: dict[str, float] = field(default_factory=dict)  # lens -> the seat's payoff, a bot in it
    welfare_optimum: float | None = None  # utilitarian optimum (sum of payoffs)
    seat_at_optimum: float | None = None  # the seat's payoff at that optimum
    total: float = 0.0  # sum of every player's payoff in the game played
    costliest: list[Assessment] = field(default_factory=list)

    @property
    def efficiency(self) -> float | None:
        if not self.welfare_optimum:
            return None
        return self.total / self.welfare_optimum


def counterfactual_seats(seats: list[Seat], player: int, lens: str) -> list[Seat]:
    """The game's seats with a `lens` bot in `player`'s seat, searching as the opponents' bots do.  Seats
    nobody can play again (other people, outside programs, language models) get the default bot, so
    these games need nothing but the engine."""
    bots = [s for s in seats if s.is_lens]
    base = bots[0] if bots else Seat()
    return [base.with_lenses(lens).model_copy(update={"seed": i}) if i == player else
            seat if seat.is_lens else base.with_lenses(DEFAULT_LENS).model_copy(update={"seed": i})
            for i, seat in enumerate(seats)]


def counterfactuals(neg: Negotiation, seats: list[Seat], player: int, start: State,
                    lenses: tuple[str, ...] | None = None,
                    cancelled: Callable[[], bool] = lambda: False, information: str = "public") -> dict[str, float]:
    """The seat's payoff when each lens bot plays it from `start` against the same opponents; under
    private information every bot (the lens bot in the seat too) decides on what its seat knows, as the
    bots of the game played did.  `lenses`: the coach's (`coach_lenses`) unless given."""
    out: dict[str, float] = {}
    options = AgentOptions(information=information)
    for lens in coach_lenses(neg.game) if lenses is None else lenses:
        # a seating of its own, with its own valuation: the game played keeps its caches
        with Seating(neg, counterfactual_seats(seats, player, lens), options) as seating:
            driver = TurnDriver(neg, seating.agents, State(start.t, start.bits))
            final = driver.play_out(cancelled=cancelled)
        if final.t < neg.game.T:
            return out
        out[lens] = float(neg.returns(final)[player])
    return out


def debrief(neg: Negotiation, player: int, final: State, assessments: list[Assessment]) -> Debrief:
    """What is known at once; counterfactuals and the welfare optimum are added as they are computed."""
    pay = neg.returns(final)
    mine = sorted((a for a in assessments if a.player == player and a.cost > 1e-9), key=lambda a: -a.cost)
    return Debrief(player, float(pay[player]), float(no_negotiation(neg.game, neg.rules).payoffs[player]),
                   total=float(pay.sum()), costliest=mine[:COSTLIEST])
