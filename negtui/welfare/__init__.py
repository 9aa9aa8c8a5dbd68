"""Welfare benchmarks: MILP optima (PuLP; HiGHS in-process, CBC as fallback) over the completions of
any commitment state.  Depends on the engine; the engine never imports this package.

The options, results and the job that runs a solve in a worker process import no solver: only
`solve_welfare` (loaded on first use) does, so the app starts without PuLP."""

from typing import TYPE_CHECKING

from negtui.welfare.options import (
    OBJECTIVES,
    SOLVERS,
    WelfareError,
    WelfareOptions,
    WelfareResult,
    efficiency,
    welfare_of,
)
from negtui.welfare.worker import Cancelled, WelfareJob, WelfareRequest

if TYPE_CHECKING:
    from negtui.welfare.solve import solve_welfare

__all__ = [
    "OBJECTIVES", "SOLVERS", "Cancelled", "WelfareError", "WelfareJob", "WelfareOptions", "WelfareRequest",
    "WelfareResult", "efficiency", "solve_welfare", "welfare_of",
]


def __getattr__(name: str) -> object:
    if name == "solve_welfare":
        from negtui.welfare.solve import solve_welfare

        return solve_welfare
    raise AttributeError(name)
