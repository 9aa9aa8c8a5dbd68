"""Pydantic models of a negtui scenario file (docs/design.md §5).

A scenario names everything by id (players, actions, goals) so that files stay readable and diffable;
the engine later compiles ids to array indices.  Cross-references are checked here, with the JSON path
of the offending value, so that a broken file is reported before any game starts.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import (
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from negtui.scenario import limits as lim
from negtui.scenario.fields import GoalKind, Id, Line, Text, Value
from negtui.scenario.fields import Strict as _Strict
from negtui.scenario.issues import Exit, Issue, issue_problems

__all__ = ["FORMAT", "Action", "CellRef", "Exit", "Goal", "GoalKind", "Id", "Issue", "Line", "Player", "Protocol",
           "Scenario", "Text", "Value", "limit_problems", "reference_problems"]

FORMAT: Final = "negtui-scenario/1"


class Action(_Strict):
    id: Id = Field(description="Unique within its player.")
    label: Line = Field(default="", description="Human-readable description of the commitment.")


class Player(_Strict):
    id: Id = Field(description="Unique player id, used in goals, schedule and seats.")
    name: Line = Field(default="", description="Display name; defaults to the id.")
    actions: list[Action] = Field(min_length=1, max_length=lim.MAX_ACTIONS,
                                  description="The commitments this player can make.")

    @property
    def display(self) -> str:
        return self.name or self.id


class CellRef(_Strict):
    """One commitment: an action of a player."""

    player: Id
    action: Id


class Goal(_Strict):
    id: Id
    label: Line = ""
    public_label: Line = Field(
        default="", description="What a seat that does not know every value reads instead of the label, under "
                                "private information (default: the label); give one where the label says who "
                                "gains or is harmed.")
    kind: GoalKind = "linear"
    threshold: int | None = Field(
        default=None,
        ge=1,
        le=lim.MAX_PLAYERS * lim.MAX_ACTIONS,
        description="Required commitments for full satisfaction; defaults to all of them.",
    )
    requires: list[CellRef] = Field(min_length=1, max_length=lim.MAX_PLAYERS * lim.MAX_ACTIONS,
                                    description="Commitments that advance this goal.")
    values: dict[str, Value] = Field(
        default_factory=dict, description="Value of the goal to each player id; missing players value it 0."
    )
    ranges: dict[str, tuple[Value, Value]] = Field(
        default_factory=dict,
        description="Under private information, what every other player is told of a player's value: "
                    "[low, high], holding the true value; a player not listed here keeps the value secret.",
    )

    @model_serializer(mode="wrap")
    def _without_empty_additions(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """No ranges or public label, no key: a scenario without them dumps (and digests) as it did before
        they existed."""
        data = handler(self)
        if not self.ranges:
            data.pop("ranges", None)
        if not self.public_label:
            data.pop("public_label", None)
        return data

    @property
    def shown_label(self) -> str:
        """The label a seat reads that knows only its own values."""
        return self.public_label or self.label


class Protocol(_Strict):
    rounds: int = Field(default=5, ge=1, le=lim.MAX_ROUNDS, description="Proposer turns per player.")
    budget: int = Field(default=2, ge=1, le=lim.MAX_BUDGET, description="Most new commitments per player in one offer.")
    seed: int = Field(default=0, ge=-(2**63), le=2**63 - 1,
                      description="Seeds the turn order when no schedule is given.")
    schedule: list[str] | None = Field(
        default=None, max_length=lim.MAX_TURNS, description="Explicit proposer order (player ids), one entry per turn."
    )
    unilateral: bool = Field(default=True, description="Whether a proposer may pick itself as partner.")


class Scenario(_Strict):
    format: Literal["negtui-scenario/1"] = FORMAT
    name: Id
    description: Text = ""
    lesson: Text = Field(default="", description="Teaching note shown with the scenario.")
    players: list[Player] = Field(min_length=1, max_length=lim.MAX_PLAYERS)
    goals: list[Goal] = Field(min_length=1, max_length=lim.MAX_GOALS)
    exclusive: list[list[CellRef]] = Field(
        default_factory=list, max_length=lim.MAX_EXCLUSIVE,
        description="Sets of commitments of which at most one may ever be made."
    )
    protocol: Protocol = Field(default_factory=Protocol)
    issues: list[Issue] = Field(
        default_factory=list, max_length=lim.MAX_GOALS,
        description="The issues the goals settle, each on at most one of its options (issues.py): the lenses "
                    "read an issue as one goal whose options exclude one another.")
    exits: list[Exit] = Field(default_factory=list, max_length=lim.MAX_PLAYERS,
                              description="Actions after which a player's payoff no longer changes (a walk-away).")
    meta: dict[str, object] = Field(
        default_factory=dict, description="Free-form provenance, e.g. generator parameters."
    )

    @model_serializer(mode="wrap")
    def _without_empty_additions(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """No issues or exits, no key: a scenario without them dumps (and digests) as it did before they
        existed."""
        data = handler(self)
        for key in ("issues", "exits"):
            if not data.get(key, True):
                data.pop(key, None)
        return data

    @model_validator(mode="after")
    def _check_references(self) -> Scenario:
        problems = reference_problems(self) or limit_problems(self)
        if problems:
            raise ValueError("\n".join(f"{path}: {message}" for path, message in problems))
        return self

    @property
    def player_ids(self) -> list[str]:
        return [p.id for p in self.players]

    def rounds_played(self, max_rounds: int | None = None) -> int:
        """Rounds of the seeded round robin, capped where a rule set caps them."""
        r = self.protocol.rounds
        return r if max_rounds is None else min(r, max_rounds)

    def turns(self, max_rounds: int | None = None) -> int:
        """Turns in the game: the explicit schedule's length, or rounds × players."""
        if self.protocol.schedule is not None:
            return len(self.protocol.schedule)
        return self.rounds_played(max_rounds) * len(self.players)


def reference_problems(sc: Scenario, unsure: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """Every dangling or duplicate id, as (JSON path, message), in file order.

    A scenario put together from the parts of a file that validated (negtui.scenario.salvage) holds None
    where a part did not, and names in `unsure` the players that are there but did not validate: references
    to them are not judged."""
    out: list[tuple[str, str]] = []
    players: dict[str, set[str]] = {}
    for i, p in enumerate(sc.players):
        if p is None:
            continue
        if p.id in players:
            out.append((f"$.players[{i}].id", f"duplicate player id {p.id!r}"))
        seen: set[str] = set()
        for a, act in enumerate(p.actions):
            if act.id in seen:
                out.append((f"$.players[{i}].actions[{a}].id", f"duplicate action id {act.id!r}"))
            seen.add(act.id)
        players[p.id] = seen

    def cell(path: str, ref: CellRef) -> None:
        if ref.player in unsure:
            return
        if ref.player not in players:
            out.append((f"{path}.player", f"unknown player {ref.player!r}"))
        elif ref.action not in players[ref.player]:
            out.append((f"{path}.action", f"player {ref.player!r} has no action {ref.action!r}"))

    goal_ids: set[str] = set()
    for j, g in enumerate(sc.goals):
        if g is None:
            continue
        base = f"$.goals[{j}]"
        if g.id in goal_ids:
            out.append((f"{base}.id", f"duplicate goal id {g.id!r}"))
        goal_ids.add(g.id)
        keys = set()
        for r, ref in enumerate(g.requires):
            cell(f"{base}.requires[{r}]", ref)
            key = (ref.player, ref.action)
            if key in keys:
                out.append((f"{base}.requires[{r}]", "commitment listed twice"))
            keys.add(key)
        if g.threshold is not None and g.threshold > len(g.requires):
            out.append(
                (f"{base}.threshold", f"threshold {g.threshold} exceeds the {len(g.requires)} required commitments")
            )
        for pid in g.values:
            if pid not in players and pid not in unsure:
                out.append((f"{base}.values.{pid}", f"unknown player {pid!r}"))
        out.extend(_range_problems(g, base, players, unsure))
    for x, group in enumerate(sc.exclusive):
        if group is None:
            continue
        if len(group) < 2:
            out.append((f"$.exclusive[{x}]", "an exclusive set needs at least two commitments"))
        listed = set()
        for r, ref in enumerate(group):
            cell(f"$.exclusive[{x}][{r}]", ref)
            if (ref.player, ref.action) in listed:
                out.append((f"$.exclusive[{x}][{r}]", "listed twice in this set"))
            listed.add((ref.player, ref.action))
    if sc.issues or sc.exits:
        facts = {g.id: (g.kind, g.values) for g in sc.goals if g is not None}
        out.extend(issue_problems(sc.issues, sc.exits, players, facts, unsure))
    if sc.protocol.schedule is not None:
        if not sc.protocol.schedule:
            out.append(("$.protocol.schedule", "schedule is empty"))
        for t, pid in enumerate(sc.protocol.schedule):
            if pid not in players and pid not in unsure:
                out.append((f"$.protocol.schedule[{t}]", f"unknown player {pid!r}"))
    return out


def _range_problems(g: Goal, base: str, players: dict[str, set[str]], unsure: frozenset[str],
                    ) -> list[tuple[str, str]]:
    out = []
    for pid, (low, high) in g.ranges.items():
        path = f"{base}.ranges.{pid}"
        value = g.values.get(pid, 0)
        if pid in unsure:
            continue
        if pid not in players:
            out.append((path, f"unknown player {pid!r}"))
        elif low > high:
            out.append((path, f"the range runs from {low:g} down to {high:g}; write the lower end first"))
        elif not low <= value <= high:
            out.append((path, f"{pid}'s value {value:g} is outside the published range {low:g} to {high:g}"))
    return out


def limit_problems(sc: Scenario) -> list[tuple[str, str]]:
    """The limits that depend on several fields (limits.py): turns, and the size of the offer search."""
    out: list[tuple[str, str]] = []
    n, budget = len(sc.players), sc.protocol.budget
    if sc.protocol.schedule is None and sc.protocol.rounds * n > lim.MAX_TURNS:
        out.append(("$.protocol.rounds", f"{sc.protocol.rounds} rounds of {n} players make "
                                          f"{sc.protocol.rounds * n:,} turns; the limit is {lim.MAX_TURNS:,}"))
    for i, p in enumerate(sc.players):
        k = lim.options(len(p.actions), budget)
        if k > lim.MAX_OPTIONS:
            out.append((f"$.players[{i}].actions", f"{len(p.actions)} actions with a budget of {budget} give {k:,} "
                                                   f"possible sets in one offer; the limit is {lim.MAX_OPTIONS:,}"))
            return out
    work = lim.offer_work([len(p.actions) for p in sc.players], budget, len(sc.goals), bool(sc.exclusive))
    if work > lim.MAX_OFFER_WORK:
        out.append(("$", f"the offer search would evaluate {work:,} offer × goal terms for one pair of players "
                         f"(the limit is {lim.MAX_OFFER_WORK:,}): fewer actions, a smaller budget or fewer goals"))
    return out
