"""What a lens bot believes of the other players' values under private information, and how it learns.

The model (docs/private-information.md): a bot knows its own values.  Of each other player it holds
`PARTICLES` equally likely guesses of that player's whole value column, drawn from a prior that uses only
what the seat is told: a published range is uniform between its ends; a generated scenario's other values
are drawn by the generator itself, with its parameters and seeds of the prior's own (never the game's,
which the seat is not told); any other value is uniform within ± the largest value the seat itself holds.

It offers what is best in expectation: over the offers to a partner it maximises the probability that
the partner accepts (the share of its guesses of that partner under which the partner's responding lens
says yes) times its own gain over no deal.  Every accept and reject it sees, its own included, reweights
its guesses of the partner who answered: a guess that would have answered the same keeps its weight ×
(1 − TREMBLE), one that would not keeps TREMBLE.  Its own value of a state (its answers, its partner
search) is computed on its picture of the game, the prior's means in the others' places.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Final

import numpy as np

from negtui.engine.knowledge import picture, seat_scenario
from negtui.engine.lenses import concrete_lens
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.offers import Offer, candidate_values_as, choose
from negtui.engine.payoff import state_info
from negtui.engine.simultaneous import Flight
from negtui.engine.turns import TurnEvent
from negtui.engine.valuation import Valuation
from negtui.engine.vocabulary import CLOSED_FORM_LENSES, split_judge
from negtui.scenario.model import Scenario

PARTICLES: Final = 32  # guesses of each other player's values
TREMBLE: Final = 0.05  # how likely a player answers against its lens: no single answer rules a guess out
PRIOR_DRAW: Final = 0x50524952  # the prior's generator seeds: a stream of its own, unrelated to the game's


def prior(sc: Scenario, seat: str, k: int = PARTICLES) -> np.ndarray:
    """(k, J, N) guesses of every value, from what `seat` is told of `sc` (module docstring); the seat's
    own column is its true one.  `sc` may be the seat's picture: nothing else is read."""
    ids = sc.player_ids
    me = ids.index(seat)
    own = np.array([[float(goal.values.get(seat, 0)) for goal in sc.goals]])
    rng = np.random.default_rng([PRIOR_DRAW, len(ids), len(sc.goals)])
    drawn = _generated(sc, k)
    if drawn is None:
        scale = float(np.abs(own).max()) or 1.0
        drawn = rng.uniform(-scale, scale, size=(k, len(sc.goals), len(ids)))
    for j, goal in enumerate(sc.goals):
        for pid, (low, high) in goal.ranges.items():
            if pid != seat and pid in ids:
                drawn[:, j, ids.index(pid)] = rng.uniform(float(low), float(high), size=k)
    drawn[:, :, me] = own
    return drawn


def _generated(sc: Scenario, k: int) -> np.ndarray | None:
    """k value matrices the generator draws with `sc`'s parameters and the prior's seeds; None when `sc`
    was not generated (or its parameters do not give its shape).  Every seat of a game draws the same."""
    params = sc.meta.get("generator")
    if not isinstance(params, dict):
        return None
    drawn = _draws(json.dumps(params, sort_keys=True), k, (len(sc.goals), len(sc.players)))
    return None if drawn is None else drawn.copy()


@functools.lru_cache(maxsize=16)
def _draws(params_json: str, k: int, shape: tuple[int, int]) -> np.ndarray | None:
    from negtui.generator import GeneratorError, GeneratorParams
    from negtui.generator.build import game_arrays

    out = []
    for seed in range(k):
        try:
            arrays = game_arrays(GeneratorParams(**{**json.loads(params_json), "seed": PRIOR_DRAW + seed}))
        except (GeneratorError, TypeError, ValueError):
            return None
        if arrays.G.shape != shape:
            return None
        out.append(np.asarray(arrays.G, dtype=float))
    return np.stack(out)


class Beliefs:
    """One bot's guesses of the others' values (`prior`), their weights, and the offer search under them.

    Built from the true game only through the seat's scenario (`seat_scenario`), which holds nothing
    the seat does not know; everything after reads the picture."""

    def __init__(self, neg: Negotiation, player: int, particles: int = PARTICLES):
        g = neg.game
        told = seat_scenario(g.scenario, g.player_ids[player])
        self.player = player
        self.values = prior(told, g.player_ids[player], particles)  # (K, J, N)
        self.weights = np.full((g.n, particles), 1.0 / particles)
        mean = self.values.mean(axis=0)
        estimates = {(goal.id, pid): float(mean[j, i]) for j, goal in enumerate(g.scenario.goals)
                     for i, pid in enumerate(g.player_ids) if i != player}
        self.valuation = Valuation(picture(neg, player, estimates))
        self.updates = 0

    def accept_chance(self, s: State, q: int, lens_q: str) -> np.ndarray:
        """(O,) the weight of the guesses under which q accepts each offer of the proposer to q (a closed-form
        lens; any other judge is read off the picture, as certain)."""
        val = self.valuation
        cand = val.candidates_at(s, q)
        v = self._partner_values(s, cand, lens_q, q)
        yes = val.rules.accepts(v, v[:, :1])
        return self.weights[q] @ yes if len(v) > 1 else yes[0].astype(float)

    def _partner_values(self, s: State, cand, lens_q: str, q: int) -> np.ndarray:
        val, game = self.valuation, self.valuation.game
        lens = concrete_lens(game, lens_q, q, s.t)
        if q == self.player or split_judge(lens)[0] is not None or lens not in CLOSED_FORM_LENSES:
            return val.values(s, cand, lens, q)[None, :]
        return candidate_values_as(game, val.rules, state_info(game, s.bits), cand, s.t + 1, lens, q,
                                   self.values[:, :, q])

    def best_offer(self, s: State, q: int, lens_p: str, lens_q: str) -> Offer:
        """The offer of most expected gain to q: P(q accepts) × (own value if accepted − own value if not);
        a pass when none gains."""
        val = self.valuation
        p = val.neg.proposer(s)
        cand = val.candidates_at(s, q)
        v_p = val.values(s, cand, lens_p, p)
        chance = np.ones(len(cand)) if q == p else self.accept_chance(s, q, lens_q)
        gain = chance * np.maximum(v_p - v_p[0], 0.0)
        gain[0] = 0.0
        expected = v_p[0] + gain
        realised = None
        if split_judge(lens_p)[1] != "myopic" and val.rules.offer_ties_realised:
            def realised(rows: np.ndarray) -> np.ndarray:  # the expected realised payoff, for ties
                r = val.realised(s, cand, lens_p, p, np.r_[0, rows])
                return r[0] + chance[rows] * (r[1:] - r[0])
        o = choose(val.rules, expected, np.zeros(len(cand)), cand.n_cells, realised)
        # the proposer's values are expected ones; the partner's are not known to it
        return Offer(p, q, cand.bits(val.game, o), int(cand.n_cells[o]), o, float(expected[o]),
                     reject_proposer=float(v_p[0]))

    def observe(self, ev: TurnEvent, lens_of: Callable[[int], str]) -> None:
        """Reweight the guesses of each partner who answered an offer of `ev` (a deal or a refusal; under
        simultaneous rules every answer of the turn, each judged on the turn's starting commitments)."""
        neg = self.valuation.neg
        answered: list[tuple[Flight | None, Offer, bool]]
        if ev.outcomes:
            answered = [(neg.flight(ev.before).focused(k), out.offer, bool(out.answer))
                        for k, out in enumerate(ev.outcomes) if out.answer is not None]
        else:
            answered = [(None, ev.offer, ev.accepted)]
        for flight, offer, accepted in answered:
            # the turn's state before the offer, no offer pending (asking its proposer, in a simultaneous turn)
            before = ev.before if flight is None else State(ev.before.t, ev.before.bits, None, flight)
            self._learn(before, offer, accepted, lens_of)

    def _learn(self, before: State, offer: Offer, accepted: bool, lens_of: Callable[[int], str]) -> None:
        q = offer.partner
        if offer.is_noop or offer.is_unilateral or q == self.player:
            return
        val = self.valuation
        cand = val.candidates_at(before, q)
        v = self._partner_values(before, cand, lens_of(q), q)
        if len(v) == 1:
            return  # read off the picture: nothing to learn
        o = val.offer_index(before, offer)
        same = val.rules.accepts(v[:, o], v[:, 0]) == accepted
        w = self.weights[q] * np.where(same, 1.0 - TREMBLE, TREMBLE)
        self.weights[q] = w / w.sum()
        self.updates += 1
