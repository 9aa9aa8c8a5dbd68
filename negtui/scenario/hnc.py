"""The HNC ("real-life") topfile schema and its mapping to scenarios (docs/reference.md §11).

A topfile names countries, their actions (free text), every country's value of each canonical goal,
the goals' thresholded satisfaction, and mutually exclusive agreements:

    {"countries": [...], "country_actions": {country: [action text, ...]},
     "country_data": {country: {"goals_value": {goal: number}}}, "goals": [goal, ...],
     "goal_satisfaction": [{"goal": g, "threshold": "all" | "linear" | k, "kind": ..., "requirements":
                            [{"country": c, "action": text-or-index}, ...]}],
     "mutually_exclusive_agreements": [[{"country": c, "action": a}, ...], ...]}

plus optional negtui fields `name`, `description`, `lesson`, `protocol`.  Thresholds: "all" is an
all-or-nothing goal over every requirement, "linear" a linear goal over every requirement, and an
integer k a goal fully satisfied by any k requirements (linear progress up to k, or a step at k with
"kind": "all_or_nothing").  Import keeps names exactly (as player names, action and goal labels) so
that export reproduces the topfile.
"""

from __future__ import annotations

import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from negtui.scenario import limits as lim
from negtui.scenario.model import Action, CellRef, Goal, GoalKind, Player, Protocol, Scenario


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HncRef(_Strict):
    country: str
    action: str | int = Field(description="The action's text, or its position in the country's list.")


class HncGoalSatisfaction(_Strict):
    goal: str
    threshold: Literal["all", "linear"] | int = "all"
    kind: Literal["linear", "all_or_nothing"] | None = Field(
        default=None, description="For an integer threshold: linear progress up to it (default) or a step at it.")
    requirements: list[HncRef] = Field(min_length=1)


class HncCountryData(_Strict):
    goals_value: dict[str, float]


class HncTopfile(_Strict):
    name: str | None = None
    description: str = ""
    lesson: str = ""
    countries: list[str] = Field(min_length=1)
    country_actions: dict[str, list[str]]
    country_data: dict[str, HncCountryData]
    goals: list[str] = Field(min_length=1)
    goal_satisfaction: list[HncGoalSatisfaction]
    mutually_exclusive_agreements: list[list[HncRef]] = Field(default_factory=list)
    protocol: Protocol | None = None

    @model_validator(mode="after")
    def _check(self) -> HncTopfile:
        problems = topfile_problems(self)
        if problems:
            raise ValueError("\n".join(f"{p}: {m}" for p, m in problems))
        return self


def _key(name: str) -> str:
    """A JSON path step for a dictionary key: .key, or ["key"] when it is not a plain word."""
    return f".{name}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else f"[{json.dumps(name)}]"


def topfile_problems(tf: HncTopfile) -> list[tuple[str, str]]:
    """Every reference to a country, action or goal that does not exist, with its JSON path.  A salvaged
    topfile (negtui.scenario.salvage) holds None where a part did not validate: it is skipped."""
    return [*_country_problems(tf), *_goal_value_problems(tf), *_satisfaction_problems(tf),
            *_schedule_problems(tf), *_exclusive_problems(tf)]


def _country_problems(tf: HncTopfile) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    countries = set(tf.countries)
    if len(countries) != len(tf.countries):
        out.append(("$.countries", "a country is listed twice"))
    for c in tf.countries:
        if c not in tf.country_actions:
            out.append(("$.country_actions", f"no actions for country {c!r}"))
        elif tf.country_actions[c] is None:  # salvaged: its own problem is reported
            continue
        elif not tf.country_actions[c]:
            out.append((f"$.country_actions{_key(c)}", "a country needs at least one action"))
        elif len(set(tf.country_actions[c])) != len(tf.country_actions[c]):
            out.append((f"$.country_actions{_key(c)}", "an action is listed twice"))
    for c in tf.country_actions:
        if c not in countries:
            out.append((f"$.country_actions{_key(c)}", f"unknown country {c!r}"))
    return out


def _goal_value_problems(tf: HncTopfile) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    countries, goals = set(tf.countries), set(tf.goals)
    if len(goals) != len(tf.goals):
        out.append(("$.goals", "a goal is listed twice"))
    for c, data in tf.country_data.items():
        if c not in countries:
            out.append((f"$.country_data{_key(c)}", f"unknown country {c!r}"))
        for g in data.goals_value if data is not None else ():
            if g not in goals:
                out.append((f"$.country_data{_key(c)}.goals_value{_key(g)}", f"unknown goal {g!r}"))
    return out


def _ref_problems(tf: HncTopfile, countries: set[str], path: str, r: HncRef) -> list[tuple[str, str]]:
    if r.country not in countries:
        return [(f"{path}.country", f"unknown country {r.country!r}")]
    acts = tf.country_actions.get(r.country, [])
    if acts is None:  # salvaged: the country's actions are broken, reported on their own
        return []
    if isinstance(r.action, int):
        if not 0 <= r.action < len(acts):
            return [(f"{path}.action", f"{r.country} has no action number {r.action}")]
    elif r.action not in acts:
        return [(f"{path}.action", f"{r.country} has no action {r.action!r}")]
    return []


def _satisfaction_problems(tf: HncTopfile) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    countries, goals = set(tf.countries), set(tf.goals)
    seen: set[str] = set()
    for k, gs in enumerate(tf.goal_satisfaction):
        base = f"$.goal_satisfaction[{k}]"
        if gs.goal is None:  # salvaged: an entry whose goal is broken names no goal we can judge
            continue
        if gs.goal not in goals:
            out.append((f"{base}.goal", f"unknown goal {gs.goal!r}"))
        if gs.goal in seen:
            out.append((f"{base}.goal", f"goal {gs.goal!r} has two satisfaction entries"))
        seen.add(gs.goal)
        for r, req in enumerate(gs.requirements):
            if req is not None:
                out += _ref_problems(tf, countries, f"{base}.requirements[{r}]", req)
        if isinstance(gs.threshold, int) and not 1 <= gs.threshold <= len(gs.requirements):
            out.append((f"{base}.threshold", f"threshold {gs.threshold} is outside 1..{len(gs.requirements)}"))
        if gs.kind is not None and not isinstance(gs.threshold, int):
            out.append((f"{base}.kind", "kind only goes with an integer threshold"))
    for g in tf.goals:
        if g not in seen:
            out.append(("$.goal_satisfaction", f"goal {g!r} has no satisfaction entry"))
    return out


def _schedule_problems(tf: HncTopfile) -> list[tuple[str, str]]:
    if tf.protocol is None or tf.protocol.schedule is None:
        return []
    countries = set(tf.countries)
    return [(f"$.protocol.schedule[{t}]", f"unknown country {c!r}")
            for t, c in enumerate(tf.protocol.schedule) if c not in countries]


def _exclusive_problems(tf: HncTopfile) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    countries = set(tf.countries)
    for x, group in enumerate(tf.mutually_exclusive_agreements):
        if group is None:  # salvaged: reported on its own
            continue
        if len(group) < 2:
            out.append((f"$.mutually_exclusive_agreements[{x}]", "needs at least two actions"))
        listed = set()
        for r, req in enumerate(group):
            if req is None:
                continue
            path = f"$.mutually_exclusive_agreements[{x}][{r}]"
            wrong = _ref_problems(tf, countries, path, req)
            out += wrong
            acts = tf.country_actions.get(req.country, [])
            key = (req.country, acts[req.action] if isinstance(req.action, int) and not wrong else req.action)
            if key in listed:
                out.append((path, "listed twice in this set"))
            listed.add(key)
    return out


def slug(text: str, taken: set[str]) -> str:
    """An id from a name, unique within `taken`: the whole name with `_` for what is not a letter or digit
    (people type it in `--seat` and course files, so it is never cut short of the id limit)."""
    base = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[: lim.MAX_ID - 8] or "x"
    out, k = base, 2
    while out in taken:
        out, k = f"{base}_{k}", k + 1
    taken.add(out)
    return out


def to_scenario(tf: HncTopfile) -> Scenario:
    pid: dict[str, str] = {}
    taken: set[str] = set()
    for c in tf.countries:
        pid[c] = slug(c, taken)
    players = [Player(id=pid[c], name=c, actions=[Action(id=f"a{k}", label=text)
                                                  for k, text in enumerate(tf.country_actions[c])])
               for c in tf.countries]

    def cell(r: HncRef) -> CellRef:
        acts = tf.country_actions[r.country]
        k = r.action if isinstance(r.action, int) else acts.index(r.action)
        return CellRef(player=pid[r.country], action=f"a{k}")

    by_goal = {gs.goal: gs for gs in tf.goal_satisfaction}
    gtaken: set[str] = set()
    goals = []
    for g in tf.goals:
        gs = by_goal[g]
        kind: GoalKind
        tau: int | None
        if gs.threshold == "all":
            kind, tau = "all_or_nothing", None
        elif gs.threshold == "linear":
            kind, tau = "linear", None
        else:
            kind, tau = gs.kind or "linear", gs.threshold
        values = {pid[c]: v for c in tf.countries for gg, v in tf.country_data.get(c, HncCountryData(goals_value={}))
                  .goals_value.items() if gg == g}
        goals.append(Goal(id=slug(g, gtaken), label=g, kind=kind, threshold=tau,
                          requires=[cell(r) for r in gs.requirements], values=values))
    protocol = tf.protocol or Protocol(rounds=9, budget=2)
    if protocol.schedule is not None:  # topfiles name countries in the schedule; scenarios use player ids
        protocol = protocol.model_copy(update={"schedule": [pid[c] for c in protocol.schedule]})
    return Scenario(
        name=tf.name or "HNC topfile", description=tf.description, lesson=tf.lesson, players=players, goals=goals,
        exclusive=[[cell(r) for r in group] for group in tf.mutually_exclusive_agreements],
        protocol=protocol, meta={"source": "hnc"},
    )


def from_scenario(sc: Scenario) -> HncTopfile:
    """The topfile of a scenario: player names as countries, action labels (or ids) as actions."""
    country = {p.id: p.display for p in sc.players}
    action_text = {(p.id, a.id): (a.label or a.id) for p in sc.players for a in p.actions}

    def ref(r: CellRef) -> HncRef:
        return HncRef(country=country[r.player], action=action_text[(r.player, r.action)])

    sat = []
    for g in sc.goals:
        threshold: Literal["all", "linear"] | int
        kind: GoalKind | None
        if g.threshold is None:
            threshold, kind = ("all" if g.kind == "all_or_nothing" else "linear"), None
        else:
            threshold, kind = g.threshold, (g.kind if g.kind == "all_or_nothing" else None)
        sat.append(HncGoalSatisfaction(goal=g.label or g.id, threshold=threshold, kind=kind,
                                       requirements=[ref(r) for r in g.requires]))
    data = {country[p.id]: HncCountryData(goals_value={(g.label or g.id): g.values[p.id] for g in sc.goals
                                                       if p.id in g.values}) for p in sc.players}
    protocol = sc.protocol
    if protocol.schedule is not None:
        protocol = protocol.model_copy(update={"schedule": [country[p] for p in protocol.schedule]})
    return HncTopfile(
        name=sc.name, description=sc.description, lesson=sc.lesson, countries=[country[p.id] for p in sc.players],
        country_actions={country[p.id]: [action_text[(p.id, a.id)] for a in p.actions] for p in sc.players},
        country_data=data, goals=[g.label or g.id for g in sc.goals], goal_satisfaction=sat,
        mutually_exclusive_agreements=[[ref(r) for r in grp] for grp in sc.exclusive], protocol=protocol,
    )


def is_topfile(data: object) -> bool:
    return isinstance(data, dict) and "countries" in data and "players" not in data
