"""The two readings a verdict depends on (negtui/sweep/readings.py): how often lower and myopic end alike, per
rule set, with what lower gains or costs against myopic; and the linearised exact solution of the reference
against the true payoffs of its own path."""

from __future__ import annotations

import numpy as np
import pytest

from negtui.engine import PAPER, REFERENCE, Negotiation, Valuation
from negtui.engine.outcome import exact_outcome
from negtui.scenario import parse_scenario
from negtui.sweep.readings import alike, linearised_exact, lower_reading
from negtui.sweep.stats import proportion

# A commits x alone for a goal that needs B's y too, which B (harmed) never gives: the reference's linearised
# solver counts half the goal for A; the true payoffs of that path count nothing
HALF = {"name": "half", "players": [{"id": "A", "actions": [{"id": "x"}]}, {"id": "B", "actions": [{"id": "y"}]}],
        "goals": [{"id": "g", "kind": "all_or_nothing", "values": {"A": 10, "B": -1},
                   "requires": [{"player": "A", "action": "x"}, {"player": "B", "action": "y"}]}],
        "protocol": {"schedule": ["A", "B"]}}


def test_the_linearised_solution_and_the_true_payoffs_of_its_path():
    sc = parse_scenario(HALF)
    lin, true = exact_outcome(Valuation(Negotiation.from_scenario(sc, REFERENCE)))
    assert list(lin) == [5.0, -0.5] and list(true) == [0.0, 0.0]
    lin, true = exact_outcome(Valuation(Negotiation.from_scenario(sc, PAPER)))
    assert list(lin) == list(true) == [0.0, 0.0]  # type-correct: A does not commit alone


def game(task: str, regime: str, pays: dict[str, list[float]], **extra) -> list[dict]:
    base = {"task": task, "payoff": regime, "structure": "adversarial", "seed": int(task[-1]), "all_or_nothing": 0.0,
            "zipf": 1.6, "factors": 5, "rules": "paper"}
    return [base | {"method": m, "payoffs": p, "improvement": sum(p), **extra.get(m, {})} for m, p in pays.items()]


def test_how_often_lower_and_myopic_end_alike_with_a_wilson_interval():
    rows = []
    for k in range(8):  # alike in six games of eight
        lower = [1.0, 2.0] if k < 6 else [3.0, 2.0]
        rows += game(f"g{k}", "positive", {"myopic": [1.0, 2.0], "lower": lower, "exact": [4.0, 4.0]},
                     myopic={"l1_exact": 5.0}, lower={"l1_exact": 5.0 if k < 6 else 3.0}, exact={"l1_exact": 0.0})
    assert alike(rows, payoff="positive") == (6, 8)
    p, low, high = proportion(6, 8)
    assert p == 0.75 and low == pytest.approx(0.409, abs=1e-3) and high == pytest.approx(0.929, abs=1e-3)
    text = lower_reading({"hand · paper": rows})
    assert "| hand · paper | — | — | — | 75% [41%, 93%] of 8 |" in text
    assert "-0.50 [" in text  # lower's L1 lower by 2 in two games of eight: a mean of -0.50


def test_the_gap_table_shows_where_the_solution_linearises_and_nowhere_else():
    rows = []
    for k in range(3):
        rows += game(f"g{k}", "balanced", {"myopic": [1.0], "exact": [2.0]}, myopic={"l1_exact": 4.0, "l1_true": 6.0},
                     exact={"l1_exact": 0.0, "l1_true": 3.0 + k})
    text = linearised_exact(rows, ["myopic"])
    assert "| balanced | 4.00 [" in text and "| 4.00 / 6.00 |" in text  # a gap of 3, 4 and 5: mean 4
    same = [dict(r, l1_true=r["l1_exact"]) for r in rows]
    assert linearised_exact(same, ["myopic"]) == ""  # paper rules: nothing to show
    assert not np.isnan(proportion(1, 1)[1])
