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
    set of players, so that every sum over goals is a column of a matrix product."""

    gp: np.ndarray  # (P, 1, J) their goal values, as the lenses broadcast them over states
    by_kind: np.ndarray  # (J, 3P): the columns g, max(g, 0), max(-g, 0) of every player, over its mass
    by_sign: np.ndarray  # (P, J, 2): max(g, 0), max(-g, 0), over its mass
    sign: np.ndarray  # (2, P, 1, J): whether each likes, dislikes each goal (1.0 or 0.0)
    every_sign: np.ndarray  # (2, N, 1, J): the same of every player
    mass: np.ndarray  # (P, 1) value mass, 1 where it is 0 (the features are then 0)


_weights: weakref.WeakKeyDictionary[Game, dict[tuple[int, ...], _Weights]] = weakref.WeakKeyDictionary()
_every: weakref.WeakKeyDictionary[Game, _Weights] = weakref.WeakKeyDictionary()  # every player's, in order
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
        every = _every.get(game)
        if every is None:
            every = _every[game] = _make_weights(game)
        hit = kept[key] = _Weights(every.gp[players], every.by_kind.reshape(-1, 3, game.n)[:, :, players].reshape(
            -1, 3 * len(players)), every.by_sign[players], every.sign[:, players], every.every_sign,
            every.mass[players])
    return hit


def _make_weights(game: Game) -> _Weights:
    g = game.G.T  # (N, J)
    mass = np.abs(g).sum(axis=1)
    mass = np.where(mass == 0, 1.0, mass)[:, None]
    pos, neg = np.maximum(g, 0.0) / mass, np.maximum(-g, 0.0) / mass
    sign = np.stack([g > 0, g < 0]).astype(float)[:, :, None, :]
    return _Weights(g[:, None, :], np.concatenate([g / mass, pos, neg]).T.copy(), np.stack([pos, neg], axis=2),
                    sign, sign, mass)


def _owed(owes: np.ndarray, sign: np.ndarray) -> np.ndarray:
    """(4, ..., O, J) of players' cells still owed `owes` (..., O, J) and their signs `sign` (2, ..., 1, J): whether
    each owes a cell of the goal, whether it owes one and likes the goal, dislikes it, and how many it owes.  The
    counts are small integers, exact in floats."""
    out = np.empty((4, *owes.shape))
    np.minimum(owes, 1.0, out=out[0])
    np.multiply(out[0], sign, out=out[1:3])
    out[3] = owes
    return out


def _others(game: Game, players: np.ndarray, w: _Weights, owes: np.ndarray, varying: np.ndarray | None,
            ) -> np.ndarray:
    """(4, P, O, J) `_owed` summed over the players but each of `players`.  In an offer search only the pair's
    cells change from one successor to the next (`varying`; None: anyone's may), so the other players' sum is
    made once from the first state and the pair's added to it: two rows a state instead of every player's."""
    own = _owed(owes[:, players].transpose(1, 0, 2), w.sign)  # (4, P, O, J)
    if varying is None:
        total = _owed(owes.transpose(1, 0, 2), w.every_sign).sum(axis=1)  # (4, O, J)
    else:
        fixed = np.ones(game.n, dtype=bool)
        fixed[varying] = False
        if len(players) == len(varying) and not fixed[players].any():  # the pair's own rows are those that vary
            total = own.sum(axis=1)
        else:
            total = _owed(owes[:, varying].transpose(1, 0, 2), w.every_sign[:, varying]).sum(axis=1)
        total += _owed(owes[0, fixed][:, None], w.every_sign[:, fixed]).sum(axis=1)
    return total[:, None] - own


# The weighted sums over goals of what is the same for every player (row of `shared` below, whose weights: 0 its
# values, 1 those it likes, 2 those it dislikes), for the columns SHARED_COLUMNS.
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
                    owes: np.ndarray, varying: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(`state_features`, the scaled satisfaction (O, J)); `varying`: the players whose owed cells may differ
    from one state to the next, if not everyone's (`_others`).  A batch is some 20 to 80 states of one or two
    players (a search) or one state of every player (a forecast), and half its cost is the numpy calls
    themselves: the weighted sums over goals are columns of two matrix products, whatever does not depend on the
    player is computed once for all of them, and who owes what is summed over the players an offer changes."""
    goals, L = game.all_goals, game.scale
    w = _weights_of(game, players)
    (rows, J), P = counts.shape, len(players)
    scaled = scaled_satisfaction(goals, counts)
    reachable = (goals.d - lost) >= goals.tau
    shared = np.empty((rows, 7, J))  # (O, 7, J): summed with each player's values, liked or disliked
    s = np.divide(scaled, L, out=shared[:, 0])
    np.divide(upper_remainder(goals, rules, counts, lost, scaled), L, out=shared[:, 1])
    open_ = np.subtract(1.0, s, out=shared[:, 2])
    np.multiply(open_, ~reachable, out=shared[:, 3])
    reach_open = np.multiply(open_, reachable, out=shared[:, 4])
    np.multiply(reach_open, goals.binary, out=shared[:, 5])
    np.multiply(reach_open, np.minimum(counts, goals.tau) / goals.tau, out=shared[:, 6])
    sums = (shared.reshape(rows * 7, J) @ w.by_kind).reshape(rows, 7, 3, P)
    x = np.zeros((P, rows, len(FEATURES)))  # the turn's columns stay 0
    x[:, :, SHARED_COLUMNS] = sums[:, _SHARED[0], _SHARED[1]].transpose(2, 0, 1)

    others_owing, others_liking, others_hostile, others_owe = _others(game, players, w, owes, varying)
    own_owes = owes[:, players].transpose(1, 0, 2)
    owing = np.empty((P, rows, 2, J))  # summed with each one's liked or disliked goals
    np.multiply((others_owing == 0) & (own_owes > 0), reach_open, out=owing[:, :, 0])  # only it can advance them
    np.multiply(others_liking / np.maximum(others_owing, 1), reach_open, out=owing[:, :, 1])  # support
    x[:, :, OWING_COLUMNS] = (owing.reshape(P, rows * 2, J) @ w.by_sign).reshape(P, rows, 4)

    if effective_lens(game, rules, "lower") != "myopic":
        owed = Owing(own_owes, others_owe, others_owing, others_hostile)
        _, gain, factor = lens_terms(goals, rules, "lower", counts, lost, w.gp, owed, memo={"s": scaled})
        assert gain is not None
        x[:, :, FEATURES.index("lower_loss")] = gain.sum(axis=-1) * (factor / L) / w.mass
    x[:, :, FEATURES.index("budget")] = float(game.budget)
    x[:, :, FEATURES.index("players")] = float(game.n)
    return x, scaled


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
          owes: np.ndarray, varying: np.ndarray | None = None) -> Batch:
    """The batch of states (`Batch`); `varying`: the players whose owed cells may differ from one state to the
    next, if not everyone's (an offer search's pair)."""
    x, scaled = _state_features(game, rules, players, counts, lost, owes, varying)
    return Batch(players, x, ((scaled @ game.G[:, players]) / game.scale).T, np.abs(game.G[:, players]).sum(axis=0))


def batch_values(game: Game, model: LensModel, b: Batch, t: int) -> np.ndarray:
    """(P, O) each player's learned value of each state of the batch at turn t, in one forward pass of the
    network; at the end of the game, the realised payoff."""
    if t >= game.T:
        return b.realised
    x = b.x.copy()
    x[:, :, TURN_COLUMNS] = _at_turn(game, t)[b.players][:, None, :]
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
