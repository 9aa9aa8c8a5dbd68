"""The No-Negotiation baseline: what each player does alone, with nobody else committing anything.

Paper rules: every player independently picks the own-cell set that maximises its own type-correct
payoff with everyone else at zero (ties: fewer cells, then enumeration order); the union is played.
Where two players' choices fall in one exclusive set, the lower-indexed player keeps its cell.
Reference rules: one pass over players on a shared, accumulating P, flipping each own action in turn
iff that strictly increases the player's linearised payoff (docs/reference.md §6).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from negtui.engine.game import Game
from negtui.engine.payoff import committed_vector, payoffs_from_counts
from negtui.engine.rules import VALUE_TIE, Rules

MAX_OWN_CELLS = 20


@dataclass(frozen=True)
class Baseline:
    bits: int
    payoffs: np.ndarray


def _counts(game: Game, bits: int) -> np.ndarray:
    return committed_vector(game, bits).astype(float) @ game.inc


def _own_best(game: Game, i: int) -> int:
    m, off = int(game.m[i]), int(game.offset[i])
    if m > MAX_OWN_CELLS:
        raise ValueError(f"player {game.player_ids[i]} has {m} actions; "
                         f"the baseline enumerates at most {MAX_OWN_CELLS}")
    subsets = [s for r in range(m + 1) for s in combinations(range(m), r)]
    subsets.sort(key=lambda s: (len(s), sum(1 << (m - 1 - a) for a in s)))
    rows = np.zeros((len(subsets), game.n_cells))
    for x, s in enumerate(subsets):
        rows[x, [off + a for a in s]] = 1.0
    ok = np.ones(len(subsets), dtype=bool)
    for cells in game.groups:
        ok &= rows[:, cells].sum(axis=1) <= 1
    value = payoffs_from_counts(game, rows @ game.inc)[:, i]
    value[~ok] = -np.inf
    best = int(np.flatnonzero(value >= value.max() - VALUE_TIE)[0])  # sorted by size first
    return sum(1 << (off + a) for a in subsets[best])


def _union_respecting_exclusions(game: Game, choices: list[int]) -> int:
    bits = 0
    for b in choices:
        for c in game.cells_of(b):
            clash = any(bits >> int(o) & 1 for g in game.cell_groups[c] for o in game.groups[g] if o != c)
            if not clash:
                bits |= 1 << c
    return bits


def _reference_pass(game: Game) -> int:
    bits = 0
    for i in range(game.n):
        current = payoffs_from_counts(game, _counts(game, bits), linear=True)[i]
        for a in range(int(game.m[i])):
            trial = bits | (1 << (int(game.offset[i]) + a))
            v = payoffs_from_counts(game, _counts(game, trial), linear=True)[i]
            if v > current:
                bits, current = trial, v
    return bits


def no_negotiation(game: Game, rules: Rules) -> Baseline:
    """Without negotiation nobody can commit where commitments need a partner's consent."""
    if not game.unilateral:
        return Baseline(0, payoffs_from_counts(game, np.zeros(game.n_goals), linear=rules.baseline_linear_accumulating))
    if rules.baseline_linear_accumulating:
        bits = _reference_pass(game)
        return Baseline(bits, payoffs_from_counts(game, _counts(game, bits), linear=True))
    bits = _union_respecting_exclusions(game, [_own_best(game, i) for i in range(game.n)])
    return Baseline(bits, payoffs_from_counts(game, _counts(game, bits)))
