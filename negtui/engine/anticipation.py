"""The anticipating reading of a simultaneous turn (`anticipate:LENS`, docs/simultaneous.md).

A plain lens values an offer against the commitments at the start of the turn, as if it were the turn's only
deal.  An anticipating one first predicts the deals of the turn's other proposers, then values the offer on
the commitments the turn would end with:

1. *Prediction*: each proposer of the turn is predicted to make its best myopic offer (Eq. 1 with the myopic
   lens on both sides) to the partner for which that offer is worth most to it (ties to the lowest partner),
   and the partner, judging by the same lens, to accept it.  The prediction is made from the start-of-turn
   state and public values alone, so every seat that anticipates predicts the same deals.
2. *Settlement*: an offer of proposer p is settled among the others' predicted deals in the turn's order, as
   play settles it.  A predicted deal applied before p's would make p's offer void if they conflict, so p
   searches only offers that fit beside those (no commitment of theirs, no exclusive set they close, each
   side within the budget they leave); a predicted deal applied after p's is void where p's offer conflicts
   with it, and p counts on that.
3. *Value*: each offer is valued with LENS on the commitments its settlement ends the turn with; rejecting
   (or passing) is worth the commitments the others' predicted deals end it with.  The partner's answer is
   modelled with the partner's lens, anticipating or plain.  An anticipating partner judges an offer it
   receives the same way: accepting against the settlement without it.

It is a point prediction (an expectation over a degenerate distribution): deterministic, and one myopic
search per proposer and partner a turn, shared by every seat through the valuation's caches.  The proposer's
own search settles its offers once per footprint on the later deals (`_footprints`), not once per offer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from negtui.engine.lenses import concrete_lens
from negtui.engine.negotiation import State
from negtui.engine.offers import Candidates, Offer, choose, realised_values
from negtui.engine.payoff import state_info
from negtui.engine.simultaneous import Flight, conflict_of, settle
from negtui.engine.vocabulary import split_anticipation

if TYPE_CHECKING:
    from negtui.engine.cache import BoundedCache
    from negtui.engine.game import Game
    from negtui.engine.negotiation import Negotiation
    from negtui.engine.rules import Rules


class Valuation(Protocol):
    """What the anticipating search asks of the valuation it serves (engine.valuation.Valuation, which calls
    it): the game, the offer search and its caches.  Named here, so that this module depends on the search
    it runs in by what it uses, not by importing it back."""

    neg: Negotiation
    game: Game
    rules: Rules
    turn_cache: BoundedCache
    evaluated: int

    def best_offer(self, s: State, q: int, lens_p: str, lens_q: str) -> Offer: ...

    def candidates_at(self, s: State, q: int) -> Candidates: ...

    def values(self, s: State, cand: Candidates, lens: str, i: int) -> np.ndarray: ...

PREDICTING_LENS = "myopic"  # how the other proposers' moves and their partners' answers are predicted
TIE = 1e-9


@dataclass(frozen=True)
class Expected:
    """What proposer p expects of its turn's other proposers: their predicted deals applied before its own
    (`before`, which leave commitments `bits` and each player's new commitments `used`) and after it."""

    p: int
    before: tuple[Offer, ...]
    after: tuple[Offer, ...]
    bits: int
    used: tuple[int, ...]
    # what the deals after p's could ever conflict with: their cells, the cells sharing an exclusive set with
    # them, and the players that commit in them
    reach: int
    players: frozenset[int]


def predictions(val: Valuation, s: State) -> tuple[Offer, ...]:
    """Every proposer's predicted offer at the start of turn s.t (in the turn's order; the empty offer where
    it is predicted to pass)."""
    game = val.game
    proposers = game.proposers(s.t)
    key = ("predictions", s.t + 1 >= game.T, proposers, s.bits)
    hit = val.turn_cache.get(key)
    if hit is not None:
        return hit
    out = []
    start = Flight.start(len(proposers))
    for k in range(len(proposers)):
        at = State(s.t, s.bits, None, start.focused(k))
        best: Offer | None = None
        for q in val.neg.legal_partners(at):
            offer = val.best_offer(at, q, PREDICTING_LENS, PREDICTING_LENS)
            if best is None or offer.value_proposer > best.value_proposer + TIE:
                best = offer
        out.append(best if best is not None else val.neg.pass_offer(at))
    return val.turn_cache.put(key, tuple(out))


def expected(val: Valuation, s: State, p: int) -> Expected:
    """The others' predicted deals around p's place in the turn."""
    game = val.game
    proposers = game.proposers(s.t)
    key = ("expected", s.t + 1 >= game.T, proposers, s.bits, p)
    hit = val.turn_cache.get(key)
    if hit is not None:
        return hit
    slot = proposers.index(p)
    deals = predictions(val, s)
    before = tuple(o for k, o in enumerate(deals) if k < slot and not o.is_noop)
    after = tuple(o for k, o in enumerate(deals) if k > slot and not o.is_noop)
    done = settle(game, s.bits, before, [True] * len(before), False)
    used = [0] * game.n
    for out in done.outcomes:
        if out.applied:
            for c in out.offer.cells:
                used[int(game.owner[c])] += 1
    reach, players = 0, set()
    for o in after:
        reach |= o.bits
        for c in o.cells:
            players.add(int(game.owner[c]))
            for g in game.cell_groups[c]:
                for x in game.groups[g]:
                    reach |= 1 << int(x)
    return val.turn_cache.put(key, Expected(p, before, after, done.bits, tuple(used), reach, frozenset(players)))


def settled(game: Game, ex: Expected, bits: int) -> tuple[int, tuple[bool, ...]]:
    """The commitments the turn ends with when p's deal adds `bits` (0: p makes no deal) to what the deals
    before it left, and which of the deals after it stand.  `bits` must fit beside the deals before it."""
    now = ex.bits | bits
    used = list(ex.used)
    for c in game.cells_of(bits):
        used[int(game.owner[c])] += 1
    stand = []
    for o in ex.after:
        ok = conflict_of(game, now, used, o) is None
        if ok:
            now |= o.bits
            for c in o.cells:
                used[int(game.owner[c])] += 1
        stand.append(ok)
    return now, tuple(stand)


def outcome_bits(val: Valuation, s: State, offer: Offer) -> int:
    """The commitments turn s.t is expected to end with if `offer` is accepted (or, void or empty, without
    it), the others making their predicted deals."""
    ex = expected(val, s, offer.proposer)
    fits = conflict_of(val.game, ex.bits, ex.used, offer) is None
    return settled(val.game, ex, offer.bits if fits and not offer.is_noop else 0)[0]


def _at(s: State, bits: int, p: int, proposers: tuple[int, ...]) -> State:
    """A state of turn s.t whose commitments are `bits`, asking proposer p."""
    return State(s.t, bits, None, Flight.start(len(proposers)).focused(proposers.index(p)))


class _Frames:
    """The offers p can make to q without being voided, grouped by the commitments each ends the turn with
    (offers that touch none of the later deals all end alike), for values on those commitments."""

    def __init__(self, val: Valuation, s: State, q: int):
        game = val.game
        self.val, self.s, self.q = val, s, q
        self.p = p = val.neg.proposer(s)
        self.ex = ex = expected(val, s, p)
        self.proposers = game.proposers(s.t)
        cand = val.candidates_at(_at(s, ex.bits, p, self.proposers), q)  # shared with a group ending on ex.bits
        room = [game.budget - u for u in ex.used]
        fits = game.options[p].size[cand.ip] <= room[p]
        if q != p:
            fits &= game.options[q].size[cand.iq] <= room[q]
        self.cand = cand if fits.all() else cand.take(np.flatnonzero(fits))
        self.keys = self.cand.keys(game)
        self.groups = self._settlements(game, ex, p, q)  # commitments besides p's deal -> rows
        self._subs: dict[int, tuple[State, Candidates]] = {}

    def _settlements(self, game: Game, ex: Expected, p: int, q: int) -> dict[int, np.ndarray]:
        """The offers grouped by the commitments besides p's deal the turn ends with.  A settlement depends
        on an offer only through its cells within the later deals' reach and, for a player who commits in
        them, how many cells it adds (their budget): one settlement per such footprint, not per offer."""
        cand = self.cand
        if not ex.after:
            return {ex.bits: np.arange(len(cand))}
        key = _footprints(game, p, ex)[0][cand.ip]
        if q != p:
            code_q, kinds_q = _footprints(game, q, ex)
            key = key * kinds_q + code_q[cand.iq]
        _, first, which = np.unique(key, return_index=True, return_inverse=True)
        group_of = np.empty(len(first), dtype=np.int64)
        ends: dict[int, int] = {}
        for k, row in enumerate(first):
            bits = cand.bits(game, int(row))
            group_of[k] = ends.setdefault(settled(game, ex, bits)[0] & ~bits, len(ends))
        if len(ends) == 1:
            return {next(iter(ends)): np.arange(len(cand))}
        label = group_of[which.ravel()]
        return {bg: np.flatnonzero(label == g) for bg, g in ends.items()}

    def values(self, lens: str, i: int) -> np.ndarray:
        """(O,) player i's lens value of each offer on the commitments its settlement ends the turn with."""
        out = np.empty(len(self.cand))
        for bg, rows in self.groups.items():
            at, sub = self._group(bg, rows)
            out[rows] = self.val.values(at, sub, lens, i)
        return out

    def realised(self, i: int, rows: np.ndarray) -> np.ndarray:
        out = np.empty(len(rows))
        game = self.val.game
        for bg, members in self.groups.items():
            pick = np.flatnonzero(np.isin(rows, members))
            if len(pick):
                _, sub = self._group(bg, members)
                out[pick] = realised_values(game, self.val.rules, state_info(game, bg), sub, i,
                                            np.searchsorted(members, rows[pick]))
        return out

    def _group(self, bg: int, rows: np.ndarray) -> tuple[State, Candidates]:
        """The group's offers (`rows`, all of one settlement) as candidates at the commitments they end the turn
        with besides p's deal: kept, so that both sides' values and the tie-break share their arrays."""
        hit = self._subs.get(bg)
        if hit is None:
            at = _at(self.s, bg, self.p, self.proposers)
            if bg == self.ex.bits:  # no later deal stands beside them: the frame's own candidates
                sub = self.cand if len(rows) == len(self.cand) else self.cand.take(rows)
            else:
                there = self.val.candidates_at(at, self.q)
                sub = there.take(np.searchsorted(there.keys(self.val.game), self.keys[rows]))
            hit = self._subs[bg] = (at, sub)
        return hit


def _footprints(game: Game, i: int, ex: Expected) -> tuple[np.ndarray, int]:
    """Player i's options numbered by what of them a settlement sees: their cells within the later deals'
    reach and, when i commits in those deals, their size.  (K,) codes, and how many there are."""
    opts = game.options[i]
    counts = i in ex.players
    seen: dict[tuple[int, int], int] = {}
    codes = np.fromiter((seen.setdefault((b & ex.reach, int(n) if counts else 0), len(seen))
                         for b, n in zip(opts.bits, opts.size)), dtype=np.int64, count=len(opts.bits))
    return codes, len(seen)


def best_offer(val: Valuation, s: State, q: int, lens_p: str, lens_q: str) -> Offer:
    """The proposer's offer to q when it, or the partner as it models it, anticipates the turn's other deals."""
    game, rules = val.game, val.rules
    frames = _Frames(val, s, q)
    p, cand = frames.p, frames.cand
    val.evaluated += len(cand)
    start: list[tuple[Candidates, np.ndarray]] = []

    def plain() -> tuple[Candidates, np.ndarray]:
        """The offers among those of the turn's start (and where each is there): asked only by a plain lens."""
        if not start:
            there = val.candidates_at(s, q)
            start.append((there, np.searchsorted(there.keys(game), frames.keys)))
        return start[0]

    def frame(lens: str, i: int) -> np.ndarray:
        ahead, inner = split_anticipation(lens)
        if ahead:
            return frames.values(inner, i)
        there, rows = plain()
        return val.values(s, there, inner, i)[rows]

    v_p = frame(lens_p, p)
    v_q = v_p if (q == p and lens_q == lens_p) else frame(lens_q, q)
    realised: Callable[[np.ndarray], np.ndarray] | None = None
    ahead_p, inner_p = split_anticipation(lens_p)
    if concrete_lens(game, inner_p, p, s.t) != "myopic" and rules.offer_ties_realised:
        info = state_info(game, s.bits)
        realised = (lambda r: frames.realised(p, r)) if ahead_p else \
            (lambda r: realised_values(game, rules, info, plain()[0], p, plain()[1][r]))
    o = choose(rules, v_p, v_q, cand.n_cells, realised)
    index = int(start[0][1][o]) if start else -1  # unknown unless a plain lens placed it
    return Offer(p, q, cand.bits(game, o), int(cand.n_cells[o]), index, float(v_p[o]), float(v_q[o]),
                 float(v_p[0]), float(v_q[0]))


def offer_value(val: Valuation, s: State, offer: Offer, lens: str, i: int) -> tuple[float, float]:
    """(value if accepted, value if rejected) of `offer` for player i anticipating the turn's other deals."""
    game = val.game
    inner = split_anticipation(lens)[1]
    frames = _Frames(val, State(s.t, s.bits, None, val.neg.flight(s).focused(game.proposers(s.t).index(
        offer.proposer))), offer.partner)
    v = frames.values(inner, i)
    row = _row(game, frames.cand, offer)
    return (float(v[0]) if row is None else float(v[row])), float(v[0])  # an offer the others void: as rejecting


def _row(game: Game, cand: Candidates, offer: Offer) -> int | None:
    """The offer's row among candidates (found by its cells), None when it is not among them."""
    p, q = cand.p, cand.q
    ip = game.options[p].position.get(game.row(offer.bits, p))
    hit = cand.ip == ip
    if q != p:
        hit &= cand.iq == game.options[q].position.get(game.row(offer.bits, q), -2)
    found = np.flatnonzero(hit)
    return int(found[0]) if len(found) else None
