"""Bots that decide with a value-function lens, one lens per role (proposing, responding)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from negtui.engine.lenses import check_lens
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.offers import Offer
from negtui.engine.protocol import Agent
from negtui.engine.search import PARTNER_METHODS, SearchStats, greedy_partner, mcts_partner, random_partner


@dataclass
class LensBot:
    """Proposes by the offer search of `propose_lens`, picks partners by MCTS/greedy/random, and
    accepts an offer when its `respond_lens` value is at least that of rejecting."""

    name: str
    propose_lens: str = "myopic"
    respond_lens: str = "myopic"
    partner_method: str = "mcts"
    sims: int = 50
    ucb: float = 10.0
    seed: int = 0
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_lens(self.propose_lens)
        check_lens(self.respond_lens)
        if self.partner_method not in PARTNER_METHODS:
            raise ValueError(f"unknown partner method {self.partner_method!r}; choose from {', '.join(PARTNER_METHODS)}")
        self.rng = np.random.default_rng(self.seed)

    @property
    def label(self) -> str:
        if self.propose_lens == self.respond_lens:
            return self.propose_lens
        return f"{self.propose_lens}/{self.respond_lens}"

    def choose_partner(self, neg: Negotiation, s: State, seats: list[Agent] | None = None,
                       ) -> tuple[int, SearchStats | None]:
        """MCTS models every simulated player with this bot's lenses (as the reference does); greedy
        and the offer itself use each partner's real responding lens (perfect information)."""
        if self.partner_method == "random":
            return random_partner(neg, s, self.rng), None
        if self.partner_method == "greedy":
            return greedy_partner(neg, s, self.propose_lens,
                                  lambda q: self.partner_lens(seats[q] if seats else None)), None
        return mcts_partner(neg, s, self.propose_lens, self.respond_lens, self.sims, self.ucb)

    def partner_lens(self, partner_agent: Agent | None) -> str:
        """How a partner judges offers; a human (or unknown) partner is modelled with this bot's lens."""
        return getattr(partner_agent, "respond_lens", self.respond_lens)

    def propose(self, neg: Negotiation, s: State, partner: int, partner_agent: Agent) -> Offer:
        return neg.best_offer(s, partner, self.propose_lens, self.partner_lens(partner_agent))

    def respond(self, neg: Negotiation, s: State, offer: Offer) -> bool:
        return neg.accepts(s, offer, self.respond_lens)


def parse_lens_pair(text: str) -> tuple[str, str]:
    """'upper' -> (upper, upper); 'upper/lower' -> proposing upper, responding lower."""
    prop, _, resp = text.partition("/")
    return check_lens(prop.strip()), check_lens((resp or prop).strip())


def parse_seats(specs: list[str], player_ids: list[str]) -> dict[str, tuple[str, str]]:
    """Seat specs NAME=LENS or NAME=PROPOSE/RESPOND, by player id."""
    out: dict[str, tuple[str, str]] = {}
    for spec in specs:
        name, sep, lens = spec.partition("=")
        if not sep or not name or not lens:
            raise ValueError(f"seat {spec!r}: expected NAME=LENS, e.g. {player_ids[0]}=upper")
        if name not in player_ids:
            raise ValueError(f"seat {spec!r}: no player {name!r}; players are {', '.join(player_ids)}")
        out[name] = parse_lens_pair(lens)
    return out
