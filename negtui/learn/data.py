"""The learned lens's training set: states of small generated games, each player's features there and the
exact continuation value the model learns (docs/learned-lens.md).

States are drawn per game from a seeded generator of its own, so a game's rows do not depend on which other
games are drawn: turns uniformly, commitments at a density that grows with the turn (what play reaches), and
the states on the exact solution's path.  A game gives a row per state and player.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from negtui.engine.exact import solve
from negtui.engine.game import Game
from negtui.engine.learned import features, player_mass
from negtui.engine.lens_model import FEATURES
from negtui.engine.lenses import lens_vector
from negtui.engine.negotiation import Negotiation
from negtui.engine.payoff import state_info
from negtui.engine.rules import Rules, get_rules
from negtui.sweep.spec import SweepSpec
from negtui.sweep.tasks import Task, scenario_of, tasks

HAND_LENSES = ("myopic", "upper", "lower")
DEFAULT_STATES = 40  # drawn per game, besides the exact path's


@dataclass(frozen=True)
class GameRows:
    """One game's rows, as columns."""

    columns: dict[str, np.ndarray]


def regime(task: Task) -> str:
    return str(task.params.get("payoff", "scenario"))


def game_rows(task: Task, rules: Rules, states: int) -> GameRows:
    """Every player's features, hand lens values and exact value at `states` random states of the task's game
    and at the states of its exact path."""
    neg = Negotiation.from_scenario(scenario_of(task), rules)
    game = neg.game
    solution = solve(game, rules, linearise=False)
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(task.key.encode()).digest()[:8], "little"))
    drawn = _draw(game, rng, states)
    path = [(0, 0)] + [(step.t + 1, step.mask) for step in solution.path()]
    picked = drawn + [(t, m) for t, m in path if t < game.T]
    ts = np.array([t for t, _ in picked], dtype=np.int64)
    masks = np.array([m for _, m in picked], dtype=np.int64)
    infos = [state_info(game, int(m)) for m in masks]
    counts = np.stack([x.counts for x in infos])
    lost = np.stack([x.lost for x in infos])
    owes = np.stack([x.owes for x in infos])
    exact = np.stack([solution.values_at(int(t), int(m)) for t, m in zip(ts, masks)])  # (K, N)
    hand = {lens: np.stack([lens_vector(game, rules, lens, x, int(t)) for x, t in zip(infos, ts)])
            for lens in HAND_LENSES}
    mass = player_mass(game)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("player", "t", "mask", "on_path", "mass", "exact",
                                                         *HAND_LENSES, *feature_columns())}
    on_path = np.arange(len(picked)) >= len(drawn)
    for i in range(game.n):
        x = features(game, rules, i, ts, counts, lost, owes)
        cols["player"].append(np.full(len(ts), i))
        cols["t"].append(ts)
        cols["mask"].append(masks)
        cols["on_path"].append(on_path)
        cols["mass"].append(np.full(len(ts), mass[i]))
        cols["exact"].append(exact[:, i])
        for lens in HAND_LENSES:
            cols[lens].append(hand[lens][:, i])
        for k, name in enumerate(feature_columns()):
            cols[name].append(x[:, k])
    out = {k: np.concatenate(v) for k, v in cols.items()}
    return GameRows(out)


def feature_columns() -> tuple[str, ...]:
    """The features' columns in the table (apart from the grid's columns of the same names)."""
    return tuple(f"f_{name}" for name in FEATURES)


def _draw(game: Game, rng: np.random.Generator, k: int) -> list[tuple[int, int]]:
    """k states: a turn uniformly before the end, each cell committed with a probability up to the share of
    the game played."""
    out = []
    for _ in range(k):
        t = int(rng.integers(0, game.T))
        p = rng.uniform(0.0, 1.0) * t / game.T
        cells = np.flatnonzero(rng.random(game.n_cells) < p)
        out.append((t, int(sum(1 << int(c) for c in cells))))
    return out


def training_tasks(spec: SweepSpec, rule_set: str = "paper") -> list[Task]:
    """The spec's games under one rule set (public information), in the sweep's order."""
    return [t for t in tasks(spec.model_copy(update={"rules": [rule_set], "information": ["public"]}))
            if t.rules == rule_set]


def game_table(task: Task, rule_set: str, states: int) -> pa.Table:
    """The task's rows with its seed, regime and grid point (a worker's unit of work)."""
    rows = game_rows(task, get_rules(rule_set), states).columns
    n = len(rows["player"])
    point = {key: np.full(n, value) for key, value in task.params.items()}
    return pa.table({"game": np.full(n, task.key), "seed": np.full(n, task.seed), "regime": np.full(n, regime(task)),
                     **point, **rows})


def build_table(spec: SweepSpec, states: int = DEFAULT_STATES, rule_set: str = "paper", workers: int | None = 1,
                progress: Callable[[int, int], None] | None = None) -> pa.Table:
    """Every game's rows, in the sweep's order of games, on `workers` processes (None: every core; 1: this
    one); `progress(done, total)` after each game (it may raise to stop, and the pool ends with it)."""
    todo = training_tasks(spec, rule_set)
    if not todo:
        raise ValueError("the spec has no games to draw states from")
    parts: dict[str, pa.Table] = {}
    if workers == 1:
        for task in todo:
            parts[task.key] = game_table(task, rule_set, states)
            if progress is not None:
                progress(len(parts), len(todo))
    else:
        from negtui.sweep.runner import pooled

        work = functools.partial(game_table, rule_set=rule_set, states=states)
        for task, fut in pooled(work, todo, workers):
            parts[task.key] = fut.result()
            if progress is not None:
                progress(len(parts), len(todo))
    return pa.concat_tables([parts[t.key] for t in todo])
