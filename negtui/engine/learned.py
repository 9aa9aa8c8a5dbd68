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
from negtui.engine.lenses import Owing, effective_lens, lens_terms, upper_remainder
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


@dataclass(frozen=True)
class _Weights:
    """What the features read of some players' goal values, made once per compiled game (it does not change) and
    set of players: each weighted sum of the features is then a column of one matrix product."""

    g: np.ndarray  # (P, J) their goal values
    by_kind: np.ndarray  # (J, 3P): the columns g, max(g, 0), max(-g, 0) of every player
    by_sign: np.ndarray  # (P, J, 2): max(g, 0), max(-g, 0)
    mass: np.ndarray  # (P,) value mass, 1 where it is 0 (the features are then 0)
    kinds: np.ndarray  # (3, N, J) every player, any goal; goals it likes; goals it dislikes


_weights: weakref.WeakKeyDictionary[Game, dict[tuple[int, ...], _Weights]] = weakref.WeakKeyDictionary()
_WEIGHTS_KEPT = 256  # a search's pairs of players and every player's forecast: N² + 1 sets at most


def _weights_of(game: Game, players: np.ndarray) -> _Weights:
    kept = _weights.get(game)
    if kept is None:
        kept = _weights[game] = {}
    key = tuple(int(k) for k in players)
    hit = kept.get(key)
    if hit is None:
        if len(kept) >= _WEIGHTS_KEPT:
            kept.clear()
        g = game.G[:, players].T
        pos, neg = np.maximum(g, 0.0), np.maximum(-g, 0.0)
        mass = np.abs(g).sum(axis=1)
        gt = game.G.T
        hit = kept[key] = _Weights(g, np.concatenate([g, pos, neg]).T.copy(), np.stack([pos, neg], axis=2),
                                   np.where(mass == 0, 1.0, mass),
                                   np.stack([np.ones_like(gt, dtype=bool), gt > 0, gt < 0]))
    return hit


# The weighted sums over goals that are the same for every player but for its weights: (what is summed, row of
# `shared` below; whose weights, 0 g, 1 liked, 2 disliked) for the columns SHARED_COLUMNS, divided by the mass.
_SHARED = (np.array([0, 1, 2, 3, 4, 5, 5, 6, 6]), np.array([0, 1, 1, 1, 2, 1, 2, 1, 2]))
SHARED_COLUMNS = np.array([FEATURES.index(f) for f in (
    "myopic", "upper_gain", "positive_open", "positive_unreachable", "negative_open", "positive_binary",
    "negative_binary", "positive_progress", "negative_progress")])
OWING_COLUMNS = slice(FEATURES.index("positive_own_only"), FEATURES.index("negative_support") + 1)


def state_features(game: Game, rules: Rules, players: np.ndarray, counts: np.ndarray, lost: np.ndarray,
                   owes: np.ndarray) -> np.ndarray:
    """(P, O, F) the features of each of `players` at states with goal counts `counts` and required cells
    ruled out `lost` (O, J), and every player's cells still owed `owes` (O, N, J), but those that depend on the
    turn (TURN_COLUMNS, left 0): a state met again at a later turn is read again with only those changed."""
    return _state_features(game, rules, players, counts, lost, owes)[0]


def _state_features(game: Game, rules: Rules, players: np.ndarray, counts: np.ndarray, lost: np.ndarray,
                    owes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(`state_features`, the scaled satisfaction (O, J)).  A batch is some 20 to 80 states of one or two players
    (a search) or one state of every player (a forecast): each numpy call costs more than its arithmetic, so the
    weighted sums are columns of two matrix products, one over what every player shares and one over what it
    owes, and what does not depend on the player is computed once for all of them."""
    goals, L = game.all_goals, game.scale
    w = _weights_of(game, players)
    rows, P = counts.shape[0], len(players)
    scaled = scaled_satisfaction(goals, counts)
    reachable = (goals.d - lost) >= goals.tau
    shared = np.empty((rows, 7, counts.shape[1]))  # (O, 7, J): summed with each player's g, liked or disliked
    s = np.divide(scaled, L, out=shared[:, 0])
    np.divide(upper_remainder(goals, rules, counts, lost, scaled), L, out=shared[:, 1])
    open_ = np.subtract(1.0, s, out=shared[:, 2])
    np.multiply(open_, ~reachable, out=shared[:, 3])
    reach_open = np.multiply(open_, reachable, out=shared[:, 4])
    np.multiply(reach_open, goals.binary, out=shared[:, 5])
    np.multiply(reach_open, np.minimum(counts, goals.tau) / goals.tau, out=shared[:, 6])
    sums = (shared @ w.by_kind).reshape(rows, 7, 3, P)
    x = np.zeros((rows, P, len(FEATURES)))  # the turn's columns stay 0
    x[:, :, SHARED_COLUMNS] = sums[:, _SHARED[0], _SHARED[1]].transpose(0, 2, 1) / w.mass[:, None]

    kinds = (owes > 0)[:, None] & w.kinds  # (O, 3, N, J): owing at all; owing and liking; owing and disliking
    mine = kinds[:, :, players]  # (O, 3, P, J)
    others = kinds.sum(axis=2)[:, :, None] - mine  # how many other players
    own_owing, others_owing = mine[:, 0], others[:, 0]
    owing = np.empty((rows, P, 2, counts.shape[1]))  # (O, P, 2, J): summed with each one's liked or disliked
    np.multiply((others_owing == 0) & own_owing, reach_open[:, None], out=owing[:, :, 0])  # only it can advance
    np.multiply(others[:, 1] / np.maximum(others_owing, 1), reach_open[:, None], out=owing[:, :, 1])  # support
    x[:, :, OWING_COLUMNS] = (owing @ w.by_sign).reshape(rows, P, 4) / w.mass[:, None]

    if effective_lens(game, rules, "lower") != "myopic":
        own_owes = owes[:, players]
        owed = Owing(own_owes, owes.sum(axis=1)[:, None] - own_owes, others_owing, others[:, 2])
        _, gain, factor = lens_terms(goals, rules, "lower", counts[:, None], lost[:, None], w.g, owed,
                                     memo={"s": scaled[:, None]})
        assert gain is not None
        x[:, :, FEATURES.index("lower_loss")] = gain.sum(axis=-1) * (factor / L) / w.mass
    x[:, :, FEATURES.index("budget")] = float(game.budget)
    x[:, :, FEATURES.index("players")] = float(game.n)
    return x.transpose(1, 0, 2), scaled


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
    x, scaled = _state_features(game, rules, players, counts, lost, owes)
    return Batch(players, x, ((scaled @ game.G[:, players]) / game.scale).T, np.abs(game.G[:, players]).sum(axis=0))


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
