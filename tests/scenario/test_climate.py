"""The bundled climate conference (scenarios/hnc/climate/cop-climate-22.json): an HNC topfile at the
paper's scale (22 parties, 45 canonical goals) whose shape the issue fixes — several actions per party,
positive-dominated values, mostly linear goals with a handful of all-or-nothing ones, exclusive sets —
and which must stay playable: bots under every closed-form lens finish a full game, the welfare MILP
proves its optimum, and the topfile survives import and export unchanged."""

from __future__ import annotations

import json

import pytest

from negtui.agents import LensBot
from negtui.engine import PAPER, Negotiation, TurnDriver, Valuation, compile_game
from negtui.scenario import load_scenario
from negtui.scenario.hnc import HncTopfile, from_scenario
from negtui.welfare import WelfareOptions, solve_welfare
from tests.paths import CLIMATE

CLOSED_FORM_LENSES = ("myopic", "upper", "lower")


@pytest.fixture(scope="module")
def sc():
    return load_scenario(CLIMATE)


@pytest.fixture(scope="module")
def raw():
    return json.loads(CLIMATE.read_text(encoding="utf-8"))


def test_file_is_a_topfile_with_a_readme_beside_it(raw, sc):
    assert "countries" in raw and "players" not in raw
    assert sc.name == "cop-climate-22" and sc.description and sc.lesson
    assert (CLIMATE.parent / "README.md").is_file()


def test_paper_scale(sc):
    assert len(sc.players) == 22
    assert len(sc.goals) == 45
    assert sc.protocol.rounds == 9 and sc.protocol.budget == 2 and sc.protocol.seed == 0
    assert compile_game(sc, PAPER).T == 198


def test_several_actions_per_party_and_a_moderate_total(sc):
    counts = [len(p.actions) for p in sc.players]
    assert all(3 <= m <= 6 for m in counts), counts
    assert 80 <= sum(counts) <= 110


def test_every_action_serves_some_goal(sc):
    used = {(r.player, r.action) for g in sc.goals for r in g.requires}
    unused = [(p.id, a.label) for p in sc.players for a in p.actions if (p.id, a.id) not in used]
    assert not unused


def test_values_are_positive_dominated_integers(sc):
    values = [v for g in sc.goals for v in g.values.values()]
    assert all(float(v).is_integer() and -20 <= v <= 30 for v in values)
    positive = sum(v for v in values if v > 0)
    negative = -sum(v for v in values if v < 0)
    assert positive > 3 * negative
    assert sum(v > 0 for v in values) > 3 * sum(v < 0 for v in values)
    assert any(v < 0 for v in values)  # some interests oppose some goals


def test_values_only_where_a_party_cares(sc):
    for g in sc.goals:
        assert g.values, g.label
        assert all(v != 0 for v in g.values.values()), g.label
        assert len(g.values) < len(sc.players), g.label


def test_every_party_values_several_goals_and_gains_somewhere(sc):
    for p in sc.players:
        mine = [g.values[p.id] for g in sc.goals if p.id in g.values]
        assert len(mine) >= 5, p.id
        assert sum(v > 0 for v in mine) >= 3, p.id


def test_mostly_linear_goals_with_a_handful_all_or_nothing(sc):
    aon = [g for g in sc.goals if g.kind == "all_or_nothing"]
    assert 5 <= len(aon) <= 7
    assert len(sc.goals) - len(aon) >= 38
    thresholds = [g for g in sc.goals if g.threshold is not None]
    assert len(thresholds) >= 3  # "k of n parties" goals
    assert all(1 <= g.threshold < len(g.requires) for g in thresholds)
    assert any(g.kind == "all_or_nothing" for g in thresholds)
    assert any(g.kind == "linear" for g in thresholds)
    # all-or-nothing goals need several parties, not one party's single action
    assert all(len({r.player for r in g.requires}) >= 2 for g in aon)


def test_exclusive_sets_as_designed(sc):
    assert 4 <= len(sc.exclusive) <= 8
    name = {p.id: p.display for p in sc.players}
    parties = sorted(tuple(sorted({name[r.player] for r in grp})) for grp in sc.exclusive)
    assert parties == sorted([
        ("Saudi Arabia",), ("China",), ("China",), ("India",), ("India",),  # one party's incompatible positions
        ("AOSIS", "United States"),  # where the loss and damage fund sits
        ("European Union", "United States"),  # strict vs light-touch Article 6.2
        ("China", "European Union"),  # broadened vs developed-only NCQG contributor base
    ])
    for grp in sc.exclusive:
        assert len(grp) == 2 and len({(r.player, r.action) for r in grp}) == 2


@pytest.mark.parametrize("lens", CLOSED_FORM_LENSES)
def test_autoplay_finishes_and_respects_exclusions(sc, lens):
    neg = Negotiation.from_scenario(sc, PAPER)
    val = Valuation(neg)
    match = TurnDriver(neg, [LensBot(val, lens, lens, "greedy") for p in sc.players])
    payoffs = match.play()
    assert match.over and len(match.events) == 198
    index = {(p.id, a.id): k for k, (p, a) in enumerate((p, a) for p in sc.players for a in p.actions)}  # player-major
    for ev in match.events:
        for grp in sc.exclusive:
            assert sum(ev.after.bits >> index[(r.player, r.action)] & 1 for r in grp) <= 1
    assert len(payoffs) == 22
    if lens != "upper":  # myopic and credible-threat bots strike many deals
        assert bin(match.state.bits).count("1") >= 40
        assert payoffs.sum() > 0


def test_utilitarian_welfare_is_proven_optimal(sc):
    res = solve_welfare(compile_game(sc, PAPER), PAPER, 0, WelfareOptions())
    assert res.proven_optimal and res.status == "optimal"
    assert res.welfare == pytest.approx(sum(res.payoffs))
    assert res.welfare > 0


def test_round_trip_through_the_scenario_model(raw, sc):
    assert all(isinstance(r["action"], str) for gs in raw["goal_satisfaction"] for r in gs["requirements"])
    assert all(isinstance(r["action"], str) for grp in raw["mutually_exclusive_agreements"] for r in grp)
    assert from_scenario(sc) == HncTopfile.model_validate(raw)
