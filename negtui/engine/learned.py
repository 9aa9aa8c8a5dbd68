"""The learned lens: a player's continuation value predicted by a small network trained on exact solutions
of small generated games (negtui learn; docs/learned-lens.md).

The hand-written lenses are guesses of that value; this one is fitted to it.  Its inputs are per player and
normalised by the player's value mass (the sum of |G[j, i]|), so one model reads games of any number of
players, actions or goals (lens_model.FEATURES).  It predicts the gap between the exact value and the
realised payoff, in units of that mass, for a batch of states at once (the offer search asks for every
candidate's successor together), in numpy.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from negtui.engine.game import Game
from negtui.engine.lens_model import FEATURES, LensModel
from negtui.engine.lenses import Owing, effective_lens, lens_core
from negtui.engine.payoff import StateInfo, scaled_satisfaction
from negtui.engine.rules import Rules


def player_mass(game: Game) -> np.ndarray:
    """(N,) each player's value mass Σ_j |G[j, i]|: the unit the features and the model's output are in."""
    return np.abs(game.G).sum(axis=0)


def own_turns_left(game: Game, players: np.ndarray, turn: np.ndarray) -> np.ndarray:
    """(P, O) each player's proposals from each turn in `turn` to the end of the game."""
    mine = np.zeros((len(game.schedule) + 1, len(players)))
    mine[1:] = np.cumsum(np.asarray(game.schedule)[:, None] == players[None], axis=0)
    if game.starts is None:
        positions = np.minimum(turn, len(game.schedule))
    else:
        positions = np.asarray(game.starts)[np.minimum(turn, len(game.starts) - 1)]
    return (mine[-1][:, None] - mine[positions].T).astype(float)


TURN_COLUMNS = slice(3, 6)  # turns_left_fraction, rounds_left, own_turns_left: all that depends on the turn


def turn_features(game: Game, players: np.ndarray, t: int | np.ndarray, rows: int) -> np.ndarray:
    """(P, O, 3) the features that depend on the turn (TURN_COLUMNS), at turn t (one for all, or one per row)."""
    if np.ndim(t) == 0:
        return np.broadcast_to(_at_turn(game, int(t))[players][:, None, :], (len(players), rows, 3))
    T, n = game.T, game.n
    turn = np.broadcast_to(np.asarray(t, dtype=np.int64), (rows,))
    out = np.empty((len(players), rows, 3))
    out[:, :, 0] = (T - turn) / T
    out[:, :, 1] = (T - turn) / n
    out[:, :, 2] = own_turns_left(game, players, turn)
    return out


_turns: weakref.WeakKeyDictionary[Game, dict[int, np.ndarray]] = weakref.WeakKeyDictionary()
_TURNS_KEPT = 64  # a search looks a few turns ahead of the game's


def _at_turn(game: Game, t: int) -> np.ndarray:
    """(N, 3) every player's turn features at turn t, as `turn_features` computes them row by row, kept for the
    searches of the turns around t."""
    kept = _turns.get(game)
    if kept is None:
        kept = _turns[game] = {}
    hit = kept.get(t)
    if hit is None:
        if len(kept) >= _TURNS_KEPT:
            kept.clear()
        hit = turn_features(game, np.arange(game.n), np.array([t]), 1)[:, 0]
        hit.flags.writeable = False
        kept[t] = hit
    return hit


def state_features(game: Game, rules: Rules, players: np.ndarray, counts: np.ndarray, lost: np.ndarray,
                   owes: np.ndarray) -> np.ndarray:
    """(P, O, F) the features of each of `players` at states with goal counts `counts` and required cells
    ruled out `lost` (O, J), and every player's cells still owed `owes` (O, N, J), but those that depend on the
    turn (TURN_COLUMNS, left 0): a state met again at a later turn is read again with only those changed.
    What does not depend on the player is computed once for all of them: an offer search reads its proposer's
    and its partner's values of the same successors, a forecast every player's."""
    goals, L = game.all_goals, game.scale
    g = game.G[:, players].T  # (P, J)
    mass = np.abs(g).sum(axis=1)
    mass = np.where(mass == 0, 1.0, mass)[:, None]  # (P, 1)
    scaled = scaled_satisfaction(goals, counts)
    s = scaled / L  # (O, J)
    myopic = (s @ g.T).T  # (P, O)
    memo = {"s": scaled}  # the lenses' own satisfaction, computed once
    gp = g[:, None, :]  # (P, 1, J): the lenses' values broadcast over the states
    upper = lens_core(goals, rules, "upper", counts, lost, gp, None, memo=memo)
    owing = owes > 0  # (O, N, J)
    own_owes, own_owing = owes[:, players].transpose(1, 0, 2), owing[:, players].transpose(1, 0, 2)  # (P, O, J)
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
    pos, neg = np.maximum(g, 0.0), np.maximum(-g, 0.0)  # (P, J)
    liking = owing & (game.G.T[None] > 0)
    others_liking = liking.sum(axis=1)[None] - liking[:, players].transpose(1, 0, 2)
    support = np.where(others_owing > 0, others_liking / np.maximum(others_owing, 1), 0.0)  # (P, O, J)
    own_only = (others_owing == 0) & own_owing
    progress = np.minimum(counts, goals.tau) / goals.tau
    binary = goals.binary
    reach_open = open_ * reachable  # (O, J)

    def by(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """(P, O): x (O, J) or (P, O, J) weighted by each player's w (P, J), over the mass."""
        out = (x @ w.T).T if x.ndim == 2 else np.einsum("poj,pj->po", x, w)
        return out / mass

    x = np.zeros((len(players), counts.shape[0], len(FEATURES)))  # the turn's columns stay 0
    x[:, :, 0] = myopic / mass
    x[:, :, 1] = (upper - myopic) / mass
    x[:, :, 2] = (lower - myopic) / mass
    x[:, :, 6] = float(game.budget)
    x[:, :, 7] = float(game.n)
    for k, (part, w) in enumerate(((open_, pos), (open_ * ~reachable, pos), (reach_open, neg),
                                   (reach_open * own_only, pos), (reach_open * own_only, neg),
                                   (reach_open * support, pos), (reach_open * support, neg),
                                   (reach_open * binary, pos), (reach_open * binary, neg),
                                   (reach_open * progress, pos), (reach_open * progress, neg)), start=8):
        x[:, :, k] = by(part, w)
    return x


def features_of(game: Game, rules: Rules, players: np.ndarray, t: int | np.ndarray, counts: np.ndarray,
                lost: np.ndarray, owes: np.ndarray) -> np.ndarray:
    """(P, O, F) the features of each of `players` at states (`state_features`) at turn t < T (one for all, or
    one per row)."""
    x = state_features(game, rules, players, counts, lost, owes)
    x[:, :, TURN_COLUMNS] = turn_features(game, players, t, counts.shape[0])
    return x


@dataclass(frozen=True)
class Batch:
    """States some players' values are asked of, read at any turn: what the network reads of them but the
    turn, and their realised payoffs.  A search or a forecast met again a round later (nobody made a deal
    meanwhile) keeps it and pays only the forward pass."""

    players: np.ndarray  # (P,)
    x: np.ndarray  # (P, O, F) state_features
    realised: np.ndarray  # (P, O)
    mass: np.ndarray  # (P,)


def batch(game: Game, rules: Rules, players: np.ndarray, counts: np.ndarray, lost: np.ndarray,
          owes: np.ndarray) -> Batch:
    realised = ((scaled_satisfaction(game.all_goals, counts) @ game.G[:, players]) / game.scale).T
    return Batch(players, state_features(game, rules, players, counts, lost, owes), realised,
                 np.abs(game.G[:, players]).sum(axis=0))


def batch_values(game: Game, model: LensModel, b: Batch, t: int) -> np.ndarray:
    """(P, O) each player's learned value of each state of the batch at turn t, in one forward pass of the
    network; at the end of the game, the realised payoff."""
    if t >= game.T:
        return b.realised
    x = b.x.copy()
    x[:, :, TURN_COLUMNS] = turn_features(game, b.players, t, x.shape[1])
    gap = model.predict(x.reshape(-1, x.shape[-1])).reshape(x.shape[:2])
    return np.where(b.mass[:, None] == 0, b.realised, b.realised + b.mass[:, None] * gap)


def features(game: Game, rules: Rules, i: int, t: int | np.ndarray, counts: np.ndarray, lost: np.ndarray,
             owes: np.ndarray) -> np.ndarray:
    """(O, F) player i's features (`features_of`), as the training set holds them."""
    return features_of(game, rules, np.array([i]), t, counts, lost, owes)[0]


def values_of(game: Game, rules: Rules, model: LensModel, players: np.ndarray, t: int, counts: np.ndarray,
              lost: np.ndarray, owes: np.ndarray) -> np.ndarray:
    """(P, O) each player's learned value of each state (`batch_values`)."""
    if t >= game.T:
        return ((scaled_satisfaction(game.all_goals, counts) @ game.G[:, players]) / game.scale).T
    return batch_values(game, model, batch(game, rules, players, counts, lost, owes), t)


def values(game: Game, rules: Rules, model: LensModel, i: int, t: int, counts: np.ndarray, lost: np.ndarray,
           owes: np.ndarray) -> np.ndarray:
    """(O,) player i's learned value of each state; at the end of the game, the realised payoff."""
    return values_of(game, rules, model, np.array([i]), t, counts, lost, owes)[0]


def state_vector(game: Game, rules: Rules, model: LensModel, info: StateInfo, t: int) -> np.ndarray:
    """(N,) every player's learned value of one state; what it reads of the state but the turn is kept with the
    state (its memo), for the turns that meet it again."""
    b = info.memo.get("learned")
    if b is None:
        b = info.memo["learned"] = batch(game, rules, np.arange(game.n), info.counts[None], info.lost[None],
                                         info.owes[None])
    return batch_values(game, model, b, t)[:, 0]
