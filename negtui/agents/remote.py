"""Bots thinking in a separate process.

In the app, a bot's MCTS is pure-Python work; run in a thread it competes with the interface for the
interpreter lock and key presses wait.  A `RemoteBots` child process holds its own copy of the game
(with its own offer cache) and answers "decide at (t, P)" requests over JSON lines on its standard
streams; the caller's thread just waits on a pipe.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import asdict


class RemoteError(RuntimeError):
    """The bot process failed or went away."""


class RemoteBots:
    def __init__(self, scenario: dict, rules: str, seats: dict[str, dict], partner_method: str, sims: int,
                 ucb: float, budget: int | None):
        self._proc = subprocess.Popen([sys.executable, "-m", "negtui.agents.remote"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self._lock = threading.Lock()
        self._send({"cmd": "init", "scenario": scenario, "rules": rules, "seats": seats,
                    "partner_method": partner_method, "sims": sims, "ucb": ucb, "budget": budget}, reply=False)

    def _send(self, msg: dict, reply: bool = True) -> dict | None:
        with self._lock:
            try:
                self._proc.stdin.write(json.dumps(msg) + "\n")
                self._proc.stdin.flush()
                if not reply:
                    return None
                line = self._proc.stdout.readline()
            except (BrokenPipeError, OSError, ValueError) as err:
                raise RemoteError(f"the bot process is gone: {err}") from None
        if not line:
            err = (self._proc.stderr.read() or "").strip().splitlines()
            raise RemoteError(err[-1] if err else "the bot process exited")
        out = json.loads(line)
        if "error" in out:
            raise RemoteError(out["error"])
        return out

    def set_seats(self, seats: dict[str, dict]) -> None:
        self._send({"cmd": "seats", "seats": seats}, reply=False)

    def decide(self, t: int, bits: int) -> dict:
        """{'partner': q, 'offer': bits, 'accepted': bool | None, 'decided_by': str} for the bot at turn t."""
        return self._send({"cmd": "decide", "t": t, "bits": format(bits, "x")})

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
            try:
                self._proc.wait(timeout=0.3)
            except subprocess.TimeoutExpired:  # still starting up or thinking: nothing to keep
                self._proc.kill()
                self._proc.wait()


def seats_json(seats: dict) -> dict[str, dict]:
    return {pid: asdict(seat) for pid, seat in seats.items()}


def _serve() -> None:
    from negtui.engine.negotiation import State
    from negtui.engine.rules import get_rules
    from negtui.scenario import parse_scenario
    from negtui.session import Seat, Session

    session: Session | None = None
    for line in sys.stdin:
        msg = json.loads(line)
        try:
            if msg["cmd"] == "init":
                seats = {pid: Seat(**s) for pid, s in msg["seats"].items()}
                session = Session(parse_scenario(msg["scenario"]), get_rules(msg["rules"]), seats,
                                  partner_method=msg["partner_method"], sims=msg["sims"], ucb=msg["ucb"],
                                  budget=msg["budget"])
            elif msg["cmd"] == "seats":
                for pid, s in msg["seats"].items():
                    if Seat(**s) != session.seats[pid]:
                        session.set_seat(pid, Seat(**s))
            elif msg["cmd"] == "decide":
                session.state = State(msg["t"], int(msg["bits"], 16))
                d = session.decide()
                out = {"partner": d.partner, "offer": format(d.offer.bits, "x"), "accepted": d.accepted,
                       "decided_by": d.decided_by}
                sys.stdout.write(json.dumps(out) + "\n")
                sys.stdout.flush()
        except Exception as err:  # reported to the caller, which shows it
            if msg.get("cmd") == "decide":
                sys.stdout.write(json.dumps({"error": f"{type(err).__name__}: {err}"}) + "\n")
                sys.stdout.flush()
            else:
                raise


if __name__ == "__main__":
    _serve()
