"""What states and offers are worth under each lens, for one game, with the caches that make searching
them cheap: the offer search (paper Eq. 1), offer values, acceptance, forecasts and the exact solution.

Apart from the rules API (`Negotiation`) as OpenSpiel keeps evaluators apart from states: the rules say
what may be done, a valuation what it is worth.  Every lens bot of a game shares one valuation, so an
offer one bot's search found is a look-up for the next; a bot process or a counterfactual game builds
its own.

Under simultaneous rules a lens values a move against the commitments at the start of its turn (the plain
reading); `anticipate:LENS` first predicts the turn's other deals (anticipation.py).  In a sequential game
there are no other deals, and `anticipate:LENS` is LENS.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from negtui.engine import learned
from negtui.engine.cache import MB, BoundedCache, nbytes
from negtui.engine.exact import ExactSolution, solve
from negtui.engine.game import Game
from negtui.engine.learned_search import learned_candidate_values
from negtui.engine.lens_model import model_for
from negtui.engine.lens_names import split_learned
from negtui.engine.lenses import combine, concrete_lens, lens_vector
from negtui.engine.negotiation import IllegalMove, Negotiation, State
from negtui.engine.offers import (
    Candidates,
    Offer,
    candidate_values,
    candidates,
    choose,
    realised_values,
)
from negtui.engine.payoff import state_info
from negtui.engine.rules import Rules
from negtui.engine.vocabulary import ADAPTIVE, ANTICIPATE, check_lens, split_anticipation, split_judge

_OFFER_CACHE_BYTES = 64 * MB  # an Offer is a few hundred bytes
_CANDIDATE_CACHE_BYTES = 64 * MB
_FORECAST_CACHE_BYTES = 16 * MB  # a forecast is one float per player
_TURN_CACHE_BYTES = 16 * MB  # simultaneous turns: the predicted deals of a turn, and what they leave each proposer


def _candidate_bytes(c: Candidates) -> int:
    # a learned search adds its successors' features to the memo later: at most 2 players x 21 floats a candidate
    return nbytes(c.ip, c.iq, c.counts, c.lost, c.n_cells, c.owes_p, c.owes_q, c.owes_all) + 42 * 8 * len(c)


def _by_turn(lens: str) -> bool:
    """Whether a lens's value of a state depends on the turn, not only on whether the game has ended."""
    return lens == "exact" or split_learned(lens)[0]


class Valuation:
    def __init__(self, neg: Negotiation):
        self.neg = neg
        self.game: Game = neg.game
        self.rules: Rules = neg.rules
        self._offers: BoundedCache[Offer] = BoundedCache(_OFFER_CACHE_BYTES, lambda o: 320)
        self._candidates: BoundedCache[Candidates] = BoundedCache(_CANDIDATE_CACHE_BYTES, _candidate_bytes)
        self._forecasts: BoundedCache[np.ndarray] = BoundedCache(_FORECAST_CACHE_BYTES, lambda v: v.nbytes + 200)
        self.turn_cache: BoundedCache = BoundedCache(_TURN_CACHE_BYTES, lambda v: 400 * (1 + len(v) if
                                                                                        isinstance(v, tuple) else 2))
        self._exact: ExactSolution | None = None
        self._solving = threading.Lock()  # one solve at a time: a second caller waits for the first's result
        self.searches = 0  # offer searches computed (cache misses)
        self.evaluated = 0  # successor states evaluated by those searches

    # --- offers ---------------------------------------------------------------------------------------
    def candidates(self, s: State, q: int) -> Candidates:
        p = self.neg.proposer(s)
        if q == p and not self.game.unilateral:
            raise IllegalMove("this scenario does not allow unilateral commitments", "partner")
        return candidates(self.game, state_info(self.game, s.bits), p, q)

    def candidates_at(self, s: State, q: int) -> Candidates:
        """Candidates of the proposer to q, kept for the few states the app and respondents revisit."""
        key = (s.bits, self.neg.proposer(s), q)
        hit = self._candidates.get(key)
        if hit is None:
            hit = self._candidates.put(key, self.candidates(s, q))
        return hit

    def values(self, s: State, cand: Candidates, lens: str, i: int) -> np.ndarray:
        """Player i's lens value of every candidate's successor (turn t+1); under a criterion's judge
        (`utilitarian`, `maximin:upper`) the criterion over every player's value, whoever i is."""
        lens = self._reading(lens)
        if split_anticipation(lens)[0]:
            raise ValueError(f"{lens} values offers against the turn's predicted deals: ask best_offer or offer_value")
        criterion, inner = split_judge(lens)
        if criterion is not None:
            return combine(criterion, np.stack([self.values(s, cand, inner, k) for k in range(self.game.n)]))
        lens = concrete_lens(self.game, lens, i, s.t)
        info = state_info(self.game, s.bits)
        if split_learned(lens)[0] and s.t + 1 < self.game.T:  # at the end every lens is the realised payoff
            return learned_candidate_values(self.game, self.rules, info, cand, s.t + 1, lens, np.array([i]))[0]
        return candidate_values(self.game, self.rules, info, cand, s.t + 1, lens, i,
                                self._exact_lookup if lens == "exact" else None)

    def best_offer(self, s: State, q: int, lens_p: str, lens_q: str) -> Offer:
        """The proposer's offer to q under Eq. 1; the no-op means none.  Cached by proposer, commitments,
        partner and lenses: the closed-form lenses do not depend on the turn except at the last one, so a
        state met again a round later (nobody made a deal meanwhile) costs a look-up."""
        p = self.neg.proposer(s)
        lens_p, lens_q = self._reading(lens_p), self._reading(lens_q)
        lens_p, lens_q = self._concrete(lens_p, p, s.t), self._concrete(lens_q, q, s.t)
        # the exact and learned values depend on the turn; the closed forms only on whether the game ends
        when = s.t if any(_by_turn(split_judge(x)[1]) for x in (lens_p, lens_q)) else s.t + 1 >= self.game.T
        ahead = split_anticipation(lens_p)[0] or split_anticipation(lens_q)[0]
        key = (when, p, s.bits, q, lens_p, lens_q) + ((self.game.proposers(s.t),) if ahead else ())
        hit = self._offers.get(key)
        if hit is not None:
            return hit
        if ahead:
            from negtui.engine import anticipation

            self.searches += 1
            return self._offers.put(key, anticipation.best_offer(self, s, q, lens_p, lens_q))
        # a simultaneous turn's proposers' trees and anticipating frames read the turn's start again, and a learned
        # search the same state a round later (what it read of the successors but the turn is kept with them)
        again = self.game.simultaneous or any(split_learned(x)[0] for x in (lens_p, lens_q))
        cand = self.candidates_at(s, q) if again else self.candidates(s, q)
        self.searches += 1
        self.evaluated += len(cand)
        same = lens_q == lens_p and (q == p or split_judge(lens_p)[0] is not None)  # a criterion is everyone's
        if lens_q == lens_p and not same and split_learned(lens_p)[0] and s.t + 1 < self.game.T:
            # one forward pass of the network for both players' values of the same successors
            v_p, v_q = learned_candidate_values(self.game, self.rules, state_info(self.game, s.bits), cand,
                                                s.t + 1, lens_p, np.array([p, q]))
        else:
            v_p = self.values(s, cand, lens_p, p)
            v_q = v_p if same else self.values(s, cand, lens_q, q)
        realised = None if lens_p == "myopic" or not self.rules.offer_ties_realised else (
            lambda rows: self.realised(s, cand, lens_p, p, rows))
        o = choose(self.rules, v_p, v_q, cand.n_cells, realised)
        offer = Offer(p, q, cand.bits(self.game, o), int(cand.n_cells[o]), o, float(v_p[o]), float(v_q[o]),
                      float(v_p[0]), float(v_q[0]))
        return self._offers.put(key, offer)

    def realised(self, s: State, cand: Candidates, lens: str, p: int, rows: np.ndarray) -> np.ndarray:
        """The realised payoff after the tying offers `rows`: the proposer's, or its criterion's over everyone."""
        info = state_info(self.game, s.bits)
        criterion, _ = split_judge(lens)
        if criterion is None:
            return realised_values(self.game, self.rules, info, cand, p, rows)
        return combine(criterion, np.stack([realised_values(self.game, self.rules, info, cand, k, rows)
                                            for k in range(self.game.n)]))

    def offer_index(self, s: State, offer: Offer) -> int:
        """The offer's position among the candidates (index 0 is the empty offer)."""
        if offer.bits == 0:
            return 0
        if offer.index >= 0:
            return offer.index
        cand = self.candidates_at(s, offer.partner)
        g, p, q = self.game, cand.p, cand.q
        ip = g.options[p].position[g.row(offer.bits, p)]
        hit = cand.ip == ip
        if q != p:
            hit &= cand.iq == g.options[q].position[g.row(offer.bits, q)]
        return int(np.flatnonzero(hit)[0])

    def offer_value(self, s: State, offer: Offer, lens: str, i: int) -> tuple[float, float]:
        """(value if accepted, value if rejected) of a legal offer for player i under a lens."""
        lens = self._reading(lens)
        if split_anticipation(lens)[0]:
            from negtui.engine import anticipation

            return anticipation.offer_value(self, s, offer, lens, i)
        cand = self.candidates_at(s, offer.partner)
        v = self.values(s, cand, lens, i)
        return float(v[self.offer_index(s, offer)]), float(v[0])

    def accepts(self, s: State, offer: Offer, lens: str) -> bool:
        """The partner's decision under its responding lens."""
        if offer.is_noop:
            return False
        accept, reject = self.offer_value(s, offer, lens, offer.partner)
        return bool(self.rules.accepts(accept, reject))

    # --- states ---------------------------------------------------------------------------------------
    def forecast(self, s: State, lens: str) -> np.ndarray:
        """Every player's lens value of the current state (read-only: it is cached, and the partner
        search asks for the same states again turn after turn).  A state's value does not depend on how its
        turn's offers are read: `anticipate:LENS` forecasts as LENS."""
        lens = split_anticipation(lens)[1]
        if lens == ADAPTIVE:  # each player's own choice of lens, at this turn
            chosen = [concrete_lens(self.game, lens, i, s.t) for i in range(self.game.n)]
            vectors = {name: self.forecast(s, name) for name in set(chosen)}
            out = np.array([vectors[name][i] for i, name in enumerate(chosen)])
            out.flags.writeable = False
            return out
        criterion, inner = split_judge(lens)
        if criterion is not None:  # every player judges by the criterion: the same number for all
            out = np.full(self.game.n, float(combine(criterion, np.asarray(self.forecast(s, inner)))))
            out.flags.writeable = False
            return out
        key = (s.t if _by_turn(lens) else s.t >= self.game.T, s.bits, lens)  # the turn matters only there
        hit = self._forecasts.get(key)
        if hit is not None:
            return hit
        if split_learned(lens)[0]:  # its name and model are checked on the model's first read (model_for)
            out = learned.state_vector(self.game, self.rules, model_for(lens),
                                       state_info(self.game, s.bits), s.t)
            out.flags.writeable = False
            return self._forecasts.put(key, out)
        check_lens(lens)
        out = lens_vector(self.game, self.rules, lens, state_info(self.game, s.bits), s.t,
                          self._exact_lookup if lens == "exact" else None)
        out.flags.writeable = False
        return self._forecasts.put(key, out)

    def _concrete(self, lens: str, i: int, t: int) -> str:
        """`concrete_lens`, inside an anticipating lens too: the offer cache is keyed by the formula used at turn t,
        and `adaptive` turns myopic in the last round, so one state met in two rounds may have two best offers."""
        ahead, inner = split_anticipation(lens)
        inner = concrete_lens(self.game, inner, i, t)
        return f"{ANTICIPATE}:{inner}" if ahead else inner

    def _reading(self, lens: str) -> str:
        """The lens as this game reads it: anticipating only where a turn has other proposers."""
        ahead, inner = split_anticipation(lens)
        return lens if ahead and self.game.simultaneous else inner

    @property
    def exact(self) -> ExactSolution:
        """The game's exact solution with type-correct goals (built on first use)."""
        return self.solve_exact()

    @property
    def exact_solved(self) -> bool:
        return self._exact is not None

    def solve_exact(self, progress: Callable[[int, int], None] | None = None) -> ExactSolution:
        """The exact solution, solved now if it is not yet; `progress(turns done, turns)` is called per
        turn solved, and may raise to abandon the solve (nothing is kept then).  The app solves in a thread
        while a bot may ask for the solution in another: the lock keeps that to one solve."""
        if self._exact is None:
            with self._solving:
                if self._exact is None:
                    self._exact = solve(self.game, self.rules, linearise=False, progress=progress)
        return self._exact

    def _exact_lookup(self, t: int, masks: np.ndarray | int) -> np.ndarray:
        return self.exact.values_at(t, masks)
