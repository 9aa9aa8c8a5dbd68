"""What a seat knows under private information (engine.knowledge): its own values, the published
ranges, nothing else; the one picture that forecasts, observations, prompts and bots all use."""

from __future__ import annotations

import json

import numpy as np
import pytest

from negtui.agents import AgentOptions, Seating
from negtui.agents.lens_bot import LensBot
from negtui.engine import Negotiation, TurnDriver, get_rules
from negtui.engine.knowledge import estimate, knows, seat_negotiation, seat_scenario
from negtui.engine.lenses import lens_vector
from negtui.engine.observation import observation, observation_text
from negtui.engine.payoff import state_info
from negtui.scenario import ScenarioError, load_scenario, parse_scenario
from negtui.seats import Seat
from tests.paths import CLASSIC, SCENARIOS, TEACHING
from tests.secrets import leaks, secret_scenario

CAR = TEACHING / "private-car-sale.json"


def _neg(sc) -> Negotiation:
    return Negotiation.from_scenario(sc, get_rules("paper"))


def test_a_seat_keeps_its_own_values_and_sees_the_middle_of_a_published_range_or_nothing() -> None:
    sc = load_scenario(CAR)
    buyer = seat_scenario(sc, "B")
    for true, seen in zip(sc.goals, buyer.goals, strict=True):
        assert seen.values.get("B", 0) == true.values.get("B", 0)
        low, high = true.ranges["S"]
        assert seen.values.get("S", 0) == estimate(true, "S") == (low + high) / 2
    secret = seat_scenario(secret_scenario(), "A")
    assert [g.values for g in secret.goals] == [{"A": 10}, {}, {"A": 6}]  # no range published: nothing


def test_the_picture_has_the_same_cells_and_turns_so_states_and_offers_pass_between_them() -> None:
    neg = _neg(secret_scenario())
    picture = seat_negotiation(neg, 0, "private")
    assert seat_negotiation(neg, 0, "private") is picture  # compiled once
    assert seat_negotiation(neg, 0, "public") is neg
    g, p = neg.game, picture.game
    assert g.player_ids == p.player_ids and np.array_equal(g.schedule, p.schedule)
    assert np.array_equal(g.inc, p.inc) and g.n_cells == p.n_cells
    assert np.array_equal(p.G[:, 0], g.G[:, 0]) and not p.G[:, 1:].any()
    s = neg.initial_state()
    offers = [(o.bits, o.n_cells) for o in neg.legal_offers(s, 1)]
    assert offers == [(o.bits, o.n_cells) for o in picture.legal_offers(s, 1)]
    assert knows("private", 0, 0) and not knows("private", 0, 1) and knows("private", None, 1)
    assert knows("public", 0, 1)


def test_a_private_observation_holds_no_other_players_value_or_payoff() -> None:
    neg = _neg(secret_scenario())
    s = neg.initial_state()
    for player in range(neg.game.n):
        obs = observation(neg, s, player, "private")
        me = neg.game.player_ids[player]
        assert obs["information"] == "private" and set(obs["payoffs"]) == {me}
        assert all(set(goal["values"]) <= {me} for goal in obs["goals"])
        picture = seat_negotiation(neg, player, "private").game
        for lens, value in obs["your_forecasts"].items():
            assert value == pytest.approx(lens_vector(picture, neg.rules, lens, state_info(picture, 0), 0)[player])
    text = json.dumps(observation(neg, s, 0, "private")) + observation_text(neg, s, 0, "private")
    assert leaks(text) == []
    public = json.dumps(observation(neg, s, 0)) + observation_text(neg, s, 0)
    assert leaks(public) != []  # the same game in public shows them: the test can see a leak


def test_a_private_observation_lists_the_published_ranges_of_the_others() -> None:
    neg = _neg(load_scenario(CAR))
    obs = observation(neg, neg.initial_state(), 0, "private")
    deal15 = next(goal for goal in obs["goals"] if goal["id"] == "deal15")
    assert deal15["values"] == {"B": 3.0} and deal15["ranges"] == {"S": [0.0, 6.0]}
    assert "S between +0 and +6" in observation_text(neg, neg.initial_state(), 0, "private")


def test_bots_decide_on_what_their_seat_knows() -> None:
    """A lens bot under private information decides on its picture and its guesses of the others
    (agents.beliefs): on the classic car sale the myopic buyer who knows the seller's cost offers 12; the
    one who does not offers the bottom of the ladder, the best bet on its guesses.  The seller, who
    would lose 2, rejects it, and the buyer's guesses that the seller takes 10 lose weight."""
    neg = _neg(load_scenario(CLASSIC / "buyer-seller.json"))
    seats = [Seat.lens("myopic", seed=0), Seat.lens("myopic", seed=1)]
    s = neg.initial_state()
    with Seating(neg, seats, AgentOptions(information="private")) as private, Seating(neg, seats) as public:
        mine = private.agents[0]
        assert isinstance(mine, LensBot) and mine.beliefs is not None and mine.valuation is mine.beliefs.valuation
        picture = mine.valuation.game
        assert np.array_equal(picture.G[:, 0], neg.game.G[:, 0]) and not np.array_equal(picture.G, neg.game.G)
        g = neg.game
        words = {"public": public.agents[0].make_offer(s, 1), "private": mine.make_offer(s, 1)}
        assert {k: g.pairs_of(o.bits) for k, o in words.items()} == {
            "public": [["B", "pay12"], ["S", "deliver"]], "private": [["B", "pay10"], ["S", "deliver"]]}
        driver = TurnDriver(neg, private.agents)
        chance = float(mine.beliefs.accept_chance(s, 1, "myopic")[words["private"].index])
        first = driver.step()
        assert first.offer.bits == words["private"].bits and not first.accepted
        assert float(mine.beliefs.accept_chance(s, 1, "myopic")[words["private"].index]) < chance


def test_ranges_are_checked_against_the_players_and_the_true_values() -> None:
    data = json.loads(CAR.read_text())
    data["goals"][0]["ranges"] = {"X": [0, 1], "B": [9, 2], "S": [5, 9]}
    with pytest.raises(ScenarioError) as err:
        parse_scenario(data)
    assert [(p.path, p.message) for p in err.value.problems] == [
        ("$.goals[0].ranges.X", "unknown player 'X'"),
        ("$.goals[0].ranges.B", "the range runs from 9 down to 2; write the lower end first"),
        ("$.goals[0].ranges.S", "S's value -2 is outside the published range 5 to 9")]


def test_the_debriefs_counterfactual_bots_know_what_the_seat_knew() -> None:
    """Replaying a private game's seat with lens bots, they decide on their seats' pictures as the bots at
    the table did: on the classic car sale a myopic buyer who knows the seller's cost closes at 12 (6 for
    the buyer); one who does not offers 10, is turned down, learns from it, and closes at 13 (5)."""
    from negtui.coach.debrief import counterfactuals

    neg = _neg(load_scenario(CLASSIC / "buyer-seller.json"))
    seats = [Seat.human("alice"), Seat.lens("myopic", seed=1)]
    s = neg.initial_state()
    assert counterfactuals(neg, seats, 0, s)["myopic"] == 6.0
    assert counterfactuals(neg, seats, 0, s, information="private")["myopic"] == 5.0


def test_a_seat_of_a_scoresheet_case_reads_its_own_share_of_the_reservation_value_only() -> None:
    """An issue's share of a party's reservation value is a value: under private information the other seats
    read neither it nor anything it could be worked out from."""
    sc = load_scenario(SCENARIOS / "cases" / "regional-bus-network.toml")
    assert all(len(issue.reservation) == 4 for issue in sc.issues)
    city = seat_scenario(sc, "city")
    assert [issue.reservation for issue in city.issues] == [{"city": issue.reservation["city"]} for issue in sc.issues]
    assert sum(issue.reservation["city"] for issue in city.issues) == 50
    # the picture compiles, with its options' values as the seat knows them: its own, the others' unknown (0)
    picture = seat_negotiation(_neg(sc), 1, "private").game
    assert picture.issues is not None and not picture.issues.V[:, [0, 2, 3]].any()
    assert picture.issues.V[:, 1].tolist() == _neg(sc).game.issues.V[:, 1].tolist()
