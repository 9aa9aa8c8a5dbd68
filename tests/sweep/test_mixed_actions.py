"""Mixed action counts (`--actions 1-2`, the paper's "1–2 actions" small games): each player's count drawn
by the seed in generate and in sweep grids, and a game over the exact-solve limit counted and reported,
never silently left without its L1 error."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from negtui.engine.outcome import AUTO_EXACT_LIMIT
from negtui.generator import GeneratorError, GeneratorParams, game_arrays
from negtui.sweep.results import read_table
from negtui.sweep.spec import Grid, SweepSpec
from negtui.sweep.tasks import skipped, tasks


def test_counts_are_drawn_in_the_range_by_the_seed_and_leave_the_values_alone():
    counts = {seed: GeneratorParams(actions=1, actions_up_to=2, seed=seed).action_counts for seed in range(20)}
    assert all(len(c) == 10 and set(c) <= {1, 2} for c in counts.values())
    assert {1, 2} <= {m for c in counts.values() for m in c} and len(set(counts.values())) > 10
    assert counts[3] == GeneratorParams(actions=1, actions_up_to=2, seed=3).action_counts  # the seed decides
    mixed = game_arrays(GeneratorParams(actions=1, actions_up_to=2, seed=3))
    fixed = game_arrays(GeneratorParams(seed=3))
    assert mixed.actions == counts[3]
    assert np.array_equal(mixed.G, fixed.G)  # values drawn as with fixed counts: a stream of their own
    assert GeneratorParams(actions=2, actions_up_to=2, seed=1).action_counts == (2,) * 10
    for low, high in ((0, 2), (3, 2)):
        with pytest.raises(GeneratorError, match="LOW-HIGH"):
            GeneratorParams(actions=low, actions_up_to=high)


def test_generate_on_the_command_line(cli):
    res = cli("generate", "--actions", "1-2", "--seed", "3")
    assert res.exit_code == 0, res.output
    sc = json.loads(res.stdout)
    assert [len(p["actions"]) for p in sc["players"]] == list(GeneratorParams(actions=1, actions_up_to=2,
                                                                              seed=3).action_counts)
    assert sc["meta"]["generator"]["actions_up_to"] == 2
    for bad in ("2-1", "1-x", "-2"):
        res = cli("generate", "--actions", bad)
        assert res.exit_code == 2 and "Traceback" not in res.output


@pytest.mark.parametrize("value, words", [("0-2", "between 1 and"), ("3-2", "LOW <= HIGH"), ("a-b", "not a count"),
                                          ("1,2", "not LOW-HIGH"), ("1-65", "between 1 and 64")])
def test_a_bad_range_in_a_grid_is_refused_before_anything_runs(value, words):
    with pytest.raises(ValueError, match=words):
        Grid(actions=[value])


def test_the_reference_generator_refuses_a_pill_where_a_receiver_may_have_one_action():
    spec = SweepSpec(name="m", grid=Grid(actions=["1-2", "2-3"], payoff=["negative-pp"], factors=[5],
                                         all_or_nothing=[0.0], zipf=[1.6], structure=["adversarial"]),
                     seeds=2, rules=["paper", "reference"])
    refused = skipped(spec)
    assert [(p["actions"], r) for p, r, _ in refused] == [("1-2", "reference")]
    assert len(tasks(spec)) == 3 * 2  # three (range, rules) cells played, two seeds


@pytest.mark.slow
def test_a_sweep_over_ranges_records_them_and_counts_the_games_over_the_exact_limit(cli, tmp_path: Path):
    """2-3 actions for 10 players is 20-30 cells: 5 rounds × 2^20 states is over the limit in every game;
    1-2 is at most 20 cells, under it in most."""
    spec = tmp_path / "mixed.toml"
    spec.write_text('name = "mixed"\nseeds = 3\nmethods = ["myopic"]\npartner = "greedy"\nwelfare = "none"\n'
                    '[grid]\nplayers = [10]\nactions = ["1-2", "2-3"]\ngoals = [15]\nrounds = [5]\nfactors = [5]\n'
                    'structure = ["adversarial"]\nall_or_nothing = [0.0]\nzipf = [1.6]\npayoff = ["balanced"]\n')
    out = tmp_path / "r.parquet"
    res = cli("sweep", spec, "-o", out, "--workers", "1")
    assert res.exit_code == 0, res.output
    rows = read_table(out).to_pylist()
    games = {r["task"]: r for r in rows if r["method"] == "baseline"}
    wide = [r for r in games.values() if r["actions_up_to"] == 3]
    assert len(wide) == 3 and all(r["actions"] == 2 and r["exact_solved"] is False for r in wide)
    for r in games.values():  # (turns + 1) × 2^cells states against the limit, cells from the game played
        cells = GeneratorParams(actions=r["actions"], actions_up_to=r["actions_up_to"], seed=r["seed"]).action_counts
        assert r["exact_solved"] is ((50 + 1) * 2 ** sum(cells) <= AUTO_EXACT_LIMIT)
    over = sum(r["exact_solved"] is False for r in games.values())
    assert 3 <= over < 6
    assert f"{over} of the games run now were over the exact-solve limit" in res.stderr
    assert not any(r["method"] == "exact" and r["task"] in {w["task"] for w in wide} for r in rows)
    report = tmp_path / "rep"
    res = cli("report", out, "-o", report)
    assert res.exit_code == 0, res.output
    assert f"{over} of 6 games were over the exact-solve limit" in (report / "report.md").read_text()
