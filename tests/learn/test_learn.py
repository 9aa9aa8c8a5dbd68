"""`negtui learn`: the training set it writes, the model it fits and how that model reads states."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from negtui.engine.lens_model import FEATURES, load_model
from negtui.learn.data import HAND_LENSES, feature_columns
from negtui.learn.train import errors, fit, predict

pytestmark = pytest.mark.slow  # the session's model is fitted on exact solutions of 12 games


def test_the_training_set_is_written_beside_the_model_with_exact_targets(tiny_model: Path) -> None:
    table = pq.read_table(tiny_model.with_suffix(".parquet"))
    assert {"seed", "regime", "t", "mask", "player", "exact", *HAND_LENSES, *feature_columns()} <= set(
        table.column_names)
    assert sorted(set(table.column("seed").to_pylist())) == [0, 1, 2]
    assert set(table.column("regime").to_pylist()) == {"balanced", "negative"}
    df = table.to_pandas()
    # the exact value at the start of a game is the solver's, and the end's payoffs are every lens's
    from negtui.engine import Negotiation, get_rules
    from negtui.engine.exact import solve
    from negtui.sweep.spec import load_spec
    from negtui.sweep.tasks import scenario_of, tasks

    task = tasks(load_spec(tiny_model.with_name("tiny.toml")))[0]
    game = Negotiation.from_scenario(scenario_of(task), get_rules("paper")).game
    start = df[(df.game == task.key) & (df.t == 0) & (df["mask"] == 0)].drop_duplicates("player").sort_values(
        "player")
    np.testing.assert_allclose(start.exact, solve(game, get_rules("paper")).payoffs)
    assert np.isfinite(df[list(feature_columns())].to_numpy()).all()


def test_a_model_fits_its_games_better_than_every_hand_lens(tiny_model: Path) -> None:
    """Fitted to every seed of a handful of games, the network's values are closer to the exact ones there
    than any hand lens's."""
    table = pq.read_table(tiny_model.with_suffix(".parquet"))
    fitted = fit(table, (32, 32), held_out_share=0.0)
    err = errors(table, fitted.model)["all"]
    assert isinstance(err, dict)
    assert err["learned"] < min(err[lens] for lens in HAND_LENSES), err


def test_the_engine_reads_the_network_as_scikit_learn_computes_it(tiny_model: Path) -> None:
    """The exported arrays give, in numpy, what the fitted scikit-learn network predicts."""
    from sklearn.neural_network import MLPRegressor

    model = load_model(tiny_model)
    table = pq.read_table(tiny_model.with_suffix(".parquet"))
    x = np.column_stack([table.column(c).to_numpy() for c in feature_columns()])
    net = MLPRegressor(hidden_layer_sizes=(8,), max_iter=5, random_state=0).fit(x[:200], np.arange(200.0))
    arrays = {"format": np.array("negtui-learned-lens/1"), "features": np.array(FEATURES),
              "mean": np.zeros(len(FEATURES)), "std": np.ones(len(FEATURES)), "layers": np.array(2),
              "w0": net.coefs_[0], "b0": net.intercepts_[0], "w1": net.coefs_[1], "b1": net.intercepts_[1]}
    from negtui.engine.lens_model import model_from_arrays

    ours = model_from_arrays(Path("m.npz"), arrays)
    np.testing.assert_allclose(ours.predict(x[:500]), net.predict(x[:500]), rtol=1e-9, atol=1e-9)
    assert model.features == FEATURES


def test_the_card_and_the_model_say_what_it_was_trained_on(tiny_model: Path) -> None:
    meta = json.loads(load_model(tiny_model).meta)
    assert meta["seeds"] == 3 and meta["states"] == 30
    assert len(meta["held_out_seeds"]) == 1 and set(meta["held_out_seeds"]).isdisjoint(meta["trained_seeds"])
    card = tiny_model.with_suffix(".md").read_text(encoding="utf-8")
    assert "negtui learn --spec" in card and "held out: seeds" in card
    assert "| balanced |" in card


def test_leave_one_regime_out_measures_the_regime_it_never_saw(cli, tiny_model: Path, tmp_path: Path) -> None:
    out = tmp_path / "loro.npz"
    result = cli("learn", "--data", tiny_model.with_suffix(".parquet"), "--leave-out", "negative",
                 "--hidden", "16", "-o", out)
    assert result.exit_code == 0, result.output
    assert "left_out:negative" in result.stdout
    meta = json.loads(load_model(out).meta)
    assert meta["leave_out"] == "negative" and set(meta["left_out"]) == {"all", "negative"}
    held = meta["held_out"]
    assert "negative" not in held  # the fit's own held-out seeds are of the regimes it saw


def test_a_training_set_without_the_columns_is_refused(cli, tmp_path: Path) -> None:
    data = tmp_path / "other.parquet"
    pq.write_table(pa.table({"seed": [1, 2]}), data)
    result = cli("learn", "--data", data, "-o", tmp_path / "m.npz")
    assert result.exit_code == 2
    assert "other.parquet" in result.output and "no column" in result.output
    assert not (tmp_path / "m.npz").exists()


def test_predict_is_the_realised_payoff_plus_the_scaled_gap(tiny_model: Path) -> None:
    table = pq.read_table(tiny_model.with_suffix(".parquet"))
    model = load_model(tiny_model)
    v = predict(table, model)
    assert v.shape == (table.num_rows,) and np.isfinite(v).all()
