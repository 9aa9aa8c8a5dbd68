"""Table 2 (§4.2.4): the `table2` preset of five games at the real-life games' scale, its claims judged on
the mean over the games, a language model as a method, and scenarios a rule set cannot play skipped with
a note while the sweep goes on."""

from __future__ import annotations

from negtui.scenario import load_scenario
from negtui.sweep.report import scenario_table
from negtui.sweep.spec import SweepSpec, presets
from negtui.sweep.stats import FAILS, HOLDS, INDISTINGUISHABLE
from negtui.sweep.table2 import table2_claims
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


def scenarios(gains: dict[str, float], k: int = 8) -> list[dict]:
    """k scenarios, each method's improvement its own plus a scenario's shift shared by every method."""
    base = [r for r in scenario_rows() if r["task"] == "a.json-0"]
    out = []
    for j in range(k):
        shift = (-1.0) ** j * (1 + j % 3)
        for r in base:
            gain = 0.0 if r["method"] == "baseline" else gains[r["method"]] + shift
            out.append(r | {"scenario_file": f"/s/g{j}.json", "scenario": f"g{j}", "task": f"g{j}",
                            "improvement": gain})
    return out


def test_the_order_lower_myopic_zero_upper_and_the_model_below_every_lens():
    """The paper's order on eight scenarios with a shift of their own: each claim holds; a model below the best
    lens but above another does not yield the lowest payoffs; four scenarios that disagree settle nothing."""
    order = {"lower": 12.0, "myopic": 8.0, "upper": -6.0}
    rows = scenarios(order)
    rows += [r | {"method": "llm", "improvement": r["improvement"] - 16.0} for r in rows if r["method"] == "myopic"]
    found = {c.id: c for c in table2_claims(scenario_table(rows))}  # type: ignore[arg-type]
    assert {k: c.verdict for k, c in found.items()} == {
        "table2.lower-best": HOLDS, "table2.myopic-improves": HOLDS, "table2.upper-below": HOLDS,
        "table2.llm-lowest": HOLDS}
    assert found["table2.llm-lowest"].decisive.decisive.what == "improvement llm − upper"  # the closest lens
    middle = scenarios(order) + [r | {"method": "llm", "improvement": r["improvement"] - 4.0}
                                 for r in scenarios(order) if r["method"] == "myopic"]
    found = {c.id: c for c in table2_claims(scenario_table(middle))}  # type: ignore[arg-type]
    assert found["table2.llm-lowest"].verdict == FAILS  # below the best lens, above upper: not the lowest
    noisy = [r | {"improvement": r["improvement"] + (7.0 if r["method"] == "myopic" and r["task"] in ("g0", "g3")
                                                  else 0.0)} for r in scenarios(order, k=4)]
    found = {c.id: c for c in table2_claims(scenario_table(noisy))}  # type: ignore[arg-type]
    assert found["table2.lower-best"].verdict == INDISTINGUISHABLE  # four scenarios, myopic ahead in two
    upper_up = scenarios({**order, "upper": 9.0})
    assert {c.id: c for c in table2_claims(scenario_table(upper_up))}[  # type: ignore[arg-type]
        "table2.upper-below"].verdict == FAILS


def test_with_llm_adds_the_model_as_a_method_with_the_papers_prompt(cli, tmp_path):
    res = cli("sweep", "--preset", "table2", "--with-llm", "my-model", "--dry-run")
    assert res.exit_code == 0, res.output
    assert ("table2: 5 games × 4 methods (myopic, upper, lower, llm), rules paper, 1 seed (0); llm: seats use the "
            "paper prompt") in res.output
    spec = tmp_path / "own.json"
    spec.write_text(presets()["table2"].model_copy(update={"llm_prompt": "negtui"}).model_dump_json())
    res = cli("sweep", spec, "--with-llm", "my-model", "--dry-run")
    assert res.exit_code == 0 and "llm: seats use the negtui prompt" in res.output  # the spec's own prompt kept
    res = cli("sweep", "--preset", "table2", "--with-llm", " ", "--dry-run")
    assert res.exit_code == 2 and "--with-llm needs a model name" in res.stderr


def test_the_hand_written_game_stands_apart_from_the_generated_ones(cli, tmp_path):
    """Table 2 pools no hand-written game with generated stand-ins: the mean is over the generated games, the
    claims are judged on them, and the hand-written game's row stands above them as one game of its own."""
    from negtui.sweep.render_scenarios import scenario_markdown

    rows = [r | {"generated": r["scenario_file"] != "/s/g0.json"}
            for r in scenarios({"myopic": 10.0, "upper": -5.0, "lower": 12.0}, k=5)]
    rows = [r | {"improvement": 900.0} if r["scenario_file"] == "/s/g0.json" and r["method"] == "myopic" else r
            for r in rows]  # a hand-written game where myopic is far ahead: pooled, it would sway the mean
    st = scenario_table(rows)
    assert st.split and st.files(generated=False) == ["/s/g0.json"]
    text = scenario_markdown(st)
    assert "mean ± sd over the 4 generated games" in text and "The hand-written game (g0) stands apart" in text
    assert text.index("| g0 |") < text.index("| g1 |")
    found = {c.id: c for c in table2_claims(st)}
    best = found["table2.lower-best"]
    assert best.subset == "the 4 generated scenarios (the hand-written one apart), one observation each"
    assert best.parts[0].comparisons[0].effect.n == 4 and best.verdict == HOLDS  # lower +2 over myopic in each
    pooled = scenario_table([r | {"generated": None} for r in rows])  # files from before the column: as before
    assert not pooled.split and "mean ± sd over the 5 games" in scenario_markdown(pooled)


def test_the_hand_written_game_heads_both_tables_wherever_its_file_sorts():
    """The sign-structure table lists the games in the scenario table's order, the hand-written one first,
    so the two tables read row against row."""
    from negtui.sweep.render_scenarios import scenario_markdown, structure_markdown

    shape = {"negative_mass": 0.16, "mixed_sign_goals": 0.62, "sign_agreement": 0.76}
    rows = [r | shape | {"generated": r["scenario_file"] != "/s/g3.json"}
            for r in scenarios({"myopic": 10.0, "upper": -5.0, "lower": 12.0}, k=5)]
    st = scenario_table(rows)
    for text in (scenario_markdown(st), structure_markdown(st)):
        assert text.index("| g3 |") < text.index("| g0 |") < text.index("| g4 |"), text
