"""Cases from scoresheets: small sheets compiled and checked by hand (players, actions, exclusive sets, goals,
values), payoffs worked by hand for given agreements, the agreement rule's goals against brute force, every
kind of mistake refused with its path, the points table, and the bundled case end to end (validate, autoplay
with a record that verifies, the course, the app)."""

from __future__ import annotations

import copy
import itertools
import json
import tomllib
from pathlib import Path

import pytest

from negtui.engine import PAPER, Negotiation, State, compile_game
from negtui.engine.exact import solve
from negtui.engine.negotiation import IllegalMove
from negtui.engine.offers import Offer
from negtui.engine.payoff import payoffs
from negtui.scenario import ScenarioError, load_scenario, parse_scenario
from negtui.scenario.io import ScoresheetError
from negtui.scenario.scoresheets import reservation_shares, settlement_terms, validate_sheet
from tests.paths import ROOT, SCENARIOS

CASE = SCENARIOS / "cases" / "regional-bus-network.toml"
COURSE = ROOT / "courses" / "cases.toml"


def sheet(**changes: object) -> dict:
    """Three parties, two issues of two options, unanimity; reservation values 8, 6 and 0."""
    data: dict = {
        "format": "negtui-scoresheet/1", "title": "Two issues",
        "parties": [{"id": "a", "name": "Ann", "reservation": 8}, {"id": "b", "reservation": 6}, {"id": "c"}],
        "issues": [
            {"id": "x", "label": "X", "options": [{"id": "x1", "label": "one", "points": {"a": 10, "b": 0, "c": 4}},
                                                {"id": "x2", "points": {"a": 0, "b": 8, "c": 6}}]},
            {"id": "y", "options": [{"id": "y1", "points": {"a": 6, "b": 4, "c": 0}},
                                    {"id": "y2", "points": {"a": 2, "b": 2, "c": 10}}]},
        ],
    }
    data.update(copy.deepcopy(changes))
    return data


def payoff(sc, backing: dict[str, list[str]]) -> dict[str, float]:
    """Each party's payoff when each backs the options listed (as `issue.option` action ids)."""
    game = compile_game(sc, PAPER)
    bits = game.bits_of([(pid, act) for pid, acts in backing.items() for act in acts])
    return dict(zip(game.player_ids, (float(v) for v in payoffs(game, bits)), strict=True))


def problems(data: object) -> dict[str, str]:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(data, "sheet")
    assert err.value.kind == "scoresheet"
    return {p.path: p.message for p in err.value.problems}


# --- the mapping, by hand -------------------------------------------------------------------------------

def test_unanimity_compiles_to_one_goal_per_option_valued_net_of_the_reservation_shares():
    sc = parse_scenario(sheet())
    assert sc.name == "two-issues" and [p.id for p in sc.players] == ["a", "b", "c"]
    assert sc.players[0].name == "Ann"
    assert [a.id for a in sc.players[0].actions] == ["x.x1", "x.x2", "y.y1", "y.y2"]
    assert sc.players[0].actions[0].label == "Back one on X"
    # one exclusive set per party per issue: a party backs at most one option
    assert [[(r.player, r.action) for r in grp] for grp in sc.exclusive] == [
        [(p, f"{i}.{i}{k}") for k in (1, 2)] for p in "abc" for i in "xy"]
    # shares of the reservation value in proportion to each party's best points on each issue:
    # a: best 10 and 6, 8 -> 5 and 3; b: best 8 and 4, 6 -> 4 and 2; c: nothing to share
    assert [(g.id, g.kind, g.threshold, [r.player for r in g.requires], g.values) for g in sc.goals] == [
        ("x.x1", "all_or_nothing", None, ["a", "b", "c"], {"a": 5, "b": -4, "c": 4}),
        ("x.x2", "all_or_nothing", None, ["a", "b", "c"], {"a": -5, "b": 4, "c": 6}),
        ("y.y1", "all_or_nothing", None, ["a", "b", "c"], {"a": 3, "b": 2, "c": 0}),
        ("y.y2", "all_or_nothing", None, ["a", "b", "c"], {"a": -1, "b": 0, "c": 10}),
    ]
    assert all(r.action == g.id for g in sc.goals for r in g.requires)
    assert sc.goals[0].label == "X: one — all 3 parties back it"
    assert "every party backs it" in sc.description and "0 is walking away" in sc.description
    assert sc.meta == {"scoresheet": {"title": "Two issues", "issues": 2, "quorum": 3, "vetoes": []}}


def test_payoffs_are_points_above_the_reservation_value():
    sc = parse_scenario(sheet())
    # every issue settled: the package's points less the whole reservation value
    assert payoff(sc, {p: ["x.x1", "y.y1"] for p in "abc"}) == {"a": 10 + 6 - 8, "b": 0 + 4 - 6, "c": 4 + 0 - 0}
    # nothing settled is walking away: 0, whatever is backed
    assert payoff(sc, {"a": ["x.x1", "y.y1"], "b": ["x.x2", "y.y1"], "c": ["x.x1"]}) == {"a": 0, "b": 0, "c": 0}
    # one issue settled: its points less that issue's share (a: 5 of 8, b: 4 of 6)
    assert payoff(sc, {"a": ["x.x2", "y.y1"], "b": ["x.x2", "y.y1"], "c": ["x.x2", "y.y2"]}) == {
        "a": 0 - 5, "b": 8 - 4, "c": 6}


def test_a_quorum_is_the_goals_threshold_and_binds_the_party_outvoted():
    sc = parse_scenario(sheet(agreement={"quorum": 2}))
    assert [(g.id, g.threshold, len(g.requires)) for g in sc.goals] == [
        ("x.x1", 2, 3), ("x.x2", 2, 3), ("y.y1", 2, 3), ("y.y2", 2, 3)]
    assert sc.goals[0].label == "X: one — 2 of the 3 parties back it"
    # a and c settle x on x1 although b backs x2; b is bound by it (b's share of x, 4, is given up too)
    assert payoff(sc, {"a": ["x.x1"], "b": ["x.x2"], "c": ["x.x1"]}) == {"a": 5, "b": -4, "c": 4}


def four(**agreement: object) -> dict:
    """Four parties (d with a reservation value of 3), one issue of two options, the rule given."""
    points = {"o1": {"a": 4, "b": 2, "c": 1, "d": 9}, "o2": {"a": 0, "b": 6, "c": 5, "d": 0}}
    return {"format": "negtui-scoresheet/1", "title": "Veto", "agreement": agreement,
            "parties": [{"id": p, **({"reservation": 3} if p == "d" else {})} for p in "abcd"],
            "issues": [{"id": "i", "options": [{"id": o, "points": pts} for o, pts in points.items()]}]}


def test_a_veto_is_three_goals_per_option_that_add_up_to_the_rule_exactly():
    sc = parse_scenario(four(quorum=3, vetoes=["a"]))
    # +[3 of all 4] + [all 4] - [b, c and d without a]: d's value of o1 is 9 - 3 (its whole reservation value)
    d1 = 9 - 3
    assert [(g.id, g.threshold, [r.player for r in g.requires], g.values) for g in sc.goals[:3]] == [
        ("i.o1", 3, ["a", "b", "c", "d"], {"a": 4, "b": 2, "c": 1, "d": d1}),
        ("i.o1.2", None, ["a", "b", "c", "d"], {"a": 4, "b": 2, "c": 1, "d": d1}),
        ("i.o1.3", None, ["b", "c", "d"], {"a": -4, "b": -2, "c": -1, "d": -d1}),
    ]
    assert sc.goals[2].label == "i: o1 — all of b, c and d back it (counts -1: the veto of a)"
    assert "3 of the 4 parties back it, a among them" in sc.description
    zero = {"a": 0, "b": 0, "c": 0, "d": 0}
    settled = {"a": 4, "b": 2, "c": 1, "d": d1}
    assert payoff(sc, {p: ["i.o1"] for p in "bcd"}) == zero  # three, but not the vetoer: nothing
    assert payoff(sc, {p: ["i.o1"] for p in "abd"}) == settled  # three with the vetoer
    assert payoff(sc, {p: ["i.o1"] for p in "abcd"}) == settled  # all four: settled once
    assert payoff(sc, {"a": ["i.o1"], "b": ["i.o1"], "c": ["i.o2"], "d": ["i.o2"]}) == zero


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_the_agreement_rule_goals_equal_the_rule_for_every_set_of_backers(n: int):
    parties = [f"p{k}" for k in range(n)]
    for v in range(n + 1):
        for k in range(max(1, v), n + 1):
            terms = settlement_terms(parties, parties[:v], k)
            for bits in itertools.product((0, 1), repeat=n):
                backers = {p for p, b in zip(parties, bits, strict=True) if b}
                rule = set(parties[:v]) <= backers and len(backers) >= k
                assert sum(c * (len(backers & set(members)) >= t) for c, members, t in terms) == rule, (v, k, bits)


def test_the_scenario_declares_its_issues_options_goals_and_reservation_shares():
    sc = parse_scenario(four(quorum=3, vetoes=["a"]))
    assert [(i.id, [(o.id, o.goals) for o in i.options], i.reservation) for i in sc.issues] == [
        ("i", [("o1", {"i.o1": 1, "i.o1.2": 1, "i.o1.3": -1}), ("o2", {"i.o2": 1, "i.o2.2": 1, "i.o2.3": -1})],
         {"a": 0, "b": 0, "c": 0, "d": 3})]
    assert sc.exits == []


def outvoted(**c: object) -> dict:
    """a and b settle x on x1 (2 of 3 parties) against c, whose reservation value is 5: x1 leaves c 5 below it."""
    return {"format": "negtui-scoresheet/1", "title": "Outvoted", "agreement": {"quorum": 2},
            "protocol": {"rounds": 2},
            "parties": [{"id": "a"}, {"id": "b"}, {"id": "c", "reservation": 5, **c}],
            "issues": [{"id": "x", "options": [{"id": "x1", "points": {"a": 10, "b": 10, "c": 0}},
                                               {"id": "x2", "points": {"a": 0, "b": 0, "c": 10}}]}]}


def test_a_walk_away_is_an_action_before_any_backing_that_keeps_the_reservation_value():
    sc = parse_scenario(outvoted(walk_away=True))
    assert [a.id for a in sc.players[2].actions] == ["x.x1", "x.x2", "walk-away"]
    assert [(r.player, r.action) for r in sc.exclusive[2]] == [("c", "x.x1"), ("c", "x.x2"), ("c", "walk-away")]
    # for each option, a goal that takes its value back from c once c has walked away and a and b settle it
    assert [(e.player, e.action, e.goals) for e in sc.exits] == [("c", "walk-away", ["x.x1.c-left", "x.x2.c-left"])]
    left = next(g for g in sc.goals if g.id == "x.x1.c-left")
    assert ([(r.player, r.action) for r in left.requires], left.threshold, left.values) == (
        [("a", "x.x1"), ("b", "x.x1"), ("c", "walk-away")], None, {"c": 5})
    assert "c may walk away before backing any option" in sc.description
    # walked away: 0 whatever a and b settle, before or after; a and b keep what they settle
    assert payoff(sc, {"a": ["x.x1"], "b": ["x.x1"]}) == {"a": 10, "b": 10, "c": -5}
    assert payoff(sc, {"a": ["x.x1"], "b": ["x.x1"], "c": ["walk-away"]}) == {"a": 10, "b": 10, "c": 0}
    assert payoff(sc, {"c": ["walk-away"]}) == {"a": 0, "b": 0, "c": 0}
    game = compile_game(sc, PAPER)  # having backed an option, c cannot walk away
    with pytest.raises(IllegalMove):
        Negotiation(game, PAPER).apply(State(0, game.bits_of([("c", "x.x2")])), Offer(2, 2, game.bits_of(
            [("c", "walk-away")])))


@pytest.mark.parametrize("rule", [{"quorum": 3, "vetoes": ["a"]}, {"quorum": 3}, {"quorum": 2, "vetoes": ["b"]}])
def test_a_party_that_walked_away_has_its_reservation_value_whatever_the_others_back(rule: dict):
    data = four(**rule)
    for p in data["parties"]:
        p["walk_away"] = True
    sc = parse_scenario(data)
    game = compile_game(sc, PAPER)
    for walker in "abcd":
        others = [p for p in "abcd" if p != walker]
        for backing in itertools.product(("", "i.o1", "i.o2"), repeat=3):
            acts = {p: [b] for p, b in zip(others, backing, strict=True) if b}
            with_walk = payoff(sc, {**acts, walker: ["walk-away"]})
            alone = payoff(sc, acts)  # the others' payoffs as if the walker had not been there to back anything
            assert with_walk[walker] == 0, (walker, backing)
            assert {p: with_walk[p] for p in others} == {p: alone[p] for p in others}
    # a party every settlement needs (a veto, unanimity) needs no goal to keep its reservation value
    needed = set(rule.get("vetoes", []))
    assert [(e.player, bool(e.goals)) for e in sc.exits] == [(p, p not in needed) for p in "abcd"]
    assert game.issues is not None


def test_the_exact_solution_of_a_walk_away_leaves_the_party_outvoted_its_reservation_value():
    for walk, c in ((False, -5), (True, 0)):
        game = compile_game(parse_scenario(outvoted(walk_away=walk)), PAPER)
        sol = solve(game, PAPER)
        assert list(sol.payoffs) == [10, 10, c]
        assert any(("c", "walk-away") in map(tuple, game.pairs_of(step.bits)) for step in sol.path()) == walk


def test_declared_issues_are_checked_against_the_goals_with_their_paths():
    data = json.loads(json.dumps(parse_scenario(four(quorum=3, vetoes=["a"])).model_dump(mode="json")))
    data["issues"][0]["options"][0]["goals"] = {"i.o1": 1, "i.o1.2": 2, "nope": 1, "i.o2": 1}
    data["issues"][0]["options"].append({"id": "o2", "goals": {"i.o2.2": 0}})
    data["issues"][0]["reservation"]["zed"] = 1
    data["exits"] = [{"player": "a", "action": "fly"}, {"player": "q", "action": "x"}]
    data["goals"][0]["kind"] = "linear"
    found = {p.path: p.message for p in _problems_of(data)}
    assert "is linear: an option is settled by all-or-nothing goals" in found["$.issues[0].options[0].goals.i.o1"]
    assert "with coefficients 2 and 1" in found["$.issues[0].options[0].goals.i.o1.2"]
    assert found["$.issues[0].options[0].goals.nope"] == "unknown goal 'nope'"
    assert "a coefficient of 0" in found["$.issues[0].options[2].goals.i.o2.2"]
    assert found["$.issues[0].options[2].id"] == "duplicate option id 'o2'"
    assert "part of option 'o1' of issue 'i' already" in found["$.issues[0].options[1].goals.i.o2"]
    assert found["$.issues[0].reservation.zed"] == "unknown player 'zed'"
    assert found["$.exits[0].action"] == "player 'a' has no action 'fly'"
    assert found["$.exits[1].player"] == "unknown player 'q'"
    data["protocol"]["rounds"] = "many"  # a field that does not validate: the issues are still checked
    data["goals"][5]["kind"] = "bogus"  # ... except against a goal of no known kind (its own problem is said)
    found = {p.path: p.message for p in _problems_of(data)}
    assert "$.protocol.rounds" in found and found["$.exits[1].player"] == "unknown player 'q'"
    assert "$.goals[5].kind" in found and not any(path.endswith("goals.i.o2.3") for path in found)


def _problems_of(data: dict):
    with pytest.raises(ScenarioError) as err:
        parse_scenario(data, "scenario")
    return err.value.problems


def test_reservation_shares_follow_the_stakes_in_whole_numbers_summing_to_the_reservation():
    data = sheet(parties=[{"id": "a", "reservation": 10}, {"id": "b", "reservation": 7}, {"id": "c", "reservation": 5}])
    data["issues"][1]["options"][1]["points"]["b"] = -3  # b's best on y is still 4
    data["issues"][0]["options"][0]["points"]["c"] = -1
    data["issues"][0]["options"][1]["points"]["c"] = -2  # c has nothing at stake on x: y carries it all
    shares = reservation_shares(*validate_sheet(data))
    # a: 10 * 10/16 = 6.25 and 3.75 -> 6 and 4 (the larger remainder); b: 7 * 8/12 = 4.67 and 2.33 -> 5 and 2
    assert shares == {"a": {"x": 6, "y": 4}, "b": {"x": 5, "y": 2}, "c": {"x": 0, "y": 5}}
    nobody = sheet(parties=[{"id": "a", "reservation": 3}, {"id": "b"}, {"id": "c"}])
    for opt in (*nobody["issues"][0]["options"], *nobody["issues"][1]["options"]):
        opt["points"]["a"] = 0
    assert reservation_shares(*validate_sheet(nobody))["a"] == {"x": 2, "y": 1}  # no stakes: equal, 1.5 each
    halves = sheet(parties=[{"id": "a", "reservation": 2.5}, {"id": "b"}, {"id": "c"}])
    assert reservation_shares(*validate_sheet(halves))["a"] == {"x": 2.5 * 10 / 16, "y": 2.5 * 6 / 16}


# --- mistakes -------------------------------------------------------------------------------------------

def test_every_mistake_is_reported_at_once_with_its_path():
    data = sheet(colour="red", agreement={"vetoes": ["zed"]}, protocol={"schedule": ["a", "q"]})
    data["parties"] += [{"id": "a"}, {"id": "c d"}]
    data["issues"][0]["options"][1]["id"] = "x1"
    data["issues"][0]["options"][0]["points"]["zed"] = 1
    del data["issues"][1]["options"][0]["points"]["b"]
    data["issues"][1]["options"][1]["points"]["a"] = "ten"
    data["issues"].append({"id": "z", "options": [{"id": "z1", "points": {}}]})
    found = problems(data)
    expected = {
        "$.colour": "unknown field",
        "$.parties[3].id": "duplicate party id 'a'",
        "$.parties[4].id": "String should match pattern",
        "$.issues[0].options[1].id": "duplicate option id 'x1'",
        "$.issues[0].options[0].points.zed": "unknown party 'zed'",
        "$.issues[1].options[0].points": "no points for 'b'",
        "$.issues[1].options[1].points.a": "should be a number, not \"ten\"",
        "$.issues[2].options": "at least 2 items",
        "$.agreement.vetoes[0]": "unknown party 'zed'",
        "$.protocol.schedule[1]": "unknown party 'q'",
    }
    for path, words in expected.items():
        assert words in found.get(path, ""), (path, found)


@pytest.mark.parametrize(("agreement", "words"), [
    ({"quorum": 4}, "a quorum of 4 out of 3 parties can never be reached"),
    ({"quorum": 1, "vetoes": ["a", "b"]}, "smaller than the 2 parties with a veto"),
    ({"quorum": 1}, "a quorum must be more than half the parties (2 or more), or name a party with a veto"),
    ({"quorum": 0}, "greater than or equal to 1"),
    ({"vetoes": ["a", "a"]}, "duplicate veto party id 'a'"),
])
def test_agreement_rules_that_cannot_work_are_refused(agreement: dict, words: str):
    [(path, message)] = problems(sheet(agreement=agreement)).items()
    assert path.startswith("$.agreement.") and words in message


def test_sheets_too_large_for_the_game_are_refused_with_the_limit():
    many = sheet(issues=[{"id": f"i{k}", "options": [{"id": f"o{j}", "points": {"a": 1, "b": 1, "c": 1}}
                                                     for j in range(5)]} for k in range(13)])
    assert "65 options in all make 65 actions for each party" in problems(many)["$.issues"]
    wide = sheet(issues=[{"id": f"i{k}", "options": [{"id": f"o{j}", "points": {"a": 1, "b": 1, "c": 1}}
                                                     for j in range(2)]} for k in range(20)], protocol={"budget": 3})
    assert "too large for the offer search" in problems(wide)["$"]
    parties = [{"id": f"p{k}"} for k in range(30)]
    vetoes = sheet(parties=parties, agreement={"quorum": 20, "vetoes": [f"p{k}" for k in range(10)]},
                   issues=[{"id": "x", "options": [{"id": o, "points": {p["id"]: 1 for p in parties}}
                                                   for o in ("o1", "o2")]}])
    assert "goals per option; fewer vetoes" in problems(vetoes)["$.agreement.vetoes"]


def test_files_that_are_not_sheets_are_refused_with_the_reason(tmp_path: Path):
    broken = tmp_path / "broken.toml"
    broken.write_text('format = "negtui-scoresheet/1"\ntitle = \n')
    with pytest.raises(ScoresheetError) as err:
        load_scenario(broken)
    assert err.value.problems[0].path == "$" and "not valid TOML" in err.value.problems[0].message
    with pytest.raises(ScoresheetError) as err:
        load_scenario(ROOT / "courses" / "intro.toml")
    assert err.value.problems[0].message == "this is a course (negtui serve --course reads it), not a scoresheet"
    huge = tmp_path / "huge.toml"
    huge.write_text('format = "negtui-scoresheet/1"\n' + "# padding\n" * 500_000)
    with pytest.raises(ScoresheetError) as err:
        load_scenario(huge)
    assert "over the limit of 4 MiB" in err.value.problems[0].message


def test_validate_reports_a_bad_sheet_with_exit_status_2_and_no_traceback(cli, tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text('format = "negtui-scoresheet/1"\ntitle = "t"\n[[parties]]\nid = "a"\n[[parties]]\nid = "a"\n'
                   '[[issues]]\nid = "x"\noptions = [{id = "o", points = {a = 1}}, {id = "p", points = {a = "x"}}]\n')
    res = cli("validate", bad)
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"{bad}: invalid scoresheet (2 problems)" in res.output
    assert "$.parties[1].id: duplicate party id 'a'" in res.output
    assert "$.issues[0].options[1].points.a: should be a number" in res.output


# --- the points table -----------------------------------------------------------------------------------

TABLE = "issue,option,a,b,c\nx,x1,10,0,4\nx,x2,0,8,6\n\ny,y1,6,4,0\ny,y2,2,2,10\n"


def tabled(tmp_path: Path, table: str = TABLE) -> Path:
    data = sheet()
    for issue in data["issues"]:
        for option in issue["options"]:
            del option["points"]
    data["points_table"] = "points.csv"
    (tmp_path / "points.csv").write_text(table)
    path = tmp_path / "sheet.json"
    path.write_text(json.dumps(data))
    return path


def test_a_points_table_gives_the_same_scenario_as_points_in_the_options(tmp_path: Path):
    assert load_scenario(tabled(tmp_path)) == parse_scenario(sheet())


def test_every_mistake_in_a_points_table_is_reported_with_its_line(tmp_path: Path):
    table = "issue,option,a,b,zed\nx,x1,10,0,4\nx,x1,1,1,1\nx,x3,1,1,1\ny,y1,6,four,0\ny,y2,2,2\n"
    with pytest.raises(ScoresheetError) as err:
        load_scenario(tabled(tmp_path, table))
    found = {(p.path, p.message) for p in err.value.problems}
    assert found >= {
        ("points.csv:1 column 5", "unknown party 'zed'"), ("points.csv:1", "no column for 'c'"),
        ("points.csv:3", "a second row for option 'x1' of issue 'x'"), ("points.csv:4", "issue 'x' has no option 'x3'"),
        ("points.csv:5 column 4 (b)", "should be a number up to 1e+12 in size, not 'four'"),
        ("points.csv:6", "4 cells in a table of 5 columns"), ("points.csv", "no row for option 'x2' of issue 'x'")}
    (tmp_path / "points.csv").unlink()
    with pytest.raises(ScoresheetError) as err:
        load_scenario(tmp_path / "sheet.json")
    assert err.value.problems[0].path == "$.points_table" and "file not found" in err.value.problems[0].message
    both = sheet(points_table="points.csv")
    assert problems(both)["$.issues[0].options[0].points"] == ("the points table gives the points: give them in "
                                                               "one place")


# --- the bundled case -----------------------------------------------------------------------------------

def test_the_case_holds_what_its_readme_says():
    sc = load_scenario(CASE)
    shape = (len(sc.players), sum(len(p.actions) for p in sc.players), len(sc.goals), len(sc.exclusive))
    assert shape == (4, 48, 36, 16)
    data = tomllib.loads(CASE.read_text())
    assert reservation_shares(*validate_sheet(data))["authority"] == {
        "network": 13, "fares": 10, "costs": 22, "service": 10}
    reservation = {p["id"]: p["reservation"] for p in data["parties"]}
    packages = []
    for combo in itertools.product(*[issue["options"] for issue in data["issues"]]):
        net = {p: sum(o["points"][p] for o in combo) - rv for p, rv in reservation.items()}
        packages.append(([o["id"] for o in combo], net))
    meets_rule = [k for k, net in packages if net["authority"] >= 0 and sum(v >= 0 for v in net.values()) >= 3]
    everyone = [k for k, net in packages if min(net.values()) >= 0]
    assert len(packages) == 81 and len(meets_rule) == 20 and len(everyone) == 3
    assert all(k[0] == "grid" and k[2] == "population" for k in everyone)
    best = max(sum(net.values()) for _, net in packages)
    below = {tuple(k): {p for p, v in net.items() if v < 0} for k, net in packages if sum(net.values()) == best}
    assert best == 48 and below == {("radial", "flat", "kilometres", "allday"): {"authority", "upland"},
                                    ("grid", "flat", "kilometres", "allday"): {"upland"}}
    # the package every member accepts, settled in the game, pays exactly its points above walking away
    agreed = ["network.grid", "fares.flat", "costs.population", "service.allday"]
    assert payoff(sc, {p: agreed for p in ("authority", "city", "valley")}) == {
        "authority": 13, "city": 0, "upland": 15, "valley": 15}


def test_validate_reads_the_case_and_its_course(cli):
    res = cli("validate", CASE, COURSE)
    assert res.exit_code == 0, res.output
    assert (f"ok: {CASE} — regional-bus-network: 4 players, 48 actions, 36 goals, 16 exclusive sets, 16 turns"
            in res.output)
    assert f"ok: {COURSE} — course cases: 2 exercises" in res.output and "warning" not in res.output


def test_the_course_plays_the_case_from_the_library():
    from negtui.classroom.course_loading import load_course

    loaded = load_course(COURSE)
    assert set(loaded.scenarios) == {"bus-veto", "bus-outvoted"}
    assert all(sc == load_scenario(CASE) for sc in loaded.scenarios.values())


def test_import_scoresheet_writes_the_compiled_scenario(cli, tmp_path: Path):
    out = tmp_path / "bus.json"
    res = cli("import-scoresheet", "regional-bus-network", "-o", out)
    assert res.exit_code == 0, res.output
    assert load_scenario(out) == load_scenario(CASE)
    res = cli("import-scoresheet", ROOT / "scenarios" / "teaching" / "poison-pill.json")
    assert res.exit_code == 2 and "is not a scoresheet's" in res.output


def test_the_case_autoplays_to_the_end_and_its_record_verifies(cli, tmp_path: Path):
    record = tmp_path / "bus.jsonl"
    res = cli("autoplay", CASE, "--lens", "lower", "--partner", "greedy", "--sims", "4", "--record", record, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert len(out["turns"]) == 16
    # the lesson: bots back options (lower bots pre-empt what hurts them) but never settle an issue alone
    assert any(out["commitments"]) and out["payoffs"] == [0.0, 0.0, 0.0, 0.0]
    res = cli("replay", record, "--verify")
    assert res.exit_code == 0 and "every bot decision of 16 turns re-runs identically" in res.output, res.output


@pytest.mark.asyncio
async def test_the_case_plays_in_the_app(cli, settle, wait_until, screen_text, tmp_path: Path):
    from negtui.seats import Seat
    from negtui.tui.app import NegtuiApp

    seats = {p: Seat.lens("lower", partner="greedy", sims=4) for p in ("authority", "city", "upland", "valley")}
    app = NegtuiApp(CASE, seats=seats, ask_seats=False, record=True, data_dir=tmp_path / "app", autoplay=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.game is not None, "the game's first screen", timeout=120)
        await wait_until(pilot, lambda: "Regional Transport Authority" in screen_text(app), "the members' names",
                         timeout=120)
        await wait_until(pilot, lambda: app.game.over, "the game's end", timeout=600)
        await settle(pilot)
        [written] = (tmp_path / "app" / "records").glob("*.jsonl")
    cli_record = tmp_path / "cli.jsonl"
    res = cli("autoplay", CASE, "--lens", "lower", "--partner", "greedy", "--sims", "4", "--record", cli_record,
              "--quiet")
    assert res.exit_code == 0, res.output

    def played(path: Path) -> list[dict]:
        lines = [json.loads(raw) for raw in path.read_text().splitlines()]
        return [{k: v for k, v in line.items() if k != "mac"} for line in lines if line["type"] != "header"]

    assert played(written) == played(cli_record)
