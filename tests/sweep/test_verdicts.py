"""Four-level verdicts with intervals (negtui/sweep/stats.py, judge.py): hand-made games whose means and
intervals are known, so that a tie is never reported as a win, a clear winner holds, a clear loser fails, and
a trend whose interval crosses zero is indistinguishable."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from negtui.sweep.claims import claims, lens_best
from negtui.sweep.judge import Claim, Comparison, Part
from negtui.sweep.stats import (
    FAILS,
    HOLDS,
    IDENTICAL,
    INDISTINGUISHABLE,
    UNMEASURABLE,
    Effect,
    expanded_tail,
    games_as_clusters,
    holm,
    mean_of,
    paired_difference,
    slope,
)

# --- the interval, and what it resamples ---------------------------------------------------------------------------

def test_the_interval_of_a_mean_is_students_for_few_clusters_and_the_normal_one_for_many():
    """For a few games, each its own cluster, the interval is Student's t interval (its width within 10 %);
    for many it is the normal one, mean ± 1.96·sd/√n."""
    rng = np.random.default_rng(5)
    for n in (6, 8, 12, 20):
        values = rng.normal(0.5, 1, n)
        e = mean_of(values, games_as_clusters(n), seed=1)
        half = t_975(n - 1) * values.std(ddof=1) / math.sqrt(n)
        assert e.estimate == pytest.approx(values.mean())
        assert (e.high - e.low) == pytest.approx(2 * half, rel=0.1), (n, e)
    values = 0.5 + np.array([-1.0, 1.0] * 200)
    e = mean_of(values, games_as_clusters(400), seed=1)
    half = 1.96 * values.std(ddof=1) / math.sqrt(400)
    assert e.low == pytest.approx(0.5 - half, abs=0.01) and e.high == pytest.approx(0.5 + half, abs=0.01)
    assert expanded_tail(1000) == pytest.approx(0.025, abs=1e-3)
    assert expanded_tail(5) < 0.005  # few clusters: a wider interval than the plain 2.5 % percentiles


def t_975(df: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.975, df))


SEEDS, PER_SEED, STUDIES, TRUTH = 20, 32, 400, 0.3


def simulated_studies(seed_sd: float) -> tuple[np.ndarray, np.ndarray]:
    """STUDIES studies of SEEDS seeds with PER_SEED games each; a game's value is TRUTH + its seed's shared
    part (sd `seed_sd`) + its own noise (sd 1): the shape of a regime's games on the paper's grid."""
    rng = np.random.default_rng(2026)
    shared = rng.normal(0, seed_sd, (STUDIES, SEEDS, 1))
    values = TRUTH + shared + rng.normal(0, 1, (STUDIES, SEEDS, PER_SEED))
    return values.reshape(STUDIES, -1), np.repeat(np.arange(SEEDS), PER_SEED)


def coverage(values: np.ndarray, clusters: np.ndarray, resamples: int = 2000) -> float:
    hits = 0
    for k, study in enumerate(values):
        e = mean_of(study, clusters, seed=k, resamples=resamples)
        hits += e.low <= TRUTH <= e.high
    return hits / len(values)


def test_intervals_that_resample_seeds_cover_the_truth_and_game_level_ones_do_not():
    """400 simulated studies whose games share a seed-level part (intra-seed correlation 0.2): the 95 %
    intervals that resample seeds hold the true mean in 93–97 % of studies; those that resample games as if
    each were independent hold it far less often."""
    values, seeds = simulated_studies(seed_sd=0.5)
    assert 0.93 <= coverage(values, seeds) <= 0.97
    assert coverage(values, games_as_clusters(values.shape[1]), resamples=400) < 0.6
    e = mean_of(values[0], seeds, seed=0)
    assert (e.n, e.n_clusters, e.unit) == (SEEDS * PER_SEED, SEEDS, "seed")


def test_where_games_of_a_seed_are_independent_both_intervals_cover():
    values, seeds = simulated_studies(seed_sd=0.0)
    assert 0.93 <= coverage(values, seeds) <= 0.97


def test_a_figures_standard_error_counts_seeds_not_games():
    """A figure's error bar: games of one seed that are copies of each other are one draw, so the standard
    error is that of the seeds' means, not of as many independent games; across the simulated studies it
    is as large as the spread of their means."""
    from negtui.sweep.stats import clustered_se

    copies = np.array([1.0, 1.0, 1.0, 3.0, 3.0, 3.0])
    assert clustered_se(copies, [0, 0, 0, 1, 1, 1]) == pytest.approx(1.0)  # the two seeds' means, 1 and 3
    assert clustered_se(copies, range(6)) == pytest.approx(copies.std(ddof=1) / math.sqrt(6))
    assert clustered_se(copies, [5] * 6) == 0.0 and clustered_se([], []) == 0.0
    values, seeds = simulated_studies(seed_sd=0.5)
    se = np.array([clustered_se(v, seeds) for v in values])
    assert float(np.sqrt(np.mean(se ** 2))) == pytest.approx(values.mean(axis=1).std(ddof=1), rel=0.1)


def test_the_same_effect_in_every_game_is_exact_and_no_effect_is_identical_play():
    e = paired_difference(np.arange(8.0) + 2, np.arange(8.0), np.arange(8), seed=1)
    assert (e.estimate, e.low, e.high) == (2.0, 2.0, 2.0) and e.verdict() == HOLDS and e.verdict(-1) == FAILS
    zero = paired_difference([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [0, 1, 2], seed=1)
    assert (zero.low, zero.high, zero.p) == (0.0, 0.0, 1.0) and zero.verdict() == IDENTICAL
    assert zero.seeds_needed() is None  # no effect: no number of seeds is sure to find one


def test_few_informative_games_are_judged_by_the_exact_sign_test():
    """Five games of 64 differ, all one way, each on a seed of its own: the bootstrap's interval clears zero,
    but five signs alike happen by chance with p = 2/2⁵ = 0.0625, so nothing is settled (and the two played
    alike in 59 of 64 games: identical play)."""
    diffs = np.zeros(64)
    diffs[[0, 13, 26, 39, 52]] = [1.0, 2.0, 1.5, 1.0, 3.0]
    seeds = np.arange(64) % 32
    e = paired_difference(diffs, np.zeros(64), seeds, seed=1)
    assert e.p == pytest.approx(0.0625) and "exact sign test" in e.test
    assert e.low > 0  # the interval alone would have called it
    assert e.verdict() == IDENTICAL
    diffs[[1, 2, 3, 4, 5, 6, 7, 8, 9]] = 1.0  # nine more seeds, every one the same way: 14 of 14
    assert paired_difference(diffs, np.zeros(64), seeds, seed=1).verdict() == HOLDS


def test_lenses_that_played_alike_are_identical_play_not_merely_indistinguishable():
    rng = np.random.default_rng(8)
    a = rng.normal(5, 2, 200)
    b = a.copy()
    b[:6] += rng.normal(0, 1, 6)  # 97 % of games equal
    e = paired_difference(a, b, np.arange(200) % 20, seed=1)
    assert e.equal == pytest.approx(0.97) and e.verdict() == IDENTICAL
    c = a + rng.normal(0, 1, 200)  # every game different, no effect: a tie the data cannot break
    assert paired_difference(a, c, np.arange(200) % 20, seed=1).verdict() == INDISTINGUISHABLE


def test_seeds_needed_counts_clusters_and_comes_with_its_interval():
    e = Effect(1.0, 0.2, 1.8, 0.01, n=640, test="t", se=0.4, n_clusters=20)
    # 20 · ((1.95996 + 0.84162) · 0.4 / 1)² = 25.1 → 26 seeds; at the ends 1.8 and 0.2: 8 and 628
    assert e.seeds_needed() == 26 and e.seeds_needed_interval() == (8, 628)
    crossing = Effect(0.3, -0.5, 1.1, 0.4, n=640, test="t", se=0.4, n_clusters=20)
    assert crossing.seeds_needed_interval() == (21, None)  # unbounded above: the interval holds zero


def test_a_claim_of_many_parts_fails_only_past_holms_correction():
    """One comparison out of twelve on the wrong side at p 0.02 fails a claim of one part, but not a claim of
    twelve: there it is what chance gives one time in four."""
    def comparison(p: float, estimate: float) -> Comparison:
        half = 0.5 * abs(estimate) if p < 0.05 else 2 * abs(estimate)
        return Comparison("x", Effect(estimate, estimate - half, estimate + half, p, 100, "t", 0.1, 20), 1)

    wrong = comparison(0.02, -1.0)
    assert Claim("c", "c", "m", "s", "small", (Part("only", (wrong,)),)).verdict == FAILS
    many = Claim("c", "c", "m", "s", "small", (Part("bad", (wrong,)),
                                                *(Part(f"p{i}", (comparison(0.5, 0.1),)) for i in range(11))))
    assert many.parts[0].comparisons[0].raw_verdict == FAILS
    assert many.verdict == INDISTINGUISHABLE and many.counts == {INDISTINGUISHABLE: 12}
    assert "Holm-adjusted p 0.240" in many.evidence and "Holm over the claim's 12 comparisons" in many.correction
    clear = comparison(0.0001, -1.0)
    assert replace_first(many, clear).verdict == FAILS  # 12 × 0.0001 is still far below 0.05
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def replace_first(claim: Claim, c: Comparison) -> Claim:
    return Claim(claim.id, claim.text, claim.metric, claim.subset, claim.grid,
                 (Part("bad", (c,)), *(Part(p.label, tuple(Comparison(x.what, x.effect, x.direction)
                                                          for x in p.comparisons)) for p in claim.parts[1:])))


def test_the_bootstrap_is_reproducible():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0, 1, 60), rng.normal(0.3, 1, 60)
    assert paired_difference(a, b, np.arange(60) % 6, seed=7) == paired_difference(a, b, np.arange(60) % 6, seed=7)


# --- lens claims on hand-made games -----------------------------------------------------------------------------

def rows_for(l1: dict[str, list[float]], regime: str = "balanced", seeds: int = 10) -> list[dict]:
    """Games of one regime, each played by every lens with the L1 errors given (one list entry per game)."""
    out = []
    n = len(next(iter(l1.values())))
    for k in range(n):
        common = {"sweep": "hand", "task": f"{regime}-{k}", "payoff": regime, "structure": "cooperative",
                  "all_or_nothing": 0.0, "seed": k % seeds, "zipf": 1.6, "factors": 5, "rules": "paper",
                  "improvement": 0.0}
        out.append(common | {"method": "exact", "l1_exact": 0.0, "payoffs": [1.0]})
        out += [common | {"method": lens, "l1_exact": v[k], "payoffs": [0.0]} for lens, v in l1.items()]
    return out


def best(rows: list[dict], lens: str = "myopic"):
    return lens_best("t", "t", lens, ("balanced",), rows, "l1_exact", "small")


def test_a_numerically_last_lens_tied_with_the_best_is_indistinguishable_never_holds():
    """The case that misled: myopic's mean L1 is the highest of the three, but within the noise of the
    best's; at two seeds such a lens was reported as holding its claim."""
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 3, (3, 20))
    noise -= noise.mean(axis=1, keepdims=True)  # the means are exactly 4.2, 4.0 and 4.1
    rows = rows_for({"myopic": list(4.2 + noise[0]), "upper": list(4.0 + noise[1]), "lower": list(4.1 + noise[2])})
    claim = best(rows)
    means = {m: np.mean([r["l1_exact"] for r in rows if r["method"] == m]) for m in ("myopic", "upper", "lower")}
    assert max(means, key=means.get) == "myopic"  # numerically last (the highest error)
    assert claim.verdict == INDISTINGUISHABLE
    assert claim.parts[0].verdict == INDISTINGUISHABLE


def test_a_clear_winner_holds_and_a_clear_loser_fails():
    rng = np.random.default_rng(1)
    noise = rng.normal(0, 0.2, 30)
    rows = rows_for({"myopic": list(2.0 + noise), "upper": list(5.0 + noise), "lower": list(3.0 + noise)})
    win = best(rows, "myopic")
    assert win.verdict == HOLDS
    assert win.decisive.decisive.what == "L1 myopic − lower"  # the closest competitor decides
    assert win.decisive.decisive.effect.estimate == pytest.approx(-1.0)
    lose = best(rows, "upper")
    assert lose.verdict == FAILS
    assert lose.decisive.decisive.what == "L1 upper − myopic"  # the clearest failure is shown
    assert lose.decisive.decisive.effect.low == pytest.approx(3.0)  # the same 3.0 in every game


def test_a_trend_whose_interval_crosses_zero_is_indistinguishable():
    rng = np.random.default_rng(2)
    x = np.repeat([0.0, 0.15, 0.3, 0.5], 10)
    flat = slope(x, 5 + rng.normal(0, 2, 40), np.arange(40) % 10, seed=1)
    assert flat.low < 0 < flat.high and flat.verdict() == INDISTINGUISHABLE
    rising = slope(x, 5 + 8 * x + rng.normal(0, 0.5, 40), np.arange(40) % 10, seed=1)
    assert rising.verdict() == HOLDS and rising.estimate == pytest.approx(8, abs=1.0)


def test_a_claim_of_two_regimes_counts_each_verdict():
    rng = np.random.default_rng(4)
    noise = rng.normal(0, 0.2, 20)
    neg = rows_for({"myopic": list(5 + noise), "upper": list(3 + noise), "lower": list(4 + noise)}, "negative")
    pill = rows_for({"myopic": list(5 + noise), "upper": list(5 + noise[::-1]), "lower": list(6 + noise)},
                    "negative-pp")
    claim = lens_best("t", "t", "upper", ("negative", "negative-pp"), neg + pill, "l1_exact", "small")
    assert claim.counts == {HOLDS: 1, INDISTINGUISHABLE: 1} and claim.verdict == INDISTINGUISHABLE
    assert lens_best("t", "t", "upper", ("positive",), neg, "l1_exact", "small").verdict == UNMEASURABLE


def test_claims_json_holds_every_field_a_program_needs(cli, tmp_path):
    """`negtui report` writes claims.json beside report.md: per claim its id, the paper's sentence, metric,
    subset, verdict, estimate, interval, test, p, games and seeds needed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from negtui.sweep.results import SCHEMA
    from tests.sweep.test_claims import small_rows

    rows = small_rows()
    full = [{f.name: r.get(f.name) for f in SCHEMA} | {"sweep": "small", "scenario": "s", "negtui": "0",
                                                         "players": 2, "sum": 0.0, "baseline_sum": 0.0}
            for r in rows]
    path = tmp_path / "small.parquet"
    pq.write_table(pa.Table.from_pylist(full, schema=SCHEMA), path)
    res = cli("report", path, "-o", tmp_path / "out")
    assert res.exit_code == 0, res.output
    body = json.loads((tmp_path / "out" / "claims.json").read_text())
    assert body["sections"][0]["seeds"] == "seeds 0–5 (6)"
    got = {c["id"]: c for c in body["claims"]}
    want = {c.id: c for c in claims(rows)}
    assert got.keys() == want.keys()
    for c in got.values():
        assert {"id", "rules", "claim", "metric", "subset", "verdict", "estimate", "ci95", "test", "p", "n_games",
                "seeds_needed", "parts"} <= c.keys()
        assert c["verdict"] in (HOLDS, INDISTINGUISHABLE, FAILS, UNMEASURABLE)
        if c["verdict"] != UNMEASURABLE:
            low, high = c["ci95"]
            assert low <= c["estimate"] <= high or low is None
    text = (tmp_path / "out" / "report.md").read_text()
    assert "How to read a verdict" in text and "seeds to settle" in text
