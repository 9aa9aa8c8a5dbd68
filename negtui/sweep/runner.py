"""Running a sweep's tasks: a local process pool over every core (no set-up), or an existing Dask
cluster (`--scheduler ADDRESS`).  Rows are kept as tasks finish; progress, rate and ETA go to stderr."""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, TextIO, TypeVar

from negtui.children import exit_with_parent
from negtui.sweep.results import Results
from negtui.sweep.spec import SweepSpec
from negtui.sweep.tasks import Task, run_task

Item = TypeVar("Item")
FLUSH_SECONDS = 5.0  # the results file is rewritten at most this often (and at the end)


@dataclass
class Progress:
    """One line on stderr: tasks done of all, rows, rate and ETA; redrawn in place on a terminal, a line
    every 10 s otherwise (a log file should not fill with carriage returns)."""

    total: int
    skipped: int
    stream: TextIO = field(default_factory=lambda: sys.stderr)  # sys.stderr as it is when the sweep starts
    started: float = 0.0
    done: int = 0
    _shown: float = 0.0

    def __post_init__(self) -> None:
        self.started = time.monotonic()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def tick(self, final: bool = False) -> None:
        self.done += 0 if final else 1
        now = time.monotonic()
        if not final and now - self._shown < (0.2 if self.tty else 10.0):
            return
        self._shown = now
        todo = self.total - self.skipped
        rate = self.done / max(now - self.started, 1e-9)
        eta = (todo - self.done) / rate if rate > 0 else float("inf")
        counts = f"{self.done + self.skipped}/{self.total} games"
        if self.skipped:
            counts += f" ({self.skipped} already done)"
        room = self.columns() - 1  # a line as wide as the terminal wraps, and the next redraw starts below it
        if not todo:
            text = f"{counts}: nothing left to play"
        elif not self.done:  # no rate to tell yet, and an ETA of '?' says nothing
            text = f"{counts}, the first of {todo} under way"
        else:
            text = f"{counts} {rate:z.2f} games/s  ETA {_duration(eta)}"
            if len(text) + 9 > room and self.skipped:
                text = f"{self.done + self.skipped}/{self.total} games {rate:z.2f}/s ETA {_duration(eta)}"
        width = max(0, min(24, room - len(text) - 1))
        fill = int(width * self.done / todo) if todo else width
        bar = "█" * fill + "·" * (width - fill)
        line = (f"{bar} {text}" if width else text)[:room]
        end = "\n" if final or not self.tty else ""
        print(("\r" if self.tty else "") + line + ("\x1b[K" if self.tty else ""), end=end, file=self.stream,
              flush=True)

    def columns(self) -> int:
        """The terminal's width (the line is redrawn in place, so it must fit), 80 when unknown."""
        if not self.tty:
            return 10_000
        try:
            return os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            return 80


def _duration(seconds: float) -> str:
    if seconds == float("inf"):
        return "?"
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"


def run_sweep(spec: SweepSpec, all_tasks: list[Task], results: Results, *, workers: int | None = None,
              scheduler: str | None = None, progress: Progress | None = None) -> int:
    """Run every task the results do not hold yet; returns how many ran.  KeyboardInterrupt stops it
    after writing what finished (the tasks in flight are lost and run again next time)."""
    todo = [t for t in all_tasks if t.key not in results.done]
    progress = progress or Progress(len(all_tasks), len(all_tasks) - len(todo))
    last = time.monotonic()
    ran = 0
    try:
        source = _dask(spec, todo, scheduler) if scheduler else _pool(spec, todo, workers)
        for rows in source:
            results.add(rows)
            ran += 1
            progress.tick()
            if time.monotonic() - last > FLUSH_SECONDS:
                results.write()
                last = time.monotonic()
    finally:
        results.write()
        progress.tick(final=True)
    return ran


def _pool(spec: SweepSpec, todo: list[Task], workers: int | None) -> Iterator[list[dict]]:
    """A local process pool; at most two tasks per worker are queued, so Ctrl-C loses little."""
    for task, fut in pooled(functools.partial(run_task, spec=spec), todo, workers):
        yield _result(fut, task)


def pooled(work: Callable[[Item], Any], items: list[Item], workers: int | None) -> Iterator[tuple[Item, Future]]:
    """`work` of every item on a local process pool, as (item, finished future) in the order they finish; at
    most two items per worker are queued, so Ctrl-C loses little, and stopping the iteration ends the pool."""
    if not items:
        return
    workers = workers or os.cpu_count() or 1
    # a worker ends when the sweep's own process is gone (kill -9 included), instead of idling forever
    pool = ProcessPoolExecutor(max_workers=workers, initializer=exit_with_parent)
    pending: dict[Future, Item] = {}
    queue = iter(items)
    try:
        while True:
            while len(pending) < 2 * workers:
                item = next(queue, None)
                if item is None:
                    break
                pending[pool.submit(work, item)] = item
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                yield pending.pop(fut), fut
    finally:
        for fut in pending:
            fut.cancel()
        _stop(pool)


class TaskFailed(Exception):
    """A game could not be played (a bug, an outside agent's crash beyond what the driver absorbs, a
    worker that died): the sweep stops, keeping every finished game; re-running retries the rest."""

    def __init__(self, task: Task, cause: BaseException):
        self.task, self.cause = task, cause
        where = ", ".join(f"{k} {v}" for k, v in task.point) + f", seed {task.seed}, {task.rules} rules"
        super().__init__(f"a game failed ({where}): {type(cause).__name__}: {cause}")


def _result(fut: Future[list[dict]], task: Task) -> list[dict]:
    try:
        return fut.result()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as err:  # a worker's failure of any kind ends the sweep with a message
        raise TaskFailed(task, err) from err


def _stop(pool: ProcessPoolExecutor) -> None:
    """Shut the pool down now: running tasks are abandoned, their processes ended."""
    procs = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(timeout=5)


def _dask(spec: SweepSpec, todo: list[Task], address: str) -> Iterator[list[dict]]:
    """The same tasks on a Dask cluster; a task's key names its future, so a task is never run twice."""
    if not todo:
        return
    from distributed import Client, as_completed

    client = Client(address, timeout="30s")
    try:
        spec_future = client.scatter(spec, broadcast=True)
        futures = {client.submit(run_task, task, spec_future, key=f"negtui-sweep-{task.key}", pure=False): task
                   for task in todo}
        try:
            for fut in as_completed(list(futures)):
                yield _result(fut, futures[fut])
        finally:
            client.cancel(list(futures))
    finally:
        client.close()

