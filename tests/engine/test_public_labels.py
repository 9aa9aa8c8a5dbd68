"""Labels that do not give values away: under private information every channel a seat reads (its scenario,
its observation, an outside program's hello, a model's prompt, the app's goal names) carries a goal's public
label, no teaching note, nothing of who a poison pill traps and no description that says who gains; and
`negtui validate` warns where a label or the description names a player beside a gain or harm."""

from __future__ import annotations

import json

from negtui.engine import PAPER, Negotiation, observation, observation_text
from negtui.engine.knowledge import seat_negotiation
from negtui.generator import GeneratorParams, generate
from negtui.names import goal_names
from negtui.scenario import load_scenario
from negtui.scenario.leaks import leaks
from tests.paths import CLASSIC, TEACHING

PILL_GAME = GeneratorParams(players=4, actions=2, goals=5, payoff="negative", poison_pill=True, seed=2)


def test_a_generated_poison_pill_tells_a_private_seat_nothing_of_whom_it_traps():
    sc = generate(PILL_GAME)
    bait, poison = sc.goals[0], sc.goals[1]
    assert "gains" in poison.label and poison.public_label == "goal 1" and bait.public_label == "goal 0"
    neg = Negotiation.from_scenario(sc, PAPER)
    for seat in range(4):
        picture = seat_negotiation(neg, seat, "private").game.scenario
        text = json.dumps(picture.model_dump(mode="json"))
        assert "gains" not in text and "harmed" not in text and "laid by" not in text, seat
        assert "poison_pill" not in picture.meta and picture.lesson == ""
        obs = observation(neg, neg.initial_state(), seat, "private")
        assert [g["label"] for g in obs["goals"][:2]] == ["goal 0", "goal 1"]
        assert "gains" not in observation_text(neg, neg.initial_state(), seat, "private")
    public = observation(neg, neg.initial_state(), 0, "public")  # the paper's game: every value is known anyway
    assert public["goals"][1]["label"] == poison.label
    assert goal_names(sc, public=True)[:2] == ["goal 0", "goal 1"] and goal_names(sc)[1] == poison.label


def test_a_description_that_tells_values_is_left_out_for_a_private_seat():
    sc = load_scenario(CLASSIC / "deal-or-no-deal.json")
    assert "Alice values a book at 2" in sc.description
    picture = seat_negotiation(Negotiation.from_scenario(sc, PAPER), 0, "private").game.scenario
    assert picture.description == ""
    plain = load_scenario(TEACHING / "poison-pill.json")  # says nothing of anyone's values: kept
    kept = seat_negotiation(Negotiation.from_scenario(plain, PAPER), 0, "private").game.scenario
    assert kept.description == plain.description and kept.lesson == ""


def test_validate_warns_where_a_label_gives_values_away(cli, tmp_path):
    data = json.loads(generate(PILL_GAME).model_dump_json())
    for goal in data["goals"]:
        goal.pop("public_label", None)
    path = tmp_path / "pill.json"
    path.write_text(json.dumps(data))
    res = cli("validate", path)
    assert res.exit_code == 0, res.output  # a warning, not an error
    assert "$.goals[1].label: 'poison: P" in res.stderr and "give the goal a public_label" in res.stderr
    assert "$.description: names" in res.stderr


def test_the_bundled_scenarios_give_nothing_away_in_their_labels(root):
    for path in sorted((root / "scenarios").rglob("*.json")):
        found = [(where, words) for where, words in leaks(load_scenario(path)) if where != "$.description"]
        assert not found, (path, found)


def test_an_action_added_for_the_pill_and_the_generators_word_of_one_reach_no_private_seat(cli, tmp_path):
    """With one action a player, the generator adds the pill's receiver an action labelled for it, and its
    parameters say a pill was laid: under private information no seat reads either (its scenario, which an
    outside program's hello carries, and the prompt's words), and `negtui validate` warns of the label."""
    sc = generate(GeneratorParams(players=4, actions=1, goals=5, payoff="negative", poison_pill=True, seed=2))
    labels = [a.label for p in sc.players for a in p.actions]
    assert "P0 action 1 (added for the poison pill)" in labels and sc.meta["generator"]["poison_pill"] is True
    neg = Negotiation.from_scenario(sc, PAPER)
    for seat in range(4):
        picture = seat_negotiation(neg, seat, "private").game.scenario
        text = json.dumps(picture.model_dump(mode="json"))
        assert "poison" not in text and "added for" not in text, seat
        assert [a.label for a in picture.players[0].actions] == ["P0 action 0", "P0 action 1"]
        assert "poison" not in observation_text(neg, neg.initial_state(), seat, "private")
    assert "added for the poison pill" in observation_text(neg, neg.initial_state(), 1, "public")  # known anyway
    path = tmp_path / "pill.json"
    path.write_text(sc.model_dump_json())
    res = cli("validate", path)
    assert res.exit_code == 0, res.output
    assert "$.players[0].actions[1].label: 'P0 action 1 (added for the poison pill)' names P0" in res.stderr
