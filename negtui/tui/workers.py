"""Slow work off the interface thread, reporting back by message (tui/messages.py)."""

from __future__ import annotations

import time

from textual.dom import DOMNode
from textual.worker import Worker, get_current_worker

from negtui.tui.messages import WelfareFailed, WelfareSolved
from negtui.welfare import Cancelled, WelfareJob


def watch_welfare(node: DOMNode, job: WelfareJob) -> Worker:
    """Wait for a welfare solve (running in its own process) in a thread; post `WelfareSolved` or
    `WelfareFailed` to `node`.  Cancelling the worker stops the waiting; cancel the job to stop the solve."""

    def wait() -> None:
        worker = get_current_worker()
        started = time.perf_counter()
        while not worker.is_cancelled:
            try:
                res = job.result(timeout=0.1)
            except TimeoutError:
                continue
            except Cancelled:
                return
            except RuntimeError as err:
                node.post_message(WelfareFailed(job, str(err)))
                return
            node.post_message(WelfareSolved(job, res, time.perf_counter() - started))
            return

    return node.run_worker(wait, thread=True, exclusive=True, group="welfare")
