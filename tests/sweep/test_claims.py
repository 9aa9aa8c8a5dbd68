"""The paper's claims on small games, judged as §4.2.2 states and scopes them: on each lens's L1 error against
the exact solution, per payoff regime, with an effect, a 95 % interval and a verdict of four; on hand-made
results whose every mean is known, each claim shown holding, failing and indistinguishable."""

from __future__ import annotations

import numpy as np
import pytest

from negtui.sweep.claims import claims, is_small
from negtui.sweep.report import l1_by_regime, l1_normalised
from negtui.sweep.stats import FAILS, HOLDS, INDISTINGUISHABLE, UNMEASURABLE

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
SEEDS = 6
NOISE = 0.05  # each game's own wobble, independent per lens: small beside every gap above


def small_rows(base=BASE, slope=SLOPE, adversarial=ADVERSARIAL, noise=NOISE, seeds=SEEDS) -> list[dict]:
    rng = np.random.default_rng(0)
    out = []
    for regime, by in base.items():
        for structure in ("adversarial", "cooperative"):
            for aon in (0.0, 0.5):
                for seed in range(seeds):
                    task = f"{regime}-{structure}-{aon}-{seed}"
                    common = {"sweep": "small", "task": task, "structure": structure, "payoff": regime,
                              "all_or_nothing": aon, "seed": seed, "zipf": 1.6, "factors": 5, "rules": "paper",
                              "improvement": 0.0}
                    out.append(common | {"method": "exact", "payoffs": EXACT_PAYOFFS, "l1_exact": 0.0})
                    for lens, v in by.items():
                        l1 = v + (adversarial if structure == "adversarial" else 0.0) + slope[lens] * aon
                        out.append(common | {"method": lens, "payoffs": [0.0, 0.0],
                                             "l1_exact": l1 + float(rng.normal(0, noise))})
    return out


def judged(rows: list[dict]) -> dict[str, object]:
    return {c.id.split(".", 1)[1]: c for c in claims(rows)}


def verdicts(rows: list[dict]) -> dict[str, str]:
    return {k: c.verdict for k, c in judged(rows).items()}


def test_every_small_game_claim_holds_where_the_l1_errors_say_so():
    rows = small_rows()
    assert is_small(rows)
    assert verdicts(rows) == {
        "myopic-best-balanced": HOLDS, "upper-best-negative": HOLDS, "upper-advantage-pill": HOLDS,
        "lower-best-positive": HOLDS, "lower-robust-positive": HOLDS, "l1-balanced-highest-positive-lowest": HOLDS,
        "negative-between-pill-harder": HOLDS, "adversarial-harder": HOLDS, "l1-rises-with-all-or-nothing": HOLDS,
    }
    found = judged(rows)
    # means over structures (+0.5) and fractions (+slope/4): negative myopic 5.0, upper 4.25, lower 5.75;
    # with the pill 6.5, 4.75, 6.75: upper leads by 0.75 without the pill and by 1.75 with it, a gain of 1.0
    pill = found["upper-advantage-pill"].decisive.decisive.effect
    assert pill.estimate == pytest.approx(1.0, abs=0.05) and pill.low > 0.8
    reward = found["myopic-best-balanced"].decisive
    assert reward.decisive.what == "L1 myopic − lower"
    assert reward.decisive.effect.estimate == pytest.approx(-0.75, abs=0.05)
    exact = judged(small_rows(noise=0.0))["myopic-best-balanced"].decisive
    assert "means myopic 7.00, upper 10.25, lower 7.75" in exact.note
    rises = found["l1-rises-with-all-or-nothing"]
    assert rises.counts == {HOLDS: 12} and len(rises.parts) == 12
    lower = next(p for p in rises.parts if p.label == "positive lower")
    assert lower.decisive.effect.estimate == pytest.approx(1.0, abs=0.05)  # the slope given


def test_a_lens_that_is_worse_fails_and_a_lens_tied_with_the_best_is_indistinguishable():
    worse = {**BASE, "balanced": {"myopic": 8.0, "upper": 9.0, "lower": 7.0}}
    found = judged(small_rows(worse))["myopic-best-balanced"]
    assert found.verdict == FAILS and found.decisive.decisive.what == "L1 myopic − lower"
    tied = {**BASE, "balanced": {"myopic": 7.0, "upper": 9.0, "lower": 7.0}}
    rows = small_rows(tied, noise=1.0)
    assert judged(rows)["myopic-best-balanced"].verdict == INDISTINGUISHABLE  # never "holds" for a tie
    # "upper is best overall in negative games" pools both negative regimes: upper far behind with the pill
    # fails overall (means over both: myopic 5.75, upper 6.25, lower 6.25)
    pill = {**BASE, "negative-pp": {"myopic": 5.5, "upper": 7.0, "lower": 6.0}}
    found = judged(small_rows(pill))
    assert found["upper-best-negative"].verdict == FAILS and found["upper-best-negative"].counts == {FAILS: 1}
    assert found["upper-best-negative"].parts[0].label == "negative and negative + poison pill, pooled"
    assert found["upper-advantage-pill"].verdict == FAILS
    # a little behind with the pill, well ahead without: best overall, though it would fail column by column
    # (means over both: myopic 5.75, upper 5.55, lower 6.25)
    overall = judged(small_rows({**BASE, "negative-pp": {"myopic": 5.5, "upper": 5.6, "lower": 6.0}}))
    assert overall["upper-best-negative"].verdict == HOLDS
    # results with no poison-pill games (reference rules play none) name the pooled part for what they hold
    no_pill = judged([r for r in small_rows() if r["payoff"] != "negative-pp"])["upper-best-negative"]
    assert no_pill.parts[0].label == "negative, pooled" and "poison pill" not in no_pill.subset


def test_the_l1_claims_are_per_lens_so_one_lens_cannot_decide_for_all():
    """Upper collapsing in positive games (L1 100) would make 'positive' the highest regime if the lenses
    were pooled; per lens, myopic and lower still have it lowest: two parts hold, upper's fails."""
    collapse = {**BASE, "positive": {"myopic": 2.0, "upper": 100.0, "lower": 1.0}}
    pooled = {g: sum(v.values()) / 3 for g, v in collapse.items()}
    assert max(pooled, key=lambda g: pooled[g]) == "positive"  # what pooling would have said
    found = judged(small_rows(collapse))["l1-balanced-highest-positive-lowest"]
    assert found.verdict == FAILS and found.counts == {HOLDS: 2, FAILS: 1}
    assert {p.label: p.verdict for p in found.parts} == {"myopic": HOLDS, "upper": FAILS, "lower": HOLDS}


def test_robustness_is_judged_in_positive_games_and_trends_on_their_slopes():
    steep_lower = {"myopic": 2.0, "upper": 3.0, "lower": 4.0}
    assert verdicts(small_rows(slope=steep_lower))["lower-robust-positive"] == FAILS
    flat = {"myopic": 0.0, "upper": 0.0, "lower": 0.0}
    found = judged(small_rows(slope=flat, noise=0.5))
    assert found["l1-rises-with-all-or-nothing"].verdict in (INDISTINGUISHABLE, FAILS)
    assert INDISTINGUISHABLE in found["l1-rises-with-all-or-nothing"].counts  # no trend: the data cannot tell
    assert found["lower-robust-positive"].subset.startswith("small games · positive")
    assert verdicts(small_rows(adversarial=-1.0))["adversarial-harder"] == FAILS


def test_negative_regimes_between_and_the_pill_harder_per_lens():
    easy_pill = {**BASE, "negative-pp": {"myopic": 3.0, "upper": 3.5, "lower": 6.0}}  # myopic: pill easier
    found = judged(small_rows(easy_pill))["negative-between-pill-harder"]
    assert found.verdict == FAILS and {p.label: p.verdict for p in found.parts}["myopic"] == FAILS
    assert found.counts[HOLDS] == 2


def test_a_claim_whose_regimes_are_missing_is_not_measurable_and_large_claims_are_left_out():
    only_positive = [r for r in small_rows() if r["payoff"] == "positive"]
    found = verdicts(only_positive)
    assert found["myopic-best-balanced"] == UNMEASURABLE and found["upper-advantage-pill"] == UNMEASURABLE
    assert found["lower-best-positive"] == HOLDS
    assert not any("narrow" in t for t in found)  # a large-game claim is not judged on small games
    assert all(c.grid == "small" for c in claims(only_positive))


def test_the_l1_error_is_shown_per_lens_and_normalised_by_the_exact_total():
    rows = l1_normalised(small_rows(noise=0.0))
    lens_row = next(r for r in rows if r["method"] == "upper" and r["task"] == "positive-cooperative-0.0-0")
    assert lens_row["l1_normalised"] == pytest.approx(2.5 / 15)
    raw, norm = l1_by_regime(rows, ["myopic", "upper", "lower"]), l1_by_regime(rows, ["upper"], "l1_normalised")
    assert raw[("positive", "upper")].mean == pytest.approx(2.5 + 0.5 + 0.75)
    assert norm[("positive", "upper")].mean == pytest.approx(raw[("positive", "upper")].mean / 15)
    assert ("positive", "exact") not in raw
