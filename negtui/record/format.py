"""The game record format: JSON Lines — one header, one line per turn, one result line (docs/design.md §5).

Every line is a JSON object with a `type`; pydantic models reject unknown fields, so a damaged or
foreign file is reported precisely.  A commitment is the pair [player id, action id], unambiguous
whatever characters the ids hold.

Format 2 writes the whole rule set (name and every switch), seats as `negtui.seats.Seat`, commitments
as pairs, marks turns an outside agent failed to decide (`fault`), and, when the writer holds a key,
an HMAC chain (`mac`, record/signing.py).  Format 1 records (rules by name, lens and human seats only,
commitments as "PLAYER.ACTION") are read as they are and converted on loading.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, model_validator

from negtui.engine.rules import Rules
from negtui.seats import Seat

FORMAT = "negtui-record/2"
Cell = Annotated[list[str], Field(min_length=2, max_length=2)] | str  # [player id, action id]; format 1: "P.A"
FORMAT_1 = "negtui-record/1"
KNOWN_FORMATS = (FORMAT, FORMAT_1)


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Parent(_Line):
    file: str
    turn: int
    digest: str


class Header(_Line):
    type: Literal["header"] = "header"
    format: str
    negtui: str
    scenario: dict
    rules: Rules
    budget: int | None = None
    seats: dict[str, Seat]
    started: str
    start_turn: int = 0
    start_commitments: list[Cell] = Field(default_factory=list)
    parent: Parent | None = None
    information: Literal["private"] | None = None  # each seat knew only its own values (engine.knowledge)
    mac: str | None = None

    @field_serializer("rules")
    def _rules(self, rules: Rules) -> dict[str, object]:
        """Every switch, and the protocol's settings where they are on (Rules.as_dict)."""
        return rules.as_dict()


class OfferLine(_Line):
    """One proposer's offer in a simultaneous turn and what became of it (engine.observation.outcome_json)."""

    proposer: str
    partner: str
    offer: list[Cell]
    answer: bool | None = None  # the partner's; null where none was asked (a pass, a unilateral commitment)
    result: Literal["applied", "void", "rejected", "passed"]
    void: Literal["committed", "exclusive", "budget"] | None = None
    reason: str | None = Field(default=None, max_length=2000)
    decided_by: str
    fault: str | None = None


class TurnLine(_Line):
    type: Literal["turn"] = "turn"
    t: int
    # one offer (a sequential turn, or a simultaneous one with one proposer) ...
    proposer: str | None = None
    partner: str | None = None
    offer: list[Cell] | None = None
    accepted: bool | None = None
    decided_by: str | None = None
    # ... or every proposer's, in the turn's order
    offers: list[OfferLine] | None = Field(default=None, min_length=2)
    digest: str
    forecasts: dict[str, list[float]] = Field(default_factory=dict)
    seats: dict[str, Seat] | None = None  # seats switched before this turn (as they now are)
    fault: str | None = None  # an outside agent failed to decide; its move was played as a pass or rejection
    mac: str | None = None

    @field_serializer("offers")
    def _offers(self, offers: list[OfferLine] | None) -> list[dict] | None:
        """An offer's fields that say nothing are left out, as everywhere it is written (`answer` stays: null
        says no answer was asked)."""
        if offers is None:
            return None
        return [{k: v for k, v in o.model_dump(mode="json").items() if v is not None or k == "answer"} for o in offers]

    @model_validator(mode="after")
    def _one_form(self) -> TurnLine:
        single = (self.proposer, self.partner, self.offer, self.accepted, self.decided_by)
        if self.offers is None and any(x is None for x in single):
            raise ValueError("a turn names its proposer, partner, offer, answer (accepted) and who decided, "
                             "or lists its offers")
        if self.offers is not None and any(x is not None for x in (*single, self.fault)):
            raise ValueError("a turn of several offers lists them in offers, without a single offer's fields")
        return self


class MessageLine(_Line):
    """Something a player (or the trainer) said at a table, before turn `t` was decided: kept with the
    turns, so replays and debriefs show what was said when."""

    type: Literal["message"] = "message"
    t: int
    sender: str  # a player id, or "trainer"
    to: str | None = None  # a player id; None: everyone at the table
    text: str = Field(max_length=2000)
    mac: str | None = None


class ResultLine(_Line):
    type: Literal["result"] = "result"
    payoffs: list[float]
    commitments: list[Cell]
    baseline: list[float] | None = None
    welfare: dict[str, float | None] | None = None  # sum, min, product, log_product of the payoffs
    # the game ended before its last turn, as it stood: "clock", the round's time ran out (a table's game_time);
    # "trainer", the trainer called time
    ended: Literal["clock", "trainer"] | None = None
    mac: str | None = None
