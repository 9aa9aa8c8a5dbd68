"""Welfare- and fairness-minded players (`utilitarian`, `maximin`): the criterion over every player's value
decides the offer, the answer and the partner.  Checked against a brute force over every legal offer, and on
a worked example where a self-interested player refuses what a welfare-minded one accepts."""

from __future__ import annotations

import numpy as np
import pytest

from negtui.agents import AgentOptions, LensBot, Seating
from negtui.engine import PAPER, Negotiation, TurnDriver, Valuation
from negtui.engine.vocabulary import check_judge, split_judge
from negtui.scenario import parse_scenario
from negtui.seats import Seat, SeatError, parse_seat

CRITERIA = {"utilitarian": np.sum, "maximin": np.min}


def helping_game() -> Negotiation:
    """A gives up 1 so that B gains 5 (goal g0 needs A's action); B's action gives C 2 and costs B 1."""
    sc = parse_scenario({
        "format": "negtui-scenario/1", "name": "helping",
        "players": [{"id": pid, "actions": [{"id": "a"}]} for pid in "ABC"],
        "goals": [{"id": "g0", "requires": [{"player": "A", "action": "a"}], "values": {"A": -1, "B": 5}},
                  {"id": "g1", "requires": [{"player": "B", "action": "a"}], "values": {"B": -1, "C": 2}}],
        "protocol": {"rounds": 1, "budget": 1, "schedule": ["B", "A", "C"]},
    })
    return Negotiation.from_scenario(sc, PAPER)


def test_a_welfare_minded_partner_accepts_what_a_self_interested_one_refuses():
    neg = helping_game()
    val = Valuation(neg)
    s = neg.initial_state()
    offer = neg.offer(s, 0, [neg.game.bits_of([("A", "a")]).bit_length() - 1])  # B asks A to commit alone
    pending = neg.apply(s, offer)
    assert not LensBot(val, "myopic", "myopic").respond(pending)  # A loses 1
    assert LensBot(val, "utilitarian", "utilitarian").respond(pending)  # everyone gains 4
    assert not LensBot(val, "maximin", "maximin").respond(pending)  # the least off (A, at 0) would fall to -1


def test_a_welfare_minded_table_reaches_the_welfare_a_selfish_one_leaves():
    neg = helping_game()
    for judge, expected in (("myopic", 0.0), ("utilitarian", 5.0), ("maximin", 0.0)):
        bots = [LensBot(Valuation(neg), judge, judge, "greedy") for _ in range(3)]
        assert neg.returns(TurnDriver(neg, bots).play_out()).sum() == pytest.approx(expected), judge


@pytest.mark.parametrize("criterion", list(CRITERIA))
@pytest.mark.parametrize("seed", range(12))
def test_the_offer_maximises_the_criterion_among_offers_the_partner_accepts(toy, criterion, seed):
    """Brute force: every legal offer to every partner, valued by the criterion over the realised payoffs
    (the myopic lens); the search's choice reaches the best value any acceptable offer reaches."""
    rng = np.random.default_rng(seed)
    neg = Negotiation.from_scenario(toy.random_spec(rng, "paper", players=(3, 3)).scenario(), PAPER)
    val = Valuation(neg)
    crit = CRITERIA[criterion]
    s = neg.initial_state()
    for q in neg.legal_partners(s):
        offers = neg.legal_offers(s, q)
        worth = [float(crit(neg.returns(neg.next_state(s, o, True)))) for o in offers]
        reject = worth[0]
        best = max(w for w in worth if w >= reject - 1e-9)
        chosen = val.best_offer(s, q, criterion, criterion)
        assert chosen.value_proposer == pytest.approx(best), (q, worth)
        assert chosen.reject_proposer == pytest.approx(reject)


def test_a_criterion_over_a_lens_weighs_every_players_forecast():
    neg = helping_game()
    val = Valuation(neg)
    s = neg.initial_state()
    for lens in ("upper", "lower"):
        whole = val.forecast(s, lens)
        assert np.all(val.forecast(s, f"utilitarian:{lens}") == pytest.approx(whole.sum()))
        assert np.all(val.forecast(s, f"maximin:{lens}") == pytest.approx(whole.min()))


def test_seats_spell_a_criterion_and_its_lens():
    assert parse_seat("utilitarian").lenses == ("utilitarian", "utilitarian")
    assert parse_seat("utilitarian:myopic").spec == "utilitarian"  # the lens a criterion names alone
    assert parse_seat("maximin:upper").label == "maximin:upper"
    assert parse_seat("upper/maximin").lenses == ("upper", "maximin")
    assert parse_seat("utilitarian:exact").uses_exact
    assert Seat.model_validate(parse_seat("maximin:lower").model_dump()) == parse_seat("maximin:lower")  # records
    assert split_judge("maximin") == ("maximin", "myopic") and split_judge("upper") == (None, "upper")
    for bad in ("maximin:adaptive", "fair", "utilitarian:nothing"):
        with pytest.raises((SeatError, ValueError)):
            parse_seat(bad)
    with pytest.raises(ValueError, match="judges with"):
        check_judge("utilitarian:adaptive")


def test_a_mixed_table_plays_through_the_seating_with_greedy_and_mcts_partners():
    """Seated as a user seats them: the self-interested bots model each social partner's own criterion."""
    from negtui.generator import GeneratorParams, generate

    neg = Negotiation.from_scenario(generate(GeneratorParams(players=5, actions=2, goals=8, seed=4, rounds=2)), PAPER)
    seats = [parse_seat(text).model_copy(update={"seed": i}) for i, text in
             enumerate(["utilitarian", "maximin:upper", "upper", "lower", "utilitarian:lower"])]
    seats[1] = seats[1].model_copy(update={"partner": "greedy"})
    with Seating(neg, seats, AgentOptions()) as seating:
        driver = TurnDriver(neg, seating.agents)
        pay = neg.returns(driver.play_out())
    assert len(driver.events) == neg.game.T and np.all(np.isfinite(pay))
    assert {ev.decided_by.split(" (")[1][:-1] for ev in driver.events} <= {s.label for s in seats}
