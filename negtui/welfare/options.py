"""What a welfare request asks and what it answers, and the welfare of any payoff vector: plain data,
so the app and the command line use them without importing the MILP solver."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

OBJECTIVES = ("utilitarian", "nash", "nash-bargaining", "maximin")
MEANING = {  # what each objective's welfare number is, in one line for people
    "utilitarian": "the largest sum of payoffs",
    "nash": "the largest product of payoffs (shown as Σ log) over the players who can gain, as many of them as "
            "possible first: efficient and fair at once",
    "nash-bargaining": "the largest product of each player's gain over what it has without a deal (shown as Σ log)",
    "maximin": "the best payoff the worst-off player can get",
}
SOLVERS = ("highs", "cbc")
# welfare this close to zero is zero: a sum of fractional payoffs carries float noise (6.7e-16 for a
# game whose best completion is worth nothing), and a ratio to it is noise too
ZERO_WELFARE = 1e-9


class WelfareError(ValueError):
    """A welfare request that cannot be run (unknown objective or solver)."""


@dataclass
class WelfareOptions:
    objective: str = "utilitarian"
    solver: str = "highs"
    time_limit: float | None = 60.0  # seconds for the whole request
    floor: float | None = None  # optional participation floor y_i ≥ floor (utilitarian, maximin)
    delta: float = 1e-3  # Nash: smallest payoff (or gain) counted positive
    tolerance: float = 1e-6  # Nash: stop when Σ w − Σ log y ≤ tolerance
    disagreement: str = "baseline"  # Nash bargaining: "baseline" (No-Negotiation) or "current" payoffs
    max_rounds: int = 60  # Nash: cut rounds

    def check(self) -> WelfareOptions:
        if self.objective not in OBJECTIVES:
            raise WelfareError(f"unknown objective {self.objective!r}; choose from {', '.join(OBJECTIVES)}")
        if self.solver not in SOLVERS:
            raise WelfareError(f"unknown solver {self.solver!r}; choose from {', '.join(SOLVERS)}")
        if self.disagreement not in ("baseline", "current"):
            raise WelfareError("the disagreement point is 'baseline' or 'current'")
        if not (math.isfinite(self.delta) and self.delta > 0):
            raise WelfareError("the Nash floor delta must be a positive number")
        if self.time_limit is not None and not (math.isfinite(self.time_limit) and self.time_limit > 0):
            raise WelfareError(f"the time limit must be a positive number of seconds, not {self.time_limit!r}")
        if self.floor is not None and not math.isfinite(self.floor):
            raise WelfareError(f"the floor must be a finite number, not {self.floor!r}")
        return self


@dataclass
class WelfareResult:
    objective: str
    status: str  # optimal | feasible | infeasible | no solution
    proven_optimal: bool
    bits: int | None = None
    payoffs: list[float] | None = None
    welfare: float | None = None  # Σ y, Σ log(y − d) over `included`, or min y
    bound: float | None = None  # Nash: Σ w, an upper bound of the optimum (when proven)
    gap: float | None = None  # Nash: bound − welfare
    included: list[int] = field(default_factory=list)  # players in the Nash product
    disagreement: list[float] | None = None
    solver: str = ""
    seconds: float = 0.0
    solves: int = 0
    message: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def welfare_of(objective: str, pay: Sequence[float] | np.ndarray, included: list[int],
               base: Sequence[float] | np.ndarray | None) -> float | None:
    """The objective's welfare of any payoff vector (None where a Nash log is undefined)."""
    pay = np.asarray(pay, dtype=float)
    if objective == "utilitarian":
        return float(pay.sum())
    if objective == "maximin":
        return float(pay.min())
    b = np.zeros(len(pay)) if base is None else np.asarray(base, dtype=float)
    gains = pay[included] - b[included]
    if np.any(gains <= 0):
        return None
    return float(np.sum(np.log(gains)))


def efficiency_words(objective: str, negotiated: float, optimum: float, n_included: int) -> str:
    """What `efficiency` divides, in words with both numbers: of Nash objectives the geometric mean of the
    payoffs (or of the gains over the disagreement point) of the players in the product, whose ratio it is."""
    if objective in ("nash", "nash-bargaining"):
        n = n_included
        if n == 0:
            return "no player can gain, so the product has nobody in it and any outcome is as good (100% by convention)"
        what = "payoff" if objective == "nash" else "gain over the disagreement point"
        return (f"the geometric mean {what} of the {n} player{'s' * (n != 1)} in the product, "
                f"{math.exp(negotiated / n):z.2f} negotiated ÷ {math.exp(optimum / n):z.2f} at the optimum")
    what = "the worst-off player's payoff" if objective == "maximin" else "the sum of payoffs"
    return f"{what}, {negotiated:z.2f} negotiated ÷ {optimum:z.2f} at the optimum"


def efficiency(objective: str, negotiated: float | None, optimum: float | None, n_included: int) -> float | None:
    """Negotiated ÷ optimal welfare; for Nash objectives the ratio of geometric means of the gains."""
    if negotiated is None or optimum is None:
        return None if objective not in ("nash", "nash-bargaining") or optimum is None else 0.0
    if objective in ("nash", "nash-bargaining"):
        return float(math.exp((negotiated - optimum) / max(n_included, 1)))
    if abs(optimum) < ZERO_WELFARE:
        return None
    return float(negotiated / optimum)
