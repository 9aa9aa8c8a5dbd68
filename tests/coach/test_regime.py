"""The lens the app's bots start with: the paper's finding for the scenario's payoff regime."""

from __future__ import annotations

import pytest

from negtui.coach.regime import suggested_lens
from negtui.scenario import load_scenario
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
