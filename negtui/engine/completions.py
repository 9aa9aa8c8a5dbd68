"""The best completion of a small game by enumeration: the largest sum of payoffs over every set of
commitments that can still be added (exclusive sets respected).

The welfare package solves this (and more) as a MILP in a worker process; for a game of a few free
commitments enumerating is instant and needs neither a solver nor a process, which is what a
debrief after a small exercise wants.  Tests check the two agree."""

from __future__ import annotations

import numpy as np

from negtui.engine.game import Game
from negtui.engine.payoff import payoffs_from_counts, state_info

MAX_FREE_CELLS = 18  # 2^18 completions at most
_CHUNK = 1 << 14


def free_cells(game: Game, bits: int) -> list[int]:
    blocked = state_info(game, bits).blocked
    return [c for c in range(game.n_cells) if not (bits >> c & 1) and not (blocked >> c & 1)]


def small_enough(game: Game, bits: int = 0) -> bool:
    return len(free_cells(game, bits)) <= MAX_FREE_CELLS


def utilitarian_optimum(game: Game, bits: int = 0) -> tuple[float, np.ndarray, int]:
    """(largest sum of payoffs, the payoffs there, the commitments there) over the completions of `bits`;
    ties go to fewer added commitments, then the first found.  Only for small games (`small_enough`)."""
    free = free_cells(game, bits)
    if len(free) > MAX_FREE_CELLS:
        raise ValueError(f"{len(free)} free commitments: too many to enumerate (at most {MAX_FREE_CELLS})")
    base = np.array([(bits >> c) & 1 for c in range(game.n_cells)], dtype=float)
    best: tuple[float, np.ndarray, int] | None = None
    k = len(free)
    for lo in range(0, 1 << k, _CHUNK):
        subsets = np.arange(lo, min(1 << k, lo + _CHUNK), dtype=np.int64)
        add = ((subsets[:, None] >> np.arange(k)) & 1).astype(float)  # (M, k)
        x = np.repeat(base[None, :], len(subsets), axis=0)
        x[:, free] = add
        ok = np.ones(len(subsets), dtype=bool)
        for cells in game.groups:
            ok &= x[:, cells].sum(axis=1) <= 1
        pay = payoffs_from_counts(game, x @ game.inc)
        total = np.where(ok, pay.sum(axis=1), -np.inf)
        size = add.sum(axis=1)
        top = total.max()
        if best is not None and top < best[0] - 1e-9:
            continue
        near = np.flatnonzero(total >= top - 1e-9)
        i = near[np.argmin(size[near])]
        if best is None or top > best[0] + 1e-9:
            chosen = bits | sum(1 << free[j] for j in range(k) if subsets[i] >> j & 1)
            best = (float(top), pay[i], chosen)
    assert best is not None
    return best
