"""The learned lens in the engine: model files refused with a clear error, the same values whichever way a
state is asked for, and seats that spell it (docs/learned-lens.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from negtui.engine import Negotiation, Valuation, get_rules
from negtui.engine.lens_model import FEATURES, FORMAT, MAX_MODEL_BYTES, load_model
from negtui.engine.lens_names import default_model_path
from negtui.engine.negotiation import State
from negtui.generator import GeneratorParams, generate

SMALL_GAME = "scenarios/generated/small-negative.json"


def network_arrays(seed: int = 0, hidden: int = 8) -> dict[str, np.ndarray]:
    """A model file's arrays: a random network over the features this negtui computes."""
    rng = np.random.default_rng(seed)
    F = len(FEATURES)
    return {"format": np.array(FORMAT), "features": np.array(FEATURES), "mean": np.zeros(F), "std": np.ones(F),
            "layers": np.array(2), "w0": rng.normal(size=(F, hidden)) * 0.3, "b0": rng.normal(size=hidden) * 0.1,
            "w1": rng.normal(size=(hidden, 1)) * 0.3, "b1": np.zeros(1), "meta": np.array("{}")}


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "models" / "m.npz"
    path.parent.mkdir()
    np.savez(path, **network_arrays())
    return path


@pytest.fixture
def passes(monkeypatch) -> list[int]:
    """The rows of every forward pass of a learned model, as they run."""
    from negtui.engine.lens_model import LensModel

    seen: list[int] = []
    predict = LensModel.predict

    def counted(self: LensModel, x: np.ndarray) -> np.ndarray:
        seen.append(len(x))
        return predict(self, x)

    monkeypatch.setattr(LensModel, "predict", counted)
    return seen


def _refused(cli, root: Path, lens: str) -> str:
    result = cli("autoplay", root / SMALL_GAME, "--lens", lens)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return result.output


def test_a_model_expecting_other_features_is_refused(cli, root: Path, tmp_path: Path) -> None:
    arrays = network_arrays()
    arrays["features"] = np.array(FEATURES[:-1] + ("share_of_the_pie",))
    path = tmp_path / "other.npz"
    np.savez(path, **arrays)
    out = _refused(cli, root, f"learned:{path}")
    assert "other.npz" in out and "features" in out
    assert "missing negative_progress" in out and "unknown share_of_the_pie" in out


@pytest.mark.parametrize(("change", "said"), [
    ({"format": np.array("negtui-learned-lens/0")}, "model format"),
    ({"w1": np.zeros((3, 1))}, "'w1'"),
    ({"std": np.zeros(len(FEATURES))}, "'std'"),
    ({"mean": np.full(len(FEATURES), np.nan)}, "not finite"),
])
def test_a_damaged_model_is_refused_naming_what_is_wrong(cli, root: Path, tmp_path: Path, change, said) -> None:
    path = tmp_path / "damaged.npz"
    np.savez(path, **(network_arrays() | change))
    out = _refused(cli, root, f"learned:{path}")
    assert "damaged.npz" in out and said in out


def test_files_that_are_no_model_are_refused(cli, root: Path, tmp_path: Path) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("not arrays")
    assert "a model is a numpy .npz file" in _refused(cli, root, f"learned:{text}")
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, **(network_arrays() | {"meta": np.array([{"x": 1}], dtype=object)}))
    assert "running code from the file" in _refused(cli, root, f"learned:{pickled}")
    big = tmp_path / "big.npz"
    big.write_bytes(b"PK\x03\x04" + b"\0" * MAX_MODEL_BYTES)
    assert "at most 5,242,880" in _refused(cli, root, f"learned:{big}")
    assert "cannot read the model file" in _refused(cli, root, f"learned:{tmp_path / 'missing.npz'}")
    assert "no model file after the colon" in _refused(cli, root, "learned:")


def test_autoplay_plays_with_a_learned_lens_and_records_its_model(cli, root: Path, model_file: Path,
                                                                tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    result = cli("autoplay", root / SMALL_GAME, "--lens", f"learned:{model_file}", "--record", record)
    assert result.exit_code == 0, result.output
    assert "learned:m.npz" in result.stdout  # the table names the model by its file
    assert f"learned:{model_file}" in record.read_text().splitlines()[0]


def test_a_seat_splits_a_learned_lens_from_its_responding_lens(model_file: Path) -> None:
    from negtui.seats import parse_seat

    seat = parse_seat(f"learned:{model_file}/lower")
    assert seat.lenses == (f"learned:{model_file}", "lower")
    seat = parse_seat(f"upper/learned:{model_file}")
    assert seat.lenses == ("upper", f"learned:{model_file}")


def test_the_shipped_model_loads() -> None:
    model = load_model(default_model_path())
    assert model.features == FEATURES
    assert default_model_path().stat().st_size <= MAX_MODEL_BYTES


def test_offer_search_and_forecasts_value_a_state_alike(model_file: Path) -> None:
    """A candidate's successor valued in the offer search's batch is what the forecast of that state says, and
    at the end of the game the learned value is the realised payoff."""
    sc = generate(GeneratorParams(players=5, actions=1, goals=8, factors=3, rounds=2, seed=4, payoff="balanced"))
    neg = Negotiation.from_scenario(sc, get_rules("paper"))
    val = Valuation(neg)
    lens = f"learned:{model_file}"
    s = neg.initial_state()
    for q in range(1, neg.game.n):
        cand = val.candidates(s, q)
        batch = val.values(s, cand, lens, 0)
        assert len(cand) > 1
        for o in range(len(cand)):
            child = State(s.t + 1, s.bits | cand.bits(neg.game, o))
            assert batch[o] == pytest.approx(val.forecast(child, lens)[0], abs=1e-9)
    end = State(neg.game.T, 0b1011)
    np.testing.assert_allclose(val.forecast(end, lens), val.forecast(end, "myopic"))


def test_the_shipped_model_plays_a_game_on_its_own_name(cli, root: Path) -> None:
    result = cli("autoplay", root / SMALL_GAME, "--lens", "learned")
    assert result.exit_code == 0, result.output
    assert "learned" in result.stdout


def test_a_search_reads_both_players_in_one_forward_pass(model_file: Path, passes: list[int]) -> None:
    """The proposer's and the partner's values of an offer search's successors come from one pass of the
    network (what keeps a search near the closed forms' cost), and are what each player's own pass says; a
    forecast reads every player in one pass too."""
    from negtui.engine import learned
    from negtui.engine.lens_model import model_for
    from negtui.engine.payoff import state_info

    sc = generate(GeneratorParams(players=5, actions=2, goals=8, factors=3, rounds=2, seed=7, payoff="negative"))
    neg = Negotiation.from_scenario(sc, get_rules("paper"))
    lens = f"learned:{model_file}"
    s = neg.initial_state()
    p = neg.proposer(s)
    val = Valuation(neg)
    for q in (k for k in range(neg.game.n) if k != p):
        passes.clear()
        offer = val.best_offer(s, q, lens, lens)
        cand = val.candidates(s, q)
        assert passes == [2 * len(cand)]
        v_p, v_q = val.values(s, cand, lens, p), val.values(s, cand, lens, q)  # one player a pass
        assert offer.value_proposer == pytest.approx(v_p[offer.index], abs=1e-9)
        assert offer.value_partner == pytest.approx(v_q[offer.index], abs=1e-9)
    passes.clear()
    vector = val.forecast(s, lens)
    assert passes == [neg.game.n]
    info = state_info(neg.game, s.bits)
    for i in range(neg.game.n):
        alone = learned.values(neg.game, neg.rules, model_for(lens), i, s.t, info.counts[None], info.lost[None],
                               info.owes[None])
        assert vector[i] == pytest.approx(alone[0], abs=1e-9)


def test_a_search_reads_each_distinct_successor_once(model_file: Path, passes: list[int], monkeypatch) -> None:
    """Offers whose cells feed the same goals leave the same successor arrays: the network reads each distinct
    one once, and every candidate gets the value it would get read alone."""
    from negtui.engine import learned_search
    from negtui.engine.payoff import state_info

    sc = generate(GeneratorParams(players=6, actions=4, goals=6, factors=3, rounds=2, seed=3, payoff="balanced"))
    neg = Negotiation.from_scenario(sc, get_rules("paper"))
    lens = f"learned:{model_file}"
    s = neg.initial_state()
    p = neg.proposer(s)
    q = (p + 1) % neg.game.n
    val = Valuation(neg)
    cand = val.candidates(s, q)
    assert len(cand) >= learned_search._DISTINCT_FROM
    info = state_info(neg.game, s.bits)
    passes.clear()
    both = learned_search.learned_candidate_values(neg.game, neg.rules, info, cand, s.t + 1, lens, np.array([p, q]))
    assert len(passes) == 1 and passes[0] < 2 * len(cand)  # fewer rows than candidates: repeats read once
    monkeypatch.setattr(learned_search, "_DISTINCT_FROM", 10**9)
    alone = np.stack([val.values(s, cand, lens, k) for k in (p, q)])
    np.testing.assert_allclose(both, alone, rtol=0, atol=1e-9)


class _Watched(np.ndarray):
    """A weight matrix that notes the shape of every product it enters."""

    products: list[tuple[int, int, int]] = []

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if ufunc is np.matmul:
            a, b = (np.asarray(x) for x in inputs)
            _Watched.products.append((a.shape[0], a.shape[1], b.shape[1]))
        return getattr(ufunc, method)(*(np.asarray(x) for x in inputs), **kwargs)


def test_the_forward_pass_keeps_every_product_on_one_blas_thread() -> None:
    """A search's few hundred rows go through the network in blocks whose products OpenBLAS runs on the calling
    thread (a larger one it splits over every core, and the spinning second thread cost a learned search about
    twenty times the CPU time of the products on a busy machine); the values are the whole batch's."""
    from negtui.engine.lens_model import ONE_THREAD_PRODUCT, LensModel

    shipped = load_model(default_model_path())
    model = LensModel(shipped.path, FEATURES, shipped.mean, shipped.std,
                      tuple(w.view(_Watched) for w in shipped.weights), shipped.biases, shipped.meta)
    x = np.random.default_rng(2).normal(size=(300, len(FEATURES)))
    _Watched.products.clear()
    got = model.predict(x)
    assert _Watched.products and sum(m for m, _, _ in _Watched.products) == 300 * len(shipped.weights)
    assert all(m * k * n <= ONE_THREAD_PRODUCT for m, k, n in _Watched.products), _Watched.products
    # each layer in blocks as large as one thread allows: the 19 x 64 layer in 2, the 64 x 64 in 5, the 64 x 1 whole
    assert [k for _, k, _ in _Watched.products] == [len(FEATURES)] * 2 + [64] * 6, _Watched.products
    h = (x - shipped.mean) / shipped.std
    for i, (w, b) in enumerate(zip(shipped.weights, shipped.biases)):
        h = h @ w + b
        h = np.maximum(h, 0.0) if i < len(shipped.weights) - 1 else h
    np.testing.assert_allclose(got, h[:, 0], rtol=0, atol=1e-12)


def large_game(seed: int = 2) -> Negotiation:
    """The paper's large games' shape (10 players × 5 actions, 15 goals), as bench/bench_learned.py --large."""
    sc = generate(GeneratorParams(players=10, actions=5, goals=15, factors=5, all_or_nothing=0.3, zipf=1.6,
                                  payoff="balanced", rounds=2, budget=2, seed=seed))
    return Negotiation.from_scenario(sc, get_rules("paper"))


@pytest.mark.parametrize("game", ["large", "exclusive sets"])
def test_a_large_search_values_each_successor_as_its_forecast_does(game: str, root: Path) -> None:
    """On a large game (some 250 offers a pair, most of them repeating another's successor) and on one with
    exclusive sets (every player's owed cells change), every candidate's value from the batched search, read
    once per distinct successor, is what the forecast of that successor state alone says."""
    from negtui.scenario.io import load_scenario

    if game == "large":
        neg = large_game()
    else:
        neg = Negotiation.from_scenario(load_scenario(root / "scenarios/hnc/water/river-basin-treaty.json"),
                                        get_rules("paper"))
    val = Valuation(neg)
    s = State(1, 0)
    p = neg.proposer(s)
    searched = 0
    for q in (k for k in range(neg.game.n) if k != p):
        cand = val.candidates(s, q)
        batch = np.stack([val.values(s, cand, "learned", k) for k in (p, q)])
        offer = val.best_offer(s, q, "learned", "learned")
        assert offer.value_proposer == pytest.approx(batch[0, max(offer.index, 0)], abs=1e-9)
        for o in range(len(cand)):
            child = val.forecast(State(s.t + 1, s.bits | cand.bits(neg.game, o)), "learned")
            assert batch[:, o] == pytest.approx(child[[p, q]], abs=1e-9)
        searched += len(cand)
    assert searched >= (1000 if game == "large" else 20)


def test_a_state_searched_again_a_round_later_reads_its_successors_once(monkeypatch) -> None:
    """A learned value depends on the turn, so a state met again later (nobody made a deal meanwhile) is searched
    again; only the turn's three features change, so the rest of what the network reads of its successors is
    built once, and the later search's values are what a fresh search at that turn gives."""
    from negtui.engine import learned

    neg = large_game(3)
    n = neg.game.n
    built: list[int] = []
    state_features = learned._state_features

    def counted(*args, **kwargs):
        built.append(1)
        return state_features(*args, **kwargs)

    monkeypatch.setattr(learned, "_state_features", counted)
    val = Valuation(neg)
    now, later = State(0, 0), State(n, 0)  # the same proposer a round later
    assert neg.proposer(now) == neg.proposer(later)
    q = (neg.proposer(now) + 1) % n
    first = val.best_offer(now, q, "learned", "learned")
    assert len(built) == 1
    again = val.best_offer(later, q, "learned", "learned")
    assert len(built) == 1
    fresh = Valuation(neg).best_offer(later, q, "learned", "learned")
    assert len(built) == 2
    assert (again.bits, again.value_proposer, again.value_partner) == (fresh.bits, fresh.value_proposer,
                                                                      fresh.value_partner)
    assert first.value_proposer != again.value_proposer  # the turn is read: another value a round later


def test_repeated_successors_are_told_apart_exactly_even_when_their_numbers_collide(monkeypatch) -> None:
    """Rows are grouped by one weighted number each; rows that differ but share a number (forced here with
    equal weights) are still told apart, by comparing them whole."""
    from negtui.engine import learned_search

    key = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 2.0], [1.0, 0.0, 2.0], [0.0, 0.0, 3.0], [0.0, 1.0, 2.0]])
    for weights in (learned_search._ROW_WEIGHTS, np.ones(4096)):
        monkeypatch.setattr(learned_search, "_ROW_WEIGHTS", weights)
        first, back = learned_search.distinct_rows(key)
        assert len(first) == 3
        np.testing.assert_array_equal(key[first][back], key)


def _per_feature_reference(game, rules, players: np.ndarray, counts: np.ndarray, lost: np.ndarray,
                           owes: np.ndarray) -> np.ndarray:
    """The features as they were built before they were fused into two matrix products: one numpy reduction per
    feature, the upper and lower lenses through lens_core (the reading the shipped model was fitted to)."""
    from negtui.engine.lenses import Owing, effective_lens, lens_core
    from negtui.engine.payoff import scaled_satisfaction

    goals, L = game.all_goals, game.scale
    g = game.G[:, players].T
    mass = np.abs(g).sum(axis=1)
    mass = np.where(mass == 0, 1.0, mass)[:, None]
    scaled = scaled_satisfaction(goals, counts)
    s = scaled / L
    myopic = (s @ g.T).T
    memo = {"s": scaled}
    gp = g[:, None, :]
    upper = lens_core(goals, rules, "upper", counts, lost, gp, None, memo=memo)
    owing = owes > 0
    own_owes, own_owing = owes[:, players].transpose(1, 0, 2), owing[:, players].transpose(1, 0, 2)
    others_owing = owing.sum(axis=1)[None] - own_owing
    if effective_lens(game, rules, "lower") == "myopic":
        lower = myopic
    else:
        hostile = owing & (game.G.T < 0)
        lower = lens_core(goals, rules, "lower", counts, lost, gp,
                          Owing(own_owes, owes.sum(axis=1)[None] - own_owes, others_owing,
                                hostile.sum(axis=1)[None] - hostile[:, players].transpose(1, 0, 2)), memo=memo)
    reachable = (goals.d - lost) >= goals.tau
    open_ = (1.0 - s)
    pos, neg = np.maximum(g, 0.0), np.maximum(-g, 0.0)
    liking = owing & (game.G.T[None] > 0)
    others_liking = liking.sum(axis=1)[None] - liking[:, players].transpose(1, 0, 2)
    support = np.where(others_owing > 0, others_liking / np.maximum(others_owing, 1), 0.0)
    own_only = (others_owing == 0) & own_owing
    progress = np.minimum(counts, goals.tau) / goals.tau
    reach_open = open_ * reachable

    def by(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        out = (x @ w.T).T if x.ndim == 2 else np.einsum("poj,pj->po", x, w)
        return out / mass

    x = np.zeros((len(players), counts.shape[0], len(FEATURES)))
    x[:, :, 0] = myopic / mass
    x[:, :, 1] = (upper - myopic) / mass
    x[:, :, 2] = (lower - myopic) / mass
    x[:, :, 6] = float(game.budget)
    x[:, :, 7] = float(game.n)
    for k, (part, w) in enumerate(((open_, pos), (open_ * ~reachable, pos), (reach_open, neg),
                                   (reach_open * own_only, pos), (reach_open * own_only, neg),
                                   (reach_open * support, pos), (reach_open * support, neg),
                                   (reach_open * goals.binary, pos), (reach_open * goals.binary, neg),
                                   (reach_open * progress, pos), (reach_open * progress, neg)), start=8):
        x[:, :, k] = by(part, w)
    return x


@pytest.mark.parametrize(("game", "rules"), [
    ("large", "paper"), ("large", "reference"), ("large", "paper+simultaneous"), ("small", "paper"),
    ("small", "reference"), ("exclusive sets", "paper"), ("two players", "paper"),
])
def test_the_fused_features_are_the_per_feature_ones(game: str, rules: str, root: Path) -> None:
    """Every feature of every successor an offer search reads (its pair, one player, every player), along a game
    that moves on by random offers, is the per-feature reading's to 1e-12: the fused products only sum in
    another order."""
    from negtui.engine import learned
    from negtui.engine.offers import full_arrays
    from negtui.engine.payoff import state_info
    from negtui.scenario.io import load_scenario

    paths = {"small": SMALL_GAME, "exclusive sets": "scenarios/hnc/water/river-basin-treaty.json",
             "two players": "scenarios/classic/buyer-seller.json"}
    neg = (large_game() if game == "large" else
           Negotiation.from_scenario(load_scenario(root / paths[game]), get_rules("paper")))
    neg = Negotiation.from_scenario(neg.game.scenario, get_rules(rules))
    g, rng, val = neg.game, np.random.default_rng(7), Valuation(neg)
    s, compared, exclusive_rows = State(0, 0), 0, 0
    while s.t < g.T and compared < 4000:
        p = neg.proposer(s)
        q = int(rng.choice([k for k in range(g.n) if k != p or g.unilateral]))
        cand = val.candidates(s, q)
        info = state_info(g, s.bits)
        counts, lost, owes = full_arrays(g, info, cand, owed=True)
        assert owes is not None
        pair = None if cand.owes_all is not None else np.array(sorted({p, q}))  # as the search tells it
        for players in (np.array([p, q]), np.array([q]), np.arange(g.n)):
            want = _per_feature_reference(g, neg.rules, players, counts, lost, owes)
            for varying in (None, pair):
                got = learned.batch(g, neg.rules, players, counts, lost, owes, varying).x
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
                compared += got.size
        exclusive_rows += int((lost > info.lost).any(axis=1).sum())
        s = State(s.t + 1, s.bits | cand.bits(g, int(rng.integers(len(cand)))))
    assert compared >= 2000
    if game == "exclusive sets":
        assert exclusive_rows > 0  # successors that rule cells out: the owing and reachable features change


def test_a_search_sums_who_owes_what_over_the_pair_for_each_successor(root: Path) -> None:
    """An offer changes only its pair's owed cells, so who owes what is summed over the other players once, from
    the first successor, and over the pair for each: the other players' rows of the later successors are not read
    (here they are made NaN), and the features are those of the whole array."""
    from negtui.engine import learned
    from negtui.engine.offers import full_arrays
    from negtui.engine.payoff import state_info

    neg = large_game()
    g, val, s = neg.game, Valuation(neg), State(0, 0)
    p = neg.proposer(s)
    q = (p + 1) % g.n
    cand = val.candidates(s, q)
    assert cand.owes_all is None  # no exclusive sets: the others' owed cells are the state's
    counts, lost, owes = full_arrays(g, state_info(g, s.bits), cand, owed=True)
    assert owes is not None
    pair, players = np.array(sorted({p, q})), np.array([p, q])
    blurred = owes.copy()
    others = np.setdiff1d(np.arange(g.n), pair)
    blurred[1:, others] = np.nan
    want = _per_feature_reference(g, neg.rules, players, counts, lost, owes)
    got = learned.batch(g, neg.rules, players, counts, lost, blurred, pair).x
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    alone = learned.batch(g, neg.rules, np.array([q]), counts, lost, blurred, pair).x  # one of the pair
    np.testing.assert_allclose(alone, want[1:], rtol=0, atol=1e-12)
