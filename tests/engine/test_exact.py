"""The vectorised exact solver against a plain recursive brute force written from the specification
(docs/reference.md §5.1 for `reference` rules, docs/design.md §2 for `paper` rules; see `BruteExact` in
tests/conftest.py)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from negtui.agents import LensBot
from negtui.engine import PAPER, REFERENCE, ExactTooLarge, Negotiation, TurnDriver, Valuation, solve
from negtui.generator import GeneratorParams, generate
from negtui.scenario import parse_scenario
from tests.paths import PILL

RULES = {"paper": PAPER, "reference": REFERENCE}


def engine_path(sol) -> list[tuple[int | None, int]]:
    return [(step.partner, step.bits) for step in sol.path()]


def check_against_brute(toy, spec, rules: str, linear: bool) -> None:
    neg = Negotiation.from_scenario(spec.scenario(), RULES[rules])
    game = neg.game
    assert list(game.offset[:-1]) == [spec.offset(i) for i in range(spec.n)]  # same cell numbering
    sol = solve(game, RULES[rules], linearise=linear)
    brute = toy.BruteExact(spec, rules, linear)
    np.testing.assert_allclose(sol.payoffs, [float(x) for x in brute.payoffs], atol=1e-9, err_msg=repr(spec))
    assert engine_path(sol) == brute.path(), repr(spec)
    # every reachable-or-not consistent state, every turn
    masks = toy.consistent_masks(spec)
    for t in range(spec.T + 1):
        got = sol.values_at(t, np.array(masks))
        want = [[float(x) for x in brute.value(t, mk)[0]] for mk in masks]
        np.testing.assert_allclose(got, want, atol=1e-9, err_msg=f"t={t} {spec!r}")
    # and the path from a state off the equilibrium path
    mid = masks[len(masks) // 2]
    assert engine_path_from(sol, 1, mid) == brute.path(1, mid)


def engine_path_from(sol, t: int, mask: int) -> list[tuple[int | None, int]]:
    return [(step.partner, step.bits) for step in sol.path(t, mask)]


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("linear", [False, True])
def test_reference_exact_matches_brute_force(toy, seed: int, linear: bool) -> None:
    rng = np.random.default_rng(1000 + seed)
    spec = toy.random_spec(rng, "reference")
    check_against_brute(toy, spec, "reference", linear)


@pytest.mark.parametrize("seed", range(12))
def test_paper_exact_matches_brute_force(toy, seed: int) -> None:
    rng = np.random.default_rng(2000 + seed)
    spec = toy.random_spec(rng, "paper", exclusions=seed % 2 == 1, thresholds=seed % 3 != 0,
                           allow_forbid_unilateral=True)
    check_against_brute(toy, spec, "paper", False)


def test_paper_exact_with_exclusions_thresholds_and_no_unilateral(toy) -> None:
    """A hand-made game that exercises every paper feature at once."""
    G = toy.ToyGoal
    spec = toy.ToySpec(
        m=(2, 2, 1),
        goals=(
            G((0, 2, 4), "linear", 2, (6, -3, 4)),
            G((1, 3), "all_or_nothing", None, (-5, 8, 2)),
            G((0, 3, 4), "all_or_nothing", 2, (3, 3, -9)),
            G((1,), "linear", None, (2, -1, 0)),
        ),
        exclusive=((0, 1), (2, 4)),
        schedule=(0, 1, 2, 2, 1, 0),
        budget=2,
        unilateral=False,
    )
    check_against_brute(toy, spec, "paper", False)


@pytest.mark.parametrize("rules, expected", [
    # paper: equal value -> fewer new cells beats the lower partner index
    ("paper", [(2, 0b100)]),
    # reference: the first partner whose best offer is strictly better than rejecting keeps the turn
    ("reference", [(1, 0b011)]),
])
def test_exact_tie_order_fewer_cells_versus_lowest_partner(toy, rules: str, expected) -> None:
    """P0 gets 5 either from a 2-cell deal with P1 or a 1-cell deal with P2."""
    G = toy.ToyGoal
    spec = toy.ToySpec(
        m=(1, 1, 1),
        goals=(G((0, 1), "all_or_nothing", None, (5, 0, 0)), G((2,), "linear", None, (5, 0, 0))),
        exclusive=(), schedule=(0,), budget=2, unilateral=True,
    )
    assert toy.BruteExact(spec, rules).path() == expected
    check_against_brute(toy, spec, rules, False)


def test_brute_force_is_not_trivial(toy) -> None:
    """Guard against a vacuous comparison: the sampled games include deals and non-zero outcomes."""
    deals = nonzero = 0
    for seed in range(12):
        spec = toy.random_spec(np.random.default_rng(2000 + seed), "paper", exclusions=seed % 2 == 1,
                               thresholds=seed % 3 != 0, allow_forbid_unilateral=True)
        brute = toy.BruteExact(spec, "paper")
        deals += sum(q is not None for q, _ in brute.path())
        nonzero += any(x != 0 for x in brute.payoffs)
    assert deals >= 6 and nonzero >= 6


def test_exact_refuses_big_games_quickly() -> None:
    sc = generate(GeneratorParams(players=5, actions=5, goals=6, factors=2, seed=1, rounds=5))
    neg = Negotiation.from_scenario(sc, PAPER)
    val = Valuation(neg)
    start = time.perf_counter()
    with pytest.raises(ExactTooLarge, match="limit"):
        solve(neg.game, PAPER)
    with pytest.raises(ExactTooLarge):
        val.exact  # noqa: B018 — the lazy property refuses too
    assert time.perf_counter() - start < 1.0


def test_exact_refuses_by_state_limit() -> None:
    sc = generate(GeneratorParams(players=3, actions=2, goals=3, factors=2, seed=0, rounds=2))
    game = Negotiation.from_scenario(sc, PAPER).game
    with pytest.raises(ExactTooLarge):
        solve(game, PAPER, limit=10)
    assert solve(game, PAPER).payoffs.shape == (3,)


@pytest.mark.parametrize("rules", ["reference", "paper"])
@pytest.mark.parametrize("schedule", [["A", "B"], ["B", "A"]])
def test_exact_lens_bots_reach_the_solver_outcome_on_poison_pill(rules: str, schedule: list[str]) -> None:
    raw = json.loads(PILL.read_text())
    raw["protocol"]["schedule"] = schedule
    neg = Negotiation.from_scenario(parse_scenario(raw), RULES[rules])
    val = Valuation(neg)
    seats = [LensBot(val, "exact", "exact"), LensBot(val, "exact", "exact")]
    outcome = TurnDriver(neg, seats).play()
    np.testing.assert_allclose(outcome, val.exact.payoffs)
    np.testing.assert_allclose(outcome, [30, 30])


@pytest.mark.parametrize("seed", range(4))
def test_exact_greedy_proposer_realises_its_subgame_perfect_value(seed: int) -> None:
    """With the exact lens and greedy partner choice, each proposer's continuation value never drops."""
    sc = generate(GeneratorParams(players=3, actions=2, goals=4, factors=2, seed=seed, rounds=2))
    neg = Negotiation.from_scenario(sc, PAPER)
    val = Valuation(neg)
    seats = [LensBot(val, "exact", "exact", partner_method="greedy") for i in range(3)]
    match = TurnDriver(neg, seats)
    outcome = match.play()
    V = val.exact
    for ev in match.events:
        before = V.values_at(ev.before.t, ev.before.bits)
        after = V.values_at(ev.after.t, ev.after.bits)
        assert after[ev.proposer] == pytest.approx(before[ev.proposer], abs=1e-9)
    assert outcome[match.events[0].proposer] == pytest.approx(V.payoffs[match.events[0].proposer], abs=1e-9)


@pytest.mark.parametrize("rules", [PAPER, REFERENCE])
@pytest.mark.parametrize("payoff, structure, seed", [("balanced", "adversarial", 0), ("positive", "cooperative", 1),
                                                     ("negative", "adversarial", 2)])
def test_turns_a_period_apart_are_shared_only_when_solving_them_gives_the_same(monkeypatch, rules, payoff: str,
                                                                             structure: str, seed: int) -> None:
    """Once a turn's values equal the values a schedule period later, the earlier turns are copies:
    the shared solution is bit for bit the one solved turn by turn, and the sharing does happen."""
    from negtui.engine import exact

    sc = generate(GeneratorParams(players=8, actions=1, goals=10, factors=5, structure=structure, payoff=payoff,
                                  all_or_nothing=0.3, zipf=1.6, rounds=5, budget=2, seed=seed))
    game = Negotiation.from_scenario(sc, rules).game
    shared = solve(game, rules)
    monkeypatch.setattr(exact, "_period", lambda schedule: 0)
    full = solve(game, rules)
    T, P = game.T, game.n
    assert any(shared.V[t] is shared.V[t + P] for t in range(T - P)), "no turn was shared"
    assert not any(full.V[t] is full.V[t + P] for t in range(T - P))
    for t in range(T + 1):
        assert np.array_equal(shared.V[t].view(np.uint64), full.V[t].view(np.uint64)), t
    for t in range(T):
        assert np.array_equal(shared.partner[t], full.partner[t]) and np.array_equal(shared.child[t], full.child[t])
    assert shared.path(0, 0) == full.path(0, 0)


def test_a_schedule_without_a_period_is_solved_turn_by_turn() -> None:
    from negtui.engine.exact import _period

    assert _period(np.array([0, 1, 2, 0, 1, 2, 0])) == 3
    assert _period(np.array([0, 1, 1, 0])) == 0
    assert _period(np.array([1, 1])) == 1


@pytest.mark.parametrize("seed", range(6))
def test_without_the_realised_tie_rule_the_solver_breaks_ties_by_fewer_cells(toy, seed: int) -> None:
    """The variant `paper-exact_ties_realised` (the exact solver before it shared the offer search's tie
    rule) against the brute force without the realised-payoff step."""
    from negtui.engine import get_rules

    rules = get_rules("paper-exact_ties_realised")
    rng = np.random.default_rng(2000 + seed)
    spec = toy.random_spec(rng, "paper", exclusions=seed % 2 == 1, thresholds=seed % 3 != 0)
    sol = solve(Negotiation.from_scenario(spec.scenario(), rules).game, rules)
    brute = toy.BruteExact(spec, "paper", realised=False)
    np.testing.assert_allclose(sol.payoffs, [float(x) for x in brute.payoffs], atol=1e-9)
    assert engine_path(sol) == brute.path()
