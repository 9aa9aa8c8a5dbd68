"""Lens bots under private information (agents.beliefs): a prior from what the seat is told, offers by
expected gain, guesses reweighted by every answer — and never a read of another player's values: a bot
whose copy of the game holds NaN in every other player's place plays exactly as one holding the truth."""

from __future__ import annotations

import json

import numpy as np
import pytest

from negtui.agents import AgentOptions, Seating, lens_bot
from negtui.agents.beliefs import PARTICLES, PRIOR_DRAW, TREMBLE, Beliefs, prior
from negtui.engine import PAPER, Negotiation, State, TurnDriver, Valuation, get_rules
from negtui.engine.knowledge import seat_negotiation, seat_scenario
from negtui.engine.observation import observation, observation_text
from negtui.engine.portable import PortableGame
from negtui.generator import GeneratorParams, generate
from negtui.scenario import load_scenario
from negtui.scenario.model import Scenario
from negtui.seats import parse_seat
from tests.paths import TEACHING

PARAMS = GeneratorParams(players=6, actions=2, goals=10, payoff="balanced", all_or_nothing=0.3, seed=5, rounds=3)


def blind_copy(sc: Scenario, seat: str) -> Scenario:
    """`sc` with every value of every other player NaN: what a bot must be able to play without."""
    goals = [goal.model_copy(update={"values": {pid: (v if pid == seat else float("nan"))
                                                for pid, v in goal.values.items()}}) for goal in sc.goals]
    return sc.model_copy(update={"goals": goals})


def test_the_prior_reads_published_ranges_the_generator_or_the_seats_own_scale():
    car = load_scenario(TEACHING / "private-car-sale.json")
    guesses = prior(seat_scenario(car, "B"), "B")
    assert guesses.shape == (PARTICLES, len(car.goals), 2)
    b, s = car.player_ids.index("B"), car.player_ids.index("S")
    for j, goal in enumerate(car.goals):
        low, high = goal.ranges["S"]
        assert np.all((guesses[:, j, s] >= low) & (guesses[:, j, s] <= high)) and guesses[:, j, s].std() > 0
        assert np.all(guesses[:, j, b] == goal.values.get("B", 0))  # its own, as they are
    sc = generate(PARAMS)
    truth = Negotiation.from_scenario(sc, PAPER).game.G
    guesses = prior(seat_scenario(sc, "P0"), "P0")
    drawn = Negotiation.from_scenario(generate(GeneratorParams(**{**PARAMS.as_dict(), "seed": PRIOR_DRAW + 3})),
                                      PAPER).game.G.copy()
    drawn[:, 0] = truth[:, 0]  # the seat's own column is its true one
    assert np.array_equal(guesses[3], drawn)
    assert not any(np.array_equal(guesses[k, :, 1], truth[:, 1]) for k in range(PARTICLES))  # not the game's seed
    hand = load_scenario("scenarios/hnc/water/river-basin-treaty.json")
    me = hand.player_ids[0]
    top = max(abs(float(g.values.get(me, 0))) for g in hand.goals)
    other = prior(seat_scenario(hand, me), me)[:, :, 1:]
    assert np.all(np.abs(other) <= top) and other.std() > 0


def test_a_generated_games_seed_is_not_told_to_a_seat():
    sc = generate(PARAMS)
    neg = Negotiation.from_scenario(sc, PAPER)
    told = seat_negotiation(neg, 0, "private").game
    text = json.dumps(PortableGame.of(told, PAPER).scenario)
    assert "seed5" not in text and '"seed": 5' not in text and "seed 5" not in text
    assert told.scenario.protocol.seed == 0 and np.array_equal(told.schedule, neg.game.schedule)


@pytest.mark.parametrize("rules", ["paper", "reference"])
def test_bots_with_nan_in_every_other_players_place_play_as_bots_with_the_truth(rules):
    sc = generate(GeneratorParams(**{**PARAMS.as_dict(), "rules": get_rules(rules).generator}))
    neg = Negotiation.from_scenario(sc, get_rules(rules))
    texts = ["myopic", "upper", "lower", "upper/lower", "utilitarian", "lower"]
    seats = [parse_seat(t).model_copy(update={"seed": i, "partner": "greedy" if i % 2 else "mcts"})
             for i, t in enumerate(texts)]
    with Seating(neg, seats, AgentOptions(information="private")) as seating:
        truth = TurnDriver(neg, seating.agents)
        truth.play_out()
    blind_bots = []
    for i, seat in enumerate(seats):
        blind = Negotiation.from_scenario(blind_copy(sc, sc.player_ids[i]), get_rules(rules))
        assert np.isnan(blind.game.G[:, [k for k in range(6) if k != i]]).any()
        blind_bots.append(lens_bot(seat, Valuation(blind), lambda q: seats[q].respond_lens, Beliefs(blind, i)))
        s = neg.initial_state()
        assert [(o.bits, o.n_cells) for o in blind.legal_offers(s, (i + 1) % 6)] == \
            [(o.bits, o.n_cells) for o in neg.legal_offers(s, (i + 1) % 6)]
    played = TurnDriver(neg, blind_bots)
    played.play_out()
    assert [(e.partner, e.offer.bits, e.accepted) for e in played.events] == \
        [(e.partner, e.offer.bits, e.accepted) for e in truth.events]
    assert sum(e.deal for e in truth.events) > 0
    for bot in blind_bots:
        assert np.all(np.isfinite(bot.beliefs.weights)) and np.all(np.isfinite(bot.valuation.game.G))


def test_what_an_outside_agent_is_told_holds_no_other_players_value():
    sc = generate(PARAMS)
    neg = Negotiation.from_scenario(sc, PAPER)
    blind = Negotiation.from_scenario(blind_copy(sc, "P2"), PAPER)
    s = TurnDriver(neg, [lens_bot(parse_seat("myopic"), Valuation(neg)) for _ in range(6)]).play_out(until=5)
    assert observation(neg, s, 2, "private") == observation(blind, s, 2, "private")
    assert observation_text(neg, s, 2, "private") == observation_text(blind, s, 2, "private")
    told = [seat_negotiation(n, 2, "private").game for n in (neg, blind)]
    assert PortableGame.of(told[0], PAPER).scenario == PortableGame.of(told[1], PAPER).scenario  # the hello's


def _answered(neg: Negotiation, bot_beliefs: Beliefs, accepted: bool):
    """The first offer P1 would make to P2, answered `accepted`; the chance the observer gave it before."""
    from negtui.engine.turns import TurnEvent

    s = State(0, 0)
    p = neg.proposer(s)
    q = next(q for q in range(neg.game.n) if q not in (p, bot_beliefs.player))
    offer = Valuation(neg).best_offer(s, q, "myopic", "myopic")
    assert not offer.is_noop
    chance = float(bot_beliefs.accept_chance(s, q, "myopic")[offer.index])
    after = neg.next_state(s, offer, accepted)
    ev = TurnEvent(0, p, q, offer, accepted, "", s, after, neg.returns(after))
    bot_beliefs.observe(ev, lambda _q: "myopic")
    return chance, float(bot_beliefs.accept_chance(s, q, "myopic")[offer.index])


@pytest.mark.parametrize("accepted", [True, False])
def test_an_answer_reweights_the_guesses_by_bayes_rule_with_a_tremble(accepted):
    neg = Negotiation.from_scenario(generate(PARAMS), PAPER)
    observer = next(i for i in range(6) if i != neg.proposer(State(0, 0)))
    beliefs = Beliefs(neg, observer)
    before, after = _answered(neg, beliefs, accepted)
    assert 0 < before < 1  # the guesses disagree on this offer
    yes, no = (1 - TREMBLE, TREMBLE) if accepted else (TREMBLE, 1 - TREMBLE)
    assert after == pytest.approx(before * yes / (before * yes + (1 - before) * no))
    assert beliefs.updates == 1


def test_every_bot_learns_from_every_answered_offer_through_the_turn_driver():
    neg = Negotiation.from_scenario(generate(PARAMS), PAPER)
    with Seating(neg, [parse_seat("myopic").model_copy(update={"seed": i}) for i in range(6)],
                 AgentOptions(information="private")) as seating:
        driver = TurnDriver(neg, seating.agents)
        driver.play_out()
        answered = [e for e in driver.events if not e.offer.is_noop and not e.offer.is_unilateral]
        assert answered
        for i, bot in enumerate(seating.agents):
            assert bot.beliefs.updates == sum(1 for e in answered if e.partner != i)


def test_a_private_games_record_re_runs_identically_with_the_bots_learning_again(cli, tmp_path):
    """Verification replays every turn to the bots, so they learn as they did in the game (without it the
    six-party game diverged at turn 16)."""
    record = tmp_path / "private.jsonl"
    res = cli("autoplay", "scenarios/generated/six-party.json", "--information", "private", "--seat", "P0=lower",
              "--seat", "P1=utilitarian", "--record", record, "-q")
    assert res.exit_code == 0, res.output
    res = cli("replay", record, "--verify")
    assert res.exit_code == 0 and "every bot decision of 24 turns re-runs identically" in res.output, res.output
