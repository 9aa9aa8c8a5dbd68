"""Partner choice: MCTS over partners (docs/reference.md §3.3), greedy best single offer, or random.

The tree is over partner choices only; the offer made to a partner is the deterministic offer search
of the simulated proposer, with the searcher's lenses for every simulated player (as the reference
does).  Offers are cached in the `Valuation`, so revisiting a node costs a dictionary look-up.  Under
simultaneous rules the tree is laid over simultaneous turns (turn_search.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from negtui.engine.negotiation import Negotiation, State
from negtui.engine.offers import Offer
from negtui.engine.payoff import payoffs
from negtui.engine.tree import Node, SearchStats, grow, partner_order
from negtui.engine.turn_search import mcts_turn
from negtui.engine.valuation import Valuation

__all__ = ["SearchStats", "greedy_partner", "mcts_partner", "random_partner"]


def mcts_partner(val: Valuation, s: State, lens_p: str, lens_q: str, sims: int = 50, c_ucb: float = 10.0,
                 ) -> tuple[int, SearchStats]:
    neg, rules, game = val.neg, val.rules, val.game
    if sims < 1:
        raise ValueError("MCTS needs at least one simulation")
    if game.simultaneous:  # the same search laid over simultaneous turns
        return mcts_turn(val, s, lens_p, lens_q, sims, c_ucb)
    desc = rules.mcts_expand_descending
    T = game.T
    sched = [int(x) for x in game.schedule]  # the loop below runs 50 times a turn: no per-call look-ups
    order: dict[int, list[int]] = {}  # untried partners by proposer, in the order they are expanded

    def untried(state: State) -> list[int]:
        if state.t >= T:
            return []
        p = sched[state.t]
        if p not in order:
            order[p] = partner_order(neg, state, desc)
        return list(order[p])

    root = Node(s, untried(s))

    def leaf_value(state: State) -> np.ndarray:
        if rules.mcts_leaf_myopic or state.t >= T:
            return payoffs(game, state.bits)
        return val.forecast(state, lens_p)

    def step(state: State, q: int) -> State:
        offer = val.best_offer(state, q, lens_p, lens_q)
        accepted = not offer.is_noop or rules.noop_is_deal
        return neg.next_state(state, offer, accepted)

    # most visits; ties to the first inserted child (highest index under the reference, lowest otherwise)
    return grow(root, sims, T, c_ucb, step, untried, lambda state: sched[state.t], leaf_value)


def greedy_partner(val: Valuation, s: State, lens_p: str, lens_of: Callable[[int], str],
                   best_offer: Callable[[State, int, str, str], Offer] | None = None) -> int:
    """The partner whose best offer is worth most to the proposer, each offer built against that
    partner's own responding lens (`lens_of(q)`) by `best_offer` (default the valuation's; a bot under
    private information passes its beliefs'); ties to the lowest index."""
    search = best_offer or val.best_offer
    best_q, best_v = -1, -math.inf
    for q in val.neg.legal_partners(s):
        v = search(s, q, lens_p, lens_of(q)).value_proposer
        if v > best_v + 1e-9:
            best_q, best_v = q, v
    return best_q


def random_partner(neg: Negotiation, s: State, rng: np.random.Generator) -> int:
    qs = neg.legal_partners(s)
    return int(qs[rng.integers(len(qs))])
