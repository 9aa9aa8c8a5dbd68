"""A sweep compares rule-set variants: the same games (a variant draws its base's), one report section
per variant, and every verdict side by side in the claims-at-a-glance table: the ablation table."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.sweep.results import read_table
from negtui.sweep.spec import SweepSpec
from tests.sweep.tiny import TINY_GAMES

SPEC = """name = "ablation"
seeds = 2
rules = ["paper", "paper+lower_reference_credibility+mcts_leaf_myopic", "reference-offer_ties_last"]
methods = ["myopic", "lower"]
partner = "greedy"
welfare = "none"
[grid]
""" + TINY_GAMES + """structure = ["adversarial"]
all_or_nothing = [0.0]
payoff = ["balanced", "positive"]
"""


def test_variants_play_the_same_games_and_are_reported_side_by_side(cli, tmp_path: Path):
    spec = tmp_path / "ablation.toml"
    spec.write_text(SPEC)
    out = tmp_path / "r.parquet"
    res = cli("sweep", spec, "-o", out, "--workers", "1")
    assert res.exit_code == 0, res.output
    rows = read_table(out).to_pylist()
    names = ["paper", "paper+lower_reference_credibility+mcts_leaf_myopic", "reference-offer_ties_last"]
    assert sorted({r["rules"] for r in rows}) == sorted(names)
    exact = {}
    for r in rows:
        if r["method"] == "exact" and r["rules"].startswith("paper"):
            exact.setdefault((r["payoff"], r["seed"]), []).append(r["payoffs"])
    assert len(exact) == 4 and all(len(v) == 2 and v[0] == v[1] for v in exact.values())  # same games
    report = tmp_path / "rep"
    res = cli("report", out, "-o", report)
    assert res.exit_code == 0, res.output
    md = (report / "report.md").read_text()
    assert "| claim | ablation · paper | ablation · paper+lower\\_reference\\_credibility+mcts\\_leaf\\_myopic |" in md
    for name in names:
        assert f"## ablation · {name.replace('_', chr(92) + '_')} rules" in md


@pytest.mark.parametrize("rules, words", [(["paper", "paper+nope"], "unknown switch 'nope'"),
                                          (["paper", "paper-lower_reference_credibility"], "repeats 'paper'")])
def test_an_unknown_or_repeated_variant_is_refused_before_anything_runs(rules, words):
    with pytest.raises(ValueError, match=words):
        SweepSpec(name="x", scenarios=["a.json"], rules=rules)
