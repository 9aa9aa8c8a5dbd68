"""The learned lens's claims: judged against every hand lens, per regime, on hand-made results whose every mean
is known, holding, failing and tied, with a method named `learned` in the sweep."""

from __future__ import annotations

import numpy as np
import pytest

from negtui.sweep.claims import claims
from negtui.sweep.stats import FAILS, HOLDS, INDISTINGUISHABLE
from tests.sweep.test_claims import small_rows

SEEDS = 8


def with_learned(rows: list[dict], l1: dict[str, float], improvement: dict[str, dict[str, float]],
                 noise: float = 0.05) -> list[dict]:
    """The rows, each hand lens given an improvement by regime, and a `learned` row per game."""
    rng = np.random.default_rng(1)
    out = []
    for r in rows:
        if r["method"] in ("myopic", "upper", "lower"):
            r = r | {"improvement": improvement[r["payoff"]][r["method"]] + float(rng.normal(0, noise))}
        out.append(r)
        if r["method"] == "exact":
            out.append(r | {"method": "learned", "l1_exact": l1[r["payoff"]] + float(rng.normal(0, noise)),
                            "improvement": improvement[r["payoff"]]["learned"] + float(rng.normal(0, noise))})
    return out


def by_id(rows: list[dict]) -> dict[str, object]:
    return {c.id: c for c in claims(rows)}


IMPROVEMENT = {g: {"myopic": 10.0, "upper": 12.0, "lower": 11.0, "learned": 14.0}
               for g in ("balanced", "negative", "negative-pp", "positive")}


def test_a_learned_lens_below_every_hand_lens_holds_and_one_above_fails() -> None:
    rows = small_rows(seeds=SEEDS)
    good = by_id(with_learned(rows, {"balanced": 1.0, "negative": 1.0, "negative-pp": 1.0, "positive": 0.2},
                              IMPROVEMENT))
    claim = good["learned.l1-below-every-hand-lens"]
    assert claim.verdict == HOLDS
    assert len(claim.parts) == 4  # each regime
    assert all(len(p.comparisons) == 3 for p in claim.parts)  # against myopic, upper and lower
    assert good["learned.improvement-at-least-best-hand-lens"].verdict == HOLDS
    bad = by_id(with_learned(rows, {"balanced": 20.0, "negative": 20.0, "negative-pp": 20.0, "positive": 20.0},
                             IMPROVEMENT))
    assert bad["learned.l1-below-every-hand-lens"].verdict == FAILS


def test_a_learned_lens_tied_with_the_best_hand_lens_is_a_tie() -> None:
    rows = small_rows(seeds=SEEDS)
    tied = {g: v | {"learned": v["upper"]} for g, v in IMPROVEMENT.items()}
    judged = by_id(with_learned(rows, {g: 1.0 for g in IMPROVEMENT}, tied))
    claim = judged["learned.improvement-at-least-best-hand-lens"]
    assert claim.verdict == INDISTINGUISHABLE
    assert all("− upper (the best hand lens here)" in p.comparisons[0].what for p in claim.parts)


def test_without_a_learned_method_there_is_no_learned_claim() -> None:
    assert not [c for c in claims(small_rows(seeds=SEEDS)) if c.id.startswith("learned.")]


def test_large_games_judge_its_improvement_against_each_hand_lens() -> None:
    rows = [r for r in with_learned(small_rows(seeds=SEEDS), {g: 1.0 for g in IMPROVEMENT}, IMPROVEMENT)
            if r["method"] != "exact"]
    for r in rows:
        r["l1_exact"] = None
    judged = by_id(rows)
    assert judged["learned.improvement-over-every-hand-lens"].verdict == HOLDS
    assert "learned.l1-below-every-hand-lens" not in judged


@pytest.mark.slow  # a sweep of 12 games and its report
def test_a_sweep_with_the_learned_lens_reports_its_claims(cli, tmp_path) -> None:
    """`negtui sweep` plays a method named learned (the shipped model) beside the hand lenses, and `negtui report`
    judges it against each of them."""
    import json

    spec = tmp_path / "spec.toml"
    spec.write_text('format = "negtui-sweep/1"\nname = "tiny"\nseeds = 3\nwelfare = "none"\nsims = 5\n'
                    'methods = ["myopic", "upper", "lower", "learned"]\n'
                    '[grid]\nplayers = [4]\nactions = [1]\ngoals = [5]\nrounds = [2]\nfactors = [2]\n'
                    'structure = ["adversarial"]\nall_or_nothing = [0.0]\nzipf = [1.6]\n'
                    'payoff = ["balanced", "positive"]\n')
    results = tmp_path / "r.parquet"
    ran = cli("sweep", spec, "-o", results, "--workers", "1")
    assert ran.exit_code == 0, ran.output
    out = cli("report", results, "-o", tmp_path / "report")
    assert out.exit_code == 0, out.output
    found = {c["id"]: c for c in json.loads((tmp_path / "report" / "claims.json").read_text())["claims"]}
    claim = found["learned.l1-below-every-hand-lens"]
    assert claim["verdict"] in (HOLDS, FAILS, INDISTINGUISHABLE, "identical play")
    assert "learned.improvement-at-least-best-hand-lens" in found
    assert "learned" in (tmp_path / "report" / "report.md").read_text()
