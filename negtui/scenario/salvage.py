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

from negtui.scenario.model import CellRef, Exit, Goal, Id, Issue, Player, Protocol, Scenario, reference_problems

_REFS: TypeAdapter[list[CellRef]] = TypeAdapter(list[CellRef])
_ID: TypeAdapter[str] = TypeAdapter(Id)
_SCHEDULE: TypeAdapter[list[str]] = TypeAdapter(list[Id])
_PLAYER: TypeAdapter[Player] = TypeAdapter(Player)
_GOAL: TypeAdapter[Goal] = TypeAdapter(Goal)
_PROTOCOL: TypeAdapter[Protocol] = TypeAdapter(Protocol)
_STRINGS: TypeAdapter[list[str]] = TypeAdapter(list[str])
_ISSUE: TypeAdapter[Issue] = TypeAdapter(Issue)
_EXIT: TypeAdapter[Exit] = TypeAdapter(Exit)


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
    # the issues and exits that validate alone (None where one does not: it is reported already)
    issues = [_valid(_ISSUE, x) for x in _list(data.get("issues"))]
    exits = [_valid(_EXIT, x) for x in _list(data.get("exits"))]
    parts = Scenario.model_construct(name="", players=players, goals=goals, exclusive=exclusive, protocol=protocol,
                                     issues=issues, exits=exits)
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
    kind = raw.get("kind", "linear")
    known: dict[str, Any] = {"kind": kind if kind in ("linear", "all_or_nothing") else None}  # None: not known
    # (scenario/issues.py judges nothing of a goal of no known kind)
    return Goal.model_construct(id=gid, requires=_valid(_REFS, raw.get("requires")) or [], threshold=None,
                                values=dict.fromkeys(values, 0) if isinstance(values, dict) else {}, ranges={},
                                **known)


def salvaged_topfile_problems(data: object) -> list[tuple[str, str]]:
    """The same for an HNC topfile: each country's actions, each country's values, each satisfaction
    entry and its requirements, each exclusive set validated alone (None where it fails), then every
    reference among them checked; without valid `countries` and `goals` nothing can be judged."""
    from negtui.scenario.hnc import HncCountryData, HncGoalSatisfaction, HncRef, HncTopfile, topfile_problems

    if not isinstance(data, dict):
        return []
    countries, goals = _valid(_STRINGS, data.get("countries")), _valid(_STRINGS, data.get("goals"))
    if countries is None or goals is None:
        return []
    ref: TypeAdapter[HncRef] = TypeAdapter(HncRef)

    def satisfaction(raw: object) -> HncGoalSatisfaction:
        whole = _valid(TypeAdapter(HncGoalSatisfaction), raw)
        if whole is not None:
            return whole
        part: dict[str, Any] = {"goal": None, "threshold": "all", "kind": None, "requirements": []}  # None: unjudged
        if isinstance(raw, dict):
            threshold = raw.get("threshold", "all")
            part.update(goal=raw.get("goal") if isinstance(raw.get("goal"), str) else None,
                        threshold=threshold if isinstance(threshold, int) or threshold in ("all", "linear") else "all",
                        requirements=[_valid(ref, r) for r in _list(raw.get("requirements"))])
        return HncGoalSatisfaction.model_construct(**part)

    fields: dict[str, Any] = {
        "countries": countries, "goals": goals,
        "country_actions": {str(k): _valid(_STRINGS, v) for k, v in _dict(data.get("country_actions")).items()},
        "country_data": {str(k): _valid(TypeAdapter(HncCountryData), v)
                         for k, v in _dict(data.get("country_data")).items()},
        "goal_satisfaction": [satisfaction(x) for x in _list(data.get("goal_satisfaction"))],
        "mutually_exclusive_agreements": [[_valid(ref, r) for r in g] if isinstance(g, list) else None
                                          for g in _list(data.get("mutually_exclusive_agreements"))],
        "protocol": _valid(_PROTOCOL, data["protocol"]) if data.get("protocol") is not None else None}
    parts = HncTopfile.model_construct(**fields)
    return topfile_problems(parts)


def _dict(raw: object) -> dict[Any, Any]:
    return raw if isinstance(raw, dict) else {}
