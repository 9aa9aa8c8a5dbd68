"""The paper's claims on small games, judged as §4.2.2 states them: on each lens's L1 error against the
exact solution, per payoff regime, on hand-made results whose every mean is known; each claim shown
holding, failing, and in part."""

from __future__ import annotations

import pytest

from negtui.sweep.claims import FAILS, HOLDS, PART, UNKNOWN, claims, is_small
from negtui.sweep.report import l1_by_regime, l1_normalised

# L1 error by regime and lens at all-or-nothing fraction 0, cooperative; adversarial adds ADVERSARIAL and
# each lens rises with the fraction by its SLOPE: balanced highest and positive lowest for every lens,
# the negative regimes in between with the pill harder, lower the flattest
BASE = {
    "balanced": {"myopic": 6.0, "upper": 9.0, "lower": 7.0},
    "negative": {"myopic": 4.0, "upper": 3.0, "lower": 5.0},
    "negative-pp": {"myopic": 5.5, "upper": 3.5, "lower": 6.0},
    "positive": {"myopic": 2.0, "upper": 2.5, "lower": 1.0},
}
SLOPE = {"myopic": 2.0, "upper": 3.0, "lower": 1.0}
ADVERSARIAL = 1.0
EXACT_PAYOFFS = [10.0, -5.0]  # total absolute payoff 15


def small_rows(base=BASE, slope=SLOPE, adversarial=ADVERSARIAL) -> list[dict]:
    out = []
    for regime, by in base.items():
        for structure in ("adversarial", "cooperative"):
            for aon in (0.0, 0.5):
                for seed in range(2):
                    task = f"{regime}-{structure}-{aon}-{seed}"
                    common = {"sweep": "small", "task": task, "structure": structure, "payoff": regime,
                              "all_or_nothing": aon, "seed": seed, "rules": "paper", "improvement": 0.0}
                    out.append(common | {"method": "exact", "payoffs": EXACT_PAYOFFS, "l1_exact": 0.0})
                    for lens, v in by.items():
                        l1 = v + (adversarial if structure == "adversarial" else 0.0) + slope[lens] * aon + 0.01 * seed
                        out.append(common | {"method": lens, "payoffs": [0.0, 0.0], "l1_exact": l1})
    return out


def verdicts(rows: list[dict]) -> dict[str, str]:
    return {c.text.split(" (")[0]: c.verdict for c in claims(rows)}


def evidence(rows: list[dict], start: str) -> str:
    return next(c.evidence for c in claims(rows) if c.text.startswith(start))


def test_every_small_game_claim_holds_where_the_l1_errors_say_so():
    rows = small_rows()
    assert is_small(rows)
    assert verdicts(rows) == {
        "Reward": HOLDS, "Upper is best in negative-dominated games": HOLDS,
        "Upper's advantage is largest with the poison pill": HOLDS, "Lower is best in positive-dominated games": HOLDS,
        "Lower remains robust as non-linearity increases": HOLDS,
        "L1 error is highest in balanced and lowest in positive games": HOLDS,
        "Negative regimes fall in between, and the poison pill adds difficulty": HOLDS,
        "Adversarial games are harder than cooperative ones": HOLDS,
        "Difficulty": HOLDS,
    }
    # means over structures (+0.5) and fractions (+slope/4): negative myopic 5.0, upper 4.25, lower 5.75;
    # with the pill 6.5, 4.75, 6.75: upper leads by 0.75 without the pill and by 1.75 with it
    assert evidence(rows, "Upper's advantage").endswith("+1.75 with the pill, +0.75 without")
    assert evidence(rows, "Reward").startswith("balanced: best myopic (mean L1 myopic 7.00, upper 10.25, lower 7.75)")
    assert evidence(rows, "Difficulty").startswith("12 of 12: balanced myopic: slope +2.0")


def test_a_lens_that_is_not_lowest_in_its_regime_fails_its_claim():
    worse = {**BASE, "balanced": {"myopic": 8.0, "upper": 9.0, "lower": 7.0}}
    assert verdicts(small_rows(worse))["Reward"] == FAILS
    assert evidence(small_rows(worse), "Reward").startswith("balanced: best lower")
    # upper best without the pill only: a claim over two regimes fails when one fails
    pill = {**BASE, "negative-pp": {"myopic": 5.5, "upper": 7.0, "lower": 6.0}}
    assert verdicts(small_rows(pill))["Upper is best in negative-dominated games"] == FAILS
    assert verdicts(small_rows(pill))["Upper's advantage is largest with the poison pill"] == FAILS


def test_the_l1_claims_are_per_lens_so_one_lens_cannot_decide_for_all():
    """Upper collapsing in positive games (L1 100) would make 'positive' the highest regime if the lenses
    were pooled; per lens, myopic and lower still have it lowest, and the claim holds in part."""
    collapse = {**BASE, "positive": {"myopic": 2.0, "upper": 100.0, "lower": 1.0}}
    rows = small_rows(collapse)
    pooled = {g: sum(v.values()) / 3 for g, v in collapse.items()}
    assert max(pooled, key=lambda g: pooled[g]) == "positive"  # what pooling would have said
    found = verdicts(rows)
    assert found["L1 error is highest in balanced and lowest in positive games"] == PART
    assert evidence(rows, "L1 error is highest").startswith(
        "2 of 3: upper: balanced 10.25, negative + poison pill 4.75, negative 4.25, positive 101.25")


def test_robustness_structure_and_the_fraction_fail_where_their_slopes_and_gaps_say():
    steep_lower = {"myopic": 2.0, "upper": 3.0, "lower": 4.0}
    assert verdicts(small_rows(slope=steep_lower))["Lower remains robust as non-linearity increases"] == FAILS
    falling = {"myopic": -1.0, "upper": 3.0, "lower": 1.0}
    rows = small_rows(slope=falling)
    assert verdicts(rows)["Difficulty"] == PART
    assert evidence(rows, "Difficulty").startswith("8 of 12: balanced myopic: slope -1.0")
    assert verdicts(small_rows(adversarial=-1.0))["Adversarial games are harder than cooperative ones"] == FAILS


def test_negative_regimes_between_and_the_pill_harder_per_lens():
    easy_pill = {**BASE, "negative-pp": {"myopic": 3.0, "upper": 3.5, "lower": 6.0}}  # myopic: pill easier
    rows = small_rows(easy_pill)
    assert verdicts(rows)["Negative regimes fall in between, and the poison pill adds difficulty"] == PART
    assert evidence(rows, "Negative regimes").startswith("2 of 3: myopic:")


def test_a_claim_whose_regimes_are_missing_is_not_measurable_and_large_claims_are_left_out():
    only_positive = [r for r in small_rows() if r["payoff"] == "positive"]
    found = verdicts(only_positive)
    assert found["Reward"] == UNKNOWN and found["Upper's advantage is largest with the poison pill"] == UNKNOWN
    assert found["Lower is best in positive-dominated games"] == HOLDS
    assert not any("narrow" in t for t in found)  # a large-game claim is not judged on small games
    assert all(c.grid == "small" for c in claims(only_positive))


def test_the_l1_error_is_shown_per_lens_and_normalised_by_the_exact_total():
    rows = l1_normalised(small_rows())
    lens_row = next(r for r in rows if r["method"] == "upper" and r["task"] == "positive-cooperative-0.0-0")
    assert lens_row["l1_normalised"] == pytest.approx(2.5 / 15)
    raw, norm = l1_by_regime(rows, ["myopic", "upper", "lower"]), l1_by_regime(rows, ["upper"], "l1_normalised")
    assert raw[("positive", "upper")].mean == pytest.approx(2.5 + 0.5 + 0.75 + 0.005)
    assert norm[("positive", "upper")].mean == pytest.approx(raw[("positive", "upper")].mean / 15)
    assert ("positive", "exact") not in raw
