"""The clock of a person's decision at a table: it starts when a decision of a person begins, runs out
after the course's time for it (the table then passes the turn or rejects the offer for them), and
starts again in full after a pause.  Told to the clients as a `clock` line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from negtui.engine.negotiation import Phase
from negtui.engine.turns import Move
from negtui.play.live import LiveGame

RAN_OUT = "time ran out"


class DecisionClock:
    def __init__(self, limit: float | None, clock: Callable[[], float]) -> None:
        self.limit, self.clock = limit, clock
        self._key: tuple[int, str] | None = None  # the decision timed: its turn and phase
        self.deadline: float | None = None

    @staticmethod
    def decision(game: LiveGame) -> tuple[int, str]:
        return game.state.t, game.driver.phase.value

    def start(self, game: LiveGame) -> bool:
        """Time the decision under way; True when it is a new one (the clients are to be told)."""
        key = self.decision(game)
        if key == self._key:
            return False
        self._key = key
        self.deadline = None if self.limit is None else self.clock() + self.limit
        return True

    def restart(self) -> None:
        """The decision under way gets its whole time again (after a pause)."""
        self._key = None

    def left(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - self.clock())

    def line(self, game: LiveGame | None) -> dict[str, Any]:
        left = self.left()
        if game is None or game.over or left is None:
            return {"type": "clock", "seconds": None}
        return {"type": "clock", "t": game.state.t, "player": game.neg.game.player_ids[game.deciding],
                "seconds": round(left, 1)}


def expired(game: LiveGame) -> Move:
    """The move a person whose time ran out makes: a pass when proposing, a rejection when answering."""
    s, i = game.state, game.deciding
    if game.driver.phase is Phase.PROPOSE:
        return Move(s.t, i, Phase.PROPOSE, game.neg.pass_offer(s), fault=RAN_OUT)
    return Move(s.t, i, Phase.RESPOND, accept=False, fault=RAN_OUT)
