"""Offer search (Eq. 1) and lenses against an independent reading of the specification.

Lenses: docs/design.md §2 (paper) and docs/reference.md §4 (reference); offer choice: docs/design.md §2
(paper) and docs/reference.md §3.4 (reference); bare section numbers below are docs/reference.md's.
Everything is recomputed here with exact fractions on tiny games (see tests/conftest.py), then compared
with `Negotiation.best_offer` / `forecast`.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from negtui.engine import PAPER, REFERENCE, Negotiation, State, Valuation
from negtui.scenario import parse_scenario

RULES = {"paper": PAPER, "reference": REFERENCE}
LENS_PAIRS = [(x, x) for x in ("myopic", "upper", "lower", "exact")] + [("upper", "lower"), ("myopic", "exact"),
                                                                        ("lower", "myopic")]


class SpecLenses:
    def __init__(self, toy, spec, rules: str):
        self.toy, self.spec, self.rules = toy, spec, rules
        self.exact = toy.BruteExact(spec, rules, False)
        self._reach: dict[tuple[int, int], bool] = {}

    def blocked(self, mask: int) -> int:
        out = 0
        for grp in self.spec.exclusive:
            if any(mask >> c & 1 for c in grp):
                out |= sum(1 << c for c in grp if not mask >> c & 1)
        return out

    def reachable(self, j: int, mask: int) -> bool:
        """Can goal j's threshold still be met by committing more cells without breaking exclusions?"""
        key = (j, mask)
        if key not in self._reach:
            g = self.spec.goals[j]
            free = [c for c in range(self.spec.S) if not mask >> c & 1]
            best = 0
            for r in range(len(free) + 1):
                for extra in combinations(free, r):
                    full = mask | sum(1 << c for c in extra)
                    if self.toy.consistent(self.spec, full):
                        best = max(best, sum(full >> c & 1 for c in g.cells))
            self._reach[key] = best >= g.threshold
        return self._reach[key]

    def value(self, lens: str, i: int, t: int, mask: int) -> Fraction:
        toy, spec = self.toy, self.spec
        if lens == "exact":
            return self.exact.value(t, mask)[0][i]
        R = toy.payoff(spec, mask)[i]
        if t >= spec.T or lens == "myopic":
            return R
        out = R
        for j, g in enumerate(spec.goals):
            v = g.values[i]
            c = sum(mask >> cell & 1 for cell in g.cells)
            s = toy.satisfaction(g, mask)
            if self.rules == "reference":
                if lens == "upper" and v > 0 and c < g.d:
                    out += v * (1 - Fraction(c, g.d))
                if lens == "lower" and v < 0 and c < g.d:
                    owing = {spec.owner(cell) for cell in g.cells if not mask >> cell & 1} - {i}
                    if all(g.values[k] >= 0 for k in owing):
                        out += v
                continue
            if lens == "upper" and v > 0 and self.reachable(j, mask):
                out += v * (1 - s)
            # two players, no unilateral moves: nothing is committed without the threatened player's consent
            consent_needed = not spec.unilateral and spec.n == 2
            if lens == "lower" and v < 0 and not consent_needed:
                assert not spec.exclusive, "the paper lower lens is only checked without exclusive sets"
                outstanding = [cell for cell in g.cells if not mask >> cell & 1 and spec.owner(cell) != i]
                owing = {spec.owner(cell) for cell in outstanding}
                if owing and all(g.values[k] >= 0 for k in owing):
                    s_hat = toy.satisfaction(g, mask | sum(1 << cell for cell in outstanding))
                    out += v * (s_hat - s)
        return out


def brute_offer(toy, lenses: SpecLenses, rules: str, s: State, p: int, q: int, lp: str, lq: str) -> int:
    offers = toy.joint_offers(lenses.spec, p, q, s.bits)
    assert offers[0] == 0
    vp = [lenses.value(lp, p, s.t + 1, s.bits | o) for o in offers]
    vq = [lenses.value(lq, q, s.t + 1, s.bits | o) for o in offers]
    if rules == "reference":  # §3.4: scan, keep the LAST acceptable offer within 1e-10 of the running best
        best, b = None, vp[0]
        for o, (a, c) in enumerate(zip(vp, vq)):
            if a + Fraction(1, 10**10) < b:
                continue
            if c >= vq[0]:
                best, b = o, a
        return offers[best]
    tie = toy.TIE
    ok = [o for o in range(len(offers)) if vq[o] >= vq[0] - tie and vp[o] >= vp[0] - tie]
    top = max(vp[o] for o in ok)
    near = [o for o in ok if vp[o] >= top - tie]
    # ties: the proposer's realised (myopic) payoff after the offer, then fewer new cells, then the index
    realised = {o: lenses.value("myopic", p, s.t + 1, s.bits | offers[o]) for o in near}
    near = [o for o in near if realised[o] >= max(realised.values()) - tie]
    return offers[min(near, key=lambda o: (toy.popcount(offers[o]), o))]


def sample_states(toy, spec, rng: np.random.Generator, k: int) -> list[State]:
    masks = toy.consistent_masks(spec)
    out = [State(0, 0)]
    for _ in range(k):
        out.append(State(int(rng.integers(spec.T)), int(rng.choice(masks))))
    return out


def check_offers(toy, spec, rules: str, rng: np.random.Generator, lens_pairs=LENS_PAIRS) -> int:
    neg = Negotiation.from_scenario(spec.scenario(), RULES[rules])
    val = Valuation(neg)
    lenses = SpecLenses(toy, spec, rules)
    deals = 0
    for s in sample_states(toy, spec, rng, 6):
        p = neg.proposer(s)
        assert p == spec.schedule[s.t]
        assert neg.legal_partners(s) == toy.partners(spec, p)
        for q in toy.partners(spec, p):
            cand = val.candidates(s, q)
            assert [cand.bits(neg.game, o) for o in range(len(cand))] == toy.joint_offers(spec, p, q, s.bits)
            for lp, lq in lens_pairs:
                if spec.exclusive and rules == "paper" and "lower" in (lp, lq):
                    continue
                want = brute_offer(toy, lenses, rules, s, p, q, lp, lq)
                got = val.best_offer(s, q, lp, lq)
                assert got.bits == want, f"{rules} {lp}/{lq} t={s.t} mask={s.bits:b} q={q} {spec!r}"
                assert got.value_proposer == pytest.approx(float(lenses.value(lp, p, s.t + 1, s.bits | want)), abs=1e-9)
                assert got.value_partner == pytest.approx(float(lenses.value(lq, q, s.t + 1, s.bits | want)), abs=1e-9)
                deals += want != 0
    return deals


@pytest.mark.parametrize("seed", range(8))
def test_reference_offer_search_matches_spec(toy, seed: int) -> None:
    rng = np.random.default_rng(3000 + seed)
    spec = toy.random_spec(rng, "reference", rounds=(2, 2))
    check_offers(toy, spec, "reference", rng)


@pytest.mark.parametrize("seed", range(8))
def test_paper_offer_search_matches_spec(toy, seed: int) -> None:
    rng = np.random.default_rng(4000 + seed)
    spec = toy.random_spec(rng, "paper", thresholds=True, rounds=(2, 2), allow_forbid_unilateral=True)
    check_offers(toy, spec, "paper", rng)


@pytest.mark.parametrize("seed", range(6))
def test_paper_offer_search_with_disjoint_exclusive_sets(toy, seed: int) -> None:
    rng = np.random.default_rng(5000 + seed)
    spec = toy.random_spec(rng, "paper", thresholds=True, rounds=(2, 2))
    cells = [int(c) for c in rng.permutation(spec.S)]
    groups = tuple(tuple(sorted(cells[k:k + 2])) for k in range(0, len(cells) - 1, 2))[:2]
    spec = toy.ToySpec(spec.m, spec.goals, groups, spec.schedule, spec.budget, spec.unilateral)
    check_offers(toy, spec, "paper", rng)


def test_offer_checks_are_not_vacuous(toy) -> None:
    deals = sum(check_offers(toy, toy.random_spec(np.random.default_rng(4000 + seed), "paper", thresholds=True,
                                                   rounds=(2, 2)), "paper", np.random.default_rng(seed),
                             [("myopic", "myopic")]) for seed in range(4))
    assert deals >= 4


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("rules", ["paper", "reference"])
def test_forecast_matches_spec(toy, rules: str, seed: int) -> None:
    rng = np.random.default_rng(6000 + seed)
    spec = toy.random_spec(rng, rules, thresholds=rules == "paper", players=(3, 3))
    neg = Negotiation.from_scenario(spec.scenario(), RULES[rules])
    val = Valuation(neg)
    lenses = SpecLenses(toy, spec, rules)
    for mask in toy.consistent_masks(spec):
        for t in (0, spec.T):
            s = State(t, mask)
            for lens in ("myopic", "upper", "lower", "exact"):
                want = [float(lenses.value(lens, i, t, mask)) for i in range(spec.n)]
                np.testing.assert_allclose(val.forecast(s, lens), want, atol=1e-9, err_msg=f"{lens} {s}")


@pytest.mark.parametrize("seed", range(10))
def test_successor_values_depend_only_on_the_successor_state(toy, seed: int) -> None:
    """A lens value is a function of (t, P): the offer search and `forecast` must agree on every successor,
    also with (possibly overlapping) exclusive sets."""
    rng = np.random.default_rng(7000 + seed)
    spec = toy.random_spec(rng, "paper", exclusions=True, thresholds=True, players=(3, 3), rounds=(2, 2))
    neg = Negotiation.from_scenario(spec.scenario(), PAPER)
    val = Valuation(neg)
    for s in sample_states(toy, spec, rng, 5):
        for q in neg.legal_partners(s):
            cand = val.candidates(s, q)
            for lens in ("myopic", "upper", "lower"):
                for i in {neg.proposer(s), q}:
                    v = val.values(s, cand, lens, i)
                    for o in range(len(cand)):
                        nxt = State(s.t + 1, s.bits | cand.bits(neg.game, o))
                        assert v[o] == pytest.approx(val.forecast(nxt, lens)[i], abs=1e-9), (
                            f"{lens} player {i} at {nxt} via offer {o} from {s}; {spec!r}")


@pytest.mark.parametrize("seed", range(10))
def test_paper_upper_knows_reachability_with_exclusive_sets(toy, seed: int) -> None:
    """docs/design.md §1/§2: upper adds only goals whose threshold can still be reached (exclusive sets may overlap)."""
    rng = np.random.default_rng(8000 + seed)
    spec = toy.random_spec(rng, "paper", exclusions=True, thresholds=True, players=(3, 3))
    neg = Negotiation.from_scenario(spec.scenario(), PAPER)
    val = Valuation(neg)
    lenses = SpecLenses(toy, spec, "paper")
    for mask in toy.consistent_masks(spec):
        want = [float(lenses.value("upper", i, 0, mask)) for i in range(spec.n)]
        np.testing.assert_allclose(val.forecast(State(0, mask), "upper"), want, atol=1e-9,
                                   err_msg=f"mask={mask:b} {spec!r}")


def three_singles(exclusive: list[str], goal: dict):
    from negtui.scenario import parse_scenario

    return parse_scenario({
        "name": "three-singles",
        "players": [{"id": p, "actions": [{"id": "a"}]} for p in "XYZ"],
        "goals": [goal],
        "exclusive": [[{"player": p, "action": "a"} for p in grp] for grp in exclusive],
        "protocol": {"schedule": ["Z", "X", "Y", "Z"]},
    })


def test_overlapping_exclusive_sets_do_not_double_count_lost_cells() -> None:
    """Sets {X.a, Y.a} and {Y.a, Z.a}: X.a and Z.a can both be committed, so a goal needing 2 of the three
    cells is reachable and upper adds its value (an earlier engine counted Y.a as lost twice)."""
    sc = three_singles(["XY", "YZ"], {"id": "g", "requires": [{"player": p, "action": "a"} for p in "XYZ"],
                                      "threshold": 2, "values": {"X": 10}})
    neg = Negotiation.from_scenario(sc, PAPER)
    val = Valuation(neg)
    np.testing.assert_allclose(val.forecast(State(0, 0), "upper"), [10, 0, 0])
    np.testing.assert_allclose(val.exact.payoffs, [10, 0, 0])
    # once Y.a is committed both other cells are blocked: 1 of 2 stays the best, upper adds nothing to R = 5
    np.testing.assert_allclose(val.forecast(State(0, 0b010), "upper"), [5, 0, 0])


def test_lower_credibility_ignores_cells_an_offer_blocks() -> None:
    """Z offers X a deal in which only Z commits; Z.a blocks X.a (exclusive). X was the only hostile
    contributor, so after the deal the harm is credible for Z (Y still owes and likes the goal): the offer
    search must see the same value as `forecast` of the successor state."""
    sc = three_singles(["XZ"], {"id": "g", "requires": [{"player": "X", "action": "a"}, {"player": "Y", "action": "a"}],
                                "threshold": 1, "values": {"X": -9, "Y": 8, "Z": -10}})
    neg = Negotiation.from_scenario(sc, PAPER)
    val = Valuation(neg)
    s = State(0, 0)
    offer = neg.offer(s, 0, [2])
    assert val.offer_value(s, offer, "lower", 2) == pytest.approx((-10, 0))
    assert val.forecast(State(1, 0b100), "lower")[2] == pytest.approx(-10)


def test_an_upper_proposer_secures_the_value_it_counts_on():
    """Worked example of the paper tie rule. A and B each own one action; goal g needs both and is worth
    10 to each. Under `upper` both count g as won whatever is offered, so the bundle and doing nothing tie;
    the realised payoff breaks the tie (10 against 0), so A offers the bundle and B accepts. Under the
    old rule (fewer cells first) A offered nothing and the game ended at 0 each. `reference` keeps its
    last-maximiser rule."""
    sc = parse_scenario({
        "name": "secure",
        "players": [{"id": "A", "actions": [{"id": "a"}]}, {"id": "B", "actions": [{"id": "b"}]}],
        "goals": [{"id": "g", "requires": [{"player": "A", "action": "a"}, {"player": "B", "action": "b"}],
                   "values": {"A": 10, "B": 10}}],
        "protocol": {"rounds": 1},
    })
    neg = Negotiation.from_scenario(sc, PAPER)
    val = Valuation(neg)
    s = neg.initial_state()
    offer = val.best_offer(s, 1, "upper", "upper")
    assert offer.bits == 0b11 and offer.value_proposer == pytest.approx(offer.reject_proposer)
    assert val.accepts(s, offer, "upper")
    after = neg.next_state(s, offer, True)
    assert list(neg.returns(after)) == [10.0, 10.0]
    assert Valuation(Negotiation.from_scenario(sc, REFERENCE)).best_offer(s, 1, "upper", "upper").bits == 0b11


def test_an_upper_proposer_still_refuses_negative_exposure():
    """The tie rule only orders offers of equal lens value: an offer that adds a harm to the proposer is
    worth less to its `upper` lens than doing nothing and stays refused; among the rest the realised
    payoff decides."""
    sc = parse_scenario({
        "name": "exposure",
        "players": [{"id": "A", "actions": [{"id": "a"}]}, {"id": "B", "actions": [{"id": "b"}]}],
        "goals": [{"id": "g", "requires": [{"player": "A", "action": "a"}, {"player": "B", "action": "b"}],
                   "values": {"A": 10, "B": 10}},
                  {"id": "h", "requires": [{"player": "B", "action": "b"}], "values": {"A": -1, "B": 0}}],
        "protocol": {"rounds": 1},
    })
    neg = Negotiation.from_scenario(sc, PAPER)
    val = Valuation(neg)
    offer = val.best_offer(neg.initial_state(), 1, "upper", "upper")
    # B's action would complete h (-1 to A): A secures half of g (linear, +5) with its own action alone
    assert offer.bits == 0b01 and offer.value_proposer == pytest.approx(10.0)


@pytest.mark.parametrize("disjoint", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_every_offers_exclusion_effects_equal_those_of_its_successor_state(toy, seed: int, disjoint: bool) -> None:
    """The offer search works out, for all offers at once, what each one's cells block and rule out (by set
    when the sets are disjoint, by class of committed set cells when they overlap); offer by offer it must
    equal what the successor state itself says."""
    from negtui.engine.payoff import state_info

    rng = np.random.default_rng(9100 + seed)
    spec = toy.random_spec(rng, "paper", thresholds=True, players=(3, 3), rounds=(2, 2))
    cells = [int(c) for c in rng.permutation(spec.S)]
    if disjoint:  # a partition of the cells into sets of two or three, as a scoresheet's issues are
        exclusive, k = [], 0
        while spec.S - k >= 2:
            size = min(int(rng.integers(2, 4)), spec.S - k)
            exclusive.append(tuple(sorted(cells[k:k + size])))
            k += size
    else:
        exclusive = [tuple(sorted(cells[:3])), tuple(sorted(cells[2:4])), tuple(sorted(cells[1:5:2]))]
    spec = toy.ToySpec(spec.m, spec.goals, tuple(exclusive), spec.schedule, spec.budget, spec.unilateral)
    neg = Negotiation.from_scenario(spec.scenario(), PAPER)
    val = Valuation(neg)
    checked = 0
    for s in sample_states(toy, spec, rng, 6):
        for q in neg.legal_partners(s):
            cand = val.candidates(s, q)
            if cand.owes_all is None:
                continue
            J = cand.goals.index
            for o in range(len(cand)):
                after = state_info(neg.game, s.bits | cand.bits(neg.game, o))
                np.testing.assert_array_equal(cand.lost[o], after.lost[J], err_msg=f"offer {o} from {s}; {spec!r}")
                np.testing.assert_array_equal(cand.owes_all[o], after.owes[:, J], err_msg=f"offer {o} from {s}")
                checked += 1
    assert checked > 10
