"""A finished (or any) game's outcome in numbers: payoffs against the No-Negotiation baseline,
improvement, regret, and the exact solution where the game is small enough to solve quickly.

Plain data (lists, dicts, floats) so the command line, records and result tables share one shape."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from negtui.engine.baseline import no_negotiation
from negtui.engine.exact import ExactTooLarge, check_size
from negtui.engine.exact import solve as exact_solve
from negtui.engine.game import Game
from negtui.engine.metrics import improvement, l1_error, regret, welfare_summary
from negtui.engine.negotiation import Negotiation
from negtui.engine.payoff import payoffs
from negtui.engine.valuation import Valuation

AUTO_EXACT_LIMIT = 5_000_000  # state space under which an outcome is compared with the exact solution


def rounded(values: Sequence[float] | np.ndarray, digits: int = 10) -> list[float]:
    """Plain floats without float noise in the last digits."""
    return [round(float(v), digits) + 0.0 for v in values]


def rounded_summary(d: dict) -> dict:
    """Every number of a summary rounded as `rounded` rounds (lists of numbers too; None stays None)."""
    return {k: rounded(v) if isinstance(v, list) else round(float(v), 10) + 0.0 if isinstance(v, float | int)
            and not isinstance(v, bool) else v for k, v in d.items()}


def welfare(pay: np.ndarray) -> dict[str, float | None]:
    """The welfare summary of payoffs (sum, min, product, log product), rounded as `rounded` rounds."""
    return rounded_summary(welfare_summary(pay))


def commitments(game: Game, bits: int) -> list[list[int]]:
    """Per player, 0/1 per action."""
    return [[(bits >> (int(game.offset[i]) + a)) & 1 for a in range(int(game.m[i]))] for i in range(game.n)]


def outcome(neg: Negotiation, bits: int) -> dict:
    """Payoffs, commitments, welfare, the baseline, the improvement over it and unilateral regret."""
    pay = payoffs(neg.game, bits)
    base = no_negotiation(neg.game, neg.rules)
    return {
        "payoffs": rounded(pay),
        "commitments": commitments(neg.game, bits),
        "welfare": welfare(pay),
        "baseline": {"payoffs": rounded(base.payoffs), "commitments": commitments(neg.game, base.bits)},
        "improvement": rounded_summary(improvement(pay, base.payoffs).as_dict()),
        "regret": rounded(regret(neg.game, neg.rules, bits)),
    }


def exact_payoffs(val: Valuation, limit: int = AUTO_EXACT_LIMIT) -> np.ndarray | None:
    """The exact solution's payoffs when the game is small enough to solve quickly (linearised, as the
    reference's solver, under reference rules); None otherwise."""
    found = exact_outcome(val, limit)
    return None if found is None else found[0]


def exact_outcome(val: Valuation, limit: int = AUTO_EXACT_LIMIT) -> tuple[np.ndarray, np.ndarray] | None:
    """The exact solution's payoffs as its solver values them, and the true payoffs of the commitments its
    path ends with; the two differ under rules whose solver linearises every goal (the reference's), where
    the first is the figure the reference's L1 error is measured against.  None when the game is too large
    to solve quickly.  Type-correct solutions are kept by the valuation, which lens bots of the same game
    may already have solved."""
    try:
        check_size(val.game, limit)
    except ExactTooLarge:
        return None
    sol = val.exact if not val.rules.exact_linearised else exact_solve(val.game, val.rules, linearise=True)
    path = sol.path()
    true = payoffs(val.game, path[-1].mask if path else 0)
    return np.asarray(sol.payoffs, dtype=float), np.asarray(true, dtype=float)


def exact_comparison(val: Valuation, pay: Sequence[float], limit: int = AUTO_EXACT_LIMIT) -> dict | None:
    """The exact solution and the L1 error against it, when the game is small enough."""
    exact = exact_payoffs(val, limit)
    if exact is None:
        return None
    return {"payoffs": rounded(exact), "linearised": val.rules.exact_linearised,
            "l1_error": round(l1_error(np.asarray(pay, dtype=float), exact), 10)}
