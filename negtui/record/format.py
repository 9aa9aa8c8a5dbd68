"""The game record format: JSON Lines — one header, one line per turn, one result line (DESIGN §5).

Every line is a JSON object with a `type`; pydantic models reject unknown fields, so a damaged or
foreign file is reported precisely.  Commitments and offers are written as "PLAYER.ACTION" ids, which
stay readable with `jq` and load as plain columns in pandas.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FORMAT = "negtui-record/1"
KNOWN_FORMATS = (FORMAT,)


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatSpec(_Line):
    """Who sat in a seat: a lens bot with its parameters, or a human."""

    agent: Literal["lens", "human"] = "lens"
    propose: str | None = None
    respond: str | None = None
    partner: str = "mcts"
    sims: int = 50
    ucb: float = 10.0
    seed: int = 0


class Parent(_Line):
    file: str
    turn: int
    digest: str


class Header(_Line):
    type: Literal["header"] = "header"
    format: str
    negtui: str
    scenario: dict
    rules: str
    budget: int | None = None
    seats: dict[str, SeatSpec]
    started: str
    start_turn: int = 0
    start_commitments: list[str] = Field(default_factory=list)
    parent: Parent | None = None


class TurnLine(_Line):
    type: Literal["turn"] = "turn"
    t: int
    proposer: str
    partner: str
    offer: list[str]
    accepted: bool
    decided_by: str
    digest: str
    forecasts: dict[str, list[float]] = Field(default_factory=dict)
    seats: dict[str, SeatSpec] | None = None  # seats switched before this turn (as they now are)


class ResultLine(_Line):
    type: Literal["result"] = "result"
    payoffs: list[float]
    commitments: list[str]
    baseline: list[float] | None = None
    welfare: dict | None = None
