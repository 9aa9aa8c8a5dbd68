"""Independent seeds: `--seed-start` (and `seed_start` in a spec) plays games disjoint from a study's, so a
verdict can be checked on games it was not drawn from; the report says which seeds it rests on."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from negtui.sweep.render import seed_range
from negtui.sweep.spec import Grid, SweepSpec
from negtui.sweep.tasks import _scenario, tasks


def tiny(**kw) -> SweepSpec:
    grid = Grid(players=[3], actions=[1], goals=[4], rounds=[1], factors=[2], structure=["cooperative"],
                all_or_nothing=[0.0], zipf=[1.6], payoff=["balanced"])
    return SweepSpec(name="tiny", grid=grid, methods=["myopic"], exact=False, welfare="none", **kw)


def test_a_replication_plays_other_games_than_the_study():
    study, again = tasks(tiny(seeds=3)), tasks(tiny(seeds=3, seed_start=1000))
    assert [t.seed for t in study] == [0, 1, 2] and [t.seed for t in again] == [1000, 1001, 1002]
    assert not {t.key for t in study} & {t.key for t in again}
    drawn = {_scenario(t).model_dump_json(exclude={"name", "description", "meta", "protocol"}) for t in study}
    assert not drawn & {_scenario(t).model_dump_json(exclude={"name", "description", "meta", "protocol"})
                        for t in again}
    overlap = tasks(tiny(seeds=3, seed_start=2))  # seeds 2-4: one game in common with the study, the same key
    assert {t.key for t in study} & {t.key for t in overlap} == {study[2].key}


def test_seed_start_is_checked_and_said(cli, tmp_path):
    with pytest.raises(ValidationError, match="greater than or equal to 0"):
        tiny(seed_start=-1)
    path = tmp_path / "tiny.json"
    path.write_text(tiny().model_dump_json())
    res = cli("sweep", path, "--seeds", "20", "--seed-start", "1000", "--dry-run")
    assert res.exit_code == 0 and "20 seeds (1000–1019)" in res.output, res.output
    res = cli("sweep", path, "--seed-start", "-5", "--dry-run")
    assert res.exit_code == 2 and "--seed-start" in res.stderr and "Traceback" not in res.output, res.output


def test_the_report_names_the_seeds_it_rests_on():
    assert seed_range([{"seed": s} for s in range(20)]) == "seeds 0–19 (20)"
    assert seed_range([{"seed": s} for s in [*range(5), *range(100, 105)]]) == "seeds 0–4, 100–104 (10)"
    assert seed_range([{"seed": 7}, {"seed": 7}]) == "seed 7 (1)"
