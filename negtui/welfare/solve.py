"""Welfare optima over the completions of a state: utilitarian, Nash, Nash bargaining, maximin.

Nash objectives maximise Σ log(y_i − d_i) by an outer approximation: w_i ≤ tangent cuts of log,
starting from a geometric grid; after each solve a cut is added at the returned payoffs, until
Σ w_i (an upper bound of the optimum) and the true Σ log of the returned commitments agree within the
tolerance.  Welfare values are always recomputed from the returned commitments by the engine, so they
are exact, not the solver's floating-point objective.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pulp

from negtui.engine.baseline import no_negotiation
from negtui.engine.game import Game
from negtui.engine.outcome import rounded
from negtui.engine.payoff import payoffs
from negtui.engine.rules import Rules
from negtui.welfare.model import WelfareModel, build_model, chosen_bits
from negtui.welfare.options import ZERO_WELFARE, WelfareError, WelfareOptions, WelfareResult


def make_solver(name: str, time_limit: float | None) -> pulp.LpSolver:
    if name == "highs":
        solver = pulp.HiGHS(msg=False, timeLimit=time_limit)
        if not solver.available():
            raise WelfareError("HiGHS is not available (install highspy); use --solver cbc")
        return solver
    with warnings.catch_warnings():
        # PuLP 3.x bundles CBC behind PULP_CBC_CMD and warns that 4.0 will not; we pin PuLP 3.x for it
        warnings.simplefilter("ignore", DeprecationWarning)
        solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=None if time_limit is None else max(1, math.ceil(time_limit)))
    if not solver.available():
        raise WelfareError("the CBC binary is not available; use --solver highs")
    return solver


class OutOfTime(Exception):
    """The time limit ran out before a solve that the result needs could start."""


class _Run:
    """One request: the deadline, solver choice and count of solves."""

    def __init__(self, opts: WelfareOptions):
        self.opts = opts
        self.started = time.perf_counter()
        self.solves = 0
        self.proven = True

    def remaining(self) -> float | None:
        if self.opts.time_limit is None:
            return None
        return max(0.05, self.opts.time_limit - (time.perf_counter() - self.started))

    def expired(self) -> bool:
        return self.opts.time_limit is not None and time.perf_counter() - self.started >= self.opts.time_limit

    def solve(self, prob: pulp.LpProblem) -> str:
        """'optimal', 'feasible' (time limit hit with a solution), 'infeasible' or 'no solution'; raises
        OutOfTime when the limit has already run out (every solve of a request counts against it)."""
        if self.expired():
            raise OutOfTime()
        self.solves += 1
        prob.solve(make_solver(self.opts.solver, self.remaining()))
        if prob.status == pulp.LpStatusInfeasible or prob.sol_status == pulp.LpSolutionInfeasible:
            return "infeasible"
        if prob.sol_status == pulp.LpSolutionOptimal:
            return "optimal"
        if prob.sol_status == pulp.LpSolutionIntegerFeasible:
            self.proven = False
            return "feasible"
        return "no solution"


def _finish(game: Game, model: WelfareModel, run: _Run, res: WelfareResult) -> WelfareResult:
    res.bits = chosen_bits(model)
    res.payoffs = rounded(payoffs(game, res.bits))
    return res


def _max_each(game: Game, bits: int, run: _Run, lower: np.ndarray | None) -> np.ndarray:
    """Per player, the largest payoff any completion gives (subject to y ≥ lower, if given)."""
    out = np.full(game.n, -np.inf)
    for i in range(game.n):
        model = build_model(game, bits, f"max_{i}")
        if lower is not None:
            for k in range(game.n):
                model.prob += model.y[k] >= float(lower[k]), f"ir_{k}"
        model.prob.setObjective(model.y[i])
        status = run.solve(model.prob)
        if status in ("optimal", "feasible"):
            out[i] = payoffs(game, chosen_bits(model))[i]
    return out


def _nash(game: Game, bits: int, run: _Run, base: np.ndarray, ir: bool, res: WelfareResult) -> WelfareResult:
    """Maximise Σ log(y_i − base_i) over the players that can gain at least δ.

    Where those players cannot all gain at once, the standard convention of maximum Nash welfare
    applies: first the most players with a gain of at least δ, then the largest product among them.
    Both are one MILP: binary p_i marks a counted player, t_i ∈ [δ, U_i] is its gain (t_i ≤ y_i − base_i
    when p_i = 1), w_i ≤ tangent cuts of log t_i and w_i ≤ log δ unless counted, and the objective
    Σ w_i + M·Σ p_i with M larger than any spread of Σ w_i."""
    best = _max_each(game, bits, run, base if ir else None)
    if ir and not np.all(np.isfinite(best)):
        res.status, res.proven_optimal = "infeasible", True
        res.message = "no completion gives every player at least its disagreement payoff"
        return res
    nash = _nash_model(game, bits, run.opts, base, ir, best, res.objective)
    if _refine(game, run, nash, base, res):
        _nash_verdict(res, run, len(nash.eligible))
    return res


@dataclass
class _NashModel:
    model: WelfareModel
    eligible: list[int]  # the players that can gain at least δ
    p: dict[int, pulp.LpVariable]  # counted in the product
    t: dict[int, pulp.LpVariable]  # gain
    w: dict[int, pulp.LpVariable]  # ≤ log of the gain
    cuts: int = 0

    def cut(self, i: int, b: float) -> None:
        """The tangent of log at b bounds w_i."""
        self.cuts += 1
        self.model.prob.addConstraint(self.w[i] <= math.log(b) + (self.t[i] - b) / b, f"cut_{self.cuts}")


def _nash_model(game: Game, bits: int, opts: WelfareOptions, base: np.ndarray, ir: bool, best: np.ndarray,
                name: str) -> _NashModel:
    """The MILP of `_nash`, with tangent cuts on a geometric grid of each gain."""
    eligible = [i for i in range(game.n) if best[i] - base[i] >= opts.delta]
    model = build_model(game, bits, name)
    prob = model.prob
    if ir:
        for k in range(game.n):
            prob += model.y[k] >= float(base[k]), f"ir_{k}"
    log_d = math.log(opts.delta)
    upper = {i: max(float(best[i] - base[i]), opts.delta * 1.0001) for i in eligible}
    lowest = {i: float(np.minimum(game.G[:, i], 0).sum() - base[i]) for i in eligible}
    p = {i: prob.add_variable(f"p_{i}", cat=pulp.LpBinary) for i in eligible}
    t = {i: prob.add_variable(f"t_{i}", opts.delta, upper[i]) for i in eligible}
    w = {i: prob.add_variable(f"w_{i}", upBound=math.log(upper[i])) for i in eligible}
    nash = _NashModel(model, eligible, p, t, w)
    for i in eligible:
        gain = model.y[i] - float(base[i])
        prob += t[i] <= gain + (upper[i] - lowest[i]) * (1 - p[i]), f"gain_{i}"
        prob += w[i] <= log_d + (math.log(upper[i]) - log_d) * p[i], f"counted_{i}"
        for b in np.geomspace(opts.delta, upper[i], 8):
            nash.cut(i, float(b))
    weight = 1.0 + sum(math.log(upper[i]) - log_d for i in eligible)
    prob.setObjective(pulp.lpSum(w.values()) + weight * pulp.lpSum(p.values()))
    return nash


def _refine(game: Game, run: _Run, nash: _NashModel, base: np.ndarray, res: WelfareResult) -> bool:
    """Solve, then cut at the gains found, until the bound Σ w and the true Σ log agree within the
    tolerance (or the rounds or the time run out).  False when a solve finds no solution."""
    opts = run.opts
    for _ in range(opts.max_rounds):
        status = run.solve(nash.model.prob)
        if status in ("infeasible", "no solution"):
            res.status, res.proven_optimal = status, status == "infeasible"
            if status == "infeasible":
                res.message = "no completion gives every player at least its disagreement payoff"
            return False
        _finish(game, nash.model, run, res)
        gains = np.array(res.payoffs) - base
        res.included = [i for i in nash.eligible if nash.p[i].value() > 0.5 and gains[i] >= opts.delta - 1e-9]
        res.welfare = float(np.sum(np.log(gains[res.included])))
        bound = float(sum(nash.w[i].value() for i in res.included))
        res.bound = bound if status == "optimal" else None
        res.gap = max(0.0, bound - res.welfare) if status == "optimal" else None
        if status != "optimal" or bound - res.welfare <= opts.tolerance or run.expired():
            break
        for i in res.included:
            nash.cut(i, float(gains[i]))
    return True


def _nash_verdict(res: WelfareResult, run: _Run, n_eligible: int) -> None:
    res.status = "optimal" if run.proven and res.gap is not None and res.gap <= run.opts.tolerance else "feasible"
    res.proven_optimal = res.status == "optimal"
    if not res.included:
        res.message = "no player can gain at least δ; every feasible completion is a solution"
    elif len(res.included) < n_eligible:
        res.message = (f"{n_eligible} players can each gain, at most {len(res.included)} at once: "
                       "the product runs over the largest such set")


def solve_welfare(game: Game, rules: Rules, bits: int = 0, options: WelfareOptions | None = None) -> WelfareResult:
    """The welfare optimum over every completion of the commitments `bits`."""
    opts = (options or WelfareOptions()).check()
    run = _Run(opts)
    res = WelfareResult(opts.objective, "no solution", False, solver=opts.solver)
    try:
        if opts.objective in ("nash", "nash-bargaining"):
            if opts.objective == "nash":
                base = np.zeros(game.n)
            elif opts.disagreement == "current":
                base = payoffs(game, bits)
            else:
                base = no_negotiation(game, rules).payoffs
            if opts.objective == "nash-bargaining":
                res.disagreement = rounded(base)
            _nash(game, bits, run, base, opts.objective == "nash-bargaining", res)
        else:
            model = build_model(game, bits, opts.objective)
            if opts.floor is not None:
                for i in range(game.n):
                    model.prob += model.y[i] >= opts.floor, f"floor_{i}"
            if opts.objective == "utilitarian":
                model.prob.setObjective(pulp.lpSum(model.y))
            else:
                m = model.prob.add_variable("min_payoff")
                for i in range(game.n):
                    model.prob += m <= model.y[i], f"min_{i}"
                model.prob.setObjective(m)
            res.status = run.solve(model.prob)
            res.proven_optimal = res.status in ("optimal", "infeasible")
            if res.status == "infeasible":
                res.message = f"no completion gives every player at least {opts.floor:g}" if opts.floor is not None \
                    else "the model is infeasible"
            elif res.status in ("optimal", "feasible"):
                _finish(game, model, run, res)
                y = np.array(res.payoffs)
                welfare = float(y.sum() if opts.objective == "utilitarian" else y.min())
                res.welfare = 0.0 if abs(welfare) < ZERO_WELFARE else welfare  # not -6.7e-16 of float noise
    except OutOfTime:
        res.proven_optimal = False
        if res.payoffs is not None:  # the Nash refinement ran out of time after a solution: keep it
            res.status = "feasible"
        else:
            res.status = "no solution"
            res.message = f"the time limit of {opts.time_limit:g} s ran out before a solution was found"
    finally:
        res.seconds = round(time.perf_counter() - run.started, 4)
        res.solves = run.solves
    if res.status == "no solution":
        res.message = res.message or "the solver found no solution within the time limit"
    return res
