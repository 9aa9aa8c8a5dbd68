"""The bot process's own side (`python -m negtui.agents.bot_child`): a seating of the game's lens bots
(other seats are modelled as people are) and one answer per request line (process.py speaks to it)."""

from __future__ import annotations

import json
import sys
from typing import Any

from negtui.agents.seating import Seating
from negtui.children import exit_with_parent
from negtui.engine.negotiation import State
from negtui.engine.offers import Offer
from negtui.engine.portable import PortableGame
from negtui.engine.simultaneous import Flight
from negtui.seats import Seat


def bots_only(data: list[dict[str, Any]]) -> list[Seat]:
    return [seat if seat.is_lens else Seat.human() for seat in map(Seat.model_validate, data)]


class BotChild:
    def __init__(self) -> None:
        self.seating: Seating | None = None
        self.broken = ""  # why the seats could not be set up (an exact lens on a game too large): every answer says so

    def setup(self, msg: dict[str, Any]) -> None:
        """`init` and `seats` lines: no answer, but a failure is kept for the next request."""
        try:
            if msg["cmd"] == "init":
                self.seating = Seating(PortableGame.from_dict(msg["game"]).negotiation(), bots_only(msg["seats"]))
            elif self.seating is not None:
                for i, seat in enumerate(bots_only(msg["seats"])):
                    if seat != self.seating.seats[i]:
                        self.seating.set(i, seat)
            self.broken = ""
        except Exception as err:  # reported with the next request, which the caller shows
            self.broken = str(err) or type(err).__name__

    def answer(self, msg: dict[str, Any]) -> dict[str, Any]:
        if self.broken or self.seating is None:
            raise RuntimeError(self.broken or "the bot process has no game")
        s = State(msg["t"], int(msg["bits"], 16))
        if "slot" in msg:  # simultaneous rules: the decision of the turn's proposer in that place
            flight = Flight.start(len(self.seating.neg.game.proposers(s.t))).focused(int(msg["slot"]))
            s = State(s.t, s.bits, None, flight)
        bot = self.seating.agents[msg["seat"]]
        if bot is None:
            raise RuntimeError(f"seat {msg['seat']} has no bot in the bot process")
        cmd = msg.get("cmd")
        if cmd == "partner":
            return {"partner": bot.choose_partner(s)}
        if cmd == "offer":
            offer = bot.make_offer(s, msg["partner"])
            return {"index": offer.index, "bits": format(offer.bits, "x")}
        offer = Offer(msg["proposer"], msg["partner"], int(msg["offer"], 16), index=msg["index"])
        return {"accept": bot.respond(State(s.t, s.bits, offer, s.flight))}


def main() -> None:
    exit_with_parent()
    child = BotChild()
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("cmd") in ("init", "seats"):
            child.setup(msg)
            continue
        try:
            out = child.answer(msg)
        except Exception as err:  # reported to the caller, which shows it
            out = {"error": str(err) or type(err).__name__}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
