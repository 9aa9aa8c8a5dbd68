"""Caches with a memory budget.

The offer search, MCTS and the app revisit the same states, so the engine keeps what it computed;
on a game of hundreds of players a single entry can weigh a megabyte.  A `BoundedCache` counts the
bytes it holds and empties itself when a new entry would pass its budget: clearing costs nothing on
the search's hot path (no LRU bookkeeping), and the search refills what it still needs."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

import numpy as np

V = TypeVar("V")

MB = 2**20


def nbytes(*arrays: object) -> int:
    """Bytes of the numpy arrays among `arrays` (anything else counts a little)."""
    return sum(a.nbytes if isinstance(a, np.ndarray) else 64 for a in arrays)


class BoundedCache(Generic[V]):
    def __init__(self, budget: int, size_of: Callable[[V], int]):
        self.budget = budget
        self.size_of = size_of
        self.bytes = 0
        self._data: dict[Hashable, V] = {}

    def get(self, key: Hashable) -> V | None:
        return self._data.get(key)

    def put(self, key: Hashable, value: V) -> V:
        size = self.size_of(value)
        if self.bytes + size > self.budget:
            self._data.clear()
            self.bytes = 0
        self._data[key] = value
        self.bytes += size
        return value

    def clear(self) -> None:
        self._data.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._data)
