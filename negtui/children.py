"""negtui's own child processes (the welfare worker, the bot process) never outlive their parent.

A child is started with `child_env()`, which names its parent in its environment before the child exists,
and calls `exit_with_parent()` first thing: it ends at once if that parent is already gone (killed while the
child was still importing numpy and the rest, when no watch could have seen it go), and otherwise a watchdog
thread ends it the moment its parent is gone (its parent process id changes), even in the middle of a solve
that would otherwise run on for minutes after a kill -9 of the app."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping

PARENT = "NEGTUI_PARENT_PID"  # the process a child must not outlive, as its environment names it


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment to start a child with (this process's, or `env`), naming this process as its parent."""
    return {**(os.environ if env is None else env), PARENT: str(os.getpid())}


def exit_with_parent(interval: float = 0.2) -> None:
    parent = _parent()
    if os.getppid() != parent:  # gone while this process started: nobody is left to read what it would answer
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()


def _parent() -> int:
    """The parent named when this process was started, else the parent it has now (a pool's worker, forked
    and at once here).  The name is taken out of the environment: this process's own children have another."""
    named = os.environ.pop(PARENT, "")
    return int(named) if named.isdigit() else os.getppid()
