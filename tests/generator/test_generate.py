"""The random game generator: reference fidelity (docs/reference.md §2), paper fixes, output."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace

import numpy as np
import pytest

from negtui.engine.game import round_robin
from negtui.generator import GameArrays, GeneratorError, GeneratorParams, game_arrays, generate, generate_game_config
from negtui.generator.reference import _rescale, requirement_cap
from negtui.scenario import Scenario, dump_scenario, parse_scenario

RANGES = {"balanced": (-20, 20), "positive": (-8, 30), "negative": (-30, 8)}


def arrays(rules: str = "reference", **kw: object) -> GameArrays:
    """Generator arrays for GeneratorParams-style keyword arguments (reference rules unless told)."""
    return game_arrays(GeneratorParams(rules=rules, **kw))  # type: ignore[arg-type]


def literal_reference(m: dict[int, int], n_goals: int, k: int, seed: int, structure: str, bf: float,
                      a: float, shift: str | None, inject_pp: bool) -> tuple[np.ndarray, dict, list[int]]:
    """A line-by-line transcription of §2, kept deliberately naive, to pin the draw order."""
    rng = np.random.default_rng(seed)
    py = random.Random(seed)  # stands for random.seed(seed) on the global generator
    n = len(m)
    t_min, t_max = {"negative": (-30, 8), "positive": (-8, 30)}.get(shift or "", (-20, 20))
    pv = rng.normal(1.0, 0.3, (n, k)) if structure == "cooperative" else rng.normal(0, 1, (n, k))
    gv = rng.normal(0, 1, (n_goals, k))
    noise = rng.normal(0, 0.1, (n_goals, n))
    raw = np.dot(gv, pv.T) + noise
    G = np.round((raw - raw.min()) / (raw.max() - raw.min()) * (t_max - t_min) + t_min)
    binary = []
    for j in range(n_goals):
        if rng.random() < bf:
            binary.append(j)
    pairs = []
    for i in m:
        for act in range(m[i]):
            pairs.append((i, act))
    sat: dict[int, list] = {}
    for j in range(n_goals):
        c = rng.zipf(a)
        c = min(c, min(math.floor(0.6 * len(pairs)), 10))
        c = max(c, 1)
        if j in binary:
            c = max(c, 2)
        sat[j] = [pairs[i] for i in rng.choice(len(pairs), size=c, replace=False)]
    if inject_pp:
        pp, pr = rng.choice(n, size=2, replace=False)
        trap = [(pp, 0), (pr, 0), (pr, 1)]
        b = rng.uniform(28, 32)
        G[0, :] = 0
        G[0, pp] = b
        G[0, pr] = b
        sat[0] = [(pp, 0), (pr, 0)]
        gain = rng.uniform(8, 12)
        harm = rng.uniform(-26, -20)
        G[1, :] = 0
        G[1, pp] = gain
        G[1, pr] = harm
        sat[1] = [(pr, 1)]
        binary = [j for j in binary if j not in (0, 1)]
        others = [(i, act) for i in m if i not in (pp, pr) for act in range(m[i])]
        for g in range(2, n_goals):
            sat[g] = [x for x in sat[g] if x not in trap]
            if not sat[g] and others:
                n_new = rng.integers(2, 4)
                sat[g] = py.sample(others, min(n_new, len(others)))
    return np.round(G).astype(int), sat, sorted(binary)


# --- reference fidelity -------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(
    "kw",
    [
        dict(players=10, actions=1, structure="adversarial", payoff="balanced", all_or_nothing=0.3, zipf=1.6),
        dict(players=10, actions=5, structure="cooperative", payoff="negative", all_or_nothing=0.5, zipf=1.6,
             poison_pill=True),
        dict(players=4, actions=[2, 3, 2, 2], goals=6, factors=6, payoff="positive", all_or_nothing=0.15,
             zipf=1.1, poison_pill=True),
        dict(players=3, actions=2, goals=8, factors=1, zipf=1.05, poison_pill=True),
    ],
)
def test_reference_matches_literal_transcription(seed: int, kw: dict) -> None:
    p = GeneratorParams(seed=seed, rules="reference", **kw)
    got = arrays(**{**kw, "seed": seed})
    m = dict(enumerate(p.action_counts))
    shift = None if p.payoff == "balanced" else p.payoff
    G, sat, binary = literal_reference(m, p.goals, p.factors, seed, p.structure, p.all_or_nothing, p.zipf,
                                       shift, p.poison_pill)
    np.testing.assert_array_equal(got.G, G)
    assert got.G.dtype.kind == "i"
    assert got.requirements == [[(int(i), int(a)) for i, a in sat[j]] for j in range(p.goals)]
    assert got.binary_goals == binary


def test_refill_of_emptied_goals() -> None:
    """Goals the trap empties get 2-3 cells of the uninvolved players: under reference rules the first
    refill is Python's `random.Random(seed).sample`, under paper rules the cells come from `rng`."""
    kw = dict(players=5, actions=2, goals=10, factors=2, zipf=3.0, poison_pill=True)
    checked, differ = 0, 0
    for seed in range(40):
        ref, pap = arrays(seed=seed, **kw), arrays("paper", seed=seed, **kw)
        before = arrays(seed=seed, **{**kw, "poison_pill": False})
        pp = ref.poison_pill
        assert pp is not None and pap.poison_pill == pp
        trap = {(pp.proposer, 0), (pp.receiver, 0), (pp.receiver, 1)}
        others = [(i, a) for i in range(5) if i not in (pp.proposer, pp.receiver) for a in range(2)]
        emptied = [j for j in range(2, 10) if set(before.requirements[j]) <= trap]
        for j in emptied:
            for req in (ref.requirements[j], pap.requirements[j]):
                assert len(req) in (2, 3) and len(set(req)) == len(req) and set(req) <= set(others)
        if emptied:
            first = ref.requirements[emptied[0]]
            assert first == random.Random(seed).sample(others, len(first))
            checked += 1
            differ += any(ref.requirements[j] != pap.requirements[j] for j in emptied)
        np.testing.assert_array_equal(ref.G, pap.G)
        assert ref.binary_goals == pap.binary_goals
    assert checked >= 5 and differ >= 1


def test_golden_values_seed0() -> None:
    """Pins numpy's streams (PCG64, zipf, choice): a change here means generated games moved, and games
    named by their parameters in published results would no longer be the same games."""
    a = arrays(players=10, actions=5, goals=15, factors=5, all_or_nothing=0.3, poison_pill=True, seed=0)
    assert a.G[:3].tolist() == [
        [0, 0, 0, 0, 0, 31, 31, 0, 0, 0],
        [0, 0, 0, 0, 0, -21, 11, 0, 0, 0],
        [1, -3, -15, -1, -10, -4, -1, -1, 0, 2],
    ]
    assert a.requirements[2] == [(5, 4), (8, 4), (6, 2), (3, 2), (7, 2), (6, 4), (2, 3), (1, 2), (4, 1)]
    assert a.binary_goals == [6, 9, 11]
    assert (a.poison_pill.proposer, a.poison_pill.receiver) == (6, 5)  # type: ignore[union-attr]


# --- facts verified against the reference (§2.3) --------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_cooperative_vectors_are_shifted_adversarial_ones(seed: int) -> None:
    adv = arrays(structure="adversarial", seed=seed)
    coop = arrays(structure="cooperative", seed=seed)
    np.testing.assert_allclose(coop.player_vectors, 1.0 + 0.3 * adv.player_vectors, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(coop.goal_vectors, adv.goal_vectors)


def test_goal_vectors_identical_across_axes() -> None:
    base = arrays(seed=3)
    for kw in (dict(payoff="negative"), dict(all_or_nothing=0.5), dict(zipf=3.0), dict(actions=5),
               dict(poison_pill=True, actions=2), dict(structure="cooperative")):
        np.testing.assert_array_equal(arrays(seed=3, **kw).goal_vectors, base.goal_vectors)


@pytest.mark.parametrize("payoff", sorted(RANGES))
@pytest.mark.parametrize("seed", range(5))
def test_value_range_hits_both_ends(payoff: str, seed: int) -> None:
    G = arrays(payoff=payoff, seed=seed, structure="cooperative" if seed % 2 else "adversarial").G
    assert (G.min(), G.max()) == RANGES[payoff]


@pytest.mark.parametrize("seed", range(5))
def test_shifts_are_affine_rescalings_of_one_matrix(seed: int) -> None:
    bal = arrays(payoff="balanced", seed=seed).G.astype(float)
    for payoff in ("positive", "negative"):
        lo, hi = RANGES[payoff]
        expected = (bal + 20) / 40 * (hi - lo) + lo
        # each side was rounded once, so they agree within half a unit plus a scaled half unit
        assert np.abs(arrays(payoff=payoff, seed=seed).G - expected).max() <= 0.5 + 0.5 * (hi - lo) / 40


@pytest.mark.parametrize("seed", range(20))
def test_binary_sets_nested_across_fractions(seed: int) -> None:
    sets = [set(arrays(all_or_nothing=f, seed=seed).binary_goals) for f in (0.0, 0.15, 0.30, 0.50, 1.0)]
    assert sets[0] == set() and sets[-1] == set(range(15))
    assert sets[0] <= sets[1] <= sets[2] <= sets[3] <= sets[4]


def test_rescale_rejects_degenerate_matrix() -> None:
    with pytest.raises(GeneratorError, match="constant"):
        _rescale(np.full((3, 3), 2.5), (-20, 20))


# --- requirements (§2.5) --------------------------------------------------------------------------------


@pytest.mark.parametrize("actions", [[1, 1, 1], [1, 1, 1, 2], [1] * 10, [5] * 10, [3, 1, 4, 1, 5]])
@pytest.mark.parametrize("zipf", [1.01, 1.6, 3.0])
def test_requirement_counts_respect_caps(actions: list[int], zipf: float) -> None:
    cap = requirement_cap(sum(actions))
    assert cap == min(math.floor(0.6 * sum(actions)), 10)
    for seed in range(4):
        a = arrays(players=len(actions), actions=actions, goals=12, factors=3, zipf=zipf, all_or_nothing=0.4,
                   seed=seed)
        for j, req in enumerate(a.requirements):
            assert len(set(req)) == len(req)
            assert all(0 <= act < actions[i] for i, act in req)
            if j in a.binary_goals:
                assert 2 <= len(req) <= max(cap, 2)
            else:
                assert 1 <= len(req) <= max(cap, 1)


def test_heavy_tail_reaches_the_cap_of_ten() -> None:
    sizes = [len(r) for s in range(5) for r in arrays(actions=5, zipf=1.01, seed=s).requirements]
    assert max(sizes) == 10


# --- poison pill (§2.6) --------------------------------------------------------------------------------


def check_poison_pill(sc: Scenario) -> None:
    pp = sc.meta["poison_pill"]
    assert isinstance(pp, dict)
    prop, recv = pp["proposer"], pp["receiver"]
    assert prop != recv
    bait, poison = sc.goals[0], sc.goals[1]
    assert bait.kind == poison.kind == "linear"
    assert [(c.player, c.action) for c in bait.requires] == [(prop, "a0"), (recv, "a0")]
    assert set(bait.values) == {prop, recv}
    assert bait.values[prop] == bait.values[recv] and 28 <= bait.values[prop] <= 32
    assert [(c.player, c.action) for c in poison.requires] == [(recv, "a1")]
    assert set(poison.values) == {prop, recv}
    assert 8 <= poison.values[prop] <= 12 and -26 <= poison.values[recv] <= -20
    trap = {(prop, "a0"), (recv, "a0"), (recv, "a1")}
    for g in sc.goals[2:]:
        assert g.requires and not trap & {(c.player, c.action) for c in g.requires}
    assert "g0" not in sc.meta["binary_goals"] and "g1" not in sc.meta["binary_goals"]  # type: ignore[operator]


@pytest.mark.parametrize("rules", ["paper", "reference"])
@pytest.mark.parametrize("seed", range(15))
def test_poison_pill_structure(rules: str, seed: int) -> None:
    sc = generate(GeneratorParams(actions=2, poison_pill=True, all_or_nothing=0.5, zipf=1.3, seed=seed,
                                  rules=rules))  # type: ignore[arg-type]
    check_poison_pill(sc)


@pytest.mark.parametrize("seed", range(10))
def test_paper_poison_pill_adds_an_action_to_a_one_action_receiver(seed: int) -> None:
    sc = generate(GeneratorParams(actions=1, poison_pill=True, seed=seed))
    check_poison_pill(sc)
    recv = sc.meta["poison_pill"]["receiver"]  # type: ignore[index]
    assert sc.meta["poison_pill"]["added_action"] is True  # type: ignore[index]
    assert {p.id: len(p.actions) for p in sc.players} == {p.id: 2 if p.id == recv else 1 for p in sc.players}
    # the trap does not change anything drawn before it
    plain = generate(GeneratorParams(actions=1, seed=seed))
    assert [g.kind for g in sc.goals[2:]] == [g.kind for g in plain.goals[2:]]
    assert [g.values for g in sc.goals[2:]] == [g.values for g in plain.goals[2:]]


@pytest.mark.parametrize("rules", ["paper", "reference"])
def test_cleaned_binary_goal_with_one_requirement_stays_all_or_nothing(rules: str) -> None:
    """Decision 3: kinds follow the reference's binary_goals even when cleaning leaves one cell."""
    sc = generate(GeneratorParams(players=3, actions=2, goals=10, factors=2, zipf=3.0, all_or_nothing=0.6,
                                  poison_pill=True, seed=0, rules=rules))  # type: ignore[arg-type]
    lone = [g for g in sc.goals if g.kind == "all_or_nothing" and len(g.requires) == 1]
    assert lone and all(g.id in sc.meta["binary_goals"] for g in lone)  # type: ignore[operator]


def test_reference_refuses_poison_pill_on_one_action_receiver() -> None:
    with pytest.raises(GeneratorError, match="single action"):
        generate(GeneratorParams(actions=1, poison_pill=True, rules="reference"))


def test_reference_poison_pill_with_mixed_counts() -> None:
    """Refused exactly when the drawn receiver has one action."""
    outcomes = set()
    for seed in range(30):
        params = GeneratorParams(players=4, actions=[1, 2, 1, 2], goals=5, factors=2, poison_pill=True, seed=seed,
                                 rules="reference")
        recv = arrays(rules="paper", **{k: v for k, v in params.as_dict().items() if k != "rules"}).poison_pill
        assert recv is not None
        if params.action_counts[recv.receiver] == 1:
            with pytest.raises(GeneratorError):
                generate(params)
            outcomes.add("refused")
        else:
            check_poison_pill(generate(params))
            outcomes.add("built")
    assert outcomes == {"refused", "built"}


def test_generation_leaves_global_random_alone() -> None:
    state = random.getstate()
    for seed in range(10):
        generate(GeneratorParams(players=3, actions=2, goals=10, factors=2, zipf=3.0, poison_pill=True, seed=seed,
                                 rules="reference"))
    assert random.getstate() == state


# --- paper vs reference ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_rule_sets_share_the_game_without_poison_pill(seed: int) -> None:
    kw = dict(actions=2, all_or_nothing=0.3, seed=seed)
    paper, ref = generate(GeneratorParams(**kw)), generate(GeneratorParams(rules="reference", **kw))
    assert paper.goals == ref.goals and paper.players == ref.players


# --- schedule -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 42, 2024])
@pytest.mark.parametrize("players", [3, 10])
def test_reference_schedule_is_one_shuffle_repeated(seed: int, players: int) -> None:
    order = list(range(players))
    random.Random(seed).shuffle(order)
    sc = generate(GeneratorParams(players=players, rounds=4, seed=seed, rules="reference"))
    assert sc.protocol.schedule == [f"P{i}" for i in order] * 4
    assert round_robin(players, 4, seed) == order * 4
    assert (sc.protocol.rounds, sc.protocol.budget, sc.protocol.seed) == (4, 2, seed)


def test_paper_protocol_has_no_explicit_schedule() -> None:
    sc = generate(GeneratorParams(rounds=3, budget=1, seed=9))
    assert sc.protocol.schedule is None
    assert (sc.protocol.rounds, sc.protocol.budget, sc.protocol.seed) == (3, 1, 9)


# --- parameters -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        (dict(players=2), "at least 3 players"),
        (dict(players=0), "players"),
        (dict(goals=2, factors=1), "at least 3 goals"),
        (dict(factors=0), "factors"),
        (dict(goals=5, factors=6), "factors"),
        (dict(zipf=1.0), "zipf"),
        (dict(zipf=float("nan")), "zipf"),
        (dict(all_or_nothing=-0.1), "all_or_nothing"),
        (dict(all_or_nothing=1.5), "all_or_nothing"),
        (dict(actions=0), "at least 1 action"),
        (dict(players=3, actions=[1, 0, 2]), "at least 1 action"),
        (dict(players=3, actions=[1, 2]), "3 players"),
        (dict(structure="mixed"), "structure"),
        (dict(payoff="neutral"), "payoff"),
        (dict(rules="compat"), "rules"),
        (dict(rounds=0), "rounds"),
        (dict(budget=0), "budget"),
        (dict(seed=-1), "seed"),
        (dict(players=501), "players: must be between 3 and 500 \\(got 501\\)"),
        (dict(players=3, actions=[1, 65, 1]), "actions: must be between 1 and 64 per player \\(got 65\\)"),
        (dict(actions=1, actions_up_to=10**11), "actions: must be between 1 and 64 per player"),
        (dict(goals=5001), "goals: must be between 3 and 5000"),
        (dict(rounds=10**4 + 1), "rounds: must be between 1 and 10000"),
        (dict(budget=65), "budget: must be between 1 and 64"),
        (dict(players=500, rounds=201), "rounds: 201 rounds of 500 players make 100,500 turns"),
        (dict(taste=(0.0, 1e308)), "taste"),
    ],
)
def test_invalid_parameters(kw: dict, match: str) -> None:
    with pytest.raises(GeneratorError, match=match) as err:
        GeneratorParams(**kw)
    assert isinstance(err.value, ValueError) and "\n" not in str(err.value)


def test_raw_generator_validates_too() -> None:
    with pytest.raises(GeneratorError, match="at least 3 players"):
        generate_game_config([1, 1], 5, 2, 0)
    with pytest.raises(GeneratorError, match="structure"):
        generate_game_config([1, 1, 1], 5, 2, 0, structure="mixed")


def test_params_accept_extremes_the_reference_accepts() -> None:
    generate(GeneratorParams(goals=3, factors=3, all_or_nothing=1.0, zipf=1.0001))
    assert hash(GeneratorParams(players=3, actions=[1, 2, 3])) == hash(GeneratorParams(players=3, actions=(1, 2, 3)))


# --- scenario output ------------------------------------------------------------------------------------


GRID = [
    GeneratorParams(),
    GeneratorParams(actions=5, structure="cooperative", payoff="positive", all_or_nothing=0.5, seed=4),
    GeneratorParams(actions=2, poison_pill=True, payoff="negative", zipf=1.2, seed=5, rules="reference"),
    GeneratorParams(players=5, actions=[1, 3, 1, 2, 1], goals=4, factors=2, poison_pill=True, seed=6),
    GeneratorParams(players=3, goals=3, factors=1, seed=7, rules="reference"),
]


@pytest.mark.parametrize("params", GRID)
def test_scenario_round_trips(params: GeneratorParams) -> None:
    sc = generate(params)
    assert parse_scenario(sc.model_dump()) == sc
    assert parse_scenario(json.loads(dump_scenario(sc))) == sc


@pytest.mark.parametrize("params", GRID)
def test_scenario_is_deterministic(params: GeneratorParams) -> None:
    assert dump_scenario(generate(params)) == dump_scenario(generate(replace(params)))


def test_scenario_shape_and_naming() -> None:
    params = GeneratorParams(actions=2, all_or_nothing=0.3, seed=0)
    sc = generate(params)
    a = arrays("paper", actions=2, all_or_nothing=0.3, seed=0)
    assert sc.name == "generated-N10-J15-adversarial-balanced-seed0"
    assert [p.id for p in sc.players] == [f"P{i}" for i in range(10)]
    assert all(p.name == p.id for p in sc.players)
    assert [act.id for act in sc.players[3].actions] == ["a0", "a1"]
    assert sc.players[3].actions[1].label == "P3 action 1"
    assert [g.id for g in sc.goals] == [f"g{j}" for j in range(15)]
    assert sc.meta["binary_goals"] == [f"g{j}" for j in a.binary_goals]
    assert sc.meta["generator"] == params.as_dict()
    assert "poison_pill" not in sc.meta
    for j, g in enumerate(sc.goals):
        assert g.threshold is None
        assert g.kind == ("all_or_nothing" if j in a.binary_goals else "linear")
        assert [(c.player, c.action) for c in g.requires] == [(f"P{i}", f"a{x}") for i, x in a.requirements[j]]
        assert g.values == {f"P{i}": v for i, v in enumerate(a.G[j].tolist()) if v != 0}
