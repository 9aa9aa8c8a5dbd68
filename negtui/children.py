"""negtui's own child processes (the welfare worker, the bot process) never outlive their parent.

A child started with `python -m …` calls `exit_with_parent()` first: a watchdog thread ends it the
moment its parent is gone (its parent process id changes), even in the middle of a solve that would
otherwise run on for minutes after a kill -9 of the app."""

from __future__ import annotations

import os
import threading
import time


def exit_with_parent(interval: float = 0.2) -> None:
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="exit-with-parent").start()
