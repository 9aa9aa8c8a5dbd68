"""Feasible offers and the proposer's offer search (paper Eq. 1).

All feasible joint offers of a proposer p to a partner q are built at once, in the reference
enumeration order (p's option outer, q's inner, each option ascending as a binary row with action 0
most significant).  Index 0 is always the no-op, whose successor equals the rejection state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from negtui.engine import issues
from negtui.engine.exclusion import exclusions
from negtui.engine.game import Game, GoalView
from negtui.engine.lenses import Owing, effective_lens, issue_lens, lens_core, lens_sum, lens_terms, owing_all
from negtui.engine.payoff import StateInfo, scaled_satisfaction
from negtui.engine.rules import REFERENCE_SLACK, VALUE_TIE, Rules


@dataclass(frozen=True)
class Offer:
    """New commitments proposed by `proposer` to `partner` (bits: a bitmask over the game's cells).

    An offer is identified by who offers what to whom; the search results it may carry (its index
    among the candidates, lens values) do not take part in comparisons.  The empty offer is a pass:
    no deal is made, whoever the partner."""

    proposer: int
    partner: int
    bits: int
    n_cells: int = field(default=0, compare=False)
    index: int = field(default=-1, compare=False)  # position among the candidates; -1 when not known
    value_proposer: float = field(default=float("nan"), compare=False)
    value_partner: float = field(default=float("nan"), compare=False)
    reject_proposer: float = field(default=float("nan"), compare=False)
    reject_partner: float = field(default=float("nan"), compare=False)

    @property
    def is_noop(self) -> bool:
        return self.bits == 0

    @property
    def is_unilateral(self) -> bool:
        return self.partner == self.proposer

    @property
    def cells(self) -> tuple[int, ...]:
        """The offered cells, ascending."""
        out, c, bits = [], 0, self.bits
        while bits:
            if bits & 1:
                out.append(c)
            bits >>= 1
            c += 1
        return tuple(out)


@dataclass
class Candidates:
    """The feasible joint offers of p to q at one state, as arrays over offers.

    Goal arrays cover only `goals`, the goals such an offer can change; the others contribute the
    same lens terms to every candidate and are evaluated once, at the current state."""

    p: int
    q: int
    goals: GoalView
    rest: GoalView
    ip: np.ndarray  # index into p's options
    iq: np.ndarray  # index into q's options (-1 for a unilateral move)
    counts: np.ndarray  # (O, J') goal counts after the offer
    lost: np.ndarray  # (O, J') required cells ruled out by exclusive sets after the offer
    n_cells: np.ndarray  # (O,)
    owes_p: np.ndarray  # (O, J') cells p could still commit after the offer
    owes_q: np.ndarray  # (O, J')
    owes_all: np.ndarray | None = None  # (O, N, J') every player's, when exclusive sets can block cells
    # arrays every player's evaluation shares (the scaled satisfaction, the upper remainder), made once
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    def scaled(self) -> np.ndarray:
        """(O, J') L·s after each offer."""
        s = self.memo.get("s")
        if s is None:
            s = self.memo["s"] = scaled_satisfaction(self.goals, self.counts)
        return s

    def __len__(self) -> int:
        return len(self.ip)

    def take(self, rows: np.ndarray) -> Candidates:
        """The candidates `rows` only, in their order (row 0 should stay the no-op)."""
        some = None if self.owes_all is None else self.owes_all[rows]
        return Candidates(self.p, self.q, self.goals, self.rest, self.ip[rows], self.iq[rows], self.counts[rows],
                          self.lost[rows], self.n_cells[rows], self.owes_p[rows], self.owes_q[rows], some)

    def keys(self, game: Game) -> np.ndarray:
        """(O,) one ascending number per offer, the same at every state: where the candidates of one state
        are among another's (fewer cells free there)."""
        return self.ip * (len(game.options[self.q].local) + 1) + (self.iq + 1)

    def bits(self, game: Game, o: int) -> int:
        b = game.options[self.p].bits[int(self.ip[o])]
        if self.iq[o] >= 0:
            b |= game.options[self.q].bits[int(self.iq[o])]
        return b

    def child_masks(self, game: Game, bits: int) -> np.ndarray:
        """(O,) int64 successor bitmasks; only for games of at most 62 cells."""
        bp, bq = game.options[self.p].bits64, game.options[self.q].bits64
        assert bp is not None and bq is not None, "child masks need a game of at most 62 cells"
        out = np.int64(bits) | bp[self.ip]
        if self.p != self.q:
            out = out | bq[self.iq]
        return out


def feasible_options(game: Game, info: StateInfo, i: int) -> np.ndarray:
    """Indices of player i's options that add only free cells and respect exclusive sets."""
    opts = game.options[i]
    taken = game.row(info.bits | info.blocked, i)
    return np.flatnonzero(((opts.local & taken) == 0) & opts.consistent)


def candidates(game: Game, info: StateInfo, p: int, q: int) -> Candidates:
    goals, rest = game.pair_views(p, q)
    J = goals.index
    op = game.options[p]
    vp = feasible_options(game, info, p)
    dp = op.delta[vp][:, J]
    if q == p:
        ip, iq = vp, np.full(len(vp), -1)
        counts = info.counts[J] + dp
        n_cells = op.size[ip]
        owes_p = owes_q = info.owes[p, J] - dp
    else:
        oq = game.options[q]
        vq = feasible_options(game, info, q)
        dq = oq.delta[vq][:, J]
        ip = np.repeat(vp, len(vq))
        iq = np.tile(vq, len(vp))
        counts = ((info.counts[J] + dp)[:, None, :] + dq[None, :, :]).reshape(len(vp) * len(vq), len(J))
        n_cells = (op.size[vp][:, None] + oq.size[vq][None, :]).ravel()
        owes_p = np.repeat(info.owes[p, J] - dp, len(vq), axis=0)
        owes_q = np.tile(info.owes[q, J] - dq, (len(vp), 1))
        if game.groups:
            ok = ~np.any((op.group_member[ip] > 0) & (oq.group_member[iq] > 0), axis=1)
            ip, iq = ip[ok], iq[ok]
            counts, n_cells, owes_p, owes_q = counts[ok], n_cells[ok], owes_p[ok], owes_q[ok]
    owes_all = None
    if game.groups:
        lost, owes_all = _exclusion_effects(game, info, p, q, ip, iq, J, owes_p, owes_q)
        owes_p, owes_q = owes_all[:, p], owes_all[:, q]
    else:
        lost = np.broadcast_to(info.lost[J], counts.shape)
    return Candidates(p, q, goals, rest, ip, iq, counts, lost, n_cells, owes_p, owes_q, owes_all)


def _exclusion_effects(game: Game, info: StateInfo, p: int, q: int, ip: np.ndarray, iq: np.ndarray, J: np.ndarray,
                       owes_p: np.ndarray, owes_q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per offer: goal progress ruled out, and every player's still-committable cells, once the
    offer's cells block their rivals."""
    ex = exclusions(game)
    owes_all = np.repeat(info.owes[None, :, J], len(ip), axis=0)
    owes_all[:, p] = owes_p
    owes_all[:, q] = owes_q
    if ex.disjoint:
        return _disjoint_effects(game, info, p, q, ip, iq, J, owes_all), owes_all
    # overlapping sets: offers fall into few classes by the set cells they commit, each worked out exactly
    op, oq = game.options[p], game.options[q]
    key_p = [op.bits[int(x)] & ex.mask for x in ip]
    keys = [k | (oq.bits[int(x)] & ex.mask) for k, x in zip(key_p, iq)] if p != q else key_p
    classes: dict[int, list[int]] = {}
    for row, key in enumerate(keys):
        classes.setdefault(key, []).append(row)
    lost = np.empty((len(ip), len(J)))
    for key, members in classes.items():
        rows = np.array(members)
        committed = info.bits | key
        blocked = ex.blocked_by(committed)
        lost[rows] = ex.lost(committed, blocked)[J]
        for c in game.cells_of(blocked & ~info.blocked):
            owes_all[rows, int(game.owner[c])] -= game.inc[c, J]
    return lost, owes_all


def _disjoint_effects(game: Game, info: StateInfo, p: int, q: int, ip: np.ndarray, iq: np.ndarray, J: np.ndarray,
                      owes_all: np.ndarray) -> np.ndarray:
    """`_exclusion_effects` for disjoint sets, by set: an offer changes a set's state only where the state
    has nothing of it committed, and then blocks the set's other cells.  Every term is a count of cells, so
    the sums are exact in any order and equal the cell-by-cell ones."""
    lost_rows, blocked_rows = exclusions(game).set_tables
    start = np.array([_set_state(game, info.bits, g) for g in range(len(game.groups))], dtype=np.int64)
    lost = np.broadcast_to(info.lost[J], (len(ip), len(J))).copy()
    members = [game.options[p].group_member[ip]]
    if p != q:
        members.append(game.options[q].group_member[iq])
    for member in members:
        for g in np.flatnonzero(member.any(axis=0)):
            state = member[:, g]
            rows = np.flatnonzero(state)
            if len(rows) == 0 or start[g]:
                continue  # feasible options never commit in a set already decided
            k = state[rows]
            lost[rows] += lost_rows[g][k][:, J] - lost_rows[g][0, J]
            owes_all[rows] -= blocked_rows[g][k][:, :, J]
    return lost


def _set_state(game: Game, bits: int, g: int) -> int:
    """0 if nothing of exclusive set g is committed in `bits`, else 1 + the position of its committed cell."""
    for k, c in enumerate(game.groups[g], start=1):
        if bits >> int(c) & 1:
            return k
    return 0


def owing_after(game: Game, info: StateInfo, cand: Candidates, i: int) -> Owing:
    """Owing seen by player i across the candidate offers, on the candidates' goals (i is p or q, or a
    third player whose own cells no offer of p to q changes: a criterion weighs everyone's value)."""
    J = cand.goals.index
    if cand.owes_all is not None:
        owes = cand.owes_all
        owing = owes > 0
        hostile = owing & (cand.goals.G.T < 0)
        return Owing(owes[:, i], owes.sum(axis=1) - owes[:, i], owing.sum(axis=1) - owing[:, i],
                     hostile.sum(axis=1) - hostile[:, i])
    changed = {cand.p: cand.owes_p, cand.q: cand.owes_q}
    keep = np.ones(game.n, dtype=bool)
    keep[list(changed)] = False
    base = info.owes[keep][:, J]
    G = cand.goals.G.T  # (N, J')
    owing_base = (base > 0).sum(axis=0)
    hostile_base = ((base > 0) & (G[keep] < 0)).sum(axis=0)
    total = base.sum(axis=0) + sum(changed.values())
    owing_tot = owing_base + sum((v > 0).astype(np.int64) for v in changed.values())
    hostile_tot = hostile_base + sum(((v > 0) & (G[k] < 0)).astype(np.int64) for k, v in changed.items())
    own = changed[i] if i in changed else np.broadcast_to(info.owes[i, J], total.shape)  # a third player's
    return Owing(
        own=own,
        others=total - own,
        others_owing=owing_tot - (own > 0),
        others_hostile=hostile_tot - ((own > 0) & (G[i] < 0)),
    )


def _constant_part(game: Game, rules: Rules, info: StateInfo, cand: Candidates, lens: str, i: int) -> float:
    """Lens terms (on the integer scale) of the goals no candidate offer changes, at the current
    commitments: summed from every player's per-goal terms, which are computed once per state and lens
    (the proposer's other partners and the partners' own evaluations read the same ones).  The sums run
    over the same values in the same order as evaluating the goals alone would."""
    rest = cand.rest
    K = rest.index
    if len(K) == 0:
        return 0.0
    if lens == "myopic":
        return float(_state_terms(game, rules, info, "myopic")[0][K] @ rest.G[:, i])
    first, second, factor = _state_terms(game, rules, info, lens)
    return float(lens_sum(first[i, K].sum(), second[i, K].sum(), factor))


def _state_terms(game: Game, rules: Rules, info: StateInfo, lens: str) -> tuple:
    """Every player's per-goal lens terms at this state (`lens_terms` with (N, J) goal values); for the
    myopic lens, the scaled satisfaction alone, which the dot product in `candidate_values` reads."""
    key = ("terms", lens)
    hit = info.memo.get(key)
    if hit is None:
        goals = game.all_goals
        if lens == "myopic":
            hit = (scaled_satisfaction(goals, info.counts),)
        else:
            owing = owing_all(game, info) if lens == "lower" else None
            hit = lens_terms(goals, rules, lens, info.counts, info.lost, game.G.T, owing)
        info.memo[key] = hit
    return hit


def realised_values(game: Game, rules: Rules, info: StateInfo, cand: Candidates, i: int, rows: np.ndarray,
                    ) -> np.ndarray:
    """Player i's realised (myopic) payoff after the candidates `rows` only: the paper tie rule asks it
    of the few offers that tie, not of every candidate."""
    g = cand.goals.G[:, i]
    const = _constant_part(game, rules, info, cand, "myopic", i)
    return (cand.scaled()[rows] @ g + const) / game.scale


def candidate_values(game: Game, rules: Rules, info: StateInfo, cand: Candidates, t_next: int, lens: str,
                     i: int, exact_values=None) -> np.ndarray:
    """(O,) player i's lens value of each candidate's successor state at turn t_next, under a closed-form lens
    or the exact one (the learned lens's search is learned_search.py's)."""
    if lens == "exact":
        if exact_values is None:
            raise ValueError("the exact lens needs the exact solution of the game")
        return exact_values(t_next, cand.child_masks(game, info.bits))[:, i]
    if t_next >= game.T:
        lens = "myopic"  # every lens is the realised payoff at the end of the game
    lens = effective_lens(game, rules, lens)
    if game.issues is not None and lens != "myopic":
        return _issue_values(game, rules, info, cand, lens, i, game.G[:, i])
    g = cand.goals.G[:, i]
    const = _constant_part(game, rules, info, cand, lens, i)
    if lens == "myopic":
        return (cand.scaled() @ g + const) / game.scale
    owing = owing_after(game, info, cand, i) if lens == "lower" else None
    return lens_core(cand.goals, rules, lens, cand.counts, cand.lost, g, owing, const, memo=cand.memo)


def candidate_values_as(game: Game, rules: Rules, info: StateInfo, cand: Candidates, t_next: int, lens: str, i: int,
                        values: np.ndarray) -> np.ndarray:
    """(K, O) player i's closed-form lens value of each candidate's successor, were its goal values each
    row of `values` (K, J): a belief's particles (agents.beliefs).  With i's true values as the one row,
    `candidate_values` within rounding.  Other players enter only the lower lens (who would complete a
    harm), seen as `game` holds them."""
    if t_next >= game.T:
        lens = "myopic"
    lens = effective_lens(game, rules, lens)
    if game.issues is not None:
        return _issue_values(game, rules, info, cand, lens, i, values[:, None, :])
    J, rest = cand.goals.index, cand.rest.index
    owing = owing_after(game, info, cand, i) if lens == "lower" else None
    first, second, factor = lens_terms(cand.goals, rules, lens, cand.counts, cand.lost, values[:, None, J], owing,
                                       cand.memo)
    total = lens_sum(first.sum(axis=-1), None if second is None else second.sum(axis=-1), factor)
    if len(rest):
        whole = owing_all(game, info) if lens == "lower" else None
        own = None if whole is None else Owing(whole.own[i], whole.others[i], whole.others_owing[i],
                                               whole.others_hostile[i])
        f0, s0, _ = lens_terms(game.all_goals, rules, lens, info.counts, info.lost, values, own)
        const = lens_sum(f0[:, rest].sum(axis=-1), None if s0 is None else s0[:, rest].sum(axis=-1), factor)
        total = total + const[:, None]
    return total / game.scale


def _issue_values(game: Game, rules: Rules, info: StateInfo, cand: Candidates, lens: str, i: int, g: np.ndarray,
                  ) -> np.ndarray:
    """`candidate_values` on a game that declares its issues: every goal's arrays after each offer (an issue's
    value reads all of its options' goals, not only those the pair of players touches)."""
    counts, lost, owes = full_arrays(game, info, cand, owed=lens == "lower")
    if lens == "myopic":
        return (scaled_satisfaction(game.all_goals, counts) * g).sum(axis=-1) / game.scale
    return issue_lens(game, rules, lens, counts, lost, owes, g, i, _exits(game, info, cand, i))


def full_arrays(game: Game, info: StateInfo, cand: Candidates, owed: bool,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Every goal's counts and lost cells (O, J) after each offer, and (if `owed`) every player's cells still
    owed (O, N, J): what a value reading all goals needs, not only those the pair of players touches."""
    J, rows = cand.goals.index, len(cand)
    counts = np.repeat(info.counts[None], rows, axis=0)
    counts[:, J] = cand.counts
    lost = np.repeat(info.lost[None], rows, axis=0)
    lost[:, J] = cand.lost
    if not owed:
        return counts, lost, None
    owes = np.repeat(info.owes[None], rows, axis=0)
    if cand.owes_all is not None:
        owes[:, :, J] = cand.owes_all
    else:
        owes[:, cand.p, J], owes[:, cand.q, J] = cand.owes_p, cand.owes_q
    return counts, lost, owes


def _exits(game: Game, info: StateInfo, cand: Candidates, i: int) -> np.ndarray:
    """Player i's exit after each offer (issues.exit_state): taken by the offer, or blocked by a cell it commits
    that shares an exclusive set with it."""
    assert game.issues is not None
    x = int(game.issues.exit_cell[i])
    rows = len(cand)
    if x < 0:
        return np.zeros(rows, dtype=np.int8)
    committed = np.full(rows, bool(info.bits >> x & 1))
    blocked = np.full(rows, bool(info.blocked >> x & 1))
    rivals = exclusions(game).rivals.get(x, 0)
    owner, a = int(game.owner[x]), x - int(game.offset[game.owner[x]])
    for who, picked in ((cand.p, cand.ip),) + (((cand.q, cand.iq),) if cand.q != cand.p else ()):
        local = game.options[who].local[picked]
        if who == owner:
            committed |= ((local >> a) & 1).astype(bool)
        blocked |= (local & game.row(rivals, who)) != 0
    return issues.exit_state(game.issues, i, committed, blocked)


def choose(rules: Rules, v_p: np.ndarray, v_q: np.ndarray, n_cells: np.ndarray,
           realised: Callable[[np.ndarray], np.ndarray] | None = None) -> int:
    """Index of the proposer's offer: best own value among offers the partner accepts.

    Index 0 (the no-op) carries the rejection values and is always acceptable.  Paper rules break ties
    by the proposer's realised (myopic) payoff after the offer, `realised(rows)` (asked only for offers
    that tie, and None when the proposer's lens is myopic already), then fewer new cells, then the lowest index:
    an `upper` proposer counts every reachable positive goal as won, so without the first rule every
    offer ties with doing nothing and it never secures what it assumes."""
    r_p, r_q = v_p[0], v_q[0]
    if rules.offer_ties_last:
        # reference: scan in order, keep the LAST offer within 1e-10 of the running best
        acceptable = np.flatnonzero(rules.accepts(v_q, r_q))
        top = v_p[acceptable].max()
        best, b = 0, r_p
        for o in acceptable[v_p[acceptable] >= top - 1e-6]:
            v = v_p[o]
            if v + REFERENCE_SLACK < b:
                continue
            best, b = int(o), v
        return best
    ok = rules.accepts(v_q, r_q) & (v_p >= r_p - VALUE_TIE)
    top = v_p[ok].max()
    near = np.flatnonzero(ok & (v_p >= top - VALUE_TIE))
    if len(near) > 1 and realised is not None:
        r = realised(near)
        near = near[r >= r.max() - VALUE_TIE]
    return int(near[np.argmin(n_cells[near])])
