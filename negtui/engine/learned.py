"""The learned lens: a player's continuation value predicted by a small network trained on exact solutions
of small generated games (negtui learn; docs/learned-lens.md).

The hand-written lenses are guesses of that value; this one is fitted to it.  Its inputs are per player and
normalised by the player's value mass (the sum of |G[j, i]|), so one model reads games of any number of
players, actions or goals (lens_model.FEATURES).  It predicts the gap between the exact value and the
realised payoff, in units of that mass, for a batch of states at once (the offer search asks for every
candidate's successor together), in numpy.
"""

from __future__ import annotations

import numpy as np

from negtui.engine.game import Game
from negtui.engine.lens_model import LensModel
from negtui.engine.lenses import effective_lens, lens_core, owing_of
from negtui.engine.payoff import StateInfo, scaled_satisfaction
from negtui.engine.rules import Rules


def player_mass(game: Game) -> np.ndarray:
    """(N,) each player's value mass Σ_j |G[j, i]|: the unit the features and the model's output are in."""
    return np.abs(game.G).sum(axis=0)


def own_turns_left(game: Game, i: int, turn: np.ndarray) -> np.ndarray:
    """Player i's proposals from each turn in `turn` to the end of the game."""
    mine = np.concatenate([[0], np.cumsum(np.asarray(game.schedule) == i)])
    if game.starts is None:
        positions = np.minimum(turn, len(game.schedule))
    else:
        positions = np.asarray(game.starts)[np.minimum(turn, len(game.starts) - 1)]
    return (mine[-1] - mine[positions]).astype(float)


def features(game: Game, rules: Rules, i: int, t: int | np.ndarray, counts: np.ndarray, lost: np.ndarray,
             owes: np.ndarray) -> np.ndarray:
    """(O, F) player i's features at states with goal counts `counts` and required cells ruled out `lost`
    (O, J), and every player's cells still owed `owes` (O, N, J), at turn t < T (one for all, or one per row)."""
    goals, L = game.all_goals, game.scale
    g = game.G[:, i]
    mass = float(np.abs(g).sum()) or 1.0
    scaled = scaled_satisfaction(goals, counts)
    s = scaled / L  # (O, J)
    myopic = s @ g
    memo = {"s": scaled}  # the lenses' own satisfaction, computed once
    upper = lens_core(goals, rules, "upper", counts, lost, g, None, memo=memo)
    lower_name = effective_lens(game, rules, "lower")
    lower = myopic if lower_name == "myopic" else lens_core(goals, rules, "lower", counts, lost, g,
                                                            owing_of(game, owes, i), memo=memo)
    reachable = (goals.d - lost) >= goals.tau
    open_ = (1.0 - s)
    pos, neg = np.maximum(g, 0.0), np.maximum(-g, 0.0)
    owing = owes > 0  # (O, N, J)
    others_owing = owing.sum(axis=1) - owing[:, i]
    liking = owing & (game.G.T[None] > 0)
    others_liking = liking.sum(axis=1) - liking[:, i]
    support = np.where(others_owing > 0, others_liking / np.maximum(others_owing, 1), 0.0)
    own_only = (others_owing == 0) & (owing[:, i])
    progress = np.minimum(counts, goals.tau) / goals.tau
    binary = goals.binary
    reach_open = open_ * reachable
    T, n = game.T, game.n
    rows = counts.shape[0]
    turn = np.broadcast_to(np.asarray(t, dtype=np.int64), (rows,))
    cols = [
        myopic / mass, (upper - myopic) / mass, (lower - myopic) / mass,
        (T - turn) / T, (T - turn) / n, own_turns_left(game, i, turn),
        np.full(rows, float(game.budget)), np.full(rows, float(n)),
        (open_ @ pos) / mass, ((open_ * ~reachable) @ pos) / mass, (reach_open @ neg) / mass,
        ((reach_open * own_only) @ pos) / mass, ((reach_open * own_only) @ neg) / mass,
        ((reach_open * support) @ pos) / mass, ((reach_open * support) @ neg) / mass,
        ((reach_open * binary) @ pos) / mass, ((reach_open * binary) @ neg) / mass,
        ((reach_open * progress) @ pos) / mass, ((reach_open * progress) @ neg) / mass,
    ]
    return np.stack(cols, axis=1)


def values(game: Game, rules: Rules, model: LensModel, i: int, t: int, counts: np.ndarray, lost: np.ndarray,
           owes: np.ndarray) -> np.ndarray:
    """(O,) player i's learned value of each state; at the end of the game, the realised payoff."""
    realised = (scaled_satisfaction(game.all_goals, counts) @ game.G[:, i]) / game.scale
    if t >= game.T:
        return realised
    mass = float(np.abs(game.G[:, i]).sum())
    if mass == 0:
        return realised
    return realised + mass * model.predict(features(game, rules, i, t, counts, lost, owes))


def state_vector(game: Game, rules: Rules, model: LensModel, info: StateInfo, t: int) -> np.ndarray:
    """(N,) every player's learned value of one state."""
    counts, lost, owes = info.counts[None], info.lost[None], info.owes[None]
    return np.array([values(game, rules, model, i, t, counts, lost, owes)[0] for i in range(game.n)])
