"""Sessions released at one moment, each on a connection of its own to the same results database: what
exactly-one-wins tests of attempts and seats share (importable like paths.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from negtui.classroom.db import ResultsDB


def at_once(data: Path, sessions: int, attempt: Callable[[ResultsDB, int], int],
            refusal: type[Exception]) -> tuple[list[int], list[str]]:
    """(what the sessions that won got, the refusals' words): session k opens its own connection, waits for
    the others, then calls `attempt(db, k)`; a `refusal` is a loss, any other error fails the test."""
    gate = threading.Barrier(sessions)
    won: list[int] = []
    refused: list[str] = []
    failed: list[BaseException] = []

    def session(k: int) -> None:
        try:
            with ResultsDB.open(data) as db:
                gate.wait(timeout=60)
                try:
                    won.append(attempt(db, k))
                except refusal as err:
                    refused.append(str(err))
        except BaseException as err:  # reported below, with the thread's own error
            failed.append(err)

    threads = [threading.Thread(target=session, args=(k,)) for k in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a session did not end within 120 s"
    assert not failed, failed
    return won, refused
