"""Information as a sweep axis (the same games played with every value known and with each seat knowing its
own), regret stored per row, the welfare- and fairness-minded players as methods, and the report's tables
of both."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.sweep.render import information_markdown
from negtui.sweep.results import read_table
from negtui.sweep.spec import SweepSpec
from negtui.sweep.tasks import task_key, tasks
from tests.paths import ROOT
from tests.sweep.tiny import TINY_GAMES

SPEC = """name = "informed"
seeds = 2
rules = ["paper"]
information = ["public", "private"]
methods = ["myopic", "upper", "utilitarian", "maximin:lower"]
partner = "greedy"
welfare = "none"
[grid]
""" + TINY_GAMES + """structure = ["adversarial"]
all_or_nothing = [0.3]
payoff = ["balanced", "positive"]
"""


def test_public_games_keep_their_keys_so_results_from_before_the_axis_resume():
    game = str(ROOT / "scenarios" / "classic" / "buyer-seller.json")
    spec = SweepSpec.model_validate({"name": "x", "scenarios": [game], "information": ["public", "private"]})
    keys = {(t.information, t.key) for t in tasks(spec)}
    point = {"scenario": game}
    assert ("public", task_key("x", point, 0, "paper")) in keys  # as written before information was an axis
    assert ("private", task_key("x", point, 0, "paper", "private")) in keys
    assert task_key("x", point, 0, "paper") != task_key("x", point, 0, "paper", "private")
    with pytest.raises(ValueError, match="repeats"):
        SweepSpec.model_validate({"name": "x", "scenarios": ["a.json"], "information": ["private", "private"]})
    with pytest.raises(ValueError):
        SweepSpec.model_validate({"name": "x", "scenarios": ["a.json"], "information": ["secret"]})


def test_a_sweep_plays_the_same_games_under_both_and_reports_them_side_by_side(cli, tmp_path: Path):
    spec = tmp_path / "informed.toml"
    spec.write_text(SPEC)
    out = tmp_path / "r.parquet"
    res = cli("sweep", spec, "-o", out, "--workers", "1")
    assert res.exit_code == 0, res.output
    rows = read_table(out).to_pylist()
    assert {r["information"] for r in rows} == {"public", "private"}
    baseline = {}
    for r in rows:
        if r["method"] == "baseline":
            baseline.setdefault((r["payoff"], r["seed"]), set()).add(tuple(r["payoffs"]))
        elif r["method"] != "exact":
            assert r["regret"] is not None and r["regret"] >= 0
        else:
            assert r["regret"] is None
    assert len(baseline) == 4 and all(len(v) == 1 for v in baseline.values())  # the same games
    assert {r["method"] for r in rows} >= {"utilitarian", "maximin:lower"}
    paired = [(a["payoffs"], b["payoffs"]) for a in rows for b in rows
               if a["method"] == b["method"] == "upper" and a["seed"] == b["seed"] and a["payoff"] == b["payoff"]
               and a["information"] == "public" and b["information"] == "private"]
    assert len(paired) == 4  # every game played under both
    report = tmp_path / "rep"
    res = cli("report", out, "-o", report)
    assert res.exit_code == 0, res.output
    md = (report / "report.md").read_text()
    assert "### Private against full information" in md and "### Welfare- and fairness-minded players" in md
    assert "| balanced | utilitarian |" in md and "| maximin:lower |" in md
    table1 = md.split("### Table 1")[1].split("###")[0]
    assert "over 2 games per cell" in table1  # the paper's game, the public rows: not doubled by the private ones


def test_the_information_table_shows_each_mean_with_its_standard_error_and_the_change():
    def row(info: str, method: str, imp: float, reg: float, task: str) -> dict:
        return {"information": info, "method": method, "payoff": "balanced", "improvement": imp, "regret": reg,
                "task": task}

    rows = [row("public", "myopic", 10, 1, "a"), row("public", "myopic", 20, 3, "b"),
            row("private", "myopic", 4, 5, "c"), row("private", "myopic", 6, 7, "d")]
    text = information_markdown(rows, ["myopic"])
    assert "| balanced | myopic | +15.00 ± 5.00 | +5.00 ± 1.00 | -10.00 | +2.00 ± 1.00 | +6.00 ± 1.00 |" in text
    assert information_markdown([r for r in rows if r["information"] == "public"], ["myopic"]) == ""
