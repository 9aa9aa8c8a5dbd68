"""What every pane draws from: one immutable picture of the game at a turn, built by the play screen's
source (a live session or a replay, tui/sources.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from negtui.engine.game import Game
from negtui.engine.negotiation import State
from negtui.engine.turns import TurnEvent


@dataclass(frozen=True)
class Snapshot:
    game: Game
    rules: str
    state: State
    events: list[TurnEvent]
    seats: list[str]  # label per player: human, upper, upper/lower, …
    forecasts: dict[str, np.ndarray]  # lens -> per-player value now
    payoff_history: list[np.ndarray]
    blocked: int = 0
    offer_cells: frozenset[int] = frozenset()
    partner: int | None = None  # partner of the offer being built or shown
    mode: str = "play"  # play | replay
    target: int = 0  # cells of a welfare optimum marked on the matrix (not yet committed ones show ◇◇)

    @property
    def proposer(self) -> int | None:
        if self.state.t >= self.game.T:
            return None
        return int(self.game.schedule[self.state.t])

    @property
    def last_event(self) -> TurnEvent | None:
        return self.events[-1] if self.events else None

    @property
    def payoffs(self) -> np.ndarray:
        return self.payoff_history[-1]
