"""The class debrief of one exercise: how each seat fared over every table (and every game played
alone), each table's total against the welfare optimum, and the costliest decisions across the class.

Read from the results database once the games are filed; the baseline is worked out from the exercise's
scenario, so a seat nobody played still has one.  The seat's payoff at the welfare optimum is the one the
results filed (a seat only bots played has none).  At most `tables` plays are shown, the newest; the
trainer's console and the class export (export.py) read the same debrief, so they show the same numbers.

Names and words are cut here, once, for both (at `NAME` and `WORDS` characters, with '…'): a scenario may
name a player in 100,000 characters, and a name drawn whole makes a figure a million pixels wide.  Ids stay
whole: the scenario's limits keep them short, and they are what the CSVs are read by."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from statistics import fmean, stdev

from negtui.classroom.agreements import Agreement, agreement
from negtui.classroom.classbook import Filters, choice_text, valued
from negtui.classroom.course import LoadedCourse
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import GameRow, table_called
from negtui.coach.sheet import Sheet
from negtui.engine.baseline import no_negotiation
from negtui.engine.game import compile_game
from negtui.engine.rules import get_rules
from negtui.names import cut, fit_unique, player_labels
from negtui.table.endings import how_ended


@dataclass(frozen=True)
class Outcome:
    payoff: float
    where: str  # "table 3", or "alice alone"
    person: str | None  # the trainee in the seat; None: a bot played it


TABLES_SHOWN = 40  # plays (tables, games alone) of an exercise in the debrief: the newest
NAME = 64  # characters of a seat's label or a trainee's name (every name `trainees add` accepts is whole)
WORDS = 200  # characters of a decision, or its best alternative, in words


def _sd(values: list[float]) -> float | None:
    """The sample standard deviation (None under two values: no spread to state)."""
    return stdev(values) if len(values) > 1 else None


def mean_sd(mean: float | None, sd: float | None, fmt: str = "z.2f") -> str:
    """'8.00 ± 2.83 s.d.' (a single value has no spread to state: '8.00')."""
    if mean is None:
        return "none"
    return format(mean, fmt) + ("" if sd is None else f" ± {format(sd, fmt)} s.d.")


@dataclass(frozen=True)
class SeatSpread:
    seat: str
    label: str
    baseline: float
    outcomes: tuple[Outcome, ...]
    optimum: float | None = None  # the seat's payoff at the welfare optimum, as the results filed it

    @property
    def n(self) -> int:
        return len(self.outcomes)

    @property
    def mean(self) -> float | None:
        return fmean(o.payoff for o in self.outcomes) if self.outcomes else None

    @property
    def sd(self) -> float | None:
        return _sd([o.payoff for o in self.outcomes])

    @property
    def summary(self) -> str:
        """n, mean ± s.d., baseline and optimum in words (the console and the export say the same)."""
        optimum = "not filed" if self.optimum is None else f"{self.optimum:z.2f}"
        return (f"n = {self.n} · mean {mean_sd(self.mean, self.sd)} · baseline {self.baseline:z.2f}"
                f" · optimum {optimum}")

    @property
    def people(self) -> tuple[Outcome, ...]:
        return tuple(o for o in self.outcomes if o.person is not None)


@dataclass(frozen=True)
class TableTotal:
    where: str
    total: float
    optimum: float | None  # the welfare optimum (the most the table could have made together)
    people: tuple[str, ...]
    ended: str = ""  # how a table's game ended ("by the clock after 3 of 12 turns"); empty: a game alone, or not known

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
    timed_out: bool = False  # the clock chose (a pass or a rejection when the time ran out), not the trainee

    @property
    def chose(self) -> str:
        """The choice as the debrief shows it: a time-out says so."""
        return f"{self.choice} (time ran out)" if self.timed_out else self.choice


@dataclass(frozen=True)
class ClassDebrief:
    exercise: str
    title: str
    seats: tuple[SeatSpread, ...]
    tables: tuple[TableTotal, ...]
    costliest: tuple[Costly, ...]
    unfinished: int  # games still being played or abandoned: not in the figures
    left_out: int = 0  # plays finished but not shown (the oldest, past `tables`)
    decided: int = 0  # the trainees' decisions filed in the plays shown (the costliest are among them)
    # a case of issues (a compiled scoresheet): its issues' labels, and what each play agreed on them
    issues: tuple[str, ...] = ()
    agreements: tuple[Agreement, ...] = ()

    @property
    def played(self) -> int:
        return len(self.tables)

    @property
    def shares(self) -> list[float]:
        """Each table's total over its welfare optimum, where it has one."""
        return [e for t in self.tables if (e := t.efficiency) is not None]

    @property
    def share_mean(self) -> float | None:
        return fmean(self.shares) if self.shares else None

    @property
    def share_sd(self) -> float | None:
        return _sd(self.shares)

    @property
    def share_summary(self) -> str:
        return f"share of the welfare optimum: mean {mean_sd(self.share_mean, self.share_sd, 'z.0%')}, " \
               f"n = {len(self.shares)}"

    @property
    def plays_summary(self) -> str:
        """'n = 3 plays' and what was left out."""
        left = f"; the {self.left_out} oldest left out" if self.left_out else ""
        return f"n = {self.played} play{'s' * (self.played != 1)}{left}"

    @property
    def tables_by_share(self) -> list[TableTotal]:
        """The tables, the best share of the optimum first (as the console and the export list them)."""
        return sorted(self.tables, key=lambda r: -(r.efficiency if r.efficiency is not None else float("-inf")))


def class_debrief(db: ResultsDB, course: LoadedCourse, exercise_id: str, top: int = 10,
                  tables: int = TABLES_SHOWN) -> ClassDebrief:
    ex = course.exercise(exercise_id)
    sc = course.scenarios[ex.id]
    rules = get_rules(ex.rules)
    game = compile_game(sc, rules)
    baseline = [float(v) for v in no_negotiation(game, rules).payoffs]
    name = course.course.name
    games = db.games(name, ex.id)
    unfinished = len(db.games(name, ex.id, "playing")) + len(db.games(name, ex.id, "abandoned"))
    called = db.tables.names(name)
    plays: dict[str, list[GameRow]] = {}  # one entry per table (or game alone): the rows of its people
    for g in games:
        plays.setdefault(_where(g.table_id, g.trainee, g.id), []).append(g)
    everything = len(plays)
    plays = dict(list(plays.items())[max(0, everything - tables):])  # the newest `tables`
    ids = sc.player_ids
    spreads: dict[str, list[Outcome]] = {pid: [] for pid in ids}
    totals: list[TableTotal] = []
    for key, rows in plays.items():
        where = _called(rows[0].table_id, called) or key
        payoffs = rows[0].payoffs or []
        if len(payoffs) != len(ids):
            continue  # a result from another version of the scenario
        by_seat = {g.seat: cut(g.trainee, NAME) for g in rows}
        for pid, v in zip(ids, payoffs, strict=True):
            spreads[pid].append(Outcome(float(v), where, by_seat.get(pid)))
        totals.append(TableTotal(where, float(sum(payoffs)), rows[0].welfare_optimum,
                                 tuple(f"{cut(g.trainee, NAME)} ({g.seat})" for g in rows),
                                 _ended(db, rows[0].table_id)))
    whole = player_labels(sc)
    labels = dict(zip(ids, fit_unique([whole[pid] for pid in ids], NAME), strict=True))
    optima: dict[str, Counter[float]] = {pid: Counter() for pid in ids}
    for rows in plays.values():  # one pass: seats × plays × people would be millions on a large class
        for g in rows:
            if g.seat in optima and g.seat_optimum is not None:
                optima[g.seat][round(g.seat_optimum, 9)] += 1
    seats = tuple(SeatSpread(pid, labels[pid], baseline[i], tuple(spreads[pid]),
                             optima[pid].most_common(1)[0][0] if optima[pid] else None) for i, pid in enumerate(ids))
    shown = {g.id for rows in plays.values() for g in rows}
    decided = _decisions(db, name, ex.id, shown)
    issues: tuple[str, ...] = ()
    agreed: tuple[Agreement, ...] = ()
    if Sheet.of(game) is not None:  # what each play agreed, issue by issue
        issues = tuple(cut(i.label or i.id, NAME) for i in sc.issues)
        agreed = tuple(agreement(game, _called(rows[0].table_id, called) or key, rows[0].record_path or None)
                       for key, rows in plays.items())
    return ClassDebrief(ex.id, ex.title, seats, tuple(totals), _costliest(decided, top, called), unfinished,
                        everything - len(plays), len(decided), issues, agreed)


def _ended(db: ResultsDB, table: int | None) -> str:
    """How the table's game ended, in words ("" for a game played alone)."""
    row = None if table is None else db.tables.get(table)
    return "" if row is None else how_ended(row.ending, row.turn, row.turns)


def _where(table: int | None, trainee: str, game: int, called: dict[int, str] | None = None) -> str:
    """A play as the debrief names it: its table (by the trainer's name for it), or the game alone."""
    return _called(table, called or {}) or f"{cut(trainee, NAME)} alone (game {game})"


def _called(table: int | None, called: dict[int, str]) -> str:
    return "" if table is None else table_called(table, called.get(table))


def costliest(db: ResultsDB, course: str, exercise: str, top: int = 10,
              games: set[int] | None = None) -> tuple[Costly, ...]:
    """The costliest decisions of the exercise (of these games only, when given), a time-out marked."""
    return _costliest(_decisions(db, course, exercise, games), top, db.tables.names(course))


def _decisions(db: ResultsDB, course: str, exercise: str, games: set[int] | None) -> list[dict]:
    return [r for r in db.decisions(Filters(course=course, exercise=exercise)) if games is None or r["game"] in games]


def _costliest(decisions: list[dict], top: int, called: dict[int, str]) -> tuple[Costly, ...]:
    rows = sorted(decisions, key=lambda r: -r["cost"])
    out = []
    for r in rows[:top]:
        if r["cost"] <= 0:
            break
        out.append(Costly(cut(r["trainee"], NAME), _where(r["table"], r["trainee"], r["game"], called), r["seat"],
                          int(r["turn"]), cut(r["choice"], WORDS), cut(_better(r["numbers"]), WORDS), float(r["cost"]),
                          bool(r["timed_out"])))
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

