"""Worked examples of docs/reference.md §12 (poison pill, lens table, enumeration order)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from negtui.agents import LensBot
from negtui.engine import PAPER, REFERENCE, Negotiation, State, TurnDriver, Valuation, get_rules, solve
from negtui.engine.metrics import improvement, l1_error, regret, welfare_summary
from negtui.scenario import load_scenario, parse_scenario
from tests.paths import PILL

RULES = {"paper": PAPER, "reference": REFERENCE}
# cells of the poison pill, player-major
A_BAIT, A_SIDE, B_BAIT, B_POISON = 0, 1, 2, 3


def poison_pill(schedule: list[str]):
    raw = json.loads(PILL.read_text())
    raw["protocol"]["schedule"] = schedule
    return parse_scenario(raw)


def bits(*cells: int) -> int:
    return sum(1 << c for c in cells)


def play(sc, rules, lens: str, partner_method: str = "mcts") -> TurnDriver:
    neg = Negotiation.from_scenario(sc, rules)
    val = Valuation(neg)
    seats = [LensBot(val, lens, lens, partner_method=partner_method) for p in sc.players]
    match = TurnDriver(neg, seats)
    match.play()
    return match


# --- §12.1 poison pill ----------------------------------------------------------------------------------

def test_poison_pill_file_is_the_worked_example() -> None:
    sc = load_scenario(PILL)
    neg = Negotiation.from_scenario(sc, REFERENCE)
    g = neg.game
    assert g.player_ids == ["A", "B"] and list(g.m) == [2, 2] and g.budget == 2 and g.T == 2
    assert [g.cell_name(c) for c in range(4)] == ["A.bait", "A.side", "B.bait", "B.poison"]
    np.testing.assert_array_equal(neg.returns(State(2, bits(A_BAIT, B_BAIT))), [30, 30])
    np.testing.assert_array_equal(neg.returns(State(2, bits(A_BAIT, B_BAIT, B_POISON))), [40, 7])


REFERENCE_AB = {"myopic": [40, 7], "upper": [30, 30], "lower": [40, 7], "exact": [30, 30]}
REFERENCE_BA = {"myopic": [30, 30], "upper": [30, 30], "lower": [40, 7], "exact": [30, 30]}
PAPER_AB = {"myopic": [40, 7], "upper": [30, 30], "lower": [40, 7], "exact": [30, 30]}


@pytest.mark.parametrize("partner_method", ["mcts", "greedy"])
@pytest.mark.parametrize("schedule, rules, expected", [
    (["A", "B"], "reference", REFERENCE_AB),
    (["B", "A"], "reference", REFERENCE_BA),
    (["A", "B"], "paper", PAPER_AB),
])
@pytest.mark.parametrize("lens", ["myopic", "upper", "lower", "exact"])
def test_poison_pill_outcomes(lens: str, schedule, rules: str, expected, partner_method: str) -> None:
    match = play(poison_pill(schedule), RULES[rules], lens, partner_method)
    np.testing.assert_allclose(match.neg.returns(match.state), expected[lens])


@pytest.mark.parametrize("lens, offer", [
    ("myopic", bits(A_BAIT, A_SIDE, B_BAIT, B_POISON)),  # (1,1|1,1): bait + poison + A's irrelevant action
    ("upper", bits(A_BAIT, A_SIDE, B_BAIT)),  # (1,1|1,0): the LAST acceptable offer among U_A ties
    ("lower", bits(A_BAIT, A_SIDE, B_BAIT, B_POISON)),
])
def test_poison_pill_reference_first_offer(lens: str, offer: int) -> None:
    match = play(poison_pill(["A", "B"]), REFERENCE, lens)
    first = match.events[0]
    assert (first.proposer, first.partner) == (0, 1)
    assert first.offer.bits == offer and first.accepted


def test_poison_pill_reference_upper_values() -> None:
    """U_B(reject) = 30; bait + poison gives U_B = 7 (rejected); U_A = 40 for every acceptable offer."""
    neg = Negotiation.from_scenario(poison_pill(["A", "B"]), REFERENCE)
    val = Valuation(neg)
    s = neg.initial_state()
    offer = val.best_offer(s, 1, "upper", "upper")
    assert offer.reject_partner == pytest.approx(30)
    assert offer.value_proposer == pytest.approx(40) and offer.value_partner == pytest.approx(30)
    pill = neg.offer(s, 1, [A_BAIT, B_BAIT, B_POISON])
    assert val.offer_value(s, pill, "upper", 1) == pytest.approx((7, 30))
    assert not val.accepts(s, pill, "upper")
    assert val.accepts(s, neg.offer(s, 1, [A_BAIT, B_BAIT]), "upper")


def test_poison_pill_reference_lower_counts_self_completable_harm() -> None:
    """lower_tighter: L_B(reject) = -23 (B's own poison counts as a credible threat), L_B(pill) = 7."""
    neg = Negotiation.from_scenario(poison_pill(["A", "B"]), REFERENCE)
    val = Valuation(neg)
    s = neg.initial_state()
    pill = neg.offer(s, 1, [A_BAIT, B_BAIT, B_POISON])
    assert val.offer_value(s, pill, "lower", 1) == pytest.approx((7, -23))
    # under paper rules only other players' outstanding cells make a threat: rejecting is worth 0
    neg_p = Negotiation.from_scenario(poison_pill(["A", "B"]), PAPER)
    val_p = Valuation(neg_p)
    pill_p = neg_p.offer(s, 1, [A_BAIT, B_BAIT, B_POISON])
    assert val_p.offer_value(s, pill_p, "lower", 1) == pytest.approx((7, 0))


def test_poison_pill_reference_ba_lower_commits_all_four_cells() -> None:
    match = play(poison_pill(["B", "A"]), REFERENCE, "lower")
    first = match.events[0]
    assert (first.proposer, first.partner) == (1, 0)
    assert first.offer.bits == bits(A_BAIT, A_SIDE, B_BAIT, B_POISON) and first.accepted


@pytest.mark.parametrize("rules", ["reference", "paper", "paper-exact_ties_realised"])
@pytest.mark.parametrize("linearise", [False, True])
def test_poison_pill_exact_solver_ab(rules: str, linearise: bool) -> None:
    """A's best acceptable offer, the bait alone, only ties with rejecting (B would offer it next turn):
    worth 30 to A either way.  The reference and fewer-cells tie rules reject, then B proposes the bait;
    the paper's realised-payoff rule takes the bait at once, as its offer search does (30 now against 0)."""
    r = get_rules(rules)
    neg = Negotiation.from_scenario(poison_pill(["A", "B"]), r)
    sol = solve(neg.game, r, linearise=linearise)
    np.testing.assert_allclose(sol.payoffs, [30, 30])
    first, second = sol.path()
    if rules == "paper":
        assert (first.proposer, first.partner, first.bits) == (0, 1, bits(A_BAIT, B_BAIT))
        assert (second.proposer, second.partner, second.bits) == (1, None, 0)
    else:
        assert (first.proposer, first.partner, first.bits) == (0, None, 0)
        assert (second.proposer, second.partner, second.bits) == (1, 0, bits(A_BAIT, B_BAIT))  # (1,0 | 1,0)


def test_poison_pill_exact_solver_ba() -> None:
    neg = Negotiation.from_scenario(poison_pill(["B", "A"]), REFERENCE)
    val = Valuation(neg)
    np.testing.assert_allclose(val.exact.payoffs, [30, 30])


def test_poison_pill_paper_myopic_bundle_and_rejection() -> None:
    """Paper rules: A's myopic offer is the pill without the irrelevant side action (fewer cells); the
    no-op on B's turn is recorded as a rejection."""
    match = play(poison_pill(["A", "B"]), PAPER, "myopic")
    first, second = match.events
    assert first.offer.bits == bits(A_BAIT, B_BAIT, B_POISON) and first.accepted
    assert second.offer.is_noop and not second.accepted


def test_poison_pill_reference_myopic_regret() -> None:
    """§5.2: the myopic outcome has regret [0, 23] (B would un-commit the poison)."""
    match = play(poison_pill(["A", "B"]), REFERENCE, "myopic")
    np.testing.assert_allclose(regret(match.neg.game, REFERENCE, match.state.bits), [0, 23])


def test_poison_pill_metrics() -> None:
    trap, fair = np.array([40.0, 7.0]), np.array([30.0, 30.0])
    assert l1_error(trap, fair) == pytest.approx(33)
    imp = improvement(fair, trap)
    assert imp.sum == pytest.approx(13) and imp.min == pytest.approx(-10) and imp.fraction_improved == 0.5
    assert welfare_summary(trap) == pytest.approx({"sum": 47, "min": 7, "product": 280,
                                                    "log_product": np.log(40) + np.log(7)})


def test_self_deal_illustration() -> None:
    """A -> A under the reference's reward lens: offer (1,1 | 0,0), value 15 (half the bait)."""
    neg = Negotiation.from_scenario(poison_pill(["A", "B"]), REFERENCE)
    val = Valuation(neg)
    offer = val.best_offer(neg.initial_state(), 0, "myopic", "myopic")
    assert offer.partner == 0 and offer.bits == bits(A_BAIT, A_SIDE)
    assert offer.value_proposer == pytest.approx(15)


# --- §12.2 lens values on a 3-player state ---------------------------------------------------------------

def lens_table_scenario(kind: str):
    return parse_scenario({
        "name": "lens-table",
        "players": [{"id": p, "actions": [{"id": "a"}]} for p in "XYZ"],
        "goals": [
            {"id": "g0", "kind": kind, "requires": [{"player": "Y", "action": "a"}, {"player": "Z", "action": "a"}],
             "values": {"X": -10, "Y": 5, "Z": 5}},
            {"id": "g1", "kind": kind, "requires": [{"player": "X", "action": "a"}, {"player": "Y", "action": "a"}],
             "values": {"X": 12}},
        ],
        "protocol": {"rounds": 2, "schedule": ["X", "Y", "Z", "X", "Y", "Z"]},
    })


# (P of X, Y, Z), kind, R, upper, lower_tighter  (reference columns of the table)
LENS_TABLE = [
    ((0, 0, 0), "linear", 0, 12, -10),
    ((0, 1, 0), "linear", 1, 7, -9),
    ((1, 1, 0), "linear", 7, 7, -3),
    ((0, 1, 1), "linear", -4, 2, -4),
    ((1, 1, 1), "linear", 2, 2, 2),
    ((0, 0, 0), "all_or_nothing", 0, 12, -10),
    ((0, 1, 0), "all_or_nothing", 0, 6, -10),
    ((1, 1, 0), "all_or_nothing", 12, 12, 2),
    ((0, 1, 1), "all_or_nothing", -10, -4, -10),
]


def state_of(row: tuple[int, int, int], t: int = 1) -> State:
    return State(t, sum(1 << c for c, x in enumerate(row) if x))


@pytest.mark.parametrize("row, kind, R, upper, lower", LENS_TABLE)
def test_lens_table_reference(row, kind: str, R: float, upper: float, lower: float) -> None:
    neg = Negotiation.from_scenario(lens_table_scenario(kind), REFERENCE)
    val = Valuation(neg)
    s = state_of(row)
    assert val.forecast(s, "myopic")[0] == pytest.approx(R)
    assert val.forecast(s, "upper")[0] == pytest.approx(upper)
    assert val.forecast(s, "lower")[0] == pytest.approx(lower)
    # terminal collapse: at t = T every lens is the payoff
    end = State(neg.game.T, s.bits)
    for lens in ("upper", "lower"):
        assert val.forecast(end, lens)[0] == pytest.approx(R)


@pytest.mark.parametrize("row, kind, lens, value", [
    ((0, 1, 0), "linear", "lower", -4),
    ((1, 1, 0), "linear", "lower", 2),
    ((0, 1, 0), "all_or_nothing", "upper", 12),
])
def test_lens_table_paper_style(row, kind: str, lens: str, value: float) -> None:
    neg = Negotiation.from_scenario(lens_table_scenario(kind), PAPER)
    val = Valuation(neg)
    assert val.forecast(state_of(row), lens)[0] == pytest.approx(value)


@pytest.mark.parametrize("rules", ["reference", "paper"])
def test_lens_table_values_seen_through_offers(rules: str) -> None:
    """The same lens values reach the offer search: X's lens value of the successor of every offer to Y
    equals the forecast at that successor state."""
    neg = Negotiation.from_scenario(lens_table_scenario("all_or_nothing"), RULES[rules])
    val = Valuation(neg)
    s = State(0, 0)
    cand = val.candidates(s, 1)
    for lens in ("myopic", "upper", "lower"):
        v = val.values(s, cand, lens, 0)
        for o in range(len(cand)):
            nxt = State(1, cand.bits(neg.game, o))
            assert v[o] == pytest.approx(val.forecast(nxt, lens)[0])


# --- §12.3 and §3.5 enumeration order -------------------------------------------------------------------

def row_of(neg: Negotiation, mask: int, i: int) -> tuple[int, ...]:
    g = neg.game
    off = int(g.offset[i])
    return tuple(mask >> (off + a) & 1 for a in range(int(g.m[i])))


def test_enumeration_order_with_committed_cell() -> None:
    sc = parse_scenario({
        "name": "enum",
        "players": [{"id": "P", "actions": [{"id": f"a{a}"} for a in range(4)]}, {"id": "Q", "actions": [{"id": "a"}]}],
        "goals": [{"id": "g", "requires": [{"player": "P", "action": "a0"}], "values": {"P": 1}}],
        "protocol": {"budget": 2, "schedule": ["P", "Q"]},
    })
    for rules in (REFERENCE, PAPER):
        neg = Negotiation.from_scenario(sc, rules)
        val = Valuation(neg)
        s = State(0, 1 << 1)  # row (0,1,0,0)
        cand = val.candidates(s, 0)
        rows = [row_of(neg, s.bits | cand.bits(neg.game, o), 0) for o in range(len(cand))]
        assert rows == [(0, 1, 0, 0), (0, 1, 0, 1), (0, 1, 1, 0), (0, 1, 1, 1), (1, 1, 0, 0), (1, 1, 0, 1),
                        (1, 1, 1, 0)]
        assert list(cand.n_cells) == [0, 1, 1, 2, 1, 2, 2]


def test_joint_enumeration_order() -> None:
    sc = parse_scenario({
        "name": "enum2",
        "players": [{"id": p, "actions": [{"id": "a0"}, {"id": "a1"}]} for p in "PQ"],
        "goals": [{"id": "g", "requires": [{"player": "P", "action": "a0"}], "values": {"P": 1}}],
        "protocol": {"budget": 2, "schedule": ["P", "Q"]},
    })
    neg = Negotiation.from_scenario(sc, REFERENCE)
    val = Valuation(neg)
    s = neg.initial_state()
    cand = val.candidates(s, 1)
    got = [(row_of(neg, cand.bits(neg.game, o), 0), row_of(neg, cand.bits(neg.game, o), 1)) for o in range(len(cand))]
    opts = [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert got == [(x, y) for x in opts for y in opts]
    assert got[:5] == [((0, 0), (0, 0)), ((0, 0), (0, 1)), ((0, 0), (1, 0)), ((0, 0), (1, 1)), ((0, 1), (0, 0))]
    # a unilateral move enumerates the proposer's own options only
    own = val.candidates(s, 0)
    assert [row_of(neg, own.bits(neg.game, o), 0) for o in range(len(own))] == opts
    assert all(row_of(neg, own.bits(neg.game, o), 1) == (0, 0) for o in range(len(own)))


def test_budget_one_enumeration() -> None:
    sc = parse_scenario({
        "name": "enum3",
        "players": [{"id": "P", "actions": [{"id": f"a{a}"} for a in range(3)]}],
        "goals": [{"id": "g", "requires": [{"player": "P", "action": "a0"}], "values": {"P": 1}}],
        "protocol": {"budget": 1, "schedule": ["P"]},
    })
    neg = Negotiation.from_scenario(sc, PAPER)
    val = Valuation(neg)
    cand = val.candidates(neg.initial_state(), 0)
    rows = [row_of(neg, cand.bits(neg.game, o), 0) for o in range(len(cand))]
    assert rows == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)]


def test_upper_judges_each_goal_alone_across_exclusive_sets() -> None:
    """The paper's upper lens counts every positive goal still reachable on its own, as the paper defines
    it: goals that exclude each other through an exclusive set are all counted (README, Rule sets).
    Buyer–seller: one price of eleven can be agreed, so at most 8 is reachable for either side, yet the
    upper forecast at the start is 8+7+…+1 = 36 for both; once a price is committed the others are ruled
    out goal by goal, and upper falls to that price's deal.  The exact solution is never above upper."""
    from tests.paths import SCENARIOS

    sc = load_scenario(SCENARIOS / "classic" / "buyer-seller.json")
    neg = Negotiation.from_scenario(sc, PAPER)  # the reference rule set knows no exclusive sets
    val = Valuation(neg)
    assert val.forecast(neg.initial_state(), "upper").tolist() == [36.0, 36.0]
    priced = State(1, neg.game.bits_of([["B", "pay15"]]))
    assert val.forecast(priced, "upper").tolist() == [3.0, 3.0]  # deal15 alone: 18 − 15 and 15 − 12
    both = State(1, neg.game.bits_of([["B", "pay15"], ["S", "deliver"]]))
    assert val.forecast(both, "upper").tolist() == [3.0, 3.0]  # the deal is done: nothing left to hope for
    exact = val.forecast(neg.initial_state(), "exact")
    assert all(e <= 8 for e in exact)  # what the game can give, far under the upper forecast
