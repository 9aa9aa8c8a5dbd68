"""The public game API (OpenSpiel-shaped): decision points, legal moves against brute force, `apply`
refusing every kind of illegal offer by name, observations, and the turn driver around failing agents."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from negtui.engine import (
    PAPER,
    REFERENCE,
    TERMINAL_PLAYER,
    AgentFault,
    IllegalMove,
    Move,
    Negotiation,
    Offer,
    Phase,
    State,
    TurnDriver,
    Valuation,
    observation,
    observation_text,
)
from negtui.scenario import parse_scenario

RULES = {"paper": PAPER, "reference": REFERENCE}

# A: a0 a1 a2 (cells 0-2), B: b0 b1 (3-4), C: c0 (5); A.a1 and B.b0 exclude each other
TRIO = {
    "name": "trio",
    "players": [{"id": "A", "name": "Alpha", "actions": [{"id": "a0"}, {"id": "a1"}, {"id": "a2"}]},
                {"id": "B", "name": "Beta", "actions": [{"id": "b0", "label": "open the border"}, {"id": "b1"}]},
                {"id": "C", "actions": [{"id": "c0"}]}],
    "goals": [
        {"id": "g1", "label": "road", "requires": [{"player": "A", "action": "a1"}, {"player": "B", "action": "b1"}],
         "values": {"A": 4, "B": 6}},
        {"id": "g2", "kind": "all_or_nothing", "requires": [{"player": "A", "action": "a1"},
                                                            {"player": "B", "action": "b0"}],
         "values": {"A": 5, "C": -3}},
        {"id": "g3", "requires": [{"player": "C", "action": "c0"}, {"player": "A", "action": "a0"}],
         "values": {"C": 2, "A": 1}},
    ],
    "exclusive": [[{"player": "A", "action": "a1"}, {"player": "B", "action": "b0"}]],
    "protocol": {"schedule": ["A", "B", "C", "A", "B", "C"], "budget": 2},
}
A0, A1, A2, B0, B1, C0 = range(6)


def trio(unilateral: bool = True) -> Negotiation:
    data = json.loads(json.dumps(TRIO))
    data["protocol"]["unilateral"] = unilateral
    return Negotiation.from_scenario(parse_scenario(data), PAPER)


def bits(*cells: int) -> int:
    return sum(1 << c for c in cells)


# --- decision points -----------------------------------------------------------------------------------------

def test_a_turn_has_a_proposing_and_a_responding_decision_point():
    neg = trio()
    s = neg.initial_state()
    assert (neg.phase(s), neg.current_player(s)) == (Phase.PROPOSE, 0)
    offer = neg.offer(s, 1, [A0, B1])
    s1 = neg.apply(s, offer)
    assert (s1.t, s1.bits, s1.pending) == (0, 0, offer)
    assert (neg.phase(s1), neg.current_player(s1)) == (Phase.RESPOND, 1)
    accepted = neg.apply(s1, True)
    assert (accepted.t, accepted.bits, accepted.pending) == (1, bits(A0, B1), None)
    rejected = neg.apply(s1, False)
    assert (rejected.t, rejected.bits) == (1, 0)
    assert (neg.phase(accepted), neg.current_player(accepted)) == (Phase.PROPOSE, 1)


def test_a_pass_and_a_unilateral_commitment_need_no_answer():
    neg = trio()
    s = neg.initial_state()
    passed = neg.apply(s, neg.pass_offer(s))
    assert (passed.t, passed.bits, passed.pending) == (1, 0, None)
    alone = neg.apply(s, neg.offer(s, 0, [A0, A2]))
    assert (alone.t, alone.bits, alone.pending) == (1, bits(A0, A2), None)
    # the reference rules count an empty offer as a deal, but it changes nothing either way
    ref = Negotiation.from_scenario(parse_scenario({**TRIO, "exclusive": []}), REFERENCE)
    assert ref.apply(s, ref.pass_offer(s)) == State(1, 0)


def test_the_game_ends_with_no_one_to_move():
    neg = trio()
    s = State(neg.game.T, 0)
    assert neg.is_terminal(s) and neg.phase(s) is Phase.TERMINAL and neg.current_player(s) == TERMINAL_PLAYER
    with pytest.raises(IllegalMove) as err:
        neg.apply(s, neg.pass_offer(State(0, 0)))
    assert err.value.rule == "terminal"


# --- illegal moves, each named -------------------------------------------------------------------------------

@pytest.mark.parametrize("case, committed, action, rule, words", [
    ("budget", 0, Offer(0, 1, bits(A0, A1, A2)), "budget", "A would make 3 new commitments; the budget is 2"),
    ("committed", bits(A0), Offer(0, 1, bits(A0, B1)), "committed", "A.a0 is already committed"),
    ("ruled-out", bits(B0), Offer(0, 1, bits(A1, B1)), "exclusive", "A.a1 is ruled out by an exclusive set"),
    ("both-in-one-set", 0, Offer(0, 1, bits(A1, B0)), "exclusive", "A.a1 and B.b0 are in one exclusive set"),
    ("third-party", 0, Offer(0, 1, bits(A2, C0)), "third_party", "C.c0 belongs to neither A nor B"),
    ("not-your-turn", 0, Offer(1, 0, bits(B1)), "proposer", "turn 4 belongs to A, not to B"),  # State.t 3
    ("no-such-partner", 0, Offer(0, 7, bits(A2)), "partner", "no player number 7"),
    ("no-such-cell", 0, Offer(0, 1, 1 << 9), "unknown_cell", "the game has 6 commitments"),
    ("answer-instead-of-offer", 0, True, "phase", "the proposer moves with an offer"),
])
def test_apply_refuses_each_kind_of_illegal_offer_naming_the_rule(case, committed, action, rule, words):
    neg = trio()
    s = State(3, committed)  # A proposes
    with pytest.raises(IllegalMove) as err:
        neg.apply(s, action)
    assert err.value.rule == rule
    assert words in str(err.value)
    if isinstance(action, Offer):
        assert not neg.is_legal(s, action)


def test_a_unilateral_commitment_where_the_scenario_forbids_it():
    neg = trio(unilateral=False)
    s = neg.initial_state()
    with pytest.raises(IllegalMove) as err:
        neg.apply(s, Offer(0, 0, bits(A0)))
    assert err.value.rule == "partner" and "unilateral" in str(err.value)
    assert neg.is_legal(s, neg.pass_offer(s))  # passing is still allowed
    assert 0 not in neg.legal_partners(s)


def test_an_offer_while_an_answer_is_due():
    neg = trio()
    s = neg.apply(neg.initial_state(), neg.offer(neg.initial_state(), 1, [A0, B1]))
    with pytest.raises(IllegalMove) as err:
        neg.apply(s, neg.offer(State(0, 0), 1, [A2]))
    assert err.value.rule == "phase"


# --- legal offers against brute force ------------------------------------------------------------------------

def brute_legal(toy, spec, p: int, q: int, mask: int, x: int) -> bool:
    """The rules read off the specification: an empty offer is a pass; otherwise new cells of p and q only,
    none committed, at most `budget` per player, and every exclusive set keeps at most one cell."""
    if x == 0:
        return True
    if q == p and not spec.unilateral:
        return False
    if x & mask:
        return False
    for c in range(spec.S):
        if x >> c & 1 and spec.owner(c) not in (p, q):
            return False
    for i in {p, q}:
        if toy.popcount(x & spec.player_cells(i)) > spec.budget:
            return False
    return toy.consistent(spec, mask | x)


@pytest.mark.parametrize("rules", ["paper", "reference"])
@pytest.mark.parametrize("seed", range(12))
def test_legal_offers_equal_the_brute_force_set(toy, rules, seed):
    rng = np.random.default_rng(700 + seed)
    spec = toy.random_spec(rng, rules, exclusions=rules == "paper", thresholds=rules == "paper",
                           allow_forbid_unilateral=True, players=(2, 3))
    neg = Negotiation.from_scenario(spec.scenario(), RULES[rules])
    checked = 0
    for mask in toy.consistent_masks(spec):
        s = State(int(rng.integers(spec.T)), mask)
        p = neg.proposer(s)
        for q in range(spec.n):
            want = {x for r in range(spec.S + 1) for cells in combinations(range(spec.S), r)
                    if brute_legal(toy, spec, p, q, mask, x := sum(1 << c for c in cells))}
            for x in range(1 << spec.S):
                assert neg.is_legal(s, Offer(p, q, x)) == (x in want), (spec, mask, q, x)
            if q in neg.legal_partners(s):
                offers = neg.legal_offers(s, q)
                assert {o.bits for o in offers} == want
                assert [o.bits for o in offers] == toy.joint_offers(spec, p, q, mask)  # enumeration order
                assert offers[0].is_noop and all(o.proposer == p and o.partner == q for o in offers)
                assert [o.index for o in offers] == list(range(len(offers)))
                checked += 1
    assert checked


def test_an_offer_built_by_hand_is_valued_as_the_search_values_it():
    neg = trio()
    val = Valuation(neg)
    s = neg.initial_state()
    for q in neg.legal_partners(s):
        for o in neg.legal_offers(s, q):
            hand = neg.offer(s, q, list(o.cells))
            assert val.offer_index(s, hand) == o.index
            for lens in ("myopic", "upper", "lower"):
                assert val.offer_value(s, hand, lens, q) == val.offer_value(s, o, lens, q)


# --- observations --------------------------------------------------------------------------------------------

def test_observation_is_json_and_says_what_is_still_possible():
    neg = trio()
    s = neg.apply(State(1, bits(B0)), neg.offer(State(1, bits(B0)), 0, [B1]))  # B offers b1 to A
    obs = observation(neg, s, 0)
    text = json.dumps(obs, allow_nan=False)
    assert json.loads(text) == obs
    assert obs["phase"] == "respond" and obs["to_move"] == "A" and obs["proposer"] == "B" and obs["you"] == "A"
    assert obs["offer"] == {"proposer": "B", "partner": "A", "cells": [["B", "b1"]]}
    assert obs["budget"] == 2 and obs["turn"] == 1 and obs["turns"] == 6
    a_actions = {a["id"]: a for a in obs["players"][0]["actions"]}
    assert a_actions["a1"]["available"] is False and a_actions["a1"]["committed"] is False  # ruled out by b0
    assert obs["players"][1]["actions"][0]["committed"] is True
    goals = {g["id"]: g for g in obs["goals"]}
    assert goals["g2"]["reachable"] is False and goals["g1"]["reachable"] is False  # both need A.a1
    assert goals["g3"]["reachable"] is True and goals["g3"]["values"] == {"A": 1.0, "C": 2.0}
    assert obs["your_payoff"] == 0.0 and set(obs["your_forecasts"]) == {"myopic", "upper", "lower"}
    assert obs["exclusive"] == [[["A", "a1"], ["B", "b0"]]]
    words = observation_text(neg, s, 0)
    assert "You are A (Alpha)" in words and "Pending offer from B to A: B.b1" in words
    assert "can no longer be reached" in words and "[x] b0 (open the border)" in words


# --- the turn driver around agents that fail -----------------------------------------------------------------

class Scripted:
    """An agent whose every decision is given (or raises)."""

    label = "scripted"

    def __init__(self, partner=None, offer=None, answer=None):
        self.partner, self.offer, self.answer = partner, offer, answer

    def choose_partner(self, s):
        if isinstance(self.partner, Exception):
            raise self.partner
        return self.partner

    def make_offer(self, s, partner):
        return self.offer(s) if callable(self.offer) else self.offer

    def respond(self, s):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_a_failing_agent_passes_or_rejects_and_the_event_says_why():
    neg = trio()
    faults = []
    crash = Scripted(partner=AgentFault("the program exited (status 1)"))
    illegal = Scripted(partner=1, offer=Offer(1, 1, bits(A0)))  # B offers a cell of A's
    c_offers = Scripted(partner=1, offer=lambda s: neg.offer(s, 1, [C0, B1]))
    times_out = Scripted(answer=AgentFault("no answer within 0.5 s"))
    driver = TurnDriver(neg, [crash, illegal, c_offers], on_fault=faults.append)
    ev = driver.step()
    assert ev.passed and not ev.accepted and ev.fault == "the program exited (status 1)"
    assert ev.decided_by == "A (scripted)" and ev.after == State(1, 0)
    ev = driver.step()
    assert ev.passed and ev.fault == "offered an illegal deal: A.a0 belongs to someone other than B"
    driver.seats[1] = times_out
    ev = driver.step()  # C offers to B, whose agent does not answer: a rejection
    assert (ev.t, ev.proposer, ev.partner, ev.accepted) == (2, 2, 1, False)
    assert ev.fault == "no answer within 0.5 s" and ev.after == State(3, 0) and ev.decided_by == "B (scripted)"
    assert [(m.player, m.phase) for m in faults] == [(0, Phase.PROPOSE), (1, Phase.PROPOSE), (1, Phase.RESPOND)]


def test_outside_decisions_go_through_the_same_driver():
    neg = trio()
    driver = TurnDriver(neg, [None, None, None])
    assert driver.decided_outside()
    with pytest.raises(IllegalMove) as err:
        driver.ask()
    assert err.value.rule == "seat"
    unchecked = driver.propose(neg.offer(driver.state, 1, [A0, A1, A2]))  # built as given ...
    with pytest.raises(IllegalMove) as err:  # ... and refused once, where it is applied
        driver.submit(unchecked)
    assert err.value.rule == "budget" and driver.state == State(0, 0)
    move = driver.propose(neg.offer(driver.state, 1, [A0, B1]))
    assert driver.submit(move) is None
    assert driver.phase is Phase.RESPOND and driver.player == 1
    ev = driver.submit(driver.answer(True))
    assert ev.accepted and ev.decided_by == "B (human)" and driver.state == State(1, bits(A0, B1))
    with pytest.raises(IllegalMove) as err:  # a decision for a moment that has passed
        driver.submit(move)
    assert err.value.rule == "phase"
    with pytest.raises(IllegalMove):
        driver.answer(True)  # no offer waits for an answer


class Binding(Scripted):
    """A proposer whose offers bind (the reference's model baseline, applied unchecked)."""

    label = "binding"

    def binds_offers(self, s):
        return True


def test_an_offer_that_binds_is_accepted_without_asking_the_partner():
    neg = trio()
    asked = []
    partner = Scripted(answer=False)
    partner.respond = lambda s: asked.append(s) or False  # type: ignore[method-assign]
    proposer = Binding(partner=1, offer=lambda s: neg.offer(s, 1, [A0, B1]))
    driver = TurnDriver(neg, [proposer, partner, None])
    offered = driver.submit(driver.ask())
    assert offered is None and driver.binds(driver.state) and not driver.decided_outside()
    ev = driver.submit(driver.ask())
    assert ev.accepted and ev.after.bits == bits(A0, B1) and not asked
    assert ev.decided_by == "A (binding)"  # the offer's own rule decided, not the partner
    # an answer given outside cannot replace the bound one, nor claim to be bound where nothing binds
    driver = TurnDriver(neg, [proposer, None, None])
    driver.submit(driver.ask())
    with pytest.raises(IllegalMove, match="offers bind"):
        driver.submit(driver.answer(False))
    free = TurnDriver(neg, [Scripted(partner=1, offer=lambda s: neg.offer(s, 1, [A0])), None, None])
    free.submit(free.ask())
    with pytest.raises(IllegalMove, match="needs the partner's answer"):
        free.submit(Move(0, 1, Phase.RESPOND, accept=True, bound=True))
