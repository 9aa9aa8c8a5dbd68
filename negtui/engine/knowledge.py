"""What one seat knows of a game's values: the one place that decides it.

Under public information (the paper's game) every player knows every value.  Under private
information a seat knows its own values, and of another player's value only the range its goal
publishes (`Goal.ranges`), or nothing; it reads each goal's public label (`Goal.public_label`, where the
label says who gains or is harmed), no teaching note, nothing of who a poison pill traps or whether the
generator laid one, and no action's label that names a player beside a gain, a harm or a trap.  Everything
else is public: who owns which action, what each goal requires, every commitment.

A seat's picture of the game is the scenario with every value it does not know replaced by its
estimate (the middle of the published range, or 0: neither for nor against).  A game compiled from
that picture has the same players, cells and turn order as the real one, so states and offers pass
between the two unchanged, and every number computed on it (forecasts, offer previews, the coach, a
bot's choices) is computed from what the seat knows and nothing more.

A case written as a scoresheet is read by people in its own terms (issues, options, points, a reservation
value), which its scenario holds only inside goal values: `seat_sheet` is the same rule for the sheet, a
party's own points and reservation value and nothing of another party's (a sheet publishes no ranges).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from negtui.engine.negotiation import Negotiation
from negtui.scenario.leaks import action_tells, tells
from negtui.scenario.model import Goal, Scenario

if TYPE_CHECKING:
    from negtui.scenario.scoresheets.model import Scoresheet
    from negtui.scenario.scoresheets.table import Points

INFORMATION: Final = ("public", "private")


def check_information(name: str) -> str:
    if name not in INFORMATION:
        raise ValueError(f"unknown information {name!r}; choose from {', '.join(INFORMATION)}")
    return name


def estimate(goal: Goal, pid: str) -> float:
    """What the other players take `pid`'s value of `goal` to be."""
    if pid in goal.ranges:
        low, high = goal.ranges[pid]
        return (low + high) / 2
    return 0.0


def seat_scenario(sc: Scenario, seat: str, estimates: Mapping[tuple[str, str], float] | None = None,
                  schedule: list[str] | None = None) -> Scenario:
    """The scenario as `seat` knows it under private information.  `estimates` by (goal id, player id)
    replace the published middles (a bot's prior mean, agents.beliefs); `schedule` is the game's turn
    order, written out when the scenario is a generated one (`unseeded`)."""
    goals = []
    for goal in sc.goals:
        values = {pid: estimate(goal, pid) if estimates is None else estimates.get((goal.id, pid), 0.0)
                  for pid in sc.player_ids if pid != seat}
        values = {pid: v for pid, v in values.items() if v != 0}
        if seat in goal.values:
            values[seat] = goal.values[seat]
        goals.append(goal.model_copy(update={"values": values, "label": goal.shown_label, "public_label": ""}))
    # what tells values in words goes too: the teaching note (for after the game), who a poison pill traps (and
    # that there is one: the generator's parameters say so, and its bait and poison are goals 0 and 1), an
    # action labelled for what it does to a player ("P0 action 1 (added for the poison pill)"), a description
    # that says who gains or is harmed
    meta = {k: v for k, v in sc.meta.items() if k != "poison_pill"}
    if isinstance(generator := meta.get("generator"), dict):
        meta["generator"] = {k: v for k, v in generator.items() if k != "poison_pill"}
    description = "" if tells(sc, sc.description) else sc.description
    players = [p.model_copy(update={"actions": [a.model_copy(update={"label": f"{p.id} action {k}"})
                                                if action_tells(sc, p.id, a.label) else a
                                                for k, a in enumerate(p.actions)]})
               for p in sc.players]
    # an issue's share of each reservation value is a value too: the seat's own only
    issues = [issue.model_copy(update={"reservation": {p: v for p, v in issue.reservation.items() if p == seat}})
              for issue in sc.issues]
    return unseeded(sc.model_copy(update={"goals": goals, "lesson": "", "meta": meta, "description": description,
                                          "issues": issues, "players": players}), schedule)


def unseeded(sc: Scenario, schedule: list[str] | None = None) -> Scenario:
    """A generated scenario without its seed: the seed and the generator's parameters give back every
    value, so a seat that knows only its own must not be told it (name, description, meta, protocol).
    The turn order the seed drew is written out instead (`schedule`, else drawn here as the engine
    does uncapped); any other scenario as it is."""
    generator = sc.meta.get("generator")
    if not isinstance(generator, dict) or "seed" not in generator:
        return sc
    seed = sc.protocol.seed
    order = schedule if schedule is not None else sc.protocol.schedule
    if order is None:
        from negtui.engine.game import round_robin

        order = [sc.player_ids[k] for k in round_robin(len(sc.players), sc.rounds_played(None), seed)]
    meta = {**sc.meta, "generator": {k: v for k, v in generator.items() if k != "seed"}}
    described = re.sub(r", poison pill laid by \S+ for \S+", ", a poison pill", sc.description)  # not whom it traps
    return sc.model_copy(update={
        "name": re.sub(rf"-seed{seed}$", "", sc.name) or sc.name,
        "description": re.sub(rf",? seed {seed}\.$", ".", described),
        "meta": meta, "protocol": sc.protocol.model_copy(update={"seed": 0, "schedule": list(order)})})


def seat_negotiation(neg: Negotiation, player: int, information: str) -> Negotiation:
    """The game as `player` knows it: `neg` itself under public information; else its picture, compiled
    once per player and kept with `neg`."""
    if information == "public":
        return neg
    hit = neg.pictures.get(player)
    if hit is None:
        hit = neg.pictures[player] = picture(neg, player)
    return hit


def picture(neg: Negotiation, player: int, estimates: Mapping[tuple[str, str], float] | None = None) -> Negotiation:
    """`player`'s picture of `neg` compiled, with the published middles or with `estimates`."""
    g = neg.game
    sc = seat_scenario(g.scenario, g.player_ids[player], estimates, [g.player_ids[int(k)] for k in g.schedule])
    return Negotiation.from_scenario(sc, neg.rules, budget=g.budget)


def knows(information: str, seat: int | None, player: int) -> bool:
    """Whether `seat` (None: an onlooker after the game, or the whole table's owner) knows `player`'s values."""
    return information == "public" or seat is None or seat == player


@dataclass(frozen=True)
class SeatOption:
    id: str
    label: str
    points: int | float  # to the seat alone


@dataclass(frozen=True)
class SeatIssue:
    id: str
    label: str
    options: tuple[SeatOption, ...]

    @property
    def best(self) -> int | float:
        return max(o.points for o in self.options)


@dataclass(frozen=True)
class SeatSheet:
    """A scoresheet as one party knows it: what every party reads (the parties, the issues and their options,
    the agreement rule) and this party's points and reservation value."""

    title: str
    party: str
    parties: tuple[tuple[str, str], ...]  # (id, name) of every party, in the sheet's order
    reservation: int | float
    issues: tuple[SeatIssue, ...]
    quorum: int
    vetoes: tuple[str, ...]

    @property
    def best_package(self) -> int | float:
        """The most points the party can have: its best option settled on every issue."""
        return sum(issue.best for issue in self.issues)


def seat_sheet(sheet: Scoresheet, points: Points, seat: str) -> SeatSheet:
    """The scoresheet as party `seat` knows it under private information."""
    issues = tuple(SeatIssue(i.id, i.label, tuple(SeatOption(o.id, o.label, points[(i.id, o.id)][seat])
                                                  for o in i.options)) for i in sheet.issues)
    reservation = next(p.reservation for p in sheet.parties if p.id == seat)
    return SeatSheet(sheet.title, seat, tuple((p.id, p.name or p.id) for p in sheet.parties), reservation, issues,
                     sheet.quorum, tuple(sheet.agreement.vetoes))
