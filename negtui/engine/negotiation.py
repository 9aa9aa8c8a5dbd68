"""The game API every agent drives: states, legal partners, offers, lens values, apply, returns.

Shaped after OpenSpiel's game/state split: a `Negotiation` holds the compiled game, the rules and
caches; a `State` is an immutable (turn, commitment bitmask) pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from negtui.engine.game import Game, compile_game
from negtui.engine.lenses import check_lens, lens_vector
from negtui.engine.offers import Candidates, Offer, candidate_values, candidates, choose
from negtui.engine.payoff import payoffs, state_info
from negtui.engine.rules import Rules

if TYPE_CHECKING:
    from negtui.engine.exact import ExactSolution
    from negtui.scenario.model import Scenario


class IllegalMove(ValueError):
    """An offer or partner the rules do not allow."""


@dataclass(frozen=True, slots=True)
class State:
    t: int = 0
    bits: int = 0


_OFFER_CACHE_LIMIT = 200_000


class Negotiation:
    def __init__(self, game: Game, rules: Rules):
        self.game = game
        self.rules = rules
        self._offers: dict[tuple, Offer] = {}
        self._exact: ExactSolution | None = None
        self.searches = 0  # offer searches computed (cache misses)
        self.evaluated = 0  # successor states evaluated by those searches

    @classmethod
    def from_scenario(cls, sc: Scenario, rules: Rules, budget: int | None = None) -> Negotiation:
        return cls(compile_game(sc, rules, budget=budget), rules)

    # --- the protocol ---------------------------------------------------------------------------------
    def initial_state(self) -> State:
        return State(0, 0)

    def is_terminal(self, s: State) -> bool:
        return s.t >= self.game.T

    def proposer(self, s: State) -> int:
        sched = self.game.schedule
        return int(sched[min(s.t, len(sched) - 1)])

    def legal_partners(self, s: State) -> list[int]:
        p = self.proposer(s)
        return [q for q in range(self.game.n) if q != p or self.game.unilateral]

    def apply(self, s: State, offer: Offer | None, accepted: bool) -> State:
        if self.is_terminal(s):
            raise IllegalMove("the game is over")
        bits = s.bits | offer.bits if (accepted and offer is not None) else s.bits
        return State(s.t + 1, bits)

    def returns(self, s: State) -> np.ndarray:
        return payoffs(self.game, s.bits)

    # --- offers ---------------------------------------------------------------------------------------
    def candidates(self, s: State, q: int) -> Candidates:
        p = self.proposer(s)
        if q == p and not self.game.unilateral:
            raise IllegalMove("this scenario does not allow unilateral commitments")
        return candidates(self.game, state_info(self.game, s.bits), p, q)

    def values(self, s: State, cand: Candidates, lens: str, i: int) -> np.ndarray:
        """Player i's lens value of every candidate's successor (turn t+1)."""
        return candidate_values(self.game, self.rules, state_info(self.game, s.bits), cand, s.t + 1, lens, i,
                                self._exact_lookup if lens == "exact" else None)

    def best_offer(self, s: State, q: int, lens_p: str, lens_q: str) -> Offer:
        """The proposer's offer to q under Eq. 1, cached by (t, P, q, lenses); the no-op means none."""
        key = (s.t, s.bits, q, lens_p, lens_q)
        hit = self._offers.get(key)
        if hit is not None:
            return hit
        p = self.proposer(s)
        cand = self.candidates(s, q)
        self.searches += 1
        self.evaluated += len(cand)
        v_p = self.values(s, cand, lens_p, p)
        v_q = v_p if (q == p and lens_q == lens_p) else self.values(s, cand, lens_q, q)
        o = choose(self.rules, v_p, v_q, cand.n_cells)
        offer = Offer(p, q, cand.bits(self.game, o), int(cand.n_cells[o]), o, float(v_p[o]), float(v_q[o]),
                      float(v_p[0]), float(v_q[0]))
        if len(self._offers) >= _OFFER_CACHE_LIMIT:
            self._offers.clear()
        self._offers[key] = offer
        return offer

    def make_offer(self, s: State, q: int, cells: list[int]) -> Offer:
        """An offer built by hand (a human proposer); raises IllegalMove when infeasible."""
        p = self.proposer(s)
        bits = 0
        for c in cells:
            bits |= 1 << c
        cand = self.candidates(s, q)
        for o in range(len(cand)):
            if cand.bits(self.game, o) == bits:
                return Offer(p, q, bits, int(cand.n_cells[o]), o)
        raise IllegalMove(self._why_infeasible(s, p, q, cells))

    def _why_infeasible(self, s: State, p: int, q: int, cells: list[int]) -> str:
        g = self.game
        for c in cells:
            owner = int(g.owner[c])
            if owner not in (p, q):
                return f"{g.cell_name(c)} belongs to neither {g.player_ids[p]} nor {g.player_ids[q]}"
            if s.bits >> c & 1:
                return f"{g.cell_name(c)} is already committed"
            if state_info(g, s.bits).blocked >> c & 1:
                return f"{g.cell_name(c)} is ruled out by an exclusive set"
        for i in {p, q}:
            n = sum(1 for c in cells if int(g.owner[c]) == i)
            if n > g.budget:
                return f"{g.player_ids[i]} would make {n} new commitments; the budget is {g.budget}"
        return "the offer commits two members of one exclusive set"

    def offer_value(self, s: State, offer: Offer, lens: str, i: int) -> tuple[float, float]:
        """(value if accepted, value if rejected) of an offer for player i under a lens."""
        cand = self.candidates(s, offer.partner)
        v = self.values(s, cand, lens, i)
        return float(v[offer.index]), float(v[0])

    def accepts(self, s: State, offer: Offer, lens: str) -> bool:
        """The partner's decision under its responding lens."""
        if offer.is_noop:
            return False
        accept, reject = self.offer_value(s, offer, lens, offer.partner)
        return accept >= reject - self.rules.accept_tolerance

    # --- values ---------------------------------------------------------------------------------------
    def forecast(self, s: State, lens: str) -> np.ndarray:
        """Every player's lens value of the current state."""
        check_lens(lens)
        return lens_vector(self.game, self.rules, lens, state_info(self.game, s.bits), s.t,
                           self._exact_lookup if lens == "exact" else None)

    @property
    def exact(self) -> ExactSolution:
        """The game's exact solution with type-correct goals (built on first use)."""
        if self._exact is None:
            from negtui.engine.exact import solve

            self._exact = solve(self.game, self.rules, linearise=False)
        return self._exact

    def _exact_lookup(self, t: int, masks):
        return self.exact.values_at(t, masks)
