"""Bots that decide with a value-function lens, one lens per role (proposing, responding)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from negtui.agents.beliefs import Beliefs
from negtui.engine.negotiation import State
from negtui.engine.offers import Offer
from negtui.engine.search import greedy_partner, mcts_partner, random_partner
from negtui.engine.turns import TurnEvent
from negtui.engine.valuation import Valuation
from negtui.engine.vocabulary import PARTNER_METHODS, check_judge


@dataclass
class LensBot:
    """Proposes by the offer search of `propose_lens`, picks partners by MCTS/greedy/random, and
    accepts an offer when its `respond_lens` value is at least that of rejecting.

    Bound to one game's `Valuation`, which every bot of the game shares (an offer one bot's search
    found is a look-up for the next).  `partner_lens(q)` tells how seat q judges offers (the game has
    perfect information); None, or a seat that is not a lens bot, is modelled with this bot's own
    responding lens.  Under private information the game it reads is its picture, and `beliefs`
    decides its offers (agents.beliefs)."""

    valuation: Valuation
    propose_lens: str = "upper"
    respond_lens: str = "upper"
    partner_method: str = "mcts"
    sims: int = 50
    ucb: float = 10.0
    seed: int = 0
    partner_lens: Callable[[int], str | None] | None = field(default=None, repr=False)
    # private information: the bot's guesses of the others' values (its valuation is then their picture)
    beliefs: Beliefs | None = field(default=None, repr=False)
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.propose_lens = check_judge(self.propose_lens)
        self.respond_lens = check_judge(self.respond_lens)
        if self.partner_method not in PARTNER_METHODS:
            raise ValueError(f"unknown partner method {self.partner_method!r}; "
                             f"choose from {', '.join(PARTNER_METHODS)}")
        self.rng = np.random.default_rng(self.seed)

    @property
    def label(self) -> str:
        if self.propose_lens == self.respond_lens:
            return self.propose_lens
        return f"{self.propose_lens}/{self.respond_lens}"

    def lens_of(self, q: int) -> str:
        known = self.partner_lens(q) if self.partner_lens is not None else None
        return known or self.respond_lens

    def choose_partner(self, s: State) -> int:
        """MCTS models every simulated player with this bot's lenses (as the reference does); greedy
        and the offer itself use each partner's real responding lens."""
        if self.partner_method == "random":
            return random_partner(self.valuation.neg, s, self.rng)
        if self.partner_method == "greedy":
            return greedy_partner(self.valuation, s, self.propose_lens, self.lens_of,
                                  self.beliefs.best_offer if self.beliefs is not None else None)
        return mcts_partner(self.valuation, s, self.propose_lens, self.respond_lens, self.sims, self.ucb)[0]

    def make_offer(self, s: State, partner: int) -> Offer:
        if self.beliefs is not None:
            return self.beliefs.best_offer(s, partner, self.propose_lens, self.lens_of(partner))
        return self.valuation.best_offer(s, partner, self.propose_lens, self.lens_of(partner))

    def observe(self, ev: TurnEvent) -> None:
        """Every finished turn: under private information the answer teaches the bot of the partner."""
        if self.beliefs is not None:
            self.beliefs.observe(ev, self.lens_of)

    def respond(self, s: State) -> bool:
        assert s.pending is not None
        return self.valuation.accepts(s, s.pending, self.respond_lens)
