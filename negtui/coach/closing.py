"""The debrief's slow numbers, worked out once by whoever owns a shared game (a table): the welfare
optimum and, for each seat a person played, the counterfactual games with a lens bot in that seat.

The counterfactual games replay the whole game three times per seat.  Worked out once by the table,
they reach each seat's app as `debrief` lines and the results kept beside the record, instead of every
app and the results each playing the same games again at the moment a whole table finishes at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from negtui.engine.completions import small_enough, utilitarian_optimum
from negtui.engine.negotiation import Negotiation

WELFARE_SECONDS = 30.0  # the MILP's limit for the end of a game; without an optimum by then, none is shown


@dataclass
class Closing:
    welfare: tuple[float, list[float]] | None = None  # the optimum (sum of payoffs) and the payoffs there
    welfare_done: bool = False  # False: still to come; True with welfare None: not solved in time
    counterfactual: dict[str, dict[str, float]] = field(default_factory=dict)  # player -> lens -> the seat's payoff

    def line_for(self, player: str | None) -> dict[str, Any]:
        """What a client is told: a person their own seat's games, a watcher (None) every seat's."""
        line: dict[str, Any] = {"type": "debrief", "counterfactual": {
            pid: dict(games) for pid, games in self.counterfactual.items() if player is None or pid == player}}
        if self.welfare_done:
            line["welfare"] = None if self.welfare is None else {"optimum": self.welfare[0],
                                                                 "payoffs": list(self.welfare[1])}
        return line

    def take(self, line: dict[str, Any]) -> None:
        """A `debrief` line as a client receives it (one that is not is left out whole)."""
        try:
            games = {str(pid): {str(lens): float(v) for lens, v in dict(by_lens).items()}
                     for pid, by_lens in dict(line.get("counterfactual") or {}).items()}
            w = line.get("welfare")
            welfare = None if w is None else (float(w["optimum"]), [float(v) for v in w["payoffs"]])
        except (TypeError, ValueError, KeyError):
            return
        self.counterfactual.update(games)
        if "welfare" in line:
            self.welfare, self.welfare_done = welfare, True


def welfare_optimum(neg: Negotiation) -> tuple[float, list[float]] | None:
    """The utilitarian optimum and the payoffs there: enumerated on a small game, else the MILP (within
    WELFARE_SECONDS); None when it cannot be had or proven."""
    g = neg.game
    if small_enough(g):
        welfare, pay, _ = utilitarian_optimum(g)
        return float(welfare), [float(v) for v in pay]
    from negtui.welfare.options import WelfareOptions  # the solver only here, on a large game
    from negtui.welfare.solve import solve_welfare

    try:
        res = solve_welfare(g, neg.rules, options=WelfareOptions(objective="utilitarian",
                                                                      time_limit=WELFARE_SECONDS))
    except Exception:  # no solver, a failed solve: the debriefs go without the optimum
        return None
    if res.welfare is None or res.payoffs is None or not res.proven_optimal:  # a better one may exist
        return None
    return float(res.welfare), [float(v) for v in res.payoffs]
