"""Invariants of whole matches on generated games (both rule sets, every lens, every partner method),
and the No-Negotiation baselines against brute force.  Section numbers (§) are docs/reference.md's."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from negtui.agents import Seating
from negtui.engine import PAPER, REFERENCE, IllegalMove, Negotiation, State, TurnDriver, Valuation, no_negotiation
from negtui.generator import GeneratorParams, generate
from negtui.scenario import Scenario, parse_scenario
from negtui.seats import Seat

RULES = {"paper": PAPER, "reference": REFERENCE}
LENSES = ("myopic", "upper", "lower", "exact")
METHODS = ("mcts", "greedy", "random")
SEEDS = (0, 1, 2)


def generated(seed: int, rules: str, *, actions=(2, 1, 2), goals: int = 4, rounds: int = 2,
              exclusive: bool = False, unilateral: bool = True) -> Scenario:
    sc = generate(GeneratorParams(players=len(actions), actions=actions, goals=goals, factors=2, all_or_nothing=0.3,
                                  rounds=rounds, seed=seed, rules=rules))  # type: ignore[arg-type]
    if not exclusive and unilateral:
        return sc
    raw = sc.model_dump(mode="json")
    raw["protocol"]["unilateral"] = unilateral
    if exclusive:
        cells = [{"player": p.id, "action": a.id} for p in sc.players for a in p.actions]
        rng = np.random.default_rng(seed)
        raw["exclusive"] = [[cells[int(c)] for c in rng.choice(len(cells), size=k, replace=False)] for k in (2, 3)]
    return parse_scenario(raw)


def cells_of(sc: Scenario) -> list[tuple[str, str]]:
    return [(p.id, a.id) for p in sc.players for a in p.actions]


def owner_of(sc: Scenario) -> list[int]:
    return [i for i, p in enumerate(sc.players) for _ in p.actions]


def exclusive_masks(sc: Scenario) -> list[int]:
    index = {c: k for k, c in enumerate(cells_of(sc))}
    return [sum(1 << index[(r.player, r.action)] for r in grp) for grp in sc.exclusive]


def payoff_bound(sc: Scenario) -> np.ndarray:
    """|R_i| <= sum_j |G[j,i]|, read from the scenario itself."""
    return np.array([sum(abs(g.values.get(p.id, 0.0)) for g in sc.goals) for p in sc.players])


def seats_for(sc: Scenario, lenses: tuple[str, str] | list[tuple[str, str]], method: str, seed: int) -> list[Seat]:
    n = len(sc.players)
    per_seat = lenses if isinstance(lenses, list) else [lenses] * n
    return [Seat.lens(per_seat[i][0], per_seat[i][1], partner=method, sims=6, seed=seed * 10 + i)
            for i, p in enumerate(sc.players)]


def run(sc: Scenario, rules: str, lenses, method: str, seed: int) -> TurnDriver:
    neg = Negotiation.from_scenario(sc, RULES[rules])
    match = TurnDriver(neg, Seating(neg, seats_for(sc, lenses, method, seed)).agents)
    match.play()
    return match


def trace(match: TurnDriver) -> list[tuple]:
    return [(e.t, e.proposer, e.partner, e.offer.bits, e.accepted, e.after.t, e.after.bits) for e in match.events]


def check_invariants(sc: Scenario, rules: str, match: TurnDriver) -> dict[str, int]:
    neg = match.neg
    owner = owner_of(sc)
    budget = sc.protocol.budget
    excl = exclusive_masks(sc)
    bound = payoff_bound(sc) + 1e-9
    seen = {"noop": 0, "deal": 0, "rejected": 0}
    prev = State(0, 0)
    assert len(match.events) == neg.game.T
    for k, ev in enumerate(match.events):
        assert ev.t == k and ev.before == prev
        assert ev.proposer == neg.proposer(ev.before) == int(neg.game.schedule[k])
        assert ev.partner in neg.legal_partners(ev.before)
        assert (ev.offer.proposer, ev.offer.partner) == (ev.proposer, ev.partner)
        # commitments only grow, exactly by the accepted offer
        assert ev.after.t == ev.before.t + 1
        assert ev.after.bits & ev.before.bits == ev.before.bits
        assert ev.after.bits == (ev.before.bits | ev.offer.bits if ev.accepted else ev.before.bits)
        # offers are new cells of the proposer and the partner only, within the budget per player
        assert ev.offer.bits & ev.before.bits == 0
        new = [c for c in range(len(owner)) if ev.offer.bits >> c & 1]
        assert {owner[c] for c in new} <= {ev.proposer, ev.partner}
        for i in {ev.proposer, ev.partner}:
            assert sum(owner[c] == i for c in new) <= budget
        # exclusive sets are never broken
        for gm in excl:
            assert bin(ev.after.bits & gm).count("1") <= 1
        # payoffs are bounded and reported for the state after the turn
        assert np.all(np.abs(ev.payoffs) <= bound)
        np.testing.assert_allclose(ev.payoffs, neg.returns(ev.after))
        # no-ops: a rejection under paper rules, a (null) deal under reference rules
        if ev.offer.is_noop:
            seen["noop"] += 1
            assert ev.accepted is (rules == "reference")
            assert not ev.deal
        else:
            # an offer from the Eq. 1 search is one the partner accepts (and never worse than rejecting for p)
            assert ev.offer.value_partner >= ev.offer.reject_partner - 1e-9
            assert ev.offer.value_proposer >= ev.offer.reject_proposer - 1e-9
            assert ev.accepted
            seen["deal"] += 1
        seen["rejected"] += not ev.accepted
        prev = ev.after
    assert match.over and match.state == prev
    return seen


@pytest.mark.parametrize("rules", ["paper", "reference"])
@pytest.mark.parametrize("lens", LENSES)
def test_match_invariants(rules: str, lens: str) -> None:
    totals = {"noop": 0, "deal": 0, "rejected": 0}
    for seed in SEEDS:
        sc = generated(seed, rules)
        for method in METHODS:
            seen = check_invariants(sc, rules, run(sc, rules, (lens, lens), method, seed))
            for k, v in seen.items():
                totals[k] += v
    assert totals["deal"] > 0 and totals["noop"] > 0  # both branches were exercised
    if rules == "reference":
        assert totals["rejected"] == 0  # §3.4: the reference never registers a rejection


@pytest.mark.parametrize("rules", ["paper", "reference"])
def test_mixed_lenses_per_seat_and_role(rules: str) -> None:
    lenses = [("upper", "lower"), ("myopic", "exact"), ("lower", "upper")]
    for seed in SEEDS:
        sc = generated(seed, rules)
        for method in METHODS:
            check_invariants(sc, rules, run(sc, rules, lenses, method, seed))


@pytest.mark.parametrize("lens", LENSES)
def test_exclusive_sets_never_broken(lens: str) -> None:
    for seed in SEEDS:
        sc = generated(seed, "paper", actions=(2, 2, 2), exclusive=True)
        assert len(sc.exclusive) == 2
        for method in METHODS:
            check_invariants(sc, "paper", run(sc, "paper", (lens, lens), method, seed))
        if lens == "exact":  # the solver's equilibrium path respects them too
            neg = Negotiation.from_scenario(sc, PAPER)
            val = Valuation(neg)
            final = val.exact.path()[-1].mask
            assert all(bin(final & gm).count("1") <= 1 for gm in exclusive_masks(sc))


def test_reference_rules_refuse_exclusive_sets() -> None:
    sc = generated(0, "paper", exclusive=True)
    with pytest.raises(ValueError, match="exclusive"):
        Negotiation.from_scenario(sc, REFERENCE)


@pytest.mark.parametrize("rules", ["paper", "reference"])
@pytest.mark.parametrize("method", METHODS)
def test_identical_seeds_give_identical_matches(rules: str, method: str) -> None:
    for seed in SEEDS:
        for lens in LENSES:
            sc = generated(seed, rules)
            a = run(sc, rules, (lens, lens), method, seed)
            b = run(generated(seed, rules), rules, (lens, lens), method, seed)
            assert trace(a) == trace(b)
            np.testing.assert_array_equal(a.neg.returns(a.state), b.neg.returns(b.state))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("lens", LENSES)
def test_no_unilateral_scenario_never_picks_self(lens: str, method: str) -> None:
    picked_self_allowed = 0
    for seed in SEEDS:
        sc = generated(seed, "paper", unilateral=False)
        match = run(sc, "paper", (lens, lens), method, seed)
        check_invariants(sc, "paper", match)
        assert all(ev.partner != ev.proposer for ev in match.events)
        neg = match.neg
        val = Valuation(neg)
        for ev in match.events:
            assert ev.proposer not in neg.legal_partners(ev.before)
            with pytest.raises(IllegalMove):
                val.candidates(ev.before, ev.proposer)
            with pytest.raises(IllegalMove):
                neg.legal_offers(ev.before, ev.proposer)
        if lens == "exact":
            assert all(step.partner != step.proposer for step in val.exact.path())
        # control: with unilateral moves allowed the same bots do sometimes pick themselves
        free = run(generated(seed, "paper"), "paper", (lens, lens), method, seed)
        picked_self_allowed += sum(ev.partner == ev.proposer for ev in free.events)
    if method == "random":
        assert picked_self_allowed > 0


# --- No-Negotiation baselines ------------------------------------------------------------------------------

def exact_payoffs(sc: Scenario, committed: set[tuple[str, str]], linear: bool = False) -> list[Fraction]:
    out = [Fraction(0)] * len(sc.players)
    for g in sc.goals:
        c = sum((r.player, r.action) in committed for r in g.requires)
        d = len(g.requires)
        tau = g.threshold or d
        if linear:
            s = Fraction(c, d)
        elif g.kind == "all_or_nothing":
            s = Fraction(int(c >= tau))
        else:
            s = min(Fraction(1), Fraction(c, tau))
        for i, p in enumerate(sc.players):
            out[i] += Fraction(g.values.get(p.id, 0.0)).limit_denominator(10**6) * s
    return out


def respects(sc: Scenario, committed: set[tuple[str, str]]) -> bool:
    return all(sum((r.player, r.action) in committed for r in grp) <= 1 for grp in sc.exclusive)


def own_best(sc: Scenario, i: int) -> set[tuple[str, str]]:
    """argmax over the player's own cell sets with nobody else committing; ties: fewer cells, then enumeration
    order (absolute row ascending, action 0 most significant)."""
    p = sc.players[i]
    m = len(p.actions)
    best_key, best = None, None
    for r in range(m + 1):
        for sub in combinations(range(m), r):
            chosen = {(p.id, p.actions[a].id) for a in sub}
            if not respects(sc, chosen):
                continue
            row = tuple(int(a in sub) for a in range(m))
            key = (-exact_payoffs(sc, chosen)[i], r, row)
            if best_key is None or key < best_key:
                best_key, best = key, chosen
    return best


def committed_set(sc: Scenario, bits: int) -> set[tuple[str, str]]:
    return {c for k, c in enumerate(cells_of(sc)) if bits >> k & 1}


BASELINE_GAMES = [dict(actions=(3, 2, 3, 1), goals=8), dict(actions=(2, 2, 2), goals=5),
                  dict(actions=(4, 1, 2), goals=6)]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("kw", BASELINE_GAMES)
def test_paper_baseline_is_each_players_own_best(seed: int, kw: dict) -> None:
    sc = generated(seed, "paper", **kw)
    neg = Negotiation.from_scenario(sc, PAPER)
    base = no_negotiation(neg.game, PAPER)
    expected: set[tuple[str, str]] = set()
    for i in range(len(sc.players)):
        expected |= own_best(sc, i)
    assert committed_set(sc, base.bits) == expected
    np.testing.assert_allclose(base.payoffs, [float(x) for x in exact_payoffs(sc, expected)], atol=1e-9)


@pytest.mark.parametrize("seed", range(5))
def test_paper_baseline_with_exclusive_sets(seed: int) -> None:
    sc = generated(seed, "paper", actions=(3, 2, 3), goals=6, exclusive=True)
    neg = Negotiation.from_scenario(sc, PAPER)
    base = no_negotiation(neg.game, PAPER)
    got = committed_set(sc, base.bits)
    assert respects(sc, got)
    for i, p in enumerate(sc.players):
        mine = {c for c in got if c[0] == p.id}
        best = own_best(sc, i)
        assert mine <= best  # a player only ever loses cells to another player's clashing choice
        # and when its choice clashes with nobody else's, it is played whole
        others = set().union(*(own_best(sc, k) for k in range(len(sc.players)) if k != i))
        if respects(sc, best | others):
            assert mine == best
    np.testing.assert_allclose(base.payoffs, [float(x) for x in exact_payoffs(sc, got)], atol=1e-9)


def test_paper_baseline_uses_type_correct_goals() -> None:
    """An all-or-nothing goal needing both own cells, one of which also carries a harm: worth taking only
    whole (20 - 12). The linearised reference sees a = 10 - 12 < 0 and b = 10 > 0 and takes b alone."""
    sc = parse_scenario({
        "name": "aon",
        "players": [{"id": "P", "actions": [{"id": "a"}, {"id": "b"}]}, {"id": "Q", "actions": [{"id": "a"}]}],
        "goals": [
            {"id": "g", "kind": "all_or_nothing",
             "requires": [{"player": "P", "action": "a"}, {"player": "P", "action": "b"}],
             "values": {"P": 20}},
            {"id": "h", "requires": [{"player": "P", "action": "a"}], "values": {"P": -12}},
        ],
    })
    paper = no_negotiation(Negotiation.from_scenario(sc, PAPER).game, PAPER)
    assert paper.bits == 0b011 and paper.payoffs[0] == pytest.approx(8)
    ref = no_negotiation(Negotiation.from_scenario(sc, REFERENCE).game, REFERENCE)
    assert ref.bits == 0b010 and ref.payoffs[0] == pytest.approx(10)  # linearised evaluation too


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kw", BASELINE_GAMES)
def test_reference_baseline_is_the_positive_marginal_rule(seed: int, kw: dict) -> None:
    """§6: P[i,a] = 1 iff sum_j G[j,i] M_j[i,a] / d_j > 0; payoffs evaluated with every goal linear."""
    sc = generated(seed, "reference", **kw)
    neg = Negotiation.from_scenario(sc, REFERENCE)
    base = no_negotiation(neg.game, REFERENCE)
    owner = owner_of(sc)
    checked = 0
    for k, (pid, aid) in enumerate(cells_of(sc)):
        terms = [Fraction(g.values.get(pid, 0.0)).limit_denominator(10**6) / len(g.requires)
                 for g in sc.goals if any((r.player, r.action) == (pid, aid) for r in g.requires)]
        c = sum(terms, Fraction(0))
        if c == 0 and any(terms):
            continue  # exact cancellation: the reference's float comparison decides (§6, "up to noise")
        assert bool(base.bits >> k & 1) == (c > 0), f"cell {pid}.{aid} (player {owner[k]}), c = {c}"
        checked += 1
    assert checked >= len(owner) - 1
    expected = exact_payoffs(sc, committed_set(sc, base.bits), linear=True)
    np.testing.assert_allclose(base.payoffs, [float(x) for x in expected], atol=1e-9)


@pytest.mark.parametrize("rules", ["paper", "reference"])
def test_the_myopic_forecast_is_the_payoff_now(rules: str) -> None:
    """Why the app shows one column for both: myopic evaluates a state as if the game ended in it."""
    rng = np.random.default_rng(5)
    for seed in range(6):
        sc = generate(GeneratorParams(players=4, actions=3, rounds=2, seed=seed, all_or_nothing=0.5,
                                            poison_pill=seed % 2 == 1))
        neg = Negotiation.from_scenario(sc, PAPER if rules == "paper" else REFERENCE)
        val = Valuation(neg)
        for _ in range(30):
            s = State(int(rng.integers(0, neg.game.T + 1)), int(rng.integers(0, 1 << neg.game.n_cells)))
            assert np.allclose(val.forecast(s, "myopic"), neg.returns(s))
