"""The cross-reference problems of a scenario file whose fields did not all validate.

Pydantic checks a model's fields before its cross-reference validator, and skips the validator when a
field fails: a file with a bad number and a dangling id would report the number, and the id only once
the number was fixed.  Here each part is validated alone (a player, a goal's id and required
commitments, an exclusive set, the schedule), and the parts that pass are checked against each other,
so one run reports every problem.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from negtui.scenario.model import CellRef, Goal, Id, Player, Protocol, Scenario, reference_problems

_REFS: TypeAdapter[list[CellRef]] = TypeAdapter(list[CellRef])
_ID: TypeAdapter[str] = TypeAdapter(Id)
_SCHEDULE: TypeAdapter[list[str]] = TypeAdapter(list[Id])
_PLAYER: TypeAdapter[Player] = TypeAdapter(Player)
_GOAL: TypeAdapter[Goal] = TypeAdapter(Goal)
_PROTOCOL: TypeAdapter[Protocol] = TypeAdapter(Protocol)


def salvaged_problems(data: object) -> list[tuple[str, str]]:
    """(JSON path, message) of every dangling or duplicate id among the parts of `data` that validate
    alone; references to a player whose own entry is broken are not judged (it is reported already)."""
    if not isinstance(data, dict):
        return []
    raw_players = _list(data.get("players"))
    players = [_valid(_PLAYER, x) for x in raw_players]
    unsure = frozenset(x["id"] for x, p in zip(raw_players, players, strict=True)
                       if p is None and isinstance(x, dict) and isinstance(x.get("id"), str))
    goals: list[Any] = [_goal(x) for x in _list(data.get("goals"))]
    exclusive = [_valid(_REFS, x) for x in _list(data.get("exclusive"))]
    protocol = _valid(_PROTOCOL, data.get("protocol", {}))
    if protocol is None:  # its own problems are reported; its schedule may still name unknown players
        raw = data.get("protocol")
        schedule = _valid(_SCHEDULE, raw.get("schedule")) if isinstance(raw, dict) else None
        protocol = Protocol.model_construct(schedule=schedule)
    parts = Scenario.model_construct(name="", players=players, goals=goals, exclusive=exclusive, protocol=protocol)
    return reference_problems(parts, unsure)


def _list(raw: object) -> list[Any]:
    return raw if isinstance(raw, list) else []


def _valid(adapter: TypeAdapter[Any], raw: object) -> Any:
    """The part validated, or None where it does not validate (its problems are reported already)."""
    try:
        return adapter.validate_python(raw)
    except ValidationError:
        return None


def _goal(raw: object) -> Goal | None:
    """A goal, or where it does not validate, the parts that reference others: its id, the commitments
    it requires, and the players it values."""
    whole = _valid(_GOAL, raw)
    if whole is not None or not isinstance(raw, dict):
        return whole
    gid = _valid(_ID, raw.get("id"))
    if gid is None:
        return None
    values = raw.get("values")
    return Goal.model_construct(id=gid, requires=_valid(_REFS, raw.get("requires")) or [], threshold=None,
                                values=dict.fromkeys(values, 0) if isinstance(values, dict) else {}, ranges={})
