"""Fitting the learned lens: scikit-learn's multi-layer perceptron on the training set's features, exported
to the arrays the engine reads (engine/lens_model.py).

The split is by seed: a seed's games share value matrices, so rows of one seed on both sides would make the
held-out error look better than it is on a game never seen.  The held-out seeds' error, per regime and beside
every hand lens's, goes into the model's metadata and its card.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from negtui.engine.lens_model import FEATURES, FORMAT, LensModel, model_from_arrays
from negtui.learn.data import HAND_LENSES, feature_columns

DEFAULT_HIDDEN = (64, 64)
DEFAULT_MAX_ROWS = 300_000  # rows fitted on at most (drawn at random from the training seeds)
HELD_OUT_SHARE = 0.2  # of the seeds, kept out of the fit to measure it


@dataclass(frozen=True)
class Fitted:
    arrays: dict[str, np.ndarray]
    model: LensModel
    held_out: dict[str, object]  # the held-out seeds' errors (see `errors`)


def split_seeds(seeds: np.ndarray, share: float = HELD_OUT_SHARE, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(training seeds, held-out seeds): a share of the distinct seeds, at least one each when there are two."""
    distinct = np.unique(seeds)
    if len(distinct) < 2 or share <= 0:
        return distinct, distinct[:0]
    rng = np.random.default_rng(seed)
    k = min(len(distinct) - 1, max(1, round(share * len(distinct))))
    held = np.sort(rng.choice(distinct, size=k, replace=False))
    return np.setdiff1d(distinct, held), held


def _matrix(table: pa.Table) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x = np.column_stack([table.column(c).to_numpy() for c in feature_columns()]).astype(np.float64)
    mass = table.column("mass").to_numpy().astype(np.float64)
    exact = table.column("exact").to_numpy().astype(np.float64)
    myopic = table.column("myopic").to_numpy().astype(np.float64)
    return x, mass, exact, myopic


def fit(table: pa.Table, hidden: tuple[int, ...] = DEFAULT_HIDDEN, max_rows: int = DEFAULT_MAX_ROWS,
        random_state: int = 0, held_out_share: float = HELD_OUT_SHARE, meta: dict[str, object] | None = None,
        ) -> Fitted:
    """The model fitted to the table's training seeds, with its held-out seeds' errors."""
    from sklearn.neural_network import MLPRegressor

    seeds = table.column("seed").to_numpy()
    train_seeds, held_seeds = split_seeds(seeds, held_out_share, random_state)
    train = np.isin(seeds, train_seeds) & (table.column("mass").to_numpy() > 0)
    rows = np.flatnonzero(train)
    if len(rows) == 0:
        raise ValueError("no training rows: every player of these games values nothing")
    if len(rows) > max_rows:
        rows = np.sort(np.random.default_rng(random_state).choice(rows, size=max_rows, replace=False))
    x, mass, exact, myopic = _matrix(table.take(pa.array(rows)))  # the rows fitted on alone, not the whole set
    y = (exact - myopic) / mass
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    std[std < 1e-9] = 1.0
    net = MLPRegressor(hidden_layer_sizes=hidden, activation="relu", alpha=1e-4, learning_rate_init=1e-3,
                       max_iter=200, early_stopping=len(rows) >= 200, n_iter_no_change=10,
                       random_state=random_state)
    net.fit((x - mean) / std, y)
    info = {"trained_rows": len(rows), "trained_seeds": [int(s) for s in train_seeds],
            "held_out_seeds": [int(s) for s in held_seeds], "hidden": list(hidden), "iterations": int(net.n_iter_),
            **(meta or {})}
    arrays: dict[str, np.ndarray] = {"format": np.array(FORMAT), "features": np.array(FEATURES),
                                     "mean": mean, "std": std, "layers": np.array(len(net.coefs_))}
    for k, (w, b) in enumerate(zip(net.coefs_, net.intercepts_)):
        arrays[f"w{k}"], arrays[f"b{k}"] = w.astype(np.float64), b.astype(np.float64)
    model = model_from_arrays(Path("(fitted)"), {**arrays, "meta": np.array("{}")})
    held = errors(table.filter(pa.array(np.isin(seeds, held_seeds))), model) if len(held_seeds) else {}
    info["held_out"] = held
    arrays["meta"] = np.array(json.dumps(info, sort_keys=True))
    return Fitted(arrays, model_from_arrays(Path("(fitted)"), arrays), held)


def predict(table: pa.Table, model: LensModel) -> np.ndarray:
    """The model's value of every row's state for its player."""
    x, mass, _, myopic = _matrix(table)
    return myopic + mass * model.predict(x)


def errors(table: pa.Table, model: LensModel) -> dict[str, object]:
    """Mean |value − exact value| per row, overall and per regime, of the model and of every hand lens, with
    the rows' count."""
    exact = table.column("exact").to_numpy()
    regimes = table.column("regime").to_numpy().astype(str)
    values = {"learned": predict(table, model), **{lens: table.column(lens).to_numpy() for lens in HAND_LENSES}}
    out: dict[str, object] = {}
    for name in ["all", *sorted(set(regimes))]:
        pick = np.ones(len(exact), dtype=bool) if name == "all" else regimes == name
        out[name] = {"rows": int(pick.sum()),
                     **{k: float(np.abs(v[pick] - exact[pick]).mean()) if pick.any() else None
                        for k, v in values.items()}}
    return out


def save(fitted: Fitted, path: Path) -> None:
    """The model's arrays, written whole or not at all."""
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **fitted.arrays)  # type: ignore[arg-type]
    tmp.replace(path)
