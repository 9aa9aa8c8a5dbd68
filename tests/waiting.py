"""Waiting for a state, not for a time: every test that waits for something polls for it under a generous
deadline and, when the deadline passes, fails naming what it waited for and the state it saw last.  Plain
functions (importable like paths.py), and the `wait_for` fixture of tests/conftest.py."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def wait_for(cond: Callable[[], T], what: str, timeout: float = 60.0, seen: Callable[[], object] | None = None,
             every: float = 0.02) -> T:
    """Poll `cond()` until it returns something true, and return that.  After `timeout` seconds fail with
    what was awaited and the state seen last (`seen()`, or the last value of `cond()`)."""
    deadline = time.monotonic() + timeout
    while not (got := cond()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}; "
                                 f"seen: {seen() if seen is not None else got!r}")
        time.sleep(every)
    return got


async def wait_for_async(cond: Callable[[], T], what: str, timeout: float = 60.0,
                         seen: Callable[[], object] | None = None) -> T:
    """`wait_for` in a test on an event loop: polls between the loop's other work (a server in the same loop)."""
    deadline = time.monotonic() + timeout
    while not (got := cond()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}; "
                                 f"seen: {seen() if seen is not None else got!r}")
        await asyncio.sleep(0.02)
    return got


async def within(aw: Awaitable[Any], what: str, timeout: float = 60.0) -> Any:
    """Await `aw` for at most `timeout` seconds, failing with what was awaited."""
    try:
        return await asyncio.wait_for(aw, timeout)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout:g} s waiting for {what}") from None


def alive(pid: int) -> bool:
    """Whether process `pid` still runs; a zombie waiting for its (dead) parent counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False
