"""The clock of a person's decision at a table: it starts when a decision of a person begins, runs out
after the course's time for it (the table then passes the turn or rejects the offer for them), and
starts again in full after a pause.  Told to the clients as a `clock` line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from negtui.engine.negotiation import Phase, State
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
        """The decision under way gets its whole time again (after a pause, or once its absent person is back);
        meanwhile no countdown is told (a screen joining then would count down a deadline nobody keeps)."""
        self._key = None
        self.deadline = None

    def left(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - self.clock())

    def line(self, game: LiveGame | None, player: int | None = None) -> dict[str, Any]:
        """The clock as clients are told it: of the decision under way, or (a simultaneous turn, where each
        person has a clock of their own) of `player`'s decisions."""
        left = self.left()
        if game is None or game.over or left is None:
            return {"type": "clock", "seconds": None}
        who = game.deciding if player is None else player
        return {"type": "clock", "t": game.state.t, "player": game.neg.game.player_ids[who], "seconds": round(left, 1)}


def expired(game: LiveGame) -> Move:
    """The move a person whose time ran out makes: a pass when proposing, a rejection when answering."""
    s, i = game.state, game.deciding
    if game.driver.phase is Phase.PROPOSE:
        return Move(s.t, i, Phase.PROPOSE, game.neg.pass_offer(s), fault=RAN_OUT)
    return Move(s.t, i, Phase.RESPOND, accept=False, fault=RAN_OUT)


def open_decisions(game: LiveGame, i: int) -> list[State]:
    """Player i's decisions still open in the simultaneous turn under way (its offer, or its answers), each as
    the state focused on it."""
    if game.over:
        return []
    return [w for w in game.neg.waiting(game.state) if game.neg.current_player(w) == i]


def expired_all(game: LiveGame, i: int) -> list[Move]:
    """Under simultaneous rules: the moves of a person whose time ran out, for each decision of theirs still
    open: a pass for their offer, a rejection of each offer they were to answer."""
    out = []
    for w in open_decisions(game, i):
        if w.pending is None:
            out.append(Move(w.t, i, Phase.PROPOSE, game.neg.pass_offer(w), fault=RAN_OUT))
        else:
            out.append(Move(w.t, i, Phase.RESPOND, w.pending, accept=False, fault=RAN_OUT))
    return out


class RoundClock:
    """The clock of a table's whole game (the course's `game_time`): it starts with the game, stops while the
    table is paused, may be set or extended by the trainer, and at zero the game ends as it stands.  Told to the
    clients as a `round` line: the seconds left, and whether they are running down (the clients count down
    between lines themselves, so nothing is sent every second)."""

    def __init__(self, seconds: float | None, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.budget = seconds  # what is left, as of the moment the clock last stopped (None: no limit)
        self.deadline: float | None = None  # while running: when it runs out

    @property
    def running(self) -> bool:
        return self.deadline is not None

    def left(self) -> float | None:
        if self.deadline is not None:
            return max(0.0, self.deadline - self.clock())
        return self.budget

    def run(self) -> None:
        """The game is under way (again): the time left runs down."""
        if self.budget is not None and self.deadline is None:
            self.deadline = self.clock() + self.budget

    def stop(self) -> None:
        """Paused: what is left is kept."""
        if self.deadline is not None:
            self.budget, self.deadline = self.left(), None

    def set(self, seconds: float, extend: bool = False) -> None:
        """The time left made `seconds`, or `seconds` more (a round with no limit gets one)."""
        left = self.left()
        now = seconds + (left or 0.0) if extend else seconds
        if self.deadline is not None:
            self.deadline = self.clock() + now
        self.budget = now

    def due(self) -> bool:
        return self.deadline is not None and self.clock() >= self.deadline

    def line(self) -> dict[str, Any]:
        left = self.left()
        return {"type": "round", "seconds": None if left is None else round(left, 1), "running": self.running}
