"""Issues and exits: what a scenario says about the shape of its goals, for the lenses to read.

A negotiation over issues (a scoresheet: negtui.scenario.scoresheets) settles each issue on at most one of
its options.  The game family has goals, not issues: an option is settled by a few all-or-nothing goals
whose satisfactions, times integer coefficients, add up to 1 exactly when it is settled and to 0 otherwise
(a quorum with a veto is no single threshold).  Goal by goal, a lens reads those goals as unrelated: the
optimistic one counts every option of an issue as won, and each goal with a positive coefficient once more.
A scenario that declares its issues lets the lenses read each issue as one goal whose options exclude one
another (negtui.engine.issues); payoffs, the exact solution, the baseline and the welfare optimum read the
goals as always and do not change.

An option's goals say how it is settled: every goal all-or-nothing, each worth its coefficient times what
the option is worth to each player (so the option's value is read off any of them).  What the lenses trust
and this module cannot check in general: the signed sum is 1 or 0 in every state, commitments never unsettle
an option, and no two options of an issue are settled at once.  A scoresheet's compilation guarantees it.

An exit is a player's action after which its payoff no longer changes (a walk-away: the player leaves and
takes its reservation value); its goals are those that keep the payoff fixed (cancelling what the others
settle without it).  The lenses read no gain or harm still to come for a player that has left, and count
what leaving would leave it as a floor while it still can.

`reservation`, per issue and player, is what settling the issue gives up of the player's reservation value:
for people to read the payoffs as points (a value, known under private information to its own player only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated

from pydantic import Field

from negtui.scenario import limits as lim
from negtui.scenario.fields import Id, Line, Strict, Value

MAX_COEFFICIENT = 1_000_000
Coefficient = Annotated[int, Field(ge=-MAX_COEFFICIENT, le=MAX_COEFFICIENT)]


class IssueOption(Strict):
    id: Id = Field(description="Unique within its issue.")
    label: Line = ""
    goals: dict[Id, Coefficient] = Field(
        min_length=1, max_length=lim.MAX_GOALS,
        description="The goals that settle this option, each with its coefficient: the option is settled when "
                    "the coefficients times the goals' satisfactions add up to 1 (they add up to 0 otherwise).")


class Issue(Strict):
    id: Id = Field(description="Unique among the issues.")
    label: Line = ""
    options: list[IssueOption] = Field(min_length=1, max_length=lim.MAX_GOALS,
                                       description="The options, of which at most one is ever settled.")
    reservation: dict[Id, Value] = Field(
        default_factory=dict, description="What settling this issue gives up of each player's reservation value "
                                          "(for reading payoffs as points; a player's own, under private "
                                          "information).")


class Exit(Strict):
    player: Id
    action: Id = Field(description="The player's action that leaves the negotiation: from then on its payoff "
                                   "no longer changes.")
    goals: list[Id] = Field(default_factory=list, max_length=lim.MAX_GOALS,
                            description="The goals that keep its payoff fixed once it has left.")


GoalFacts = tuple[str | None, Mapping[str, float]]  # a goal's kind (None: not known) and its values by player


def issue_problems(issues: Sequence[Issue | None], exits: Sequence[Exit | None], actions: Mapping[str, set[str]],
                   goals: Mapping[str, GoalFacts], unsure: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(JSON path, message) of every problem of the issues and exits against the players' `actions` and the
    `goals` (by id), in file order.  None stands for an issue or exit that did not validate (reported
    already); players in `unsure` (present but invalid) are not judged, nor goals of an unknown kind (None:
    a goal that did not validate)."""
    out: list[tuple[str, str]] = []
    used: dict[str, str] = {}  # goal id -> what it is part of already

    def take(path: str, gid: str, what: str) -> bool:
        if gid not in goals:
            out.append((path, f"unknown goal {gid!r}"))
            return False
        if gid in used:
            out.append((path, f"goal {gid!r} is part of {used[gid]} already: a goal belongs to one option or exit"))
            return False
        used[gid] = what
        return True

    seen: set[str] = set()
    for k, issue in enumerate(issues):
        if issue is None:
            continue
        base = f"$.issues[{k}]"
        if issue.id in seen:
            out.append((f"{base}.id", f"duplicate issue id {issue.id!r}"))
        seen.add(issue.id)
        options: set[str] = set()
        for o, option in enumerate(issue.options):
            where = f"{base}.options[{o}]"
            if option.id in options:
                out.append((f"{where}.id", f"duplicate option id {option.id!r}"))
            options.add(option.id)
            out += _option_problems(option, where, f"option {option.id!r} of issue {issue.id!r}", goals, take)
        for pid in issue.reservation:
            if pid not in actions and pid not in unsure:
                out.append((f"{base}.reservation.{pid}", f"unknown player {pid!r}"))
    players: set[str] = set()
    for k, ex in enumerate(exits):
        base = f"$.exits[{k}]"
        if ex is None or ex.player in unsure:
            continue
        if ex.player not in actions:
            out.append((f"{base}.player", f"unknown player {ex.player!r}"))
        elif ex.action not in actions[ex.player]:
            out.append((f"{base}.action", f"player {ex.player!r} has no action {ex.action!r}"))
        if ex.player in players:
            out.append((f"{base}.player", f"player {ex.player!r} has an exit already"))
        players.add(ex.player)
        for g, gid in enumerate(ex.goals):
            take(f"{base}.goals[{g}]", gid, f"the exit of {ex.player!r}")
    return out


def _option_problems(option: IssueOption, where: str, what: str, goals: Mapping[str, GoalFacts], take,
                     ) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    lead: tuple[str, int] | None = None
    for gid, c in option.goals.items():
        path = f"{where}.goals.{gid}"
        if c == 0:
            out.append((path, "a coefficient of 0 counts nothing: leave the goal out"))
            continue
        if not take(path, gid, what):
            continue
        kind, values = goals[gid]
        if kind is None:  # a goal that did not validate: its problems are reported already
            continue
        if kind != "all_or_nothing":
            out.append((path, f"goal {gid!r} is {kind}: an option is settled by all-or-nothing goals"))
        if lead is None:
            lead = (gid, c)
            continue
        first, c0 = lead
        base = goals[first][1]
        for pid in sorted(set(values) | set(base)):
            # every goal of an option is worth its coefficient times the option's value: v_j * c0 == v_0 * c_j
            if values.get(pid, 0) * c0 != base.get(pid, 0) * c:
                out.append((path, f"goal {gid!r} is worth {values.get(pid, 0):g} to {pid!r} and goal {first!r} "
                                  f"{base.get(pid, 0):g}: with coefficients {c} and {c0}, each goal of an option "
                                  "is worth its coefficient times the option's value"))
                break
    return out


def values_as_read(goals: Sequence[tuple[str, Mapping[str, float]]], issues: Sequence[Issue],
                   exits: Sequence[Exit]) -> list[float]:
    """Every value as the lenses read a scenario's goals (`goals`: each goal's id and values): an option's value
    to each player once (its first goal's over its coefficient), not once per goal that settles it with its
    sign; goals of no option or exit as they are; the goals that keep an exit's payoff fixed not at all."""
    values = dict(goals)
    out: list[float] = []
    covered: set[str] = {gid for ex in exits for gid in ex.goals}
    for issue in issues:
        for option in issue.options:
            covered |= set(option.goals)
            gid, c = next(iter(option.goals.items()))
            out += [v / c for v in values.get(gid, {}).values()]
    return out + [v for gid, vs in goals if gid not in covered for v in vs.values()]
