"""Welfare solves in a worker process, so that a caller (the app, Ctrl-C at the command line) can
cancel them at once: a MILP solver inside the process cannot be interrupted cooperatively.

The worker is a plain `python -m negtui.welfare.worker` child reading a JSON request on stdin and
writing a JSON result on stdout: no multiprocessing machinery, so it works from inside the app, whose
standard streams are not real files."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import asdict, dataclass

from negtui.children import child_env
from negtui.engine.portable import PortableGame
from negtui.welfare.options import WelfareOptions, WelfareResult


class Cancelled(Exception):
    """The solve was cancelled before it finished."""


@dataclass(frozen=True)
class WelfareRequest:
    game: PortableGame  # rebuilt in the worker
    bits: int
    options: WelfareOptions

    def to_json(self) -> str:
        return json.dumps({"game": self.game.as_dict(), "bits": self.bits, "options": asdict(self.options)})

    @classmethod
    def from_json(cls, text: str) -> WelfareRequest:
        data = json.loads(text)
        return cls(PortableGame.from_dict(data["game"]), int(data["bits"]), WelfareOptions(**data["options"]))


def run_request(req: WelfareRequest) -> WelfareResult:
    from negtui.welfare.solve import solve_welfare

    game, rules = req.game.game()
    return solve_welfare(game, rules, req.bits, req.options)


class WelfareJob:
    """A welfare solve running in its own process, started at once; a thread feeds it and collects
    its answer, so `done()` can be polled and `cancel()` kills it whatever it is doing."""

    # the worker's command line; a class attribute so that a test can stand a process in for a solve
    # that takes as long as the test needs
    command: tuple[str, ...] = (sys.executable, "-I", "-m", "negtui.welfare.worker")

    def __init__(self, req: WelfareRequest):
        req.options.check()  # a bad request fails here, as a WelfareError, before any process starts
        self._proc = subprocess.Popen(list(self.command), stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env())
        self._finished = threading.Event()
        self._out = self._err = ""
        self._cancelled = False
        self._result: WelfareResult | None = None
        threading.Thread(target=self._talk, args=(req.to_json(),), daemon=True).start()

    def _talk(self, request: str) -> None:
        try:
            self._out, self._err = self._proc.communicate(request)
        except (OSError, ValueError):  # killed while talking
            pass
        finally:
            self._finished.set()

    def result(self, timeout: float | None = None) -> WelfareResult:
        """Wait for the result; raises TimeoutError (still running), Cancelled, or RuntimeError."""
        if not self._finished.wait(timeout):
            raise TimeoutError()
        if self._cancelled:
            raise Cancelled()
        if self._proc.returncode != 0:
            last = (self._err or "").strip().splitlines()
            raise RuntimeError(last[-1] if last else f"the welfare worker exited with {self._proc.returncode}")
        if self._result is None:
            self._result = WelfareResult(**json.loads(self._out))
        return self._result

    def done(self) -> bool:
        return self._finished.is_set()

    def cancel(self) -> None:
        self._cancelled = True
        if self._proc.poll() is None:
            self._proc.kill()
        self._finished.wait(5)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass


def main() -> None:
    from negtui.children import exit_with_parent

    exit_with_parent()
    req = WelfareRequest.from_json(sys.stdin.read())
    res = run_request(req)
    sys.stdout.write(json.dumps(res.as_dict()))


if __name__ == "__main__":
    main()
