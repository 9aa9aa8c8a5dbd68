"""Outcome metrics of the paper (docs/reference.md §9.3): sums, L1 error against the exact
solution, improvement over a baseline, and unilateral regret.  Section numbers (§) are docs/reference.md's."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from negtui.engine.game import Game
from negtui.engine.payoff import committed_vector, payoffs_from_counts, state_info
from negtui.engine.rules import Rules

IMPROVED = 1e-9


@dataclass(frozen=True)
class Improvement:
    per_player: list[float]
    sum: float
    min: float
    fraction_improved: float
    variance: float

    def as_dict(self) -> dict:
        return asdict(self)


def welfare_summary(payoffs: np.ndarray) -> dict[str, float | None]:
    """Sum, minimum, product of the positive parts and its log; the product is None where it overflows
    a float (many players with large payoffs), so results stay valid JSON."""
    pos = np.maximum(np.asarray(payoffs, dtype=float), 0.0)
    with np.errstate(over="ignore"):
        product = float(np.prod(pos))
    return {
        "sum": float(np.sum(payoffs)),
        "min": float(np.min(payoffs)),
        "product": product if np.isfinite(product) else None,
        "log_product": float(np.sum(np.log(pos + 1e-10))),
    }


def l1_error(payoffs: np.ndarray, exact: np.ndarray) -> float:
    """Σ_i |R_i − R*_i| against the exact solution."""
    return float(np.abs(np.asarray(payoffs) - np.asarray(exact)).sum())


def improvement(a: np.ndarray, b: np.ndarray) -> Improvement:
    """How outcome a improves on outcome b (e.g. a lens over the No-Negotiation baseline)."""
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    return Improvement(d.tolist(), float(d.sum()), float(d.min()), float(np.mean(d > IMPROVED)), float(d.var()))


def regret(game: Game, rules: Rules, bits: int) -> np.ndarray:
    """Per player, the summed gain of single-cell unilateral deviations from the final state.

    Paper rules: only commitments that can still be added (binding, exclusive sets respected), with
    type-correct goals.  Reference rules: toggle every own cell both ways, all goals linear (§5.2)."""
    linear = rules.regret_linear_toggle
    x = committed_vector(game, bits).astype(float)
    base = payoffs_from_counts(game, x @ game.inc, linear=linear)
    blocked = state_info(game, bits).blocked
    out = np.zeros(game.n)
    for c in range(game.n_cells):
        if not linear and (x[c] or blocked >> c & 1):
            continue
        i = int(game.owner[c])
        y = x.copy()
        y[c] = 1.0 - y[c]
        gain = payoffs_from_counts(game, y @ game.inc, linear=linear)[i] - base[i]
        out[i] += max(0.0, gain)
    return out
