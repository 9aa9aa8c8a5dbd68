"""Welfare benchmarks: MILP optima (PuLP; HiGHS in-process, CBC as fallback) over the completions of
any commitment state.  Depends on the engine; the engine never imports this package."""

from negtui.welfare.solve import (
    OBJECTIVES, SOLVERS, WelfareError, WelfareOptions, WelfareResult, efficiency, solve_welfare, welfare_of,
)
from negtui.welfare.worker import Cancelled, WelfareJob, WelfareRequest

__all__ = [
    "OBJECTIVES", "SOLVERS", "Cancelled", "WelfareError", "WelfareJob", "WelfareOptions", "WelfareRequest",
    "WelfareResult", "efficiency", "solve_welfare", "welfare_of",
]
