"""The welfare optima (docs/design.md §1, docs/reference.md §7.1) against a brute-force enumeration of
every feasible completion of a commitment state, written from the specification.

A completion of the fixed commitments `bits` is any commitment set P ⊇ bits with at most one committed
cell in every exclusive set.  Payoffs are computed here exactly (Fractions, via the `toy` helpers of
tests/conftest.py: linear s = min(1, c/τ), all-or-nothing s = 1[c ≥ τ], R_i = Σ_j G[j,i]·s_j), never by the
engine.  Objectives:
- utilitarian: max Σ y_i (optional floor y_i ≥ floor for every i);
- maximin: max min y_i (same optional floor);
- nash (d = 0) and nash-bargaining (d = No-Negotiation payoffs, or the current payoffs; plus y ≥ d):
  E = players whose best gain over the (IR) completions is ≥ δ; lexicographically maximise first the
  number of players of E with gain ≥ δ, then Σ log(gain) over them.
Several commitment sets can be optimal, so welfare values are compared, never the chosen bits.
"""

from __future__ import annotations

import math
import os
import time
from fractions import Fraction

import numpy as np
import pytest

from negtui.engine import PAPER, PortableGame, compile_game, no_negotiation
from negtui.generator import GeneratorParams, generate
from negtui.scenario import parse_scenario
from negtui.welfare import (
    OBJECTIVES,
    Cancelled,
    WelfareError,
    WelfareJob,
    WelfareOptions,
    WelfareRequest,
    solve_welfare,
)

DELTA = 1e-3
NASH_TOL = 1e-6  # WelfareOptions.tolerance (default)
SLACK = 1e-6
EXACT = 1e-7  # utilitarian / maximin: exact optima of rational payoffs (engine rounds payoffs to 1e-10)

HIGHS_SEEDS = range(25)
CBC_SEEDS = range(8)
CASES = [("highs", s) for s in HIGHS_SEEDS] + [("cbc", 100 + s) for s in CBC_SEEDS]


def nash_delta(seed: int) -> float:
    """δ: the default for most games, a large one (gains below it do not count) for every fifth."""
    return 1.5 if seed % 5 == 2 else DELTA


# --- random small games ---------------------------------------------------------------------------------

def make_spec(toy, seed: int):
    """2–4 players with 1–3 actions (≤ 9 cells), 2–5 goals mixing kinds and thresholds below |R_j|,
    integer values in [-10, 10] (every third game positive-dominated), exclusive sets (possibly
    overlapping) in every other game."""
    rng = np.random.default_rng(91_000 + seed)
    n = int(rng.integers(2, 5))
    while True:
        m = tuple(int(rng.integers(1, 4)) for _ in range(n))
        if sum(m) <= 9:
            break
    S = sum(m)
    positive = seed % 3 == 0
    goals = []
    for _ in range(int(rng.integers(2, 6))):
        size = int(rng.integers(1, min(S, 4) + 1))
        cells = tuple(sorted(int(c) for c in rng.choice(S, size=size, replace=False)))
        kind = "all_or_nothing" if rng.random() < 0.45 else "linear"
        tau = int(rng.integers(1, size)) if size > 1 and rng.random() < 0.5 else None
        lo = -3 if positive else -10
        values = tuple(int(v) if rng.random() < 0.85 else 0 for v in rng.integers(lo, 11, size=n))
        goals.append(toy.ToyGoal(cells, kind, tau, values))
    exclusive: list[tuple[int, ...]] = []
    if seed % 2 == 1 and S >= 2:
        for _ in range(int(rng.integers(1, 4))):
            k = int(rng.integers(2, min(S, 3) + 1))
            exclusive.append(tuple(sorted(int(c) for c in rng.choice(S, size=k, replace=False))))
    return toy.ToySpec(m, tuple(goals), tuple(exclusive), tuple(range(n)), 2, True), rng


def fixed_bits(toy, spec, rng: np.random.Generator, seed: int) -> int:
    """Commitments of a mid-game state: part of a random feasible commitment set (none for every
    fourth game, the state at the start)."""
    if seed % 4 == 0:
        return 0
    masks = toy.consistent_masks(spec)
    full = masks[int(rng.integers(len(masks)))]
    return sum(1 << c for c in range(spec.S) if full >> c & 1 and rng.random() < 0.6)


def game_of(spec):
    return compile_game(spec.scenario(), PAPER)


# --- the brute force --------------------------------------------------------------------------------------

def completions(toy, spec, bits: int) -> dict[int, tuple[Fraction, ...]]:
    """Every feasible completion of `bits`, with its exact payoffs."""
    return {mask: toy.payoff(spec, mask) for mask in range(1 << spec.S)
            if mask & bits == bits and toy.consistent(spec, mask)}


def brute_sum_min(comps, floor: float | None):
    """(max Σ y, max min y) over the completions with every y_i ≥ floor; None when there are none."""
    ok = [y for y in comps.values() if floor is None or all(v >= floor - 1e-9 for v in y)]
    if not ok:
        return None
    return max(sum(y) for y in ok), max(min(y) for y in ok)


def brute_nash(comps, base: np.ndarray, ir: bool, delta: float = DELTA):
    """None when no completion is individually rational, else (count, Σ log, eligible players)."""
    pays = {mk: np.array([float(v) for v in y]) for mk, y in comps.items()}
    if ir:
        pays = {mk: y for mk, y in pays.items() if np.all(y >= base - 1e-9)}
        if not pays:
            return None
    n = len(base)
    eligible = [i for i in range(n) if max(y[i] for y in pays.values()) - base[i] >= delta]
    best = (-1, -math.inf)
    for y in pays.values():
        counted = [i for i in eligible if y[i] - base[i] >= delta]
        value = sum(math.log(y[i] - base[i]) for i in counted)
        if (len(counted), value) > best:
            best = (len(counted), value)
    return best[0], best[1], eligible


# --- checks shared by every objective ------------------------------------------------------------------------

def check_commitments(toy, spec, bits: int, res) -> tuple[Fraction, ...]:
    """The returned commitments complete `bits` feasibly; the reported payoffs are theirs. Returns them."""
    assert res.bits is not None
    assert res.bits & bits == bits, f"fixed commitments dropped: {bits:b} -> {res.bits:b}"
    assert res.bits < 1 << spec.S
    assert toy.consistent(spec, res.bits), f"exclusive set broken by {res.bits:b}"
    exact = toy.payoff(spec, res.bits)
    np.testing.assert_allclose(res.payoffs, [float(v) for v in exact], atol=1e-9)
    return exact


def check_optimum(toy, spec, bits, res, objective: str, want: Fraction | None) -> None:
    if want is None:
        assert res.status == "infeasible", res
        assert res.proven_optimal
        assert res.bits is None and res.welfare is None
        assert res.message
        return
    assert res.status == "optimal" and res.proven_optimal, res
    y = check_commitments(toy, spec, bits, res)
    mine = sum(y) if objective == "utilitarian" else min(y)
    assert res.welfare == pytest.approx(float(mine), abs=1e-9)
    assert res.welfare == pytest.approx(float(want), abs=EXACT), (objective, res)


def check_nash(toy, spec, bits, res, base: np.ndarray, ir: bool, want, delta: float = DELTA) -> None:
    if want is None:
        assert res.status == "infeasible", res
        assert res.proven_optimal
        assert res.welfare is None
        assert res.message
        return
    count, value, eligible = want
    assert res.status == "optimal" and res.proven_optimal, res
    y = np.array([float(v) for v in check_commitments(toy, spec, bits, res)])
    gains = y - base
    if ir:
        assert np.all(gains >= -1e-9), (gains, res)
    assert set(res.included) <= set(eligible)
    assert all(gains[i] >= delta for i in res.included)
    # every player of E with a gain of at least δ is in the product
    assert sorted(res.included) == [i for i in eligible if gains[i] >= delta], res
    assert len(res.included) == count, (count, value, res)
    assert res.welfare == pytest.approx(sum(math.log(gains[i]) for i in res.included), abs=1e-9)
    assert value - NASH_TOL - SLACK <= res.welfare <= value + 1e-9, (value, res)
    # an upper bound of the optimum, up to the solver's precision (CBC reports values to ~8 digits)
    assert res.bound is not None and res.bound >= value - NASH_TOL, ("bound below the optimum", value, res)
    assert res.gap is not None and 0 <= res.gap <= NASH_TOL + 1e-12


# --- the random comparisons --------------------------------------------------------------------------------------

@pytest.mark.parametrize("solver,seed", CASES)
def test_utilitarian_and_maximin_match_brute_force(toy, solver: str, seed: int) -> None:
    spec, rng = make_spec(toy, seed)
    bits = fixed_bits(toy, spec, rng, seed)
    game = game_of(spec)
    comps = completions(toy, spec, bits)
    best_sum, best_min = brute_sum_min(comps, None)
    for objective, want in (("utilitarian", best_sum), ("maximin", best_min)):
        res = solve_welfare(game, PAPER, bits, WelfareOptions(objective=objective, solver=solver))
        check_optimum(toy, spec, bits, res, objective, want)
    # a floor every player can meet at once (the maximin value): the optimum under it
    floor = float(best_min)
    sum_floor, min_floor = brute_sum_min(comps, floor)
    assert min_floor == best_min
    res = solve_welfare(game, PAPER, bits, WelfareOptions(objective="utilitarian", solver=solver, floor=floor))
    check_optimum(toy, spec, bits, res, "utilitarian", sum_floor)
    assert min(res.payoffs) >= floor - 1e-7
    # a floor above the maximin value: reported infeasible, not raised
    for objective in ("utilitarian", "maximin"):
        res = solve_welfare(game, PAPER, bits,
                            WelfareOptions(objective=objective, solver=solver, floor=floor + 0.05))
        check_optimum(toy, spec, bits, res, objective, None)


@pytest.mark.parametrize("solver,seed", CASES)
def test_nash_matches_brute_force(toy, solver: str, seed: int) -> None:
    spec, rng = make_spec(toy, seed)
    bits = fixed_bits(toy, spec, rng, seed)
    game = game_of(spec)
    base = np.zeros(spec.n)
    delta = nash_delta(seed)
    want = brute_nash(completions(toy, spec, bits), base, ir=False, delta=delta)
    res = solve_welfare(game, PAPER, bits, WelfareOptions(objective="nash", solver=solver, delta=delta))
    assert res.disagreement is None
    check_nash(toy, spec, bits, res, base, False, want, delta)


@pytest.mark.parametrize("disagreement", ["baseline", "current"])
@pytest.mark.parametrize("solver,seed", CASES)
def test_nash_bargaining_matches_brute_force(toy, solver: str, seed: int, disagreement: str) -> None:
    spec, rng = make_spec(toy, seed)
    bits = fixed_bits(toy, spec, rng, seed)
    game = game_of(spec)
    if disagreement == "current":
        base = np.array([float(v) for v in toy.payoff(spec, bits)])
    else:
        base = np.asarray(no_negotiation(game, PAPER).payoffs, dtype=float)
    delta = nash_delta(seed)
    want = brute_nash(completions(toy, spec, bits), base, ir=True, delta=delta)
    if disagreement == "current":
        assert want is not None  # the state itself is a completion
    res = solve_welfare(game, PAPER, bits, WelfareOptions(objective="nash-bargaining", solver=solver,
                                                          disagreement=disagreement, delta=delta))
    assert res.disagreement == pytest.approx(list(base), abs=1e-9)
    check_nash(toy, spec, bits, res, base, True, want, delta)


def test_random_games_exercise_every_feature(toy) -> None:
    """The random games above are not degenerate: they have every feature the comparisons should cover."""
    seen = {k: 0 for k in ("threshold", "aon", "exclusive", "overlap", "fixed", "blocked", "positive_nash",
                           "nash_partial", "bargaining_infeasible", "bargaining_gain", "floor_binds", "n4", "m3",
                           "delta_matters")}
    for _, seed in CASES:
        spec, rng = make_spec(toy, seed)
        bits = fixed_bits(toy, spec, rng, seed)
        assert spec.S <= 9 and 2 <= spec.n <= 4 and 2 <= len(spec.goals) <= 5
        seen["n4"] += spec.n == 4
        seen["m3"] += 3 in spec.m
        seen["threshold"] += any(g.tau is not None and g.tau < g.d for g in spec.goals)
        seen["aon"] += any(g.kind == "all_or_nothing" and g.d > 1 for g in spec.goals)
        seen["exclusive"] += bool(spec.exclusive)
        cells = [c for grp in spec.exclusive for c in grp]
        seen["overlap"] += len(cells) > len(set(cells))
        seen["fixed"] += bits != 0
        comps = completions(toy, spec, bits)
        free = (1 << spec.S) - 1 & ~bits
        seen["blocked"] += any(not any(mk >> c & 1 for mk in comps) for c in range(spec.S) if free >> c & 1)
        count, _, eligible = brute_nash(comps, np.zeros(spec.n), ir=False)
        if nash_delta(seed) != DELTA:
            seen["delta_matters"] += brute_nash(comps, np.zeros(spec.n), False, nash_delta(seed))[:2] != \
                brute_nash(comps, np.zeros(spec.n), False)[:2]
        seen["positive_nash"] += count == spec.n
        seen["nash_partial"] += count < len(eligible)
        game = game_of(spec)
        base = np.asarray(no_negotiation(game, PAPER).payoffs, dtype=float)
        bargain = brute_nash(comps, base, ir=True)
        seen["bargaining_infeasible"] += bargain is None
        seen["bargaining_gain"] += bargain is not None and bargain[0] >= 2
        s, _ = brute_sum_min(comps, None)
        s_floor, _ = brute_sum_min(comps, float(brute_sum_min(comps, None)[1]))
        seen["floor_binds"] += s_floor < s
    assert all(v > 0 for v in seen.values()), seen


# --- known answers ----------------------------------------------------------------------------------------------

def scenario(players: dict[str, int], goals: list[dict], exclusive: list[list[str]] = ()) -> dict:
    def ref(s: str) -> dict:
        p, a = s.split(".")
        return {"player": p, "action": a}

    return {
        "format": "negtui-scenario/1", "name": "known",
        "players": [{"id": p, "actions": [{"id": f"a{k}"} for k in range(m)]} for p, m in players.items()],
        "goals": [{**g, "requires": [ref(r) for r in g["requires"]]} for g in goals],
        "exclusive": [[ref(r) for r in grp] for grp in exclusive],
    }


def known_game(data: dict):
    return compile_game(parse_scenario(data), PAPER)


def test_fixed_commitments_and_exclusions_are_respected() -> None:
    # A.a0 harms both; B.a0 helps both but is exclusive with A.a1
    data = scenario({"A": 2, "B": 1}, [
        {"id": "harm", "requires": ["A.a0"], "values": {"A": -5, "B": -5}},
        {"id": "help", "requires": ["B.a0"], "values": {"A": 3, "B": 3}},
        {"id": "tiny", "requires": ["A.a1"], "values": {"A": 1}},
    ], exclusive=[["A.a1", "B.a0"]])
    game = known_game(data)
    free = solve_welfare(game, PAPER, 0, WelfareOptions(objective="utilitarian"))
    assert free.welfare == pytest.approx(6.0) and free.bits == 0b100
    fixed = 0b011  # A.a0 (harm) and A.a1 (blocks B.a0) already committed
    res = solve_welfare(game, PAPER, fixed, WelfareOptions(objective="utilitarian"))
    assert res.status == "optimal" and res.bits == fixed
    assert res.payoffs == pytest.approx([-4.0, -5.0]) and res.welfare == pytest.approx(-9.0)


def test_thresholds_are_type_correct() -> None:
    # linear, threshold 2 of 3: s = min(1, c/2); all-or-nothing, threshold 2 of 3: s = 1[c ≥ 2]
    data = scenario({"A": 3}, [
        {"id": "lin", "kind": "linear", "threshold": 2, "requires": ["A.a0", "A.a1", "A.a2"], "values": {"A": 4}},
        {"id": "aon", "kind": "all_or_nothing", "threshold": 2, "requires": ["A.a0", "A.a1", "A.a2"],
         "values": {"A": 3}},
        {"id": "cost", "requires": ["A.a0", "A.a1", "A.a2"], "values": {"A": -3}},
    ])
    game = known_game(data)
    # c = 0: 0; c = 1: 2 − 1 = 1; c = 2: 4 + 3 − 2 = 5; c = 3: 4 + 3 − 3 = 4
    res = solve_welfare(game, PAPER, 0, WelfareOptions(objective="utilitarian"))
    assert res.welfare == pytest.approx(5.0) and bin(res.bits).count("1") == 2
    # from one committed cell the best is still two
    res = solve_welfare(game, PAPER, 0b001, WelfareOptions(objective="maximin"))
    assert res.welfare == pytest.approx(5.0) and res.bits & 1 and bin(res.bits).count("1") == 2


def test_nash_counts_the_most_players_that_can_gain_at_once() -> None:
    # A's two actions are exclusive: one helps A by 4, the other B by 2; both are eligible, one gains
    data = scenario({"A": 2, "B": 1}, [
        {"id": "forA", "requires": ["A.a0"], "values": {"A": 4}},
        {"id": "forB", "requires": ["A.a1"], "values": {"B": 2}},
        {"id": "hurt", "requires": ["B.a0"], "values": {"A": -1, "B": -1}},
    ], exclusive=[["A.a0", "A.a1"]])
    res = solve_welfare(known_game(data), PAPER, 0, WelfareOptions(objective="nash"))
    assert res.status == "optimal"
    assert res.included == [0] and res.bits == 0b001
    assert res.welfare == pytest.approx(math.log(4), abs=NASH_TOL + SLACK)
    assert "at most 1 at once" in res.message


def test_nash_bargaining_with_unreachable_disagreement_is_reported() -> None:
    # alone, A commits a0 (+2 to A); once A.a1 is committed a0 is blocked and A cannot get back to 2
    data = scenario({"A": 2, "B": 1}, [
        {"id": "own", "requires": ["A.a0"], "values": {"A": 2}},
        {"id": "deal", "kind": "all_or_nothing", "requires": ["A.a0", "B.a0"], "values": {"A": 1, "B": 1}},
    ], exclusive=[["A.a0", "A.a1"]])
    game = known_game(data)
    assert list(no_negotiation(game, PAPER).payoffs) == [2.0, 0.0]
    res = solve_welfare(game, PAPER, 0b010, WelfareOptions(objective="nash-bargaining"))
    assert res.status == "infeasible" and res.proven_optimal and res.welfare is None
    ok = solve_welfare(game, PAPER, 0, WelfareOptions(objective="nash-bargaining"))
    assert ok.status == "optimal" and ok.bits == 0b101 and ok.included == [0, 1]
    assert ok.welfare == pytest.approx(math.log(1) + math.log(1), abs=NASH_TOL + SLACK)


# --- errors -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("changes", [
    {"objective": "nsah"}, {"objective": "sum"}, {"solver": "gurobi"}, {"solver": "HiGHS"},
    {"disagreement": "zero"}, {"delta": 0.0},
])
def test_bad_options_raise_welfare_error(changes: dict) -> None:
    data = scenario({"A": 1}, [{"id": "g", "requires": ["A.a0"], "values": {"A": 1}}])
    with pytest.raises(WelfareError):
        solve_welfare(known_game(data), PAPER, 0, WelfareOptions(**changes))
    assert "sum" not in OBJECTIVES


# --- the worker process --------------------------------------------------------------------------------------

def test_worker_returns_the_in_process_result(toy) -> None:
    spec, rng = make_spec(toy, 7)
    bits = fixed_bits(toy, spec, rng, 7)
    opts = WelfareOptions(objective="nash")
    here = solve_welfare(game_of(spec), PAPER, bits, opts)
    job = WelfareJob(WelfareRequest(PortableGame(spec.scenario_dict(), PAPER.as_dict()), bits, opts))
    there = job.result(timeout=60)
    assert job.done()
    assert there.status == here.status == "optimal"
    assert there.welfare == pytest.approx(here.welfare, abs=1e-9)
    assert there.included == here.included
    assert there.payoffs == pytest.approx(here.payoffs, abs=1e-9)
    assert job.result() is there  # kept


def test_worker_reports_bad_options() -> None:
    data = scenario({"A": 1}, [{"id": "g", "requires": ["A.a0"], "values": {"A": 1}}])
    with pytest.raises(WelfareError, match="unknown objective"):
        WelfareJob(WelfareRequest(PortableGame(data, PAPER.as_dict()), 0, WelfareOptions(objective="nsah")))


def child_pids() -> set[int]:
    """Live child processes of this test process (Linux /proc), however the worker is started."""
    me, out = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    stat = fh.read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
            if int(fields[1]) == me and fields[0] != "Z":
                out.add(int(entry))
    return out


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


def solving(pid: int) -> bool:
    """The worker is at its solve: the HiGHS library is loaded only once the request is read and the solve
    begins."""
    try:
        with open(f"/proc/{pid}/maps") as fh:
            return "libhighs" in fh.read()
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc to find the worker process")
def test_cancel_stops_the_worker(wait_for) -> None:
    # 30 players, 90 goals: a Nash solve that takes far longer than the test waits
    sc = generate(GeneratorParams(players=30, actions=3, goals=90, seed=1))
    before = child_pids()
    job = WelfareJob(WelfareRequest(PortableGame(sc.model_dump(mode="json"), PAPER.as_dict()), 0,
                                    WelfareOptions(objective="nash", time_limit=None)))
    new = child_pids() - before
    assert len(new) == 1, new
    (pid,) = new
    wait_for(lambda: solving(pid) or job.done(), "the worker at its solve", timeout=60)
    with pytest.raises(TimeoutError):
        job.result(timeout=0.5)  # started, solving, not finished
    assert not job.done() and alive(pid)
    started = time.perf_counter()
    job.cancel()
    assert time.perf_counter() - started < 5.0
    with pytest.raises(Cancelled):
        job.result(timeout=1)
    wait_for(lambda: not alive(pid), f"the worker (pid {pid}) to be gone", timeout=5)
    assert job.done()


def test_job_runs_without_being_asked_for_its_result(wait_for) -> None:
    """A caller that only polls done() (the app's pattern) must see the solve finish."""
    data = scenario({"A": 1}, [{"id": "g", "requires": ["A.a0"], "values": {"A": 1}}])
    job = WelfareJob(WelfareRequest(PortableGame(data, PAPER.as_dict()), 0, WelfareOptions()))
    wait_for(job.done, "the job to finish without result() being called", timeout=30)
    assert job.result(timeout=0).welfare == 1.0


@pytest.mark.parametrize("seed", range(12))
def test_enumerating_the_completions_of_a_small_game_agrees_with_the_milp(toy, seed) -> None:
    """The debrief's in-process optimum (engine/completions.py) and the MILP find the same welfare."""
    from negtui.engine import Negotiation, State
    from negtui.engine.completions import utilitarian_optimum
    from negtui.welfare import WelfareOptions, solve_welfare

    rng = np.random.default_rng(900 + seed)
    spec = toy.random_spec(rng, "paper", exclusions=True, thresholds=True)
    neg = Negotiation.from_scenario(spec.scenario(), PAPER)
    for bits in {0, int(rng.choice(toy.consistent_masks(spec)))}:
        welfare, pay, chosen = utilitarian_optimum(neg.game, bits)
        res = solve_welfare(neg.game, PAPER, bits, WelfareOptions(objective="utilitarian"))
        assert res.welfare == pytest.approx(welfare, abs=1e-9)
        reached = neg.returns(State(0, chosen))
        assert chosen & bits == bits and float(reached.sum()) == pytest.approx(welfare)
        assert list(pay) == pytest.approx(list(reached))
