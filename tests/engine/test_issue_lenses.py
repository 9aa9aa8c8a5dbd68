"""The lenses on a scenario that declares its issues (engine/issues.py): on compiled scoresheets every
forecast lies between the worst and the best payoff still possible, found by brute force over every
completion of the state (every option each party may still back, walking away where it may); the offer
search values each offer as the forecast of the state it leads to; goals of no issue keep the paper's terms;
read goal by goal, the same games' forecasts break the bound (the lenses' reading is what keeps it)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from negtui.engine import PAPER, Negotiation, State
from negtui.engine.game import Game
from negtui.engine.lenses import adaptive_lens
from negtui.engine.offers import candidate_values, candidate_values_as, candidates
from negtui.engine.payoff import payoffs, state_info
from negtui.engine.valuation import Valuation
from negtui.scenario import load_scenario, parse_scenario
from negtui.scenario.model import Scenario
from tests.paths import PILL, SCENARIOS

BUS = SCENARIOS / "cases" / "regional-bus-network.toml"


def veto_sheet(**party_changes: dict) -> dict:
    """Three parties, two issues of three options, a quorum of 2 with a veto for `a`, reservation values:
    the shape of a case a trainer writes from scratch, small enough to enumerate."""
    parties = [{"id": "a", "reservation": 12}, {"id": "b", "reservation": 8}, {"id": "c", "reservation": 10}]
    for p in parties:
        p.update(party_changes.get(p["id"], {}))
    return {"format": "negtui-scoresheet/1", "title": "Veto", "agreement": {"quorum": 2, "vetoes": ["a"]},
            "protocol": {"rounds": 2}, "parties": parties,
            "issues": [{"id": "x", "options": [{"id": "x1", "points": {"a": 10, "b": 2, "c": 0}},
                                               {"id": "x2", "points": {"a": 4, "b": 9, "c": 3}},
                                               {"id": "x3", "points": {"a": 0, "b": 0, "c": 12}}]},
                       {"id": "y", "options": [{"id": "y1", "points": {"a": 8, "b": 0, "c": 6}},
                                               {"id": "y2", "points": {"a": 3, "b": 7, "c": 0}},
                                               {"id": "y3", "points": {"a": 0, "b": 4, "c": 9}}]}]}


def _blocks(game: Game) -> list[list[int]]:
    """The cells in groups that share no goal and no exclusive set: payoffs add up over them."""
    root = list(range(game.n_cells))

    def find(c: int) -> int:
        while root[c] != c:
            root[c] = root[root[c]]
            c = root[c]
        return c

    links = [np.flatnonzero(game.inc[:, j]) for j in range(game.n_goals)] + [list(g) for g in game.groups]
    for cells in links:
        for c in cells[1:]:
            root[find(int(c))] = find(int(cells[0]))
    out: dict[int, list[int]] = {}
    for c in range(game.n_cells):
        out.setdefault(find(c), []).append(c)
    return list(out.values())


def _consistent(game: Game, bits: int) -> bool:
    return all(sum(bits >> int(c) & 1 for c in g) <= 1 for g in game.groups)


def possible(game: Game, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(worst, best) payoff of each player over every completion of `bits`: brute force, block by block."""
    worst, best = np.zeros(game.n), np.zeros(game.n)
    for block in _blocks(game):
        free = [c for c in block if not bits >> c & 1]
        fixed = sum(1 << c for c in block if bits >> c & 1)
        per_player = []
        for i in range(game.n):
            own = [c for c in free if int(game.owner[c]) == i]
            per_player.append([sum(1 << c for c in pick) for r in range(len(own) + 1)
                               for pick in itertools.combinations(own, r)
                               if _consistent(game, fixed | sum(1 << c for c in pick))])
        values = np.array([payoffs(game, fixed | sum(parts)) for parts in itertools.product(*per_player)
                           if _consistent(game, fixed | sum(parts))])
        worst += values.min(axis=0)
        best += values.max(axis=0)
    return worst, best


def random_states(game: Game, rng: np.random.Generator, k: int) -> list[int]:
    """States some play reaches: each player backs an option of some issues, or walks away before backing any."""
    exits = {int(c) for c in game.issues.exit_cell if c >= 0} if game.issues is not None else set()
    out = [0]
    for _ in range(k):
        bits = 0
        for i in range(game.n):
            cells = [c for c in range(int(game.offset[i]), int(game.offset[i + 1]))]
            walk = [c for c in cells if c in exits]
            if walk and rng.random() < 0.25:
                bits |= 1 << walk[0]
                continue
            for c in rng.permutation([c for c in cells if c not in exits]):
                if rng.random() < 0.4 and _consistent(game, bits | 1 << int(c)):
                    bits |= 1 << int(c)
        out.append(bits)
    return out


def cases() -> list[tuple[str, Scenario]]:
    return [("bus", load_scenario(BUS)), ("veto", parse_scenario(veto_sheet())),
            ("veto, b and c may walk away", parse_scenario(veto_sheet(b={"walk_away": True}, c={"walk_away": True}))),
            ("unanimity, a may walk away", parse_scenario({**veto_sheet(a={"walk_away": True}), "agreement": {}}))]


@pytest.mark.parametrize("name,sc", cases(), ids=[c[0] for c in cases()])
def test_forecasts_lie_between_the_worst_and_the_best_completion_of_the_state(name: str, sc: Scenario) -> None:
    neg = Negotiation.from_scenario(sc, PAPER)
    game, val = neg.game, Valuation(neg)
    assert game.issues is not None
    for bits in random_states(game, np.random.default_rng(7), 12):
        worst, best = possible(game, bits)
        s = State(0, bits)
        assert np.array_equal(val.forecast(s, "myopic"), payoffs(game, bits))
        upper, lower = val.forecast(s, "upper"), val.forecast(s, "lower")
        assert (upper <= best + 1e-9).all(), (name, game.pairs_of(bits), upper, best)
        assert (lower >= worst - 1e-9).all(), (name, game.pairs_of(bits), lower, worst)
        assert (lower <= upper + 1e-9).all()
        if bits == 0:  # nothing settled yet: the optimistic completion is the best package
            assert np.allclose(upper, best)


def test_read_goal_by_goal_the_same_sheet_forecasts_more_than_its_best_package() -> None:
    """What the issues' reading fixes: each option's three signed goals, each option of an issue counted as won."""
    sc = load_scenario(BUS)
    plain = sc.model_copy(update={"issues": [], "exits": []})
    neg = Negotiation.from_scenario(plain, PAPER)
    _, best = possible(neg.game, 0)
    assert (Valuation(neg).forecast(State(0, 0), "upper") > 2 * best).all()
    assert list(best) == [30, 50, 55, 45]  # the most above its reservation value each member's options allow


@pytest.mark.parametrize("name,sc", cases()[1:], ids=[c[0] for c in cases()[1:]])
def test_the_offer_search_values_an_offer_as_the_forecast_of_its_successor(name: str, sc: Scenario) -> None:
    neg = Negotiation.from_scenario(sc, PAPER)
    game, val = neg.game, Valuation(neg)
    for bits in random_states(game, np.random.default_rng(3), 4):
        info = state_info(game, bits)
        for p, q in [(0, 1), (1, 2), (2, 2)]:
            cand = candidates(game, info, p, q)
            for lens in ("upper", "lower"):
                for i in {p, q}:
                    values = candidate_values(game, PAPER, info, cand, 1, lens, i)
                    children = [val.forecast(State(1, bits | cand.bits(game, o)), lens)[i] for o in range(len(cand))]
                    assert np.allclose(values, children), (name, lens, p, q, i)
                    # a belief's particle holding i's true values reads the same (agents.beliefs)
                    particles = candidate_values_as(game, PAPER, info, cand, 1, lens, i, game.G[:, i][None])
                    assert np.allclose(particles[0], values), (name, lens, p, q, i)


def test_a_party_that_walked_away_forecasts_its_reservation_value_and_one_that_can_is_never_below_it() -> None:
    sc = parse_scenario(veto_sheet(c={"walk_away": True}))
    neg = Negotiation.from_scenario(sc, PAPER)
    game, val = neg.game, Valuation(neg)
    c = 2
    # a and b settle x on x1 (worth 0 points to c, below its share of its reservation value)
    settled = game.bits_of([("a", "x.x1"), ("b", "x.x1")])
    assert payoffs(game, settled)[c] < 0
    for lens in ("upper", "lower"):
        assert val.forecast(State(0, settled), lens)[c] >= 0  # it can still walk away
    walked = settled | game.bits_of([("c", "walk-away")])
    assert payoffs(game, walked)[c] == 0
    for lens in ("upper", "lower", "myopic"):
        assert val.forecast(State(0, walked), lens)[c] == 0
    backed = settled | game.bits_of([("c", "y.y3")])  # having backed an option, it cannot
    assert val.forecast(State(0, backed), "lower")[c] < 0


def test_the_adaptive_lens_reads_an_options_value_once_not_its_signed_goals() -> None:
    """The Authority's options are worth 38 above its shares in all and 65 below: mostly negative (upper).  Goal
    by goal, each option's two goals of coefficient +1 and one of -1 put 141 on one side and 168 on the other,
    a balance that reads lower."""
    sc = load_scenario(BUS)
    plain = Negotiation.from_scenario(sc.model_copy(update={"issues": [], "exits": []}), PAPER).game
    game = Negotiation.from_scenario(sc, PAPER).game
    assert game.issues is not None
    v = game.issues.V[:, 0]
    assert (v[v > 0].sum(), -v[v < 0].sum()) == (38, 65)
    assert adaptive_lens(game, 0, 0) == "upper" and adaptive_lens(plain, 0, 0) == "lower"


def test_a_scenario_with_an_exit_and_no_issue_keeps_the_paper_terms_for_its_goals() -> None:
    """The poison pill with A's side action declared an exit: no goal is any issue's, so upper and lower read
    every goal as the paper does; A's forecasts are floored by what taking the exit leaves it."""
    data = json.loads(PILL.read_text())
    data["exits"] = [{"player": "A", "action": data["players"][0]["actions"][1]["id"]}]
    neg = Negotiation.from_scenario(parse_scenario(data), PAPER)
    plain = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    assert neg.game.issues is not None and neg.game.issues.starts.size == 0
    for lens in ("upper", "lower"):
        ours, theirs = Valuation(neg).forecast(State(0, 0), lens), Valuation(plain).forecast(State(0, 0), lens)
        assert ours[1] == theirs[1] and ours[0] >= theirs[0]
