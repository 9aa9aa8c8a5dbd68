"""Welfare solves in a worker process, so that a caller (the app, Ctrl-C at the command line) can
cancel them at once: a MILP solver inside the process cannot be interrupted cooperatively."""

from __future__ import annotations

import multiprocessing as mp
import queue
from dataclasses import dataclass

from negtui.welfare.solve import WelfareOptions, WelfareResult


class Cancelled(Exception):
    """The solve was cancelled before it finished."""


@dataclass(frozen=True)
class WelfareRequest:
    scenario: dict  # the scenario as JSON data (picklable, rebuilt in the worker)
    rules: str
    bits: int
    options: WelfareOptions


def run_request(req: WelfareRequest) -> WelfareResult:
    from negtui.engine import compile_game, get_rules
    from negtui.scenario import parse_scenario
    from negtui.welfare.solve import solve_welfare

    rules = get_rules(req.rules)
    game = compile_game(parse_scenario(req.scenario), rules)
    return solve_welfare(game, rules, req.bits, req.options)


def _work(req: WelfareRequest, out: mp.Queue) -> None:
    try:
        out.put(("ok", run_request(req)))
    except Exception as err:  # reported to the caller, who decides how to show it
        out.put(("error", f"{type(err).__name__}: {err}"))


class WelfareJob:
    """A welfare solve running in its own process."""

    def __init__(self, req: WelfareRequest):
        ctx = mp.get_context("spawn")  # safe beside threads (the app's workers)
        self._out: mp.Queue = ctx.Queue()
        self._proc = ctx.Process(target=_work, args=(req, self._out), daemon=True)
        self._proc.start()
        self._result: WelfareResult | None = None
        self._cancelled = False

    def result(self, timeout: float | None = None) -> WelfareResult:
        """Wait for the result; raises TimeoutError (still running), Cancelled, or RuntimeError."""
        if self._cancelled:
            raise Cancelled()
        if self._result is None:
            try:
                kind, payload = self._out.get(timeout=timeout)
            except queue.Empty:
                if not self._proc.is_alive():
                    raise RuntimeError("the welfare worker stopped without a result") from None
                raise TimeoutError() from None
            self._proc.join()
            if kind == "error":
                raise RuntimeError(payload)
            self._result = payload
        return self._result

    def done(self) -> bool:
        return self._result is not None or not self._out.empty() or not self._proc.is_alive()

    def cancel(self) -> None:
        self._cancelled = True
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join(timeout=5)
