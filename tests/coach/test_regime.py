"""The lens the app's bots start with: the paper's finding for the scenario's payoff regime."""

from __future__ import annotations

import pytest

from negtui.coach.regime import suggested_lens
from negtui.scenario import load_scenario, parse_scenario
from negtui.seats import default_seats
from tests.paths import TEACHING


@pytest.mark.parametrize(("name", "lens"), [
    ("regime-negative-adversarial", "upper"),   # 5% of the value positive
    ("regime-negative-cooperative", "upper"),   # 29%
    ("regime-balanced-cooperative", "myopic"),  # 49%
    ("regime-positive-cooperative", "lower"),   # 82%
    ("poison-pill", "lower"),                   # 75%
])
def test_the_suggested_lens_follows_the_share_of_positive_value(name, lens):
    sc = load_scenario(TEACHING / f"{name}.json")
    got, why = suggested_lens(sc)
    assert got == lens
    assert "% of the value is positive" in why or "% positive)" in why
    seats = default_seats(sc.player_ids, lens=got)
    assert {s.propose_lens for s in seats.values()} == {lens}
    assert [s.seed for s in seats.values()] == list(range(len(seats)))


def test_a_generated_game_whose_share_belies_its_regime_says_why():
    """`generate --payoff balanced` rescales the values onto -20..20; the share of positive value is the
    draw's (seed 0: 31%), so the bots' lens follows the share, and the announcement says what 'balanced'
    named rather than contradicting it unexplained."""
    from negtui.generator import GeneratorParams, generate

    drawn = generate(GeneratorParams(players=10, actions=1, goals=15, payoff="balanced", seed=0))
    lens, why = suggested_lens(drawn)
    assert lens == "upper" and "31% of the value is positive" in why
    assert "generated as 'balanced': that names the range its values were rescaled onto" in why
    balanced = generate(GeneratorParams(players=10, actions=1, goals=15, payoff="balanced", seed=1))
    lens, why = suggested_lens(balanced)
    assert lens == "myopic" and "generated as" not in why


def test_a_case_of_issues_is_read_by_its_options_values_not_its_signed_goals():
    """Options worth 24 in all above the reservation values and 3 below: mostly positive, lower.  Each option's
    goals under a veto (coefficients +1, +1, -1) would read 51 positive against 30: a balance, myopic."""
    points = {"o1": {"a": 4, "b": 2, "c": 1, "d": 9}, "o2": {"a": 0, "b": 6, "c": 5, "d": 0}}
    sc = parse_scenario({"format": "negtui-scoresheet/1", "title": "Veto", "agreement": {"quorum": 3, "vetoes": ["a"]},
                         "parties": [{"id": p, **({"reservation": 3} if p == "d" else {})} for p in "abcd"],
                         "issues": [{"id": "i", "options": [{"id": o, "points": v} for o, v in points.items()]}]})
    assert suggested_lens(sc) == ("lower", "positive goals dominate (89% of the value is positive): lower bots count "
                                           "only what partners will complete")
    plain = sc.model_copy(update={"issues": [], "exits": []})
    assert suggested_lens(plain)[0] == "myopic"
