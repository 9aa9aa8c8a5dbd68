"""The learned lens's offer search: every candidate's successor read by the network in one batch, each
distinct successor once (docs/learned-lens.md, "What it costs").  The candidates and the closed-form lenses'
search are offers.py's."""

from __future__ import annotations

import numpy as np

from negtui.engine import learned
from negtui.engine.game import Game
from negtui.engine.lens_model import model_for
from negtui.engine.offers import Candidates, full_arrays
from negtui.engine.payoff import StateInfo
from negtui.engine.rules import Rules

_DISTINCT_FROM = 24  # candidates from which a search looks for repeated successors first (below, it costs more)
_ROW_WEIGHTS = np.random.default_rng(55).uniform(1.0, 2.0, size=4096)  # one number a successor: its weighted sum


def distinct_rows(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first, back) of the rows of an array (O, K): the index of one row of each distinct value, and each row's
    position among those, so key[first][back] == key.  Rows are told apart by one weighted sum each (a sort of
    O numbers instead of O rows); if two different rows ever shared one, the rows are compared whole instead,
    so the answer is always exact."""
    width = key.shape[1]
    if width <= len(_ROW_WEIGHTS):
        _, first, back = np.unique(key @ _ROW_WEIGHTS[:width], return_index=True, return_inverse=True)
        if np.array_equal(key[first][back], key):
            return first, back
    whole = np.ascontiguousarray(key, dtype=np.float64)
    _, first, back = np.unique(whole.view(np.dtype((np.void, width * 8))).ravel(), return_index=True,
                               return_inverse=True)
    return first, back


def _learned_batch(game: Game, rules: Rules, info: StateInfo, cand: Candidates, players: np.ndarray,
                   ) -> tuple[learned.Batch, np.ndarray | None]:
    """The candidates' successors as the network reads them at any turn, each distinct one once (offers of
    cells that feed the same goals leave the same arrays: about a third of a large game's candidates are
    distinct), and each candidate's row among them (None: every successor is distinct)."""
    rows = len(cand)
    first = back = None
    if rows >= _DISTINCT_FROM:
        owes = [cand.owes_all.reshape(rows, -1)] if cand.owes_all is not None else [cand.owes_p, cand.owes_q]
        # outside the pair's goals every successor is the state itself: the pair's goals tell them apart
        first, back = distinct_rows(np.concatenate([cand.counts, np.broadcast_to(cand.lost, cand.counts.shape),
                                                    *owes], axis=1))
        if len(first) == rows:
            first = back = None
    counts, lost, owes_full = full_arrays(game, info, cand if first is None else cand.take(first), owed=True)
    assert owes_full is not None
    varying = None if cand.owes_all is not None else np.array(sorted({cand.p, cand.q}))  # whose owed cells change
    return learned.batch(game, rules, players, counts, lost, owes_full, varying), back


def learned_candidate_values(game: Game, rules: Rules, info: StateInfo, cand: Candidates, t_next: int, lens: str,
                             players: np.ndarray) -> np.ndarray:
    """(P, O) each of `players`' learned value of each candidate's successor at turn t_next < T, in one pass:
    the successors' arrays are built once, and the network reads every player's rows together.  What does not
    depend on the turn is kept with the candidates (their memo), for the turns that search them again."""
    key = ("learned", *(int(k) for k in players))
    hit = cand.memo.get(key)
    if hit is None:
        hit = cand.memo[key] = _learned_batch(game, rules, info, cand, players)
    b, back = hit
    v = learned.batch_values(game, model_for(lens), b, t_next)
    return v if back is None else v[:, back]
