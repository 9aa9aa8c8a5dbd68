"""The class debrief of one exercise: how each seat fared over every table (and every game played
alone), each table's total against the welfare optimum, and the costliest decisions across the class.

Read from the results database once the games are filed; the baseline is worked out from the exercise's
scenario, so a seat nobody played still has one."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean

from negtui.classroom.classbook import Filters, choice_text, valued
from negtui.classroom.course import LoadedCourse
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import GameRow
from negtui.engine.baseline import no_negotiation
from negtui.engine.game import compile_game
from negtui.engine.rules import get_rules
from negtui.names import player_labels


@dataclass(frozen=True)
class Outcome:
    payoff: float
    where: str  # "table 3", or "alice alone"
    person: str | None  # the trainee in the seat; None: a bot played it


@dataclass(frozen=True)
class SeatSpread:
    seat: str
    label: str
    baseline: float
    outcomes: tuple[Outcome, ...]

    @property
    def mean(self) -> float | None:
        return fmean(o.payoff for o in self.outcomes) if self.outcomes else None

    @property
    def people(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.person is not None)


@dataclass(frozen=True)
class TableTotal:
    where: str
    total: float
    optimum: float | None  # the welfare optimum (the most the table could have made together)
    people: tuple[str, ...]

    @property
    def efficiency(self) -> float | None:
        return self.total / self.optimum if self.optimum else None


@dataclass(frozen=True)
class Costly:
    trainee: str
    where: str
    seat: str
    turn: int  # counted from 1, as the game's header counts
    choice: str
    better: str  # the best alternative the coaching found
    cost: float


@dataclass(frozen=True)
class ClassDebrief:
    exercise: str
    title: str
    seats: tuple[SeatSpread, ...]
    tables: tuple[TableTotal, ...]
    costliest: tuple[Costly, ...]
    unfinished: int  # games still being played or abandoned: not in the figures

    @property
    def played(self) -> int:
        return len(self.tables)


def class_debrief(db: ResultsDB, course: LoadedCourse, exercise_id: str, top: int = 10) -> ClassDebrief:
    ex = course.exercise(exercise_id)
    sc = course.scenarios[ex.id]
    rules = get_rules(ex.rules)
    baseline = [float(v) for v in no_negotiation(compile_game(sc, rules), rules).payoffs]
    name = course.course.name
    games = db.games(name, ex.id)
    unfinished = len(db.games(name, ex.id, "playing")) + len(db.games(name, ex.id, "abandoned"))
    plays: dict[str, list[GameRow]] = {}  # one entry per table (or game alone): the rows of its people
    for g in games:
        plays.setdefault(_where(g.table_id, g.trainee, g.id), []).append(g)
    ids = sc.player_ids
    spreads: dict[str, list[Outcome]] = {pid: [] for pid in ids}
    totals: list[TableTotal] = []
    for where, rows in plays.items():
        payoffs = rows[0].payoffs or []
        if len(payoffs) != len(ids):
            continue  # a result from another version of the scenario
        by_seat = {g.seat: g.trainee for g in rows}
        for pid, v in zip(ids, payoffs, strict=True):
            spreads[pid].append(Outcome(float(v), where, by_seat.get(pid)))
        totals.append(TableTotal(where, float(sum(payoffs)), rows[0].welfare_optimum,
                                 tuple(f"{g.trainee} ({g.seat})" for g in rows)))
    labels = player_labels(sc)
    seats = tuple(SeatSpread(pid, labels[pid], baseline[i], tuple(spreads[pid])) for i, pid in enumerate(ids))
    return ClassDebrief(ex.id, ex.title, seats, tuple(totals), costliest(db, name, ex.id, top), unfinished)


def _where(table: int | None, trainee: str, game: int) -> str:
    return f"table {table}" if table is not None else f"{trainee} alone (game {game})"


def costliest(db: ResultsDB, course: str, exercise: str, top: int = 10) -> tuple[Costly, ...]:
    rows = sorted(db.classroom.decisions(Filters(course=course, exercise=exercise)), key=lambda r: -r["cost"])
    out = []
    for r in rows[:top]:
        if r["cost"] <= 0:
            break
        out.append(Costly(r["trainee"], _where(r["table"], r["trainee"], r["game"]), r["seat"], int(r["turn"]),
                          r["choice"], _better(r["numbers"]), float(r["cost"])))
    return tuple(out)


def _better(numbers: dict) -> str:
    """The alternative the coaching valued most, in words."""
    reference = numbers.get("reference", "")
    others = numbers.get("others") or []
    if not others:
        return ""
    def worth(c: dict) -> float:
        v = valued(c.get("values") or {}, reference)
        return float("-inf") if v is None else v

    best = max(others, key=worth)
    return f"{choice_text(best)} ({best.get('who')})"

