"""Exact solver: backward induction over (turn, commitment mask), dense and vectorised (docs/design.md §4).

For every turn, from the last to the first, the value vector of every mask is computed at once from
the next turn's table: for each partner, all offers' children `mask | offer` are gathered together,
the partner's acceptance and the proposer's best choice are array reductions.  Only the chosen
partner and child are kept per (turn, mask), so the subgame-perfect path is rebuilt on demand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from negtui.engine.game import Game
from negtui.engine.payoff import payoffs_from_counts
from negtui.engine.rules import VALUE_TIE, Rules

MAX_CELLS = 24
DEFAULT_STATE_LIMIT = 40_000_000
_CHUNK_ELEMENTS = 4_000_000
_TERMINAL_CHUNK = 1 << 16  # masks whose terminal payoffs are computed at once
MEMORY_SHARE = 0.9  # of the memory available, what a solve may plan to use


class ExactTooLarge(ValueError):
    """The state space is beyond what the exact solver will attempt (or, `ExactUnsolvable`, a game it does not
    solve at all)."""


class ExactUnsolvable(ExactTooLarge):
    """A game the exact solver does not solve, whatever its size: one of simultaneous turns."""


NOT_SIMULTANEOUS = ("the exact solver does not solve simultaneous games (offers made at once in a turn have no one "
                    "answer by backward induction); use a lens, and compare outcomes by improvement and welfare "
                    "instead of the L1 error")
ONE_AT_A_TIME = ("the exact solver does not solve simultaneous games, even of one proposer a turn: every turn of this "
                 "game has one, so it is the sequential game move for move; solve it under the rules without "
                 "+simultaneous")


def not_simultaneous(game: Game) -> str:
    """Why the exact solver refuses a game of simultaneous turns; where every turn has one proposer
    (paper+simultaneous=1), that the same game without +simultaneous is the one to solve."""
    assert game.starts is not None
    one_each = all(int(b) - int(a) == 1 for a, b in zip(game.starts[:-1], game.starts[1:], strict=True))
    return ONE_AT_A_TIME if one_each else NOT_SIMULTANEOUS


@dataclass(frozen=True)
class PathStep:
    t: int
    proposer: int
    partner: int | None  # None: the proposer makes no deal
    bits: int  # new cells committed on this turn
    mask: int  # commitments after the turn


@dataclass
class ExactSolution:
    game: Game
    linearised: bool
    V: list[np.ndarray]  # V[t]: (2^S, N) subgame-perfect payoffs from (t, mask)
    partner: list[np.ndarray]  # [t]: (2^S,) chosen partner, -1 when no deal is made
    child: list[np.ndarray]  # [t]: (2^S,) mask after the turn
    states: int = field(default=0)

    def values_at(self, t: int, masks) -> np.ndarray:
        return self.V[min(t, len(self.V) - 1)][masks]

    @property
    def payoffs(self) -> np.ndarray:
        return self.V[0][0]

    def path(self, t: int = 0, mask: int = 0) -> list[PathStep]:
        steps = []
        for u in range(t, len(self.child)):
            q = int(self.partner[u][mask])
            nxt = int(self.child[u][mask])
            steps.append(PathStep(u, self.game.proposer(u), None if q < 0 else q, nxt & ~mask, nxt))
            mask = nxt
        return steps


def state_space(game: Game) -> int:
    return (game.T + 1) << game.n_cells


def memory_needed(game: Game) -> int:
    """Bytes a solve adds to the process: the value, partner and child tables of every turn, the
    per-turn working arrays and one chunk of gathered offers."""
    S, N, T = game.n_cells, game.n, game.T
    M = 1 << S
    tables = (T + 1) * M * N * 8 + T * M * (2 + 8)  # V, partner (int16), child (int64)
    per_turn = M * 8 * 10  # masks, feasibility, incumbents, the partner's and proposer's next values, gathers
    chunk = min(_CHUNK_ELEMENTS, M * max(1, max(len(o.bits) for o in game.options) ** 2)) * 72
    terminal = min(M, _TERMINAL_CHUNK) * (S + game.n_goals + N) * 8 * 2
    return tables + per_turn + chunk + terminal


def check_size(game: Game, limit: int = DEFAULT_STATE_LIMIT, memory: int | None = None) -> int:
    """Refuse (ExactTooLarge) a game past the state limit or the memory at hand, before any work;
    the bytes the solve is estimated to add otherwise.  `memory`: the bytes it may use (default: what
    is available now, memory.py)."""
    from negtui.engine import memory as mem

    if game.simultaneous:
        raise ExactUnsolvable(not_simultaneous(game))
    S, size = game.n_cells, state_space(game)
    if S > MAX_CELLS or size > limit:
        raise ExactTooLarge(
            f"exact solving needs {game.T + 1} turns x 2^{S} commitment masks = {size:,} states, "
            f"over the limit of {limit:,}; use a lens instead, or a smaller game"
        )
    need = memory_needed(game)
    room = int(mem.available() * MEMORY_SHARE) if memory is None else memory
    if need > room:
        raise ExactTooLarge(
            f"exact solving this game needs about {need / 2**30:z.2f} GiB of memory ({size:,} states) and "
            f"{room / 2**30:z.2f} GiB is available; use a lens instead, or a smaller game"
        )
    return need


def _joint_offers(game: Game, p: int, q: int) -> tuple[np.ndarray, np.ndarray]:
    """All offers of p to q ignoring the current state, in enumeration order: (bits, n_cells)."""
    op, oq = game.options[p], game.options[q]
    assert op.bits64 is not None and oq.bits64 is not None  # MAX_CELLS is far below 62
    if q == p:
        return op.bits64.copy(), op.size.copy()
    bits = (op.bits64[:, None] | oq.bits64[None, :]).ravel()
    size = (op.size[:, None] + oq.size[None, :]).ravel()
    return bits, size


def _terminal_values(game: Game, masks: np.ndarray, linearise: bool) -> np.ndarray:
    out = np.empty((len(masks), game.n))
    for lo in range(0, len(masks), _TERMINAL_CHUNK):  # in chunks: a mask-by-cell matrix of 2^24 rows is large
        X = ((masks[lo:lo + _TERMINAL_CHUNK, None] >> np.arange(game.n_cells)) & 1).astype(float)
        out[lo:lo + _TERMINAL_CHUNK] = payoffs_from_counts(game, X @ game.inc, linear=linearise)
    return out


def _exclusion_ok(game: Game, masks: np.ndarray) -> np.ndarray | None:
    if not game.groups:
        return None
    ok = np.ones(len(masks), dtype=bool)
    for cells in game.groups:
        n = np.zeros(len(masks), dtype=np.int64)
        for c in cells:
            n += (masks >> int(c)) & 1
        ok &= n <= 1
    return ok


def _period(schedule: np.ndarray) -> int:
    """The schedule's period (the proposers' order repeats every `period` turns), 0 if it has none."""
    T = len(schedule)
    for p in range(1, T // 2 + 1):
        if np.array_equal(schedule[p:], schedule[:-p]):
            return p
    return 0


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit (0.0 and -0.0 differ), so that reusing one for the other changes nothing."""
    return np.array_equal(a.view(np.uint64), b.view(np.uint64))


@dataclass
class _Incumbent:
    """Per mask, the best move of the turn's proposer found so far: its value, child, partner, size, and
    (under the realised-payoff tie rule) the proposer's payoff right after it."""

    val: np.ndarray
    child: np.ndarray
    q: np.ndarray
    cells: np.ndarray
    real: np.ndarray | None = None


def _best_moves(game: Game, rules: Rules, p: int, Vn: np.ndarray, masks: np.ndarray, ok: np.ndarray | None,
                realised: np.ndarray | None = None) -> _Incumbent:
    """The proposer's subgame-perfect move at every mask of one turn, given the next turn's values.
    `realised`: every mask's payoff to the proposer, for the realised-payoff tie rule."""
    vn_p = np.ascontiguousarray(Vn[:, p])
    inc = _Incumbent(vn_p.copy(), masks.copy(), np.full(len(masks), -1, dtype=np.int16),
                     np.zeros(len(masks), dtype=np.int64), None if realised is None else realised.copy())
    for q in range(game.n):
        if q == p and not game.unilateral:
            continue
        D, size = _joint_offers(game, p, q)
        vn_q = np.ascontiguousarray(Vn[:, q])
        chunk = max(1, _CHUNK_ELEMENTS // len(D))
        for lo in range(0, len(masks), chunk):
            _offer_chunk(rules, masks[lo:lo + chunk], lo, q, D, size, vn_p, vn_q, ok, inc, realised)
    return inc


def _offer_chunk(rules: Rules, mk: np.ndarray, lo: int, q: int, D: np.ndarray, size: np.ndarray, vn_p: np.ndarray,
                 vn_q: np.ndarray, ok: np.ndarray | None, inc: _Incumbent, realised: np.ndarray | None = None,
                 ) -> None:
    """Every offer of the proposer to q at the masks `mk` (from mask `lo` on): where one the partner
    accepts beats the incumbent under the tie rules, it becomes the incumbent.  The tie rules are the
    offer search's: equal values within VALUE_TIE go to the higher realised payoff (with `realised`),
    then to fewer new cells, then to the first offer."""
    kids = mk[:, None] | D[None, :]
    valid = (mk[:, None] & D[None, :]) == 0
    if ok is not None:
        valid &= ok[kids]
    acc = valid & rules.accepts(vn_q[kids], vn_q[mk][:, None])
    vp = np.where(acc, vn_p[kids], -np.inf)
    rows = np.arange(len(mk))
    hi = lo + len(mk)
    if rules.exact_reference_ties:
        o = np.argmax(vp, axis=1)
        best = vp[rows, o]
        better = best > inc.val[lo:hi]
    else:
        top = vp.max(axis=1)
        near = acc & (vp >= top[:, None] - VALUE_TIE)
        if realised is not None:
            rv = np.where(near, realised[kids], -np.inf)
            near &= rv >= rv.max(axis=1)[:, None] - VALUE_TIE
        key = np.where(near, size[None, :] * len(D) + np.arange(len(D))[None, :], np.iinfo(np.int64).max)
        o = np.argmin(key, axis=1)
        best = vp[rows, o]
        cur = inc.val[lo:hi]
        fewer = size[o] < inc.cells[lo:hi]
        if realised is not None and inc.real is not None:
            r_best, r_cur = realised[kids[rows, o]], inc.real[lo:hi]
            fewer = (r_best > r_cur + VALUE_TIE) | ((r_best >= r_cur - VALUE_TIE) & fewer)
        better = (best > cur + VALUE_TIE) | ((best >= cur - VALUE_TIE) & fewer)
    idx = np.flatnonzero(better)
    sel = idx + lo
    inc.val[sel] = best[idx]
    inc.child[sel] = kids[idx, o[idx]]
    inc.q[sel] = q
    inc.cells[sel] = size[o[idx]]
    if inc.real is not None and realised is not None:
        inc.real[sel] = realised[inc.child[sel]]


def solve(game: Game, rules: Rules, linearise: bool = False, limit: int = DEFAULT_STATE_LIMIT,
          progress: Callable[[int, int], None] | None = None, memory: int | None = None) -> ExactSolution:
    """Subgame-perfect values of every (turn, mask); `progress(done, total)` is called per turn.

    V[t] is a function of V[t+1] and the turn's proposer only; so once a turn's values equal those a
    whole schedule period later, every earlier turn repeats the turn a period later, and is shared
    instead of solved (in generated games the values settle one to three rounds before the end)."""
    check_size(game, limit, memory)
    S, T = game.n_cells, game.T
    masks = np.arange(1 << S, dtype=np.int64)
    ok = _exclusion_ok(game, masks)
    V: list[np.ndarray] = [np.empty(0)] * (T + 1)
    partner: list[np.ndarray] = [np.empty(0)] * T
    child: list[np.ndarray] = [np.empty(0)] * T
    V[T] = _terminal_values(game, masks, linearise)
    period = _period(game.schedule)
    # each proposer's payoff at every mask, for the realised-payoff tie rule: one copy per player, not per turn
    realised = [np.ascontiguousarray(V[T][:, p]) for p in range(game.n)] \
        if rules.exact_ties_realised and not rules.exact_reference_ties else None
    for t in range(T - 1, -1, -1):
        p = game.proposer(t)
        inc = _best_moves(game, rules, p, V[t + 1], masks, ok, None if realised is None else realised[p])
        V[t], partner[t], child[t] = V[t + 1][inc.child], inc.q, inc.child
        if period and t + period <= T and _same(V[t], V[t + period]):
            # more turns no longer change any value: every earlier turn repeats the one a period later
            for u in range(t - 1, -1, -1):
                V[u], partner[u], child[u] = V[u + period], partner[u + period], child[u + period]
            if progress is not None:
                progress(T, T)
            break
        if progress is not None:
            progress(T - t, T)
    return ExactSolution(game, linearise, V, partner, child, states=(T + 1) << S)
