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
