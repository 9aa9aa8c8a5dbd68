"""The bundled scenario library: every file under scenarios/ loads, plays and has a proven welfare optimum;
HNC topfiles survive an import/export round trip; the classic games give the answers theory predicts; the
teaching lessons state what the engine actually does; `negtui scenarios --json` lists every file.

Autoplay uses the closed-form lenses with greedy partner choice, which keeps the two big generated games
(twenty-two-party, large-*) and the 22-party climate topfile fast.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from negtui.agents import LensBot
from negtui.engine import PAPER, Negotiation, TurnDriver, Valuation, compile_game
from negtui.engine.exact import solve as exact_solve
from negtui.engine.payoff import payoffs
from negtui.scenario import load_scenario
from negtui.scenario.hnc import HncTopfile, from_scenario, is_topfile, to_scenario
from negtui.scenario.io import load_topfile
from negtui.scenario.model import Protocol
from negtui.welfare import WelfareOptions, solve_welfare
from tests.paths import CLASSIC, SCENARIOS, TEACHING

FILES = sorted(SCENARIOS.rglob("*.json"))
TOPFILES = [f for f in FILES if is_topfile(json.loads(f.read_text(encoding="utf-8")))]
LENSES = ("myopic", "upper", "lower")


def rel(f: Path) -> str:
    return str(f.relative_to(SCENARIOS))


@cache
def scenario(f: Path):
    return load_scenario(f)


@cache
def negotiation(f: Path) -> Negotiation:
    return Negotiation.from_scenario(scenario(f), PAPER)


@cache
def valuation(f: Path) -> Valuation:
    """One valuation per file; offer caches are keyed by lens, so the lens runs can share it."""
    return Valuation(negotiation(f))


@cache
def autoplay(f: Path, lens: str) -> tuple[np.ndarray, int]:
    neg = negotiation(f)
    val = valuation(f)
    match = TurnDriver(neg, [LensBot(val, lens, lens, "greedy") for pid in neg.game.player_ids])
    pay = match.play()
    assert match.state.t == neg.game.T
    return pay, match.state.bits


@cache
def welfare(f: Path):
    return solve_welfare(compile_game(scenario(f), PAPER), PAPER, 0, WelfareOptions())


def cell(game, name: str) -> int:
    return game.cell_index[tuple(name.split("."))]


def committed(game, bits: int) -> list[str]:
    return [game.cell_name(c) for c in game.cells_of(bits)]


def exclusive_ok(game, bits: int) -> bool:
    return all(sum(bits >> int(c) & 1 for c in grp) <= 1 for grp in game.groups)


def test_library_is_where_we_expect():
    kinds = {f.relative_to(SCENARIOS).parts[0] for f in FILES}
    assert {"generated", "teaching", "classic", "hnc"} <= kinds
    assert {rel(f) for f in TOPFILES} >= {"hnc/humanitarian/humanitarian-access.json",
                                          "hnc/water/river-basin-treaty.json"}


# --- every file -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("f", FILES, ids=rel)
def test_scenario_loads_and_compiles(f: Path):
    sc = scenario(f)
    game = compile_game(sc, PAPER)
    assert game.n == len(sc.players) and game.n_goals == len(sc.goals) and game.T >= 1
    assert sc.description.strip(), "every bundled scenario says what it is"
    if f.is_relative_to(TEACHING) or f.is_relative_to(CLASSIC):
        assert sc.lesson.strip(), "teaching and classic scenarios carry a lesson"


@pytest.mark.parametrize("lens", LENSES)
@pytest.mark.parametrize("f", FILES, ids=rel)
def test_autoplay_each_closed_form_lens(f: Path, lens: str):
    pay, bits = autoplay(f, lens)
    game = negotiation(f).game
    assert pay.shape == (game.n,) and np.all(np.isfinite(pay))
    assert exclusive_ok(game, bits)
    np.testing.assert_allclose(pay, payoffs(game, bits))
    # any reachable outcome is a completion of the empty state, so it cannot beat the utilitarian optimum
    assert pay.sum() <= welfare(f).welfare + 1e-6


@pytest.mark.parametrize("f", FILES, ids=rel)
def test_utilitarian_welfare_is_proven_optimal(f: Path):
    res = welfare(f)
    assert res.status == "optimal" and res.proven_optimal, res.message
    game = negotiation(f).game
    assert exclusive_ok(game, res.bits)
    assert res.welfare == pytest.approx(float(payoffs(game, res.bits).sum()))


# --- HNC topfiles ---------------------------------------------------------------------------------------

def normalised(tf: HncTopfile) -> dict:
    """The topfile's content with equivalent spellings made equal: action numbers as texts, "linear"
    kinds implied, every country in country_data, goal entries in goal order, import defaults filled."""
    def ref(r) -> dict:
        acts = tf.country_actions[r.country]
        return {"country": r.country, "action": acts[r.action] if isinstance(r.action, int) else r.action}

    order = {g: k for k, g in enumerate(tf.goals)}
    return {
        "name": tf.name or "HNC topfile",
        "description": tf.description,
        "lesson": tf.lesson,
        "countries": list(tf.countries),
        "country_actions": {c: list(a) for c, a in tf.country_actions.items()},
        "country_data": {c: {g: float(v) for g, v in (tf.country_data[c].goals_value.items()
                                                       if c in tf.country_data else [])} for c in tf.countries},
        "goals": list(tf.goals),
        "goal_satisfaction": [
            {"goal": gs.goal, "threshold": gs.threshold,
             "kind": gs.kind if isinstance(gs.threshold, int) and gs.kind == "all_or_nothing" else None,
             "requirements": [ref(r) for r in gs.requirements]}
            for gs in sorted(tf.goal_satisfaction, key=lambda gs: order[gs.goal])],
        "mutually_exclusive_agreements": [[ref(r) for r in grp] for grp in tf.mutually_exclusive_agreements],
        "protocol": (tf.protocol or Protocol(rounds=9, budget=2)).model_dump(),
    }


@pytest.mark.parametrize("f", TOPFILES, ids=rel)
def test_hnc_topfile_round_trip(f: Path):
    tf = load_topfile(f)
    back = from_scenario(to_scenario(tf))
    assert normalised(back) == normalised(tf)
    # and the exported form is itself a stable topfile
    assert from_scenario(to_scenario(back)).model_dump() == back.model_dump()


# --- classic games: known answers -----------------------------------------------------------------------

def test_ultimatum_myopic_proposer_keeps_everything():
    """The smallest offer in our mapping is 0 coins and a responder accepts any offer worth at least what
    rejecting gives (0), so the myopic proposer keeps all 10 coins: 10 / 0 (not 9 / 1)."""
    f = CLASSIC / "ultimatum.json"
    game = negotiation(f).game
    pay, bits = autoplay(f, "myopic")
    assert pay.tolist() == [10.0, 0.0]
    assert committed(game, bits) == ["P.offer0", "R.accept"]
    for lens in LENSES:  # one turn: every lens sees the realised payoff
        assert autoplay(f, lens)[0].tolist() == [10.0, 0.0]
    assert exact_solve(game, PAPER).payoffs.tolist() == [10.0, 0.0]


def _sale_price(game, bits: int) -> int | None:
    prices = [int(game.cell_name(c).removeprefix("B.pay")) for c in game.cells_of(bits)
              if game.cell_name(c).startswith("B.pay")]
    assert len(prices) <= 1
    return prices[0] if prices and bits >> cell(game, "S.deliver") & 1 else None


def test_buyer_seller_price_inside_the_zone_and_surplus_realised():
    f = CLASSIC / "buyer-seller.json"
    game = negotiation(f).game
    value, cost = 18, 12
    sol = exact_solve(game, PAPER)
    final = sol.path()[-1].mask
    price = _sale_price(game, final)
    assert price is not None and cost <= price <= value
    assert sol.payoffs.sum() == pytest.approx(value - cost)  # the whole surplus is realised
    assert sol.payoffs.tolist() == [value - price, price - cost]
    assert price == value  # the seller proposes last and takes the surplus
    for lens in LENSES:
        pay, bits = autoplay(f, lens)
        p = _sale_price(game, bits)
        assert p is not None and cost <= p <= value and pay.sum() == pytest.approx(value - cost)
    assert _sale_price(game, autoplay(f, "myopic")[1]) == cost  # the first proposer (buyer) takes it


def test_deal_or_no_deal_every_unit_has_at_most_one_owner():
    f = CLASSIC / "deal-or-no-deal.json"
    game = negotiation(f).game
    units = [a.id for a in scenario(f).players[0].actions]
    assert units == ["book1", "hat1", "hat2", "ball1", "ball2", "ball3"]

    def owners(bits: int) -> dict[str, int]:
        return {u: sum(bits >> cell(game, f"{p}.{u}") & 1 for p in ("A", "B")) for u in units}

    outcomes = [autoplay(f, lens)[1] for lens in LENSES]
    outcomes += [exact_solve(game, PAPER).path()[-1].mask, welfare(f).bits]
    for bits in outcomes:
        assert all(n <= 1 for n in owners(bits).values()), committed(game, bits)
    # optimum by hand: book and balls to Alice (2 + 3*2), hats to Bob (2*3)
    assert welfare(f).welfare == pytest.approx(14.0)
    assert autoplay(f, "myopic")[0].tolist() == [6.0, 7.0]


def test_office_space_welfare_optimum_logrolls():
    """Each team wins its two high-priority issues. By hand, per issue (IT weight*(points-30) +
    Marketing weight*(points-30)): server 150 sqm 4*30 + 1*(-20) = 100, outsourced cleaning
    3*30 + 2*(-20) = 50, meeting rooms 7 days 2*(-20) + 4*30 = 80, prominent branding 1*(-20) + 3*30 = 70."""
    f = CLASSIC / "office-space.json"
    game = negotiation(f).game
    res = welfare(f)
    assert res.welfare == pytest.approx(100 + 50 + 80 + 70)
    assert sorted(committed(game, res.bits)) == sorted(["IT.server150", "IT.clean_out", "MK.meet7", "MK.brand_prom"])
    assert res.payoffs == pytest.approx([150.0, 150.0])
    split = game.bits_of(["IT.server100", "IT.clean_shared", "MK.meet4", "MK.brand_mod"])
    assert payoffs(game, split).sum() == 0.0  # splitting every issue is worth nothing against the default


def test_trust_and_split_binding_commitments_replace_trust():
    f = CLASSIC / "trust-and-split.json"
    game = negotiation(f).game
    assert welfare(f).welfare == pytest.approx(200.0)
    assert exact_solve(game, PAPER).payoffs.tolist() == [100.0, 100.0]
    assert autoplay(f, "myopic")[0].tolist() == [100.0, 100.0]


# --- teaching lessons say what happens ------------------------------------------------------------------

# (file, greedy-partner payoffs under myopic, upper, lower; exact payoffs; utilitarian optimum)
LESSON_FACTS = [
    ("coalition-trap", [16, 16, -24], [16, 16, -24], [6, 6, 3], [6, 6, 3], 18),
    ("regime-balanced-cooperative", [20.25, 15.75, 11.5, 26], [20.25, 15.75, 11.5, 26], [20.25, 15.75, 11.5, 26],
     [20.25, 15.75, 11.5, 26], 84.5),
    ("regime-balanced-adversarial", [16, 7 / 3, -29 / 3], [44 / 3, -20 / 3, 11 / 3], [15, 28 / 3, -50 / 3],
     [15, 28 / 3, -50 / 3], 50 / 3),
    ("regime-positive-cooperative", [14, 76 / 3, 58 / 3], [14, 76 / 3, 58 / 3], [14, 76 / 3, 58 / 3],
     [13, 32, 24], 69),
    ("regime-positive-adversarial", [89 / 3, 55 / 3, 30], [53, 14, 35], [42, 18, 34], [53, 14, 35], 102),
    ("regime-negative-cooperative", [6.25, 8.5, 0.75, 3.75], [6.25, 8.5, 0.75, 3.75], [6.25, 8.5, 0.75, 3.75],
     [6.25, 8.5, 0.75, 3.75], 19.25),
    ("regime-negative-adversarial", [-10 / 3, -13 / 3, 8 / 3], [0, 0, 0], [-10 / 3, -13 / 3, 8 / 3],
     [-10 / 3, -13 / 3, 8 / 3], 0),
    ("regime-negative-pp-cooperative", [5, 39, 0], [29, 29, 0], [5, 39, 0], [29, 29, 0], 58),
    ("regime-negative-pp-adversarial", [10, 4, -8], [10, -6, 17], [10, 4, -8], [10, -6, 17], 64),
]


@pytest.mark.parametrize("name,myopic,upper,lower,exact,optimum", LESSON_FACTS, ids=[x[0] for x in LESSON_FACTS])
def test_teaching_lesson_numbers(name, myopic, upper, lower, exact, optimum):
    f = TEACHING / f"{name}.json"
    for lens, want in (("myopic", myopic), ("upper", upper), ("lower", lower)):
        assert autoplay(f, lens)[0] == pytest.approx(want, abs=1e-9), lens
    assert exact_solve(negotiation(f).game, PAPER).payoffs == pytest.approx(exact, abs=1e-9)
    assert welfare(f).welfare == pytest.approx(optimum)


# --- the catalogue --------------------------------------------------------------------------------------

def test_scenarios_json_lists_every_bundled_file(cli):
    """Scoresheets too (regional-bus-network): every game a name finds is listed."""
    res = cli("scenarios", "--json")
    assert res.exit_code == 0, res.output
    entries = {Path(e["path"]).resolve(): e for e in json.loads(res.stdout)}
    games = [*FILES, *sorted(SCENARIOS.rglob("*.toml"))]
    assert set(entries) == {f.resolve() for f in games}
    assert "regional-bus-network" in {e["name"] for e in entries.values()}
    for f in games:
        e, sc = entries[f.resolve()], scenario(f)
        assert (e["name"], e["players"], e["goals"]) == (sc.name, len(sc.players), len(sc.goals))
        assert e["kind"] == f.relative_to(SCENARIOS).parts[0]


def name_clashes(root: Path) -> list[str]:
    """Every bundled game (scenario files and scoresheets) under a name no other game has, and each name
    finding its own game (`library.find` tries file names first, so one game's file name must not be
    another game's name)."""
    from negtui.scenario.library import find

    games = {f: load_scenario(f).name for f in sorted([*root.rglob("*.json"), *root.rglob("*.toml")])}
    clashes = []
    for name in sorted(set(games.values())):
        owners = [str(f.relative_to(root)) for f, n in games.items() if n == name]
        if len(owners) > 1:
            clashes.append(f"{name}: {', '.join(owners)}")
        elif find(name, root) != next(f for f, n in games.items() if n == name):
            clashes.append(f"{name}: found as {find(name, root)}, not {owners[0]}")
    return clashes


def test_every_bundled_game_has_a_name_of_its_own():
    """A bundled name picks one game wherever a file does (autoplay, play, courses, sweeps, results by
    scenario); two games under one name (the four Table 2 stand-ins once were all
    generated-N22-J45-cooperative-positive-seedN beside twenty-two-party's) are told apart by nobody."""
    assert name_clashes(SCENARIOS) == []


def test_every_bundled_action_has_a_name_people_can_read_and_tell_apart():
    """Offers, log lines and dialogs name actions with negtui.names: an opaque id (a0) gives way to the
    start of the label, never longer than the width, and no two of a player's actions read the same."""
    import glob
    import re

    from negtui.names import WIDTH, action_names
    from negtui.scenario import load_scenario
    from negtui.scenario.library import bundled_root

    seen = 0
    for path in sorted(glob.glob(str(bundled_root() / "**" / "*.json"), recursive=True)):
        sc = load_scenario(path)
        for player, names in zip(sc.players, action_names(sc), strict=True):
            assert len(set(names)) == len(names), (path, player.id, names)
            for action, name in zip(player.actions, names, strict=True):
                assert not re.fullmatch(r"a\d+", name) or not action.label, (path, name, action.label)
                assert len(name) <= WIDTH or name == action.id, (path, name)
                assert name.rstrip("…") in " ".join(action.label.split()) or name == action.id
                seen += 1
    assert seen > 300


def test_names_cut_to_fit_stay_apart():
    from negtui.names import fit_unique

    assert fit_unique(["Beneficiary_data_handed_", "Beneficiary_data_protect", "Corridor"], 14) == \
        ["Benefi…handed_", "Benefi…protect", "Corridor"]  # a plain cut would read "Beneficiary_d…" twice
    assert fit_unique(["UN_Humanitarian_Coordina", "NGO_Consortium"], 12) == ["UN_Humanita…", "NGO_Consort…"]
    assert fit_unique(["server room 50 sqm", "server room 100 sqm"], 6) == ["serv…1", "serv…2"]
    # at a word's end where that keeps half the room: "Upstream…", not "Upstream_…" nor "Upstream S…"
    assert fit_unique(["Upstream_State", "Delta State", "River Basin Organisation"], 10) == \
        ["Upstream…", "Delta…", "River…"]


def test_every_bundled_scenario_shows_its_players_and_goals_apart_at_every_width():
    """The widths the app draws names at (matrix rows, forecast rows, goal bars at 80 and 160 columns)."""
    import glob

    from negtui.names import fit_unique, goal_names, player_names
    from negtui.scenario import load_scenario
    from negtui.scenario.library import bundled_root

    for path in sorted(glob.glob(str(bundled_root() / "**" / "*.json"), recursive=True)):
        sc = load_scenario(path)
        for texts, widths in ((sc.player_ids, (6, 10, 12, 24)), (player_names(sc), (6, 10, 14, 24)),
                              (goal_names(sc), (11, 28))):
            for width in widths:
                shown = fit_unique(texts, width)
                assert len(set(shown)) == len(set(texts)), (path, width, shown)
                assert all(len(s) <= width for s in shown)


def test_hnc_ids_keep_the_whole_name_and_panes_show_the_name():
    """An id made from an HNC country or goal is the whole name (people type it in --seat and course
    files), and where the id only spells the name with `_`, the name alone is shown."""
    import re

    from negtui.names import player_label

    sc = load_scenario(SCENARIOS / "hnc" / "humanitarian" / "humanitarian-access.json")
    un = sc.players[0]
    assert un.id == "UN_Humanitarian_Coordinator" and player_label(un) == "UN Humanitarian Coordinator"
    assert all(g.id.startswith(re.sub(r"[^A-Za-z0-9]+", "_", g.label).strip("_")) for g in sc.goals)
    assert max(len(g.id) for g in sc.goals) > 30  # ids were cut at 24 characters
    assert player_label(sc.players[0].model_copy(update={"id": "UN"})) == "UN · UN Humanitarian Coordinator"


def test_the_catalogue_is_read_once_until_a_file_under_it_changes(tmp_path, monkeypatch):
    """Every session's app on a training server resolves its course's scenarios by name: the library is read
    once (the fork server reads it before it forks), and again only for a file added, removed or changed."""
    from negtui.scenario import library

    read: list[str] = []
    real = library.load_scenario

    def counting(path):
        read.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(library, "load_scenario", counting)
    raw = json.loads((TEACHING / "poison-pill.json").read_text(encoding="utf-8"))
    (tmp_path / "teaching").mkdir()
    one = tmp_path / "teaching" / "one.json"
    one.write_text(json.dumps({**raw, "name": "first-name"}), encoding="utf-8")
    assert [e.name for e in library.catalogue(tmp_path)] == ["first-name"]
    assert library.find("first-name", tmp_path) == one
    assert read == ["one.json"]  # the second look found it without reading the file again
    one.write_text(json.dumps({**raw, "name": "a-longer-second-name"}), encoding="utf-8")
    assert [e.name for e in library.catalogue(tmp_path)] == ["a-longer-second-name"]
    (tmp_path / "teaching" / "two.json").write_text(json.dumps({**raw, "name": "another"}), encoding="utf-8")
    assert sorted(e.name for e in library.catalogue(tmp_path)) == ["a-longer-second-name", "another"]
    assert read == ["one.json", "one.json", "one.json", "two.json"]
