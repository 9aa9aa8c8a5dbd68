"""Table 2 (§4.2.4): the `table2` preset of five games at the real-life games' scale, its claims judged on
the mean over the games, a language model as a method, and scenarios a rule set cannot play skipped with
a note while the sweep goes on."""

from __future__ import annotations

from negtui.scenario import load_scenario
from negtui.sweep.claims import FAILS, HOLDS, table2_claims
from negtui.sweep.report import scenario_table
from negtui.sweep.spec import SweepSpec, presets
from negtui.sweep.tasks import skipped, tasks
from tests.paths import PILL, RIVER_BASIN
from tests.sweep.test_report import scenario_rows


def test_the_preset_plays_the_climate_game_and_four_generated_at_its_scale():
    spec = presets()["table2"]
    assert len(spec.scenarios) == 5 and spec.scenarios[0].endswith("cop-climate-22.json")
    for path in spec.scenarios:
        sc = load_scenario(path)
        assert len(sc.players) == 22 and len(sc.goals) == 45 and sc.protocol.rounds == 9


def test_a_scenario_a_rule_set_cannot_play_is_skipped_and_the_rest_goes_on(cli, tmp_path):
    spec = SweepSpec(name="mixed", scenarios=[str(RIVER_BASIN), str(PILL)], rules=["paper", "reference"], seeds=1,
                     exact=False, welfare="none")
    refused = skipped(spec)
    assert [(p["scenario"], r) for p, r, _ in refused] == [(str(RIVER_BASIN), "reference")]
    assert "no exclusive sets" in refused[0][2]
    assert sorted((t.params["scenario"], t.rules) for t in tasks(spec)) == sorted(
        [(str(RIVER_BASIN), "paper"), (str(PILL), "paper"), (str(PILL), "reference")])
    path = tmp_path / "mixed.json"
    path.write_text(spec.model_dump_json())
    res = cli("sweep", path, "--dry-run")
    assert res.exit_code == 0 and "skipping 1 scenario(s) a rule set cannot play: reference rules:" in res.stderr


def with_model(gain_of_llm: float) -> list[dict]:
    rows = scenario_rows()
    return rows + [r | {"method": "llm", "improvement": gain_of_llm} for r in rows if r["method"] == "myopic"]


def test_the_order_lower_myopic_zero_upper_and_the_model_against_the_best_lens():
    st = scenario_table(with_model(-1.0))
    assert st is not None
    found = {c.text: c for c in table2_claims(st)}
    assert found["Reward (myopic) improves on No-Negotiation"].verdict == HOLDS
    assert found["The language-model baseline trails the best lens"].verdict == HOLDS
    assert found["The language-model baseline trails the best lens"].evidence == (
        "1 of 1: llm -1.00 against myopic +10.50")
    better = {c.text: c for c in table2_claims(scenario_table(with_model(50.0)))}  # type: ignore[arg-type]
    assert better["The language-model baseline trails the best lens"].verdict == FAILS
    upper_up = [dict(r, improvement=9.0) if r["method"] == "upper" else r for r in scenario_rows()]
    assert {c.text: c for c in table2_claims(scenario_table(upper_up))}[  # type: ignore[arg-type]
        "Upper falls below No-Negotiation"].verdict == FAILS


def test_with_llm_adds_the_model_as_a_method_with_the_papers_prompt(cli, tmp_path):
    res = cli("sweep", "--preset", "table2", "--with-llm", "my-model", "--dry-run")
    assert res.exit_code == 0, res.output
    assert ("table2: 5 games × 4 methods (myopic, upper, lower, llm), rules paper, 1 seed; llm: seats use the paper "
            "prompt") in res.output
    spec = tmp_path / "own.json"
    spec.write_text(presets()["table2"].model_copy(update={"llm_prompt": "negtui"}).model_dump_json())
    res = cli("sweep", spec, "--with-llm", "my-model", "--dry-run")
    assert res.exit_code == 0 and "llm: seats use the negtui prompt" in res.output  # the spec's own prompt kept
    res = cli("sweep", "--preset", "table2", "--with-llm", " ", "--dry-run")
    assert res.exit_code == 2 and "--with-llm needs a model name" in res.stderr
