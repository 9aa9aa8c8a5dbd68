"""Lens bots thinking in a separate process.

In the app, a bot's MCTS is pure-Python work; run in a thread it competes with the interface for the
interpreter lock and key presses wait.  A `BotProcess` child holds its own copy of the game (with its
own offer cache) and the lens bots of every seat, and answers one request per decision over JSON
lines on its standard streams; `RemoteLensBot` is the parent's stand-in for one seat, so the turn
driver asks it like any other agent.  An offer travels as its index among the candidates and its
cells, so the parent never searches for it again.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading

from negtui.engine.negotiation import Negotiation, State
from negtui.engine.offers import Offer
from negtui.seats import Seat


class RemoteError(RuntimeError):
    """The bot process failed or went away."""


class BotProcess:
    def __init__(self, neg: Negotiation, seats: list[Seat]):
        self._proc = subprocess.Popen([sys.executable, "-m", "negtui.agents.process"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self._lock = threading.Lock()
        game = neg.game
        self._send({"cmd": "init", "scenario": game.scenario.model_dump(mode="json"), "rules": neg.rules.as_dict(),
                    "budget": game.budget, "seats": _seats_json(seats)}, reply=False)

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

    def request(self, cmd: str, seat: int, s: State, **more: object) -> dict:
        return self._send({"cmd": cmd, "seat": seat, "t": s.t, "bits": format(s.bits, "x"), **more})

    def set_seats(self, seats: list[Seat]) -> None:
        self._send({"cmd": "seats", "seats": _seats_json(seats)}, reply=False)

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
        for stream in (self._proc.stdout, self._proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


class RemoteLensBot:
    """One seat's lens bot, asked through the bot process."""

    def __init__(self, process: BotProcess, seat: int, label: str):
        self.process, self.seat, self.label = process, seat, label

    def choose_partner(self, neg: Negotiation, s: State) -> int:
        return int(self.process.request("partner", self.seat, s)["partner"])

    def make_offer(self, neg: Negotiation, s: State, partner: int) -> Offer:
        out = self.process.request("offer", self.seat, s, partner=partner)
        bits = int(out["bits"], 16)
        return Offer(neg.proposer(s), partner, bits, bin(bits).count("1"), int(out["index"]))

    def respond(self, neg: Negotiation, s: State) -> bool:
        o = s.pending
        return bool(self.process.request("respond", self.seat, s, proposer=o.proposer, partner=o.partner,
                                         offer=format(o.bits, "x"), index=o.index)["accept"])


def _seats_json(seats: list[Seat]) -> list[dict]:
    return [seat.model_dump(mode="json") for seat in seats]


def _serve() -> None:
    """The child: a table of the seats' lens bots (other seats are modelled as people are) and one
    answer per request."""
    from negtui.agents.table import Table
    from negtui.children import exit_with_parent
    from negtui.engine.rules import rules_from
    from negtui.scenario import parse_scenario

    exit_with_parent()
    def bots_only(data: list[dict]) -> list[Seat]:
        return [seat if seat.is_lens else Seat.human() for seat in map(Seat.model_validate, data)]

    neg: Negotiation | None = None
    table: Table | None = None
    broken = ""  # why the seats could not be set up (an exact lens on a game too large): every answer says so
    for line in sys.stdin:
        msg = json.loads(line)
        cmd = msg.get("cmd")
        try:
            if cmd == "init":
                neg = Negotiation.from_scenario(parse_scenario(msg["scenario"]), rules_from(msg["rules"]),
                                                budget=msg["budget"])
                table = Table(neg, bots_only(msg["seats"]))
                continue
            if cmd == "seats":
                for i, seat in enumerate(bots_only(msg["seats"])):
                    if seat != table.seats[i]:
                        table.set(i, seat)
                broken = ""
                continue
            if broken or table is None:
                raise RuntimeError(broken or "the bot process has no game")
            s = State(msg["t"], int(msg["bits"], 16))
            bot = table.agents[msg["seat"]]
            if cmd == "partner":
                out: dict = {"partner": bot.choose_partner(neg, s)}
            elif cmd == "offer":
                offer = bot.make_offer(neg, s, msg["partner"])
                out = {"index": offer.index, "bits": format(offer.bits, "x")}
            else:
                offer = Offer(msg["proposer"], msg["partner"], int(msg["offer"], 16), index=msg["index"])
                out = {"accept": bot.respond(neg, State(s.t, s.bits, offer))}
        except Exception as err:  # reported to the caller, which shows it
            if cmd in ("init", "seats"):
                broken = str(err)
                continue
            out = {"error": str(err) or type(err).__name__}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _serve()
