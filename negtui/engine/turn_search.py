"""Partner choice by MCTS under simultaneous rules (docs/simultaneous.md).

The tree is the sequential search's (search.py: UCB over partner choices, each simulated proposer making
the offer search's offer with the searcher's lenses, leaves valued with the searcher's lens) laid over
simultaneous turns.  The root is the searcher's choice of partner; then each other proposer of the same turn
chooses, in the turn's order; every offer of a turn is searched against the turn's starting commitments
(no proposer sees another's), and once the turn's last proposer has chosen, the turn is settled as play
settles it (in the turn's order, a conflicting deal void) and the next turn's proposers follow.  A leaf
mid-turn is valued on the deals chosen so far, settled.

The searcher's own offers are its reading of the turn (plain, or anticipating the others: anticipation.py);
the simulated proposers', plain.  Every offer a turn's proposers can make is searched at one state, so the
searches of the turn's proposers share their offers through the valuation's cache.  With one proposer a
turn the tree, its offers and its leaves are the sequential search's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from negtui.engine.negotiation import State
from negtui.engine.offers import Offer
from negtui.engine.payoff import payoffs
from negtui.engine.simultaneous import Flight, settle
from negtui.engine.tree import Node, SearchStats, grow, partner_order
from negtui.engine.valuation import Valuation
from negtui.engine.vocabulary import split_anticipation


@dataclass(frozen=True)
class _Point:
    """Where a simulated game stands: turn t from commitments `bits`, its proposers deciding in `order`
    (slots of the turn), `j` of them done, with `deals` chosen so far (per slot)."""

    t: int
    bits: int
    order: tuple[int, ...]
    j: int = 0
    deals: tuple[tuple[int, Offer], ...] = ()
    ends: int = -1  # the commitments the deals so far settle to (with deals)


def mcts_turn(val: Valuation, s: State, lens_p: str, lens_q: str, sims: int, c_ucb: float,
              ) -> tuple[int, SearchStats]:
    neg, rules, game = val.neg, val.rules, val.game
    desc = rules.mcts_expand_descending
    T = game.T
    inner_p, inner_q = split_anticipation(lens_p)[1], split_anticipation(lens_q)[1]
    proposers = game.proposers  # read by turn as the tree reaches it (the whole schedule per search grew with T)
    flights: dict[int, Flight] = {}
    partners: dict[int, list[int]] = {}  # untried partners by proposer, in the order they are expanded
    me = neg.proposer(s)
    mine = proposers(s.t).index(me)
    start = _Point(s.t, s.bits, (mine, *(k for k in range(len(proposers(s.t))) if k != mine)))

    def at(point: _Point) -> State:
        """The state asking the proposer whose choice the point waits for."""
        k = len(proposers(point.t))
        if k not in flights:
            flights[k] = Flight.start(k)
        return State(point.t, point.bits, None, flights[k].focused(point.order[point.j]))

    def who(point: _Point) -> int:
        return proposers(point.t)[point.order[point.j]]

    def untried(point: _Point) -> list[int]:
        if point.t >= T:
            return []
        p = who(point)
        if p not in partners:
            partners[p] = partner_order(neg, at(point), desc)
        return list(partners[p])

    def settled(bits: int, deals: tuple[tuple[int, Offer], ...]) -> int:
        offers = [o for _, o in sorted(deals, key=lambda d: d[0]) if not o.is_noop]  # in the turn's order
        if len(offers) == 1:
            return bits | offers[0].bits
        return settle(game, bits, offers, [True] * len(offers), rules.noop_is_deal).bits

    offers: dict[tuple[int, int, int, int, bool], Offer] = {}  # the tree meets a turn's start state at every node

    def step(point: _Point, q: int) -> _Point:
        root = point is start
        key = (point.t, point.bits, point.order[point.j], q, root)
        offer = offers.get(key)
        if offer is None:
            offer = offers[key] = val.best_offer(at(point), q, lens_p if root else inner_p,
                                                 lens_q if root else inner_q)
        deals = (*point.deals, (point.order[point.j], offer))
        done = settled(point.bits, deals)
        if point.j + 1 < len(point.order):
            return _Point(point.t, point.bits, point.order, point.j + 1, deals, done)
        nxt = point.t + 1
        return _Point(nxt, done, tuple(range(len(proposers(nxt)))) if nxt < T else ())

    def leaf_value(point: _Point) -> np.ndarray:
        t, bits = (point.t, point.bits) if not point.deals else (point.t + 1, point.ends)
        if rules.mcts_leaf_myopic or t >= T:
            return payoffs(game, bits)
        return val.forecast(State(t, bits), inner_p)

    return grow(Node(start, untried(start)), sims, T, c_ucb, step, untried, who, leaf_value)
