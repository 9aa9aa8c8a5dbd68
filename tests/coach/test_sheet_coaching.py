"""Coaching a case from a scoresheet in its own terms: a reasonable decision costs nothing and is not among
the costliest, a costly one is told what it settled and what it gave up in issues, options and points, the
primer and the debrief speak of reservation values and packages, and the class debrief's words name options."""

from __future__ import annotations

import pytest

from negtui.coach import Coach
from negtui.coach.debrief import debrief
from negtui.coach.sheet import Sheet
from negtui.coach.words import primer, why
from negtui.engine import PAPER, Negotiation, State, Valuation
from negtui.engine.offers import Offer
from negtui.narrate import offer_words
from negtui.scenario import load_scenario, parse_scenario
from tests.paths import SCENARIOS

BUS = SCENARIOS / "cases" / "regional-bus-network.toml"
AUTHORITY, CITY, UPLAND, VALLEY = range(4)


@pytest.fixture(scope="module")
def bus():
    neg = Negotiation.from_scenario(load_scenario(BUS), PAPER)
    return neg, Coach(Valuation(neg), lambda q: "myopic", exact=False)


def answer(neg, coach, cells, accept, before=()):
    """The City's answer to the Authority's offer of `cells`, at the start of the game with `before` backed."""
    g = neg.game
    s = State(0, g.bits_of(list(before)), pending=Offer(AUTHORITY, CITY, g.bits_of(cells)))
    return coach.response(s, accept)


def test_backing_your_best_option_with_the_veto_holder_costs_nothing_and_is_not_among_the_costliest(bus):
    """The Authority offers to back the grid with the City, its best network (25 points): nothing is settled
    yet (a third member must join).  Read goal by goal, upper counted every network option twice and lost
    two of them with the City's backing: the accept cost 9.7 and led the City's costliest decisions."""
    neg, coach = bus
    grid = [("authority", "network.grid"), ("city", "network.grid")]
    reasonable = answer(neg, coach, grid, True)
    assert reasonable.cost == 0.0
    assert {c.who: c.values["upper"] for c in reasonable.others} == {"myopic": 50, "upper": 50, "lower": 50}
    # settling fares by zone with the Authority and the Valley Towns: 0 points to the City, 10 of its share given up
    zones = answer(neg, coach, [("authority", "fares.zones"), ("city", "fares.zones")], True,
                   [("valley", "fares.zones")])
    assert zones.cost == pytest.approx(40 / 3)
    end = State(neg.game.T, 0)
    d = debrief(neg, CITY, end, [reasonable, zones])
    assert d.costliest == [zones]


def test_every_forecast_of_the_case_is_within_the_best_package(bus):
    neg, coach = bus
    sheet = Sheet(neg.game)
    assert [sheet.best_package(i) for i in range(4)] == [30, 50, 55, 45]
    a = coach.response_hint(State(0, 0, pending=Offer(AUTHORITY, CITY, neg.game.bits_of(
        [("authority", "network.grid"), ("city", "network.grid")]))))
    assert max(c.values["upper"] for c in a.others) <= 50


def test_a_costly_answer_is_told_what_it_settled_in_options_and_points(bus):
    neg, coach = bus
    zones = answer(neg, coach, [("authority", "fares.zones"), ("city", "fares.zones")], True,
                   [("valley", "fares.zones")])
    text = why(neg.game, zones)
    assert text.startswith("Why: accepting leaves you -10.0 once the turn ends")
    assert ("it settles zones on Fares: 0 points to you (-10 net of the issue's share of your reservation value)"
            in text)


def test_the_primer_speaks_of_the_reservation_value_and_the_best_package(bus):
    neg, _ = bus
    text = primer(neg, CITY)
    assert "points above city's reservation value (50 points)" in text
    assert ("The most the sheet allows city is 50.0 above it: grid on Network, 25 points; capped on Fares, 20 "
            "points; kilometres on Deficit, 30 points; evening on Service, 25 points.") in text
    assert "At the start city's forecasts are myopic 0.0, upper 50.0, lower -15.0" in text


def test_an_offer_reads_as_options_backed_on_issues(bus):
    neg, _ = bus
    g = neg.game
    words = offer_words(g, g.bits_of([("authority", "network.grid"), ("city", "network.grid"),
                                      ("city", "fares.capped")]), AUTHORITY, CITY)
    assert words == "authority backs grid on Network; city backs grid on Network, capped on Fares"


def test_what_was_agreed_reads_issue_by_issue_with_points_and_the_reservation_value(bus):
    neg, _ = bus
    g = neg.game
    sheet = Sheet(g)
    bits = g.bits_of([(p, "network.grid") for p in ("authority", "city", "valley")]
                     + [(p, "fares.zones") for p in ("authority", "upland", "valley")])
    issues = sheet.issues(bits, CITY)
    assert [(i.label, i.outcome.id if i.outcome else None, i.backed.id if i.backed else None) for i in issues] == [
        ("Network", "grid", "grid"), ("Fares", "zones", None), ("Deficit", None, None), ("Service", None, None)]
    assert [(o.id, o.points, o.value) for o in issues[1].options] == [("flat", 10, 0), ("zones", 0, -10),
                                                                       ("capped", 20, 10)]
    assert issues[0].outcome.backers == (AUTHORITY, CITY, VALLEY)
    agreed = "Network: grid (25 points); Fares: zones (0 points); Deficit: open; Service: open"
    assert sheet.agreed(bits, CITY) == agreed
    assert sheet.summary(bits, CITY) == (
        "Your reservation value is 50 points. Settled: Network and Fares, 25 points against the 23 of your reservation "
        "value they carry: a payoff of +2. Deficit and Service stayed open: their share of your reservation value is "
        "kept.")
    assert float(neg.returns(State(g.T, bits))[CITY]) == 2


def test_a_walk_away_reads_as_one():
    sheet = {"format": "negtui-scoresheet/1", "title": "Walk", "agreement": {"quorum": 2},
             "parties": [{"id": "a"}, {"id": "b"}, {"id": "c", "reservation": 5, "walk_away": True}],
             "issues": [{"id": "x", "options": [{"id": "x1", "points": {"a": 1, "b": 1, "c": 0}},
                                                {"id": "x2", "points": {"a": 0, "b": 0, "c": 9}}]}]}
    neg = Negotiation.from_scenario(parse_scenario(sheet), PAPER)
    g = neg.game
    assert offer_words(g, g.bits_of([("a", "x.x1"), ("c", "walk-away")]), 2, 0) == "c walks away; a backs x1 on x"
    assert "c may walk away before backing any option, and then keeps the reservation value" in primer(neg, 2)
    assert Sheet(g).summary(g.bits_of([("c", "walk-away")]), 2) == (
        "Your reservation value is 5 points. You walked away: you keep your reservation value, a payoff of 0, "
        "whatever was settled.")
