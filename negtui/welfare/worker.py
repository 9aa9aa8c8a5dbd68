"""Welfare solves in a worker process, so that a caller (the app, Ctrl-C at the command line) can
cancel them at once: a MILP solver inside the process cannot be interrupted cooperatively.

The worker is a plain `python -m negtui.welfare.worker` child reading a JSON request on stdin and
writing a JSON result on stdout: no multiprocessing machinery, so it works from inside the app, whose
standard streams are not real files."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict, dataclass

from negtui.welfare.solve import WelfareOptions, WelfareResult


class Cancelled(Exception):
    """The solve was cancelled before it finished."""


@dataclass(frozen=True)
class WelfareRequest:
    scenario: dict  # the scenario as JSON data, rebuilt in the worker
    rules: str
    bits: int
    options: WelfareOptions

    def to_json(self) -> str:
        return json.dumps({"scenario": self.scenario, "rules": self.rules, "bits": self.bits,
                           "options": asdict(self.options)})

    @classmethod
    def from_json(cls, text: str) -> WelfareRequest:
        data = json.loads(text)
        return cls(data["scenario"], data["rules"], int(data["bits"]), WelfareOptions(**data["options"]))


def run_request(req: WelfareRequest) -> WelfareResult:
    from negtui.engine import compile_game, get_rules
    from negtui.scenario import parse_scenario
    from negtui.welfare.solve import solve_welfare

    rules = get_rules(req.rules)
    game = compile_game(parse_scenario(req.scenario), rules)
    return solve_welfare(game, rules, req.bits, req.options)


class WelfareJob:
    """A welfare solve running in its own process."""

    def __init__(self, req: WelfareRequest):
        self._proc = subprocess.Popen([sys.executable, "-m", "negtui.welfare.worker"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._input: str | None = req.to_json()
        self._result: WelfareResult | None = None
        self._cancelled = False

    def result(self, timeout: float | None = None) -> WelfareResult:
        """Wait for the result; raises TimeoutError (still running), Cancelled, or RuntimeError."""
        if self._cancelled:
            raise Cancelled()
        if self._result is None:
            try:
                out, err = self._proc.communicate(self._input, timeout=timeout)
            except subprocess.TimeoutExpired:
                self._input = None  # already sent
                raise TimeoutError() from None
            except (ValueError, OSError):  # cancelled from another thread meanwhile
                raise Cancelled() from None
            if self._cancelled:
                raise Cancelled()
            if self._proc.returncode != 0:
                last = (err or "").strip().splitlines()
                raise RuntimeError(last[-1] if last else f"the welfare worker exited with {self._proc.returncode}")
            self._result = WelfareResult(**json.loads(out))
        return self._result

    def done(self) -> bool:
        return self._result is not None or self._proc.poll() is not None

    def cancel(self) -> None:
        self._cancelled = True
        if self._proc.poll() is None:
            self._proc.kill()
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def main() -> None:
    req = WelfareRequest.from_json(sys.stdin.read())
    res = run_request(req)
    sys.stdout.write(json.dumps(res.as_dict()))


if __name__ == "__main__":
    main()
