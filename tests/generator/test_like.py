"""Games in the shape of another (negtui/generator/like.py) and the rulers they are measured on
(negtui/scenario/shape.py): a hand-made game whose structure is known, the climate game's stand-ins within a
quarter of it on every sign measure, and the commands that make and show them."""

from __future__ import annotations

import json
import re

import pytest

from negtui.generator import GeneratorError, GeneratorParams, generate
from negtui.generator.like import TOLERANCE, like_params
from negtui.scenario import load_scenario, parse_scenario
from negtui.scenario.shape import shape, within_half
from tests.paths import CLIMATE, SCENARIOS

# three players, four goals: G (goals × players) =
#   g0  [ 4, -2,  0]   mixed
#   g1  [ 1,  1,  1]
#   g2  [-3,  0,  0]
#   g3  [ 0,  5, -5]   mixed
HAND = {"name": "hand", "players": [{"id": p, "actions": [{"id": "a"}]} for p in ("A", "B", "C")],
        "goals": [{"id": f"g{j}", "requires": [{"player": "A", "action": "a"}], "values": v} for j, v in enumerate(
            [{"A": 4, "B": -2}, {"A": 1, "B": 1, "C": 1}, {"A": -3}, {"B": 5, "C": -5}])]}


def test_the_sign_structure_of_a_hand_made_game():
    s = shape(parse_scenario(HAND))
    assert s.nonzero == pytest.approx(8 / 12) and s.positive == pytest.approx(5 / 8)
    assert s.negative_mass == pytest.approx(10 / 22)  # |−2| + |−3| + |−5| of 4+2+1+1+1+3+5+5
    assert s.mixed_sign_goals == pytest.approx(2 / 4)
    # pairs: A,B share g0 (disagree) and g1 (agree): 1/2; A,C share g1: 1; B,C share g1 (agree), g3 (not): 1/2
    assert s.sign_agreement == pytest.approx((0.5 + 1 + 0.5) / 3)
    assert (s.value_min, s.value_max, s.players, s.goals) == (-5, 5, 3, 4)


def test_the_climate_games_stand_ins_share_its_scale_and_sign_structure():
    climate = shape(load_scenario(CLIMATE))
    for n in range(1, 5):
        sc = load_scenario(SCENARIOS / "generated" / "hnc-scale" / f"hnc-scale-{n}.json")
        s = shape(sc)
        assert (s.players, s.goals, s.turns, s.budget) == (climate.players, climate.goals, climate.turns,
                                                           climate.budget)
        for measure in ("negative_mass", "mixed_sign_goals", "sign_agreement"):
            assert abs(getattr(s, measure) - getattr(climate, measure)) <= TOLERANCE * getattr(climate, measure), \
                (n, measure)
        assert all(within_half(s, climate).values())
        assert sc.meta["like"] == {"target": "cop-climate-22", "seed": n, "drawn_seed": sc.protocol.seed,
                                   "tolerance": TOLERANCE}
    again = like_params(load_scenario(CLIMATE), 2)  # the same target and seed: the same game as the file's
    kept = load_scenario(SCENARIOS / "generated" / "hnc-scale" / "hnc-scale-2.json")
    assert again.seed == kept.protocol.seed and generate(again).goals == kept.goals


def test_the_paper_axes_are_unchanged_without_the_new_parameters():
    plain = GeneratorParams(players=5, actions=2, goals=6, seed=3)
    assert generate(plain) == generate(GeneratorParams(players=5, actions=2, goals=6, seed=3, taste=None,
                                                       values=None, zero_fraction=0.0))
    assert "taste" not in generate(plain).meta["generator"]
    shaped = generate(GeneratorParams(players=5, actions=2, goals=6, seed=3, values=(-4, 9), zero_fraction=0.5))
    values = [v for g in shaped.goals for v in g.values.values()]
    assert min(values) >= -4 and max(values) <= 9 and shaped.name.endswith("shaped-seed3")
    assert sum(len(g.values) for g in shaped.goals) < sum(len(g.values) for g in generate(plain).goals)


@pytest.mark.parametrize("kw, words", [
    ({"taste": (0.5, 0.0)}, "SD above 0"), ({"values": (5, 5)}, "LOW < HIGH"),
    ({"zero_fraction": 1.0}, "in [0, 1)"), ({"values": (-20000, 3)}, "±10000"),
])
def test_bad_shape_parameters_are_refused(kw, words):
    with pytest.raises(GeneratorError, match=re.escape(words)):
        GeneratorParams(players=4, **kw)


def test_generate_like_and_describe_on_the_command_line(cli, tmp_path):
    out = tmp_path / "like.json"
    res = cli("generate", "--like", "poison-pill", "--seed", "1", "-o", out)
    assert res.exit_code == 2 and "at least 3 players" in res.stderr  # the generator's own floor, said plainly
    res = cli("generate", "--like", CLIMATE, "--seed", "7", "-o", out)
    assert res.exit_code == 0, res.output
    sc = load_scenario(out)
    assert sc.name == "like-cop-climate-22-seed7" and "in the shape of cop-climate-22" in sc.description
    res = cli("describe", out, "--against", CLIMATE, env={"COLUMNS": "120"})
    assert res.exit_code == 0 and "negative value mass" in res.stdout and res.stdout.count("✓") == 3, res.stdout
    body = json.loads(cli("describe", CLIMATE, "--json").stdout)
    assert body["games"][0]["negative_mass"] == pytest.approx(0.161, abs=1e-3)
    res = cli("generate", "--taste", "one,two")
    assert res.exit_code == 2 and "--taste is two numbers" in res.stderr
    res = cli("describe", tmp_path / "missing.json")
    assert res.exit_code == 2 and "Traceback" not in res.output
