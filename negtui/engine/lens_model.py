"""The learned lens's model file: its name in a seat (`learned`, `learned:PATH`), its format, and the checks
that refuse a file it cannot use, before any game starts.  Plain numpy: a seat is checked with it.

What the model computes from a state is in learned.py (docs/learned-lens.md).

A model is a file of arrays (`.npz`, no pickled objects) with its format version and the list of features
it expects, so a model trained on other inputs is refused instead of read wrongly.  Training lives outside
the engine (negtui.learn).
"""

from __future__ import annotations

import os
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from negtui.engine.lens_names import LEARNED, LensModelError, model_path, split_learned

FORMAT = "negtui-learned-lens/1"
MAX_MODEL_BYTES = 5 * 2**20
MAX_LAYERS = 8
MAX_WIDTH = 1024

# What the model reads of a player at a state, in this order; every value but the counts over the mass
FEATURES: tuple[str, ...] = (
    "myopic",  # realised payoff
    "upper_gain",  # upper lens minus myopic
    "lower_loss",  # lower lens minus myopic
    "turns_left_fraction",  # of the game's turns
    "rounds_left",  # turns left over players
    "own_turns_left",  # the player's own proposals still to come
    "budget",
    "players",
    "positive_open",  # unrealised value of goals it likes (reachable or not)
    "positive_unreachable",  # of which no longer reachable
    "negative_open",  # unrealised harm of reachable goals it dislikes
    "positive_own_only",  # liked goals only its own cells can still advance
    "negative_own_only",  # harms only it could complete
    "positive_support",  # liked open goals, weighted by the share of the other owing players that like them too
    "negative_support",  # harms, weighted by the share of the other owing players that like them
    "positive_binary",  # liked open all-or-nothing goals
    "negative_binary",  # harmful open all-or-nothing goals
    "positive_progress",  # liked open goals' progress towards their thresholds
    "negative_progress",  # harmful open goals' progress
)


@dataclass(frozen=True)
class LensModel:
    """A network y = W_k·relu(…relu(W_1·x + b_1)…) + b_k on standardised features; the value is
    myopic + mass · y."""

    path: str
    features: tuple[str, ...]
    mean: np.ndarray  # (F,)
    std: np.ndarray  # (F,)
    weights: tuple[np.ndarray, ...]  # (F, H1), (H1, H2), …, (Hk, 1)
    biases: tuple[np.ndarray, ...]
    meta: str  # what it was trained on (JSON text, shown by `negtui learn` and kept in the model card)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """(O,) the normalised gap for feature rows x (O, F), each layer's product a block of rows at a time
        (`_block_rows`: the narrow first and last layers take a search's rows whole, the square one in blocks)."""
        h = (x - self.mean) / self.std
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases)):
            step = _block_rows(w)
            if step >= len(h):
                h = h @ w
            else:
                out = np.empty((len(h), w.shape[1]))
                for a in range(0, len(h), step):
                    np.matmul(h[a:a + step], w, out=out[a:a + step])
                h = out
            h += b
            if k < last:
                np.maximum(h, 0.0, out=h)
        return h[:, 0]


# OpenBLAS (numpy's BLAS) runs a product of m·n·k multiplications up to this on the calling thread and splits a
# larger one over every core (interface/gemm.c: SMP_THRESHOLD_MIN × GEMM_MULTITHREAD_THRESHOLD, 65,536 × 4).
# A search's few hundred rows gain nothing from a second thread, whose workers then spin waiting for the next
# product: on a machine whose cores are busy (a sweep's pool, a server's bots, other users) that cost a learned
# search about twenty times the CPU time of the same products on one thread.
ONE_THREAD_PRODUCT = 65_536 * 4


def _block_rows(w: np.ndarray) -> int:
    """Rows a block of a layer's product with weights w, so that it stays on the calling thread (64 for the
    shipped network's 64 × 64 layer); a layer too wide for blocks of 16 rows runs whole."""
    step = ONE_THREAD_PRODUCT // (w.shape[0] * w.shape[1])
    return step if step >= 16 else 2**62


def canonical_name(name: str) -> str:
    """`learned:PATH` with PATH absolute, so a bot process or a sweep worker reads the same file wherever
    it runs; the model is read (and refused if it cannot be used) here, before any game starts."""
    _, path = split_learned(name)
    if path is not None and not path.strip():
        raise LensModelError("learned:", "no model file after the colon (learned:PATH, or learned alone for the "
                             "model shipped with negtui)")
    load_model(model_path(name))
    return LEARNED if path is None else f"{LEARNED}:{Path(path).expanduser().resolve()}"


_models: dict[tuple[str, int, int], LensModel] = {}
_models_lock = threading.Lock()
_by_name: dict[str, LensModel] = {}


def model_for(name: str) -> LensModel:
    """The model a lens name reads, looked up by name after its first read: a search asks for it thousands of
    times a game, and a process plays with the file as it was when it first read it."""
    hit = _by_name.get(name)
    if hit is None:
        canonical_name(name)  # a name it cannot read is refused as a seat's would be
        hit = _by_name[name] = load_model(model_path(name))
    return hit


def load_model(path: str | os.PathLike[str]) -> LensModel:
    """The model in a file, read once per file version (path, size, modification time)."""
    p = Path(path).expanduser()
    try:
        st = p.stat()
    except OSError as err:
        raise LensModelError(p, f"cannot read the model file ({err.strerror or err})") from None
    if not p.is_file():
        raise LensModelError(p, "not a file")
    if st.st_size > MAX_MODEL_BYTES:
        raise LensModelError(p, f"the model file is {st.st_size:,} bytes; a learned lens's model is at most "
                             f"{MAX_MODEL_BYTES:,}")
    key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
    with _models_lock:
        hit = _models.get(key)
        if hit is None:
            hit = _models[key] = _read(p)
        return hit


def _read(p: Path) -> LensModel:
    not_npz = "not a learned lens's model: a model is a numpy .npz file (negtui learn writes one)"
    try:
        with open(p, "rb") as f:
            if f.read(4) != b"PK\x03\x04":  # an .npz is a zip archive of .npy arrays
                raise LensModelError(p, not_npz)
        with np.load(p, allow_pickle=False) as data:
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise LensModelError(p, not_npz)
            arrays = {k: data[k] for k in data.files}
    except LensModelError:
        raise
    except ValueError as err:  # numpy's refusal of pickled objects, or a damaged array
        raise LensModelError(p, f"an array of the model cannot be read without running code from the file, or "
                             f"is damaged ({err.__class__.__name__}); retrain it with negtui learn") from None
    except (OSError, zipfile.BadZipFile, EOFError) as err:
        raise LensModelError(p, f"{not_npz} ({err})") from None
    return model_from_arrays(p, arrays)


def _text(p: Path, arrays: dict[str, np.ndarray], key: str) -> str:
    a = arrays.get(key)
    if a is None or a.dtype.kind != "U" or a.ndim != 0:
        raise LensModelError(p, f"no {key!r} text in the model file")
    return str(a)


def model_from_arrays(p: Path | str, arrays: dict[str, np.ndarray]) -> LensModel:
    """A model checked array by array: its format, the features it expects (exactly FEATURES, in order) and
    the shapes of its layers."""
    p = Path(p)
    fmt = _text(p, arrays, "format")
    if fmt != FORMAT:
        raise LensModelError(p, f"model format {fmt!r}; this negtui reads {FORMAT!r} (retrain it with negtui learn)")
    names = arrays.get("features")
    if names is None or names.dtype.kind != "U" or names.ndim != 1:
        raise LensModelError(p, "no 'features' list in the model file")
    got = tuple(str(x) for x in names)
    if got != FEATURES:
        missing = [f for f in FEATURES if f not in got]
        extra = [f for f in got if f not in FEATURES]
        what = "; ".join(x for x in (f"missing {', '.join(missing)}" if missing else "",
                                      f"unknown {', '.join(extra)}" if extra else "",
                                      "in another order" if not missing and not extra else "") if x)
        raise LensModelError(p, f"the model expects other features than this negtui computes ({what}); "
                             "retrain it with negtui learn")
    F = len(FEATURES)
    mean, std = _floats(p, arrays, "mean", (F,)), _floats(p, arrays, "std", (F,))
    if not (std > 0).all():
        raise LensModelError(p, "'std' has a value that is not positive")
    layers = int(_floats(p, arrays, "layers", ()))
    if not 1 <= layers <= MAX_LAYERS:
        raise LensModelError(p, f"'layers' is {layers}; 1 to {MAX_LAYERS}")
    weights, biases, width = [], [], F
    for k in range(layers):
        w = arrays.get(f"w{k}")
        out = 1 if k == layers - 1 else (w.shape[1] if w is not None and w.ndim == 2 else -1)
        if not 1 <= out <= MAX_WIDTH:
            raise LensModelError(p, f"layer {k}'s weights 'w{k}' are missing or not a matrix")
        weights.append(_floats(p, arrays, f"w{k}", (width, out)))
        biases.append(_floats(p, arrays, f"b{k}", (out,)))
        width = out
    meta = _text(p, arrays, "meta") if "meta" in arrays else "{}"
    return LensModel(str(p), FEATURES, mean, std, tuple(weights), tuple(biases), meta)


def _floats(p: Path, arrays: dict[str, np.ndarray], key: str, shape: tuple[int, ...]) -> np.ndarray:
    a = arrays.get(key)
    if a is None:
        raise LensModelError(p, f"no {key!r} array in the model file")
    if a.dtype.kind not in "fiu" or a.shape != shape:
        raise LensModelError(p, f"{key!r} is {a.dtype} of shape {a.shape}; expected numbers of shape {shape}")
    a = a.astype(np.float64)
    if not np.isfinite(a).all():
        raise LensModelError(p, f"{key!r} holds a value that is not finite")
    return a
