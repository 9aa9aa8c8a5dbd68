"""Exclusive sets: which cells they block and which goal progress they rule out.

Sets may overlap, so both questions are answered exactly from the cells themselves (not per set):
a cell is blocked once another member of any set containing it is committed; of the cells still
free, two conflict when they share a set, and the most a goal can still gain from the free cells in
sets is a maximum independent set of that conflict graph (small: brute force, cached per game).
"""

from __future__ import annotations

from functools import cached_property
from itertools import combinations

import numpy as np

from negtui.engine.cache import MB, BoundedCache
from negtui.engine.game import Game

_EXHAUSTIVE = 16


class Exclusions:
    def __init__(self, game: Game):
        self.game = game
        self.cells = sorted({int(c) for g in game.groups for c in g})
        self.mask = sum(1 << c for c in self.cells)
        self._lost: BoundedCache[np.ndarray] = BoundedCache(32 * MB, lambda a: a.nbytes)

    @cached_property
    def rivals(self) -> dict[int, int]:
        """Cell -> bitmask of the cells sharing a set with it."""
        out = {c: 0 for c in self.cells}
        for g in self.game.groups:
            gm = sum(1 << int(c) for c in g)
            for c in g:
                out[int(c)] |= gm & ~(1 << int(c))
        return out

    @cached_property
    def goal_cells(self) -> list[list[int]]:
        """Per goal, its required cells that belong to some exclusive set."""
        inc = self.game.inc
        return [[c for c in self.cells if inc[c, j]] for j in range(self.game.n_goals)]

    @cached_property
    def disjoint(self) -> bool:
        """No cell in two sets: then a set's cells affect goals through that set alone (see `set_tables`)."""
        return sum(len(g) for g in self.game.groups) == len(self.cells)

    @cached_property
    def set_tables(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """For disjoint sets, per set g and state k (0: nothing of g committed, k: its k-th cell committed):
        the goal progress the set rules out, (k+1, J), and the cells it blocks as every player's owed cells,
        (k+1, N, J).  With disjoint sets the largest compatible choice of free cells takes one per set, so a
        state's `lost` is the sum of its sets' rows: the vector form of `lost` for many offers at once."""
        game = self.game
        lost_rows, blocked_rows = [], []
        for group in game.groups:
            cells = [int(c) for c in group]
            req = game.inc[cells]  # (|g|, J)
            lost = np.zeros((len(cells) + 1, game.n_goals))
            lost[0] = req.sum(axis=0) - req.any(axis=0)
            blocked = np.zeros((len(cells) + 1, game.n, game.n_goals))
            for k, c in enumerate(cells, start=1):
                others = [x for x in cells if x != c]
                lost[k] = game.inc[others].sum(axis=0)
                for x in others:
                    blocked[k, int(game.owner[x])] += game.inc[x]
            lost_rows.append(lost)
            blocked_rows.append(blocked)
        return lost_rows, blocked_rows

    def blocked_by(self, committed: int) -> int:
        """Cells no longer committable because a rival is committed."""
        out = 0
        for c in self.cells:
            if committed >> c & 1:
                out |= self.rivals[c]
        return out & ~committed

    def lost(self, committed: int, blocked: int) -> np.ndarray:
        """(J,) required cells per goal that can no longer all be committed."""
        key = (committed & self.mask, blocked & self.mask)
        hit = self._lost.get(key)
        if hit is None:
            hit = self._lost.put(key, self._compute_lost(*key))
        return hit

    def _compute_lost(self, committed: int, blocked: int) -> np.ndarray:
        out = np.zeros(self.game.n_goals)
        for j, cells in enumerate(self.goal_cells):
            open_cells = [c for c in cells if not committed >> c & 1]
            free = [c for c in open_cells if not blocked >> c & 1]
            out[j] = len(open_cells) - self._most_compatible(free)
        return out

    def _most_compatible(self, free: list[int]) -> int:
        """Size of the largest subset of `free` with no two cells in one set."""
        if len(free) > _EXHAUSTIVE:
            chosen = 0  # greedy: an under-estimate only for very large sets
            taken = 0
            for c in free:
                if not taken >> c & 1:
                    chosen += 1
                    taken |= self.rivals[c] | (1 << c)
            return chosen
        for r in range(len(free), 0, -1):
            for sub in combinations(free, r):
                if all(not (self.rivals[a] >> b & 1) for a, b in combinations(sub, 2)):
                    return r
        return 0


def exclusions(game: Game) -> Exclusions:
    index = game.exclusion_index
    if not isinstance(index, Exclusions):  # None until first use (Game cannot name this type)
        index = game.exclusion_index = Exclusions(game)
    return index
