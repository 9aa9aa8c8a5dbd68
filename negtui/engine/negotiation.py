"""The game API every agent drives: decision points, legal moves, apply, returns, lens values.

Shaped after OpenSpiel's game/state split: a `Negotiation` holds the compiled game, the rules and
caches; a `State` is immutable.  A turn has two decision points: the proposer's (a partner and an
offer, together one `Offer`) and, when the offer needs an answer, the partner's (accept or reject).
`apply` checks every move and says which rule an illegal one breaks; `next_state` is the unchecked
step searches use with offers they built themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

import numpy as np

from negtui.engine.cache import MB, BoundedCache, nbytes
from negtui.engine.game import Game, compile_game
from negtui.engine.lenses import check_lens, lens_vector
from negtui.engine.offers import Candidates, Offer, candidate_values, candidates, choose, realised_values
from negtui.engine.payoff import payoffs, state_info
from negtui.engine.rules import Rules

if TYPE_CHECKING:
    from negtui.engine.exact import ExactSolution
    from negtui.scenario.model import Scenario


class IllegalMove(ValueError):
    """A move the rules do not allow; `rule` names the rule broken, for programs that react to it.

    Rules: terminal (the game is over), phase (a move of the other phase), proposer (not this
    player's turn), partner (not a legal partner), unknown_cell, third_party (a cell of neither
    side), committed (already committed), exclusive (ruled out by, or breaking, an exclusive set),
    budget (more new cells for one player than the budget)."""

    def __init__(self, message: str, rule: str = "illegal"):
        super().__init__(message)
        self.rule = rule


class Phase(str, Enum):
    PROPOSE = "propose"
    RESPOND = "respond"
    TERMINAL = "terminal"


TERMINAL_PLAYER = -1  # current_player() of a finished game


@dataclass(frozen=True, slots=True)
class State:
    t: int = 0
    bits: int = 0
    pending: Offer | None = None  # an offer waiting for the partner's answer (respond phase)


_OFFER_CACHE_BYTES = 64 * MB  # an Offer is a few hundred bytes
_CANDIDATE_CACHE_BYTES = 64 * MB
_FORECAST_CACHE_BYTES = 16 * MB  # a forecast is one float per player


def _candidate_bytes(c: Candidates) -> int:
    return nbytes(c.ip, c.iq, c.counts, c.lost, c.n_cells, c.owes_p, c.owes_q, c.owes_all)


class Negotiation:
    def __init__(self, game: Game, rules: Rules):
        self.game = game
        self.rules = rules
        self._offers: BoundedCache[Offer] = BoundedCache(_OFFER_CACHE_BYTES, lambda o: 320)
        self._candidates: BoundedCache[Candidates] = BoundedCache(_CANDIDATE_CACHE_BYTES, _candidate_bytes)
        self._forecasts: BoundedCache[np.ndarray] = BoundedCache(_FORECAST_CACHE_BYTES, lambda v: v.nbytes + 200)
        self._exact: ExactSolution | None = None
        self.searches = 0  # offer searches computed (cache misses)
        self.evaluated = 0  # successor states evaluated by those searches

    @classmethod
    def from_scenario(cls, sc: Scenario, rules: Rules, budget: int | None = None) -> Negotiation:
        return cls(compile_game(sc, rules, budget=budget), rules)

    # --- decision points ------------------------------------------------------------------------------
    def initial_state(self) -> State:
        return State(0, 0)

    def is_terminal(self, s: State) -> bool:
        return s.t >= self.game.T

    def phase(self, s: State) -> Phase:
        if self.is_terminal(s):
            return Phase.TERMINAL
        return Phase.PROPOSE if s.pending is None else Phase.RESPOND

    def current_player(self, s: State) -> int:
        """Who decides next: the proposer, the partner of a pending offer, or TERMINAL_PLAYER."""
        if self.is_terminal(s):
            return TERMINAL_PLAYER
        return self.proposer(s) if s.pending is None else s.pending.partner

    def proposer(self, s: State) -> int:
        sched = self.game.schedule
        return int(sched[min(s.t, len(sched) - 1)])

    def legal_partners(self, s: State) -> list[int]:
        p = self.proposer(s)
        return [q for q in range(self.game.n) if q != p or self.game.unilateral]

    def legal_offers(self, s: State, partner: int) -> list[Offer]:
        """Every legal offer of the proposer to `partner`, in enumeration order; the first is the
        empty offer (a pass)."""
        cand = self._candidates_for(s, partner)
        p, g = cand.p, self.game
        return [Offer(p, partner, cand.bits(g, o), int(cand.n_cells[o]), o) for o in range(len(cand))]

    def pass_offer(self, s: State) -> Offer:
        """The proposer makes no offer."""
        p = self.proposer(s)
        return Offer(p, p, 0, 0, 0)

    def make_offer(self, s: State, q: int, cells) -> Offer:
        """An offer of the given cells to q; raises IllegalMove naming the rule it breaks."""
        bits = 0
        for c in cells:
            c = int(c)
            if c < 0:
                raise IllegalMove(f"there is no commitment number {c}", "unknown_cell")
            bits |= 1 << c
        offer = Offer(self.proposer(s), q, bits, bin(bits).count("1"), 0 if bits == 0 else -1)
        self.check_offer(s, offer)
        return offer

    def is_legal(self, s: State, offer: Offer) -> bool:
        try:
            self.check_offer(s, offer)
        except IllegalMove:
            return False
        return True

    def check_offer(self, s: State, offer: Offer) -> None:
        """Raise IllegalMove if the proposer may not make this offer now."""
        g = self.game
        if self.is_terminal(s):
            raise IllegalMove("the game is over", "terminal")
        if s.pending is not None:
            raise IllegalMove("an offer is waiting for its answer", "phase")
        p, q = self.proposer(s), offer.partner
        if offer.proposer != p:
            raise IllegalMove(f"turn {s.t} belongs to {g.player_ids[p]}, not to "
                              f"{self._name(offer.proposer)}", "proposer")
        if not 0 <= q < g.n:
            raise IllegalMove(f"there is no player number {q}", "partner")
        if offer.bits == 0:
            return  # a pass is always legal
        if q == p and not g.unilateral:
            raise IllegalMove("this scenario does not allow unilateral commitments", "partner")
        if offer.bits >> g.n_cells:
            raise IllegalMove(f"the game has {g.n_cells} commitments; the offer names one beyond them",
                              "unknown_cell")
        info = state_info(g, s.bits)
        count: dict[int, int] = {}
        for c in offer.cells:
            owner = int(g.owner[c])
            if owner not in (p, q):
                sides = g.player_ids[p] if p == q else f"neither {g.player_ids[p]} nor {g.player_ids[q]}"
                raise IllegalMove(f"{g.cell_name(c)} belongs to {'someone other than ' * (p == q)}{sides}",
                                  "third_party")
            if s.bits >> c & 1:
                raise IllegalMove(f"{g.cell_name(c)} is already committed", "committed")
            if info.blocked >> c & 1:
                raise IllegalMove(f"{g.cell_name(c)} is ruled out by an exclusive set", "exclusive")
            count[owner] = count.get(owner, 0) + 1
        for i, n in count.items():
            if n > g.budget:
                raise IllegalMove(f"{g.player_ids[i]} would make {n} new commitments; the budget is {g.budget}",
                                  "budget")
        for cells in g.groups:
            hit = [int(c) for c in cells if offer.bits >> int(c) & 1]
            if len(hit) > 1:
                raise IllegalMove(f"{' and '.join(g.cell_name(c) for c in hit)} are in one exclusive set: "
                                  "at most one of them may be committed", "exclusive")

    def _name(self, i: int) -> str:
        return self.game.player_ids[i] if 0 <= i < self.game.n else f"player number {i}"

    # --- moves ----------------------------------------------------------------------------------------
    def apply(self, s: State, action: Offer | bool) -> State:
        """The state after a checked move: an `Offer` from the proposer, or True/False from the partner.

        A pass and a unilateral commitment need no answer and end the turn at once (a pass counts
        as a deal only under rules where an empty offer is one)."""
        if self.is_terminal(s):
            raise IllegalMove("the game is over", "terminal")
        if s.pending is None:
            if not isinstance(action, Offer):
                raise IllegalMove("the proposer moves with an offer (an empty one passes)", "phase")
            self.check_offer(s, action)
            if action.is_noop:
                return self.next_state(s, action, self.rules.noop_is_deal)
            if action.is_unilateral:
                return self.next_state(s, action, True)
            return State(s.t, s.bits, action)
        if not isinstance(action, (bool, np.bool_)):
            raise IllegalMove("the partner answers an offer with accept (true) or reject (false)", "phase")
        return self.next_state(s, s.pending, bool(action))

    def next_state(self, s: State, offer: Offer | None, accepted: bool) -> State:
        """Unchecked: the state after a turn whose offer and answer are known to be legal."""
        bits = s.bits | offer.bits if (accepted and offer is not None) else s.bits
        return State(s.t + 1, bits)

    def returns(self, s: State) -> np.ndarray:
        return payoffs(self.game, s.bits)

    def blocked(self, s: State) -> int:
        """Bitmask of the cells an exclusive set rules out at this state."""
        return state_info(self.game, s.bits).blocked

    # --- offers ---------------------------------------------------------------------------------------
    def candidates(self, s: State, q: int) -> Candidates:
        p = self.proposer(s)
        if q == p and not self.game.unilateral:
            raise IllegalMove("this scenario does not allow unilateral commitments", "partner")
        return candidates(self.game, state_info(self.game, s.bits), p, q)

    def _candidates_for(self, s: State, q: int) -> Candidates:
        """Candidates of the proposer to q, kept for the few states the app and respondents revisit."""
        key = (s.bits, self.proposer(s), q)
        hit = self._candidates.get(key)
        if hit is None:
            hit = self._candidates.put(key, self.candidates(s, q))
        return hit

    def values(self, s: State, cand: Candidates, lens: str, i: int) -> np.ndarray:
        """Player i's lens value of every candidate's successor (turn t+1)."""
        return candidate_values(self.game, self.rules, state_info(self.game, s.bits), cand, s.t + 1, lens, i,
                                self._exact_lookup if lens == "exact" else None)

    def best_offer(self, s: State, q: int, lens_p: str, lens_q: str) -> Offer:
        """The proposer's offer to q under Eq. 1; the no-op means none.  Cached by proposer, commitments,
        partner and lenses: the closed-form lenses do not depend on the turn except at the last one, so a
        state met again a round later (nobody made a deal meanwhile) costs a look-up."""
        p = self.proposer(s)
        when = s.t if "exact" in (lens_p, lens_q) else s.t + 1 >= self.game.T
        key = (when, p, s.bits, q, lens_p, lens_q)
        hit = self._offers.get(key)
        if hit is not None:
            return hit
        cand = self.candidates(s, q)
        self.searches += 1
        self.evaluated += len(cand)
        v_p = self.values(s, cand, lens_p, p)
        v_q = v_p if (q == p and lens_q == lens_p) else self.values(s, cand, lens_q, q)
        realised = None if lens_p == "myopic" or not self.rules.offer_ties_realised else (
            lambda rows: realised_values(self.game, self.rules, state_info(self.game, s.bits), cand, p, rows))
        o = choose(self.rules, v_p, v_q, cand.n_cells, realised)
        offer = Offer(p, q, cand.bits(self.game, o), int(cand.n_cells[o]), o, float(v_p[o]), float(v_q[o]),
                      float(v_p[0]), float(v_q[0]))
        return self._offers.put(key, offer)

    def offer_index(self, s: State, offer: Offer) -> int:
        """The offer's position among the candidates (index 0 is the empty offer)."""
        if offer.bits == 0:
            return 0
        if offer.index >= 0:
            return offer.index
        cand = self._candidates_for(s, offer.partner)
        g, p, q = self.game, cand.p, cand.q
        ip = g.options[p].position[g.row(offer.bits, p)]
        hit = cand.ip == ip
        if q != p:
            hit &= cand.iq == g.options[q].position[g.row(offer.bits, q)]
        return int(np.flatnonzero(hit)[0])

    def offer_value(self, s: State, offer: Offer, lens: str, i: int) -> tuple[float, float]:
        """(value if accepted, value if rejected) of an offer for player i under a lens."""
        cand = self._candidates_for(s, offer.partner)
        v = self.values(s, cand, lens, i)
        return float(v[self.offer_index(s, offer)]), float(v[0])

    def accepts(self, s: State, offer: Offer, lens: str) -> bool:
        """The partner's decision under its responding lens."""
        if offer.is_noop:
            return False
        accept, reject = self.offer_value(s, offer, lens, offer.partner)
        return self.rules.accepts(accept, reject)

    # --- values ---------------------------------------------------------------------------------------
    def forecast(self, s: State, lens: str) -> np.ndarray:
        """Every player's lens value of the current state (read-only: it is cached, and the partner
        search asks for the same states again turn after turn)."""
        key = (s.t if lens == "exact" else s.t >= self.game.T, s.bits, lens)  # the turn matters only there
        hit = self._forecasts.get(key)
        if hit is not None:
            return hit
        check_lens(lens)
        out = lens_vector(self.game, self.rules, lens, state_info(self.game, s.bits), s.t,
                          self._exact_lookup if lens == "exact" else None)
        out.flags.writeable = False
        return self._forecasts.put(key, out)

    @property
    def exact(self) -> ExactSolution:
        """The game's exact solution with type-correct goals (built on first use)."""
        return self.solve_exact()

    @property
    def exact_solved(self) -> bool:
        return self._exact is not None

    def solve_exact(self, progress: Callable[[int, int], None] | None = None) -> ExactSolution:
        """The exact solution, solved now if it is not yet; `progress(turns done, turns)` is called per
        turn solved, and may raise to abandon the solve (nothing is kept then)."""
        if self._exact is None:
            from negtui.engine.exact import solve

            self._exact = solve(self.game, self.rules, linearise=False, progress=progress)
        return self._exact

    def _exact_lookup(self, t: int, masks):
        return self.exact.values_at(t, masks)
