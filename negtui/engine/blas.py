"""One BLAS thread for the engine's small matrix products (the learned lens's forward pass).

numpy's OpenBLAS splits a product of a few hundred rows by 64 columns over every core, and its worker threads
then spin waiting for the next one: on a machine whose cores are busy (a sweep's pool, a server's bots, other
users) a learned search paid about twenty times the CPU time of the same products on one thread, and a bot
used two cores.  Products this small gain nothing from a second thread, so the forward pass runs on one
(through threadpoolctl, the tool scikit-learn uses for the same reason).

The limit is the process's, not the calling thread's: passes that overlap in threads share one limit, taken by
the first and given back by the last, so the number of threads the process had is restored whatever the order
they finish in.  While a pass runs, another thread's large product runs on one thread too; passes take
microseconds to milliseconds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_holders = 0  # passes running now
_saved: list[tuple[Any, int]] = []  # the BLAS libraries on more than one thread, and how many, before the first
_libraries: list[Any] | None = None  # threadpoolctl's controllers of the BLAS libraries loaded, found on first use


def _blas() -> list[Any]:
    global _libraries
    if _libraries is None:
        from threadpoolctl import ThreadpoolController

        _libraries = list(ThreadpoolController().select(user_api="blas").lib_controllers)
    return _libraries


@contextmanager
def one_thread() -> Iterator[None]:
    """BLAS limited to one thread inside the block (for every thread of the process, see above).  The libraries'
    own get/set calls: a limit object of threadpoolctl reads every library's full description first, which cost
    more than the pass it guarded."""
    global _holders
    with _lock:
        if _holders == 0:
            counts = [(lib, lib.get_num_threads()) for lib in _blas()]
            _saved[:] = [(lib, n) for lib, n in counts if isinstance(n, int) and n > 1]
            for lib, _ in _saved:
                lib.set_num_threads(1)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                for lib, threads in _saved:
                    lib.set_num_threads(threads)
