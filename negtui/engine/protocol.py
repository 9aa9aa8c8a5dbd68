"""The turn loop: whoever sits in each seat picks a partner, proposes, and responds.

A `Match` emits one `TurnEvent` per turn; the command line prints them, a recorder writes them and the
app draws them.  Seats are any objects following the `Agent` protocol (lens bots, a human in the app).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from negtui.engine.negotiation import Negotiation, State
from negtui.engine.offers import Offer
from negtui.engine.search import SearchStats


class Agent(Protocol):
    name: str

    def choose_partner(self, neg: Negotiation, s: State, seats: list[Agent] | None = None,
                       ) -> tuple[int, SearchStats | None]: ...

    def propose(self, neg: Negotiation, s: State, partner: int, partner_agent: Agent) -> Offer: ...

    def respond(self, neg: Negotiation, s: State, offer: Offer) -> bool: ...


def describe(agent: Agent) -> str:
    """'P3 (upper)': the agent's name and, for bots, how it decides."""
    label = getattr(agent, "label", "")
    return f"{agent.name} ({label})" if label else agent.name


@dataclass(frozen=True)
class TurnEvent:
    t: int
    proposer: int
    partner: int
    offer: Offer
    accepted: bool
    decided_by: str  # the agent that decided the outcome
    before: State
    after: State
    payoffs: np.ndarray  # R(P) after the turn (realised only at the end)
    search: SearchStats | None = None

    @property
    def deal(self) -> bool:
        """Whether commitments were made (a no-op deal under reference rules makes none)."""
        return self.accepted and not self.offer.is_noop


@dataclass
class Match:
    neg: Negotiation
    seats: list[Agent]
    state: State = field(default_factory=State)
    events: list[TurnEvent] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.seats) != self.neg.game.n:
            raise ValueError(f"{len(self.seats)} seats for {self.neg.game.n} players")

    @property
    def over(self) -> bool:
        return self.neg.is_terminal(self.state)

    def step(self) -> TurnEvent:
        neg, s = self.neg, self.state
        p = neg.proposer(s)
        proposer = self.seats[p]
        q, stats = proposer.choose_partner(neg, s, self.seats)
        offer = proposer.propose(neg, s, q, self.seats[q])
        if offer.is_noop:
            # an offer of nothing: the reference counts it as a deal that changes nothing
            accepted, decided = neg.rules.noop_is_deal, describe(proposer)
        else:
            accepted, decided = self.seats[q].respond(neg, s, offer), describe(self.seats[q])
        after = neg.apply(s, offer, accepted)
        ev = TurnEvent(s.t, p, q, offer, accepted, decided, s, after, neg.returns(after), stats)
        self.state = after
        self.events.append(ev)
        return ev

    def run(self, on_turn: Callable[[TurnEvent], None] | None = None) -> Iterator[TurnEvent]:
        while not self.over:
            ev = self.step()
            if on_turn is not None:
                on_turn(ev)
            yield ev

    def play(self) -> np.ndarray:
        for _ in self.run():
            pass
        return self.neg.returns(self.state)
