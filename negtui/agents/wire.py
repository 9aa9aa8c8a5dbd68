"""The outside-agent protocol, `negtui-agent/1`: JSON Lines on the agent's standard streams.

negtui writes one request per line to the agent's stdin; the agent answers each request that has an
`id` with one line on its stdout carrying the same `id`.  The agent's stderr is its own (shown on the
command line, kept out of the app's screen).  A commitment is the pair [player id, action id].

    negtui → agent   {"type": "hello", "protocol": "negtui-agent/1", "seat": "P3", ...}
    agent  → negtui  {"type": "ready", "name": "my agent"}
    negtui → agent   {"type": "choose_partner", "id": 1, "turn": 0, "observation": {...}, "legal_partners": [...]}
    agent  → negtui  {"id": 1, "partner": "P1"}
    negtui → agent   {"type": "make_offer", "id": 2, "turn": 0, "partner": "P1", "observation": {...},
                      "legal_offers": [[], [["P3", "a0"]], ...], "legal_offers_count": 37}
    agent  → negtui  {"id": 2, "offer": [["P3", "a0"], ["P1", "b1"]]}
    negtui → agent   {"type": "respond", "id": 3, "turn": 4, "offer": {...}, "observation": {...}}
    agent  → negtui  {"id": 3, "accept": true}
    negtui → agent   {"type": "game_over", "payoffs": {...}, "observation": {...}}

Under simultaneous rules (the hello's rules have "simultaneous": true) several players propose in one turn,
each on the commitments at its start: `respond` may come several times in a turn, once for each offer made
to the agent (each answered on its own; accepted offers that together break a rule are settled by the turn's
order), and after every turn an `observe` line (no answer) carries every offer of the turn and what became
of it (applied, void and why, rejected, passed):

    negtui → agent   {"type": "observe", "turn": 4, "offers": [{"proposer": "P1", "partner": "P3", "offer": [...],
                      "answer": true, "result": "void", "void": "budget", "reason": "..."}, ...], "observation": {...}}

These models define the messages: `protocol_schema()` is the JSON Schema committed as
`negtui/agents/agent-protocol.schema.json`.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

PROTOCOL: Final = "negtui-agent/1"

Cell = tuple[str, str]  # [player id, action id]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OfferJson(_Message):
    proposer: str
    partner: str
    cells: list[Cell]


class Hello(_Message):
    """First line: the game and the seat the agent plays.  Answer with `Ready`."""

    type: Literal["hello"] = "hello"
    protocol: Literal["negtui-agent/1"] = PROTOCOL
    seat: str = Field(description="The player id this agent plays.")
    player: int = Field(description="Its index in the scenario's player list.")
    scenario: dict = Field(description="The scenario (negtui-scenario/1) as this seat knows it: under private "
                                       "information, other players' values are their published estimates.")
    rules: dict = Field(description="The rule set, name and every switch.")
    budget: int = Field(description="Most new commitments per player in one offer.")
    timeout: float = Field(description="Seconds allowed for each answer.")
    information: Literal["public", "private"] = Field(
        default="public", description="Whether the seat knows every player's values or only its own.")


class ChoosePartner(_Message):
    type: Literal["choose_partner"] = "choose_partner"
    id: int
    turn: int
    observation: dict = Field(description="The state as this seat sees it (see negtui.engine.observation).")
    legal_partners: list[str]


class MakeOffer(_Message):
    type: Literal["make_offer"] = "make_offer"
    id: int
    turn: int
    partner: str
    observation: dict
    legal_offers: list[list[Cell]] | None = Field(
        description="Every legal offer to this partner (the first, empty, passes); null when there are more "
                    "than negtui lists, see legal_offers_count.")
    legal_offers_count: int


class Respond(_Message):
    type: Literal["respond"] = "respond"
    id: int
    turn: int
    offer: OfferJson
    observation: dict


class OfferOutcome(_Message):
    """One offer of a simultaneous turn and what became of it."""

    proposer: str
    partner: str
    offer: list[Cell]
    answer: bool | None = Field(description="The partner's answer; null where none was asked (a pass, a "
                                            "commitment made alone).")
    result: Literal["applied", "void", "rejected", "passed"]
    void: Literal["committed", "exclusive", "budget"] | None = Field(
        default=None, description="Why an accepted offer was not applied: it names a commitment an earlier "
                                  "offer of the turn made, closes an exclusive set one made, or takes a player "
                                  "past its budget for the turn.")
    reason: str | None = None
    decided_by: str | None = None
    fault: str | None = None


class Observe(_Message):
    """Simultaneous rules only: after every turn, every offer of it; no answer."""

    type: Literal["observe"] = "observe"
    turn: int
    offers: list[OfferOutcome] = Field(description="Every proposer's offer, in the order the turn applied them.")
    observation: dict = Field(description="The state after the turn, as this seat sees it.")


class GameOver(_Message):
    """The last line; no answer.  negtui then closes the agent's stdin."""

    type: Literal["game_over"] = "game_over"
    payoffs: dict[str, float]
    observation: dict


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")  # agents may add fields of their own


class Ready(_Answer):
    type: Literal["ready"] = "ready"
    name: str = ""


class PartnerAnswer(_Answer):
    id: int
    partner: str
    note: str = ""


class OfferAnswer(_Answer):
    id: int
    offer: list[Cell] = Field(description="The commitments offered; [] passes the turn.")
    note: str = ""


class RespondAnswer(_Answer):
    id: int
    accept: bool
    note: str = ""


Request = Hello | ChoosePartner | MakeOffer | Respond | Observe | GameOver
Answer = Ready | PartnerAnswer | OfferAnswer | RespondAnswer


def protocol_schema() -> dict:
    """JSON Schema of every line: `Request` (negtui writes) and `Answer` (an agent writes)."""
    defs: dict = {}
    kinds: tuple[tuple[str, Any], ...] = (("Request", Request), ("Answer", Answer))
    for name, kind in kinds:
        part = TypeAdapter(kind).json_schema(ref_template="#/$defs/{model}")
        defs.update(part.pop("$defs", {}))
        defs[name] = part
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": PROTOCOL,
        "description": "One JSON object per line: negtui writes Requests to the agent's stdin; the agent "
                       "answers hello with Ready and every request that has an id with the Answer of that id.",
        "anyOf": [{"$ref": "#/$defs/Request"}, {"$ref": "#/$defs/Answer"}],
        "$defs": defs,
    }
