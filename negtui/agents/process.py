"""Lens bots thinking in a separate process.

In the app, a bot's MCTS is pure-Python work; run in a thread it competes with the interface for the
interpreter lock and key presses wait.  A `BotProcess` child (bot_child.py) holds its own copy of the
game (with its own valuation and caches) and the lens bots of every seat, and answers one request per
decision over JSON lines on its standard streams; `RemoteLensBot` is the parent's stand-in for one
seat, so the turn driver asks it like any other agent.  An offer travels as its index among the
candidates and its cells, so the parent never searches for it again.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import IO, Any

from negtui.children import child_env
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.offers import Offer
from negtui.engine.portable import PortableGame
from negtui.seats import Seat


class RemoteError(RuntimeError):
    """The bot process failed or went away."""


def _streams(proc: subprocess.Popen[str]) -> tuple[IO[str], IO[str], IO[str]]:
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    return proc.stdin, proc.stdout, proc.stderr


class BotProcess:
    def __init__(self, neg: Negotiation, seats: list[Seat]):
        self._proc = subprocess.Popen([sys.executable, "-I", "-m", "negtui.agents.bot_child"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
                                      env=child_env())
        self._lock = threading.Lock()
        self._send({"cmd": "init", "game": PortableGame.of(neg.game, neg.rules).as_dict(),
                    "seats": seats_json(seats)}, reply=False)

    def _send(self, msg: dict[str, Any], reply: bool = True) -> dict[str, Any]:
        stdin, stdout, stderr = _streams(self._proc)
        with self._lock:
            try:
                stdin.write(json.dumps(msg) + "\n")
                stdin.flush()
                if not reply:
                    return {}
                line = stdout.readline()
            except (BrokenPipeError, OSError, ValueError) as err:
                raise RemoteError(f"the bot process is gone: {err}") from None
        if not line:
            said = (stderr.read() or "").strip().splitlines()
            raise RemoteError(said[-1] if said else "the bot process exited")
        out: dict[str, Any] = json.loads(line)
        if "error" in out:
            raise RemoteError(out["error"])
        return out

    def request(self, cmd: str, seat: int, s: State, neg: Negotiation, **more: object) -> dict[str, Any]:
        """A decision at s; under simultaneous rules with the proposer's place in the turn (`slot`), which the
        other offers in flight do not change (the bots do not see them)."""
        where = {"slot": neg.slot(s, neg.proposer(s))} if neg.game.simultaneous else {}
        return self._send({"cmd": cmd, "seat": seat, "t": s.t, "bits": format(s.bits, "x"), **where, **more})

    def set_seats(self, seats: list[Seat]) -> None:
        self._send({"cmd": "seats", "seats": seats_json(seats)}, reply=False)

    def close(self) -> None:
        stdin, stdout, stderr = _streams(self._proc)
        if self._proc.poll() is None:
            try:
                stdin.close()
            except OSError:
                pass
            try:
                self._proc.wait(timeout=0.3)
            except subprocess.TimeoutExpired:  # still starting up or thinking: nothing to keep
                self._proc.kill()
                self._proc.wait()
        for stream in (stdout, stderr):
            try:
                stream.close()
            except OSError:
                pass


class RemoteLensBot:
    """One seat's lens bot, asked through the bot process."""

    def __init__(self, process: BotProcess, neg: Negotiation, seat: int, label: str):
        self.process, self.neg, self.seat, self.label = process, neg, seat, label

    def choose_partner(self, s: State) -> int:
        return int(self.process.request("partner", self.seat, s, self.neg)["partner"])

    def make_offer(self, s: State, partner: int) -> Offer:
        out = self.process.request("offer", self.seat, s, self.neg, partner=partner)
        bits = int(out["bits"], 16)
        return Offer(self.neg.proposer(s), partner, bits, bits.bit_count(), int(out["index"]))

    def respond(self, s: State) -> bool:
        o = s.pending
        assert o is not None
        return bool(self.process.request("respond", self.seat, s, self.neg, proposer=o.proposer, partner=o.partner,
                                         offer=format(o.bits, "x"), index=o.index)["accept"])


def seats_json(seats: list[Seat]) -> list[dict[str, Any]]:
    return [seat.model_dump(mode="json") for seat in seats]
