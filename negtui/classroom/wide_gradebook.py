"""The gradebook a registrar imports (`negtui results --gradebook --wide`): one row per trainee, keyed by
their student id, with a group of columns per exercise of the course — the points of the game that counts,
the same score at the welfare optimum, the grade (the points as a percentage of that optimum, 0–100), and
flags that say when the grade is not the trainee's own work: a bot played the seat wholly or partly, every
decision timed out, the trainer ended the game.

Which game counts is the trainer's choice: the best (by the exercise's score, the long form's best_score)
or the last finished one (its last_score).  The optimum is the one the trainee's debrief showed, filed with
the game: the seat's payoff at the welfare optimum (the deal that makes the table's total largest) for
`payoff`, that less the baseline for `gain`, the optimum's total for `table_total`; `table_minimum` has no
filed optimum, so its grade is left empty, as is any grade whose optimum is missing or not positive (the
ratio would read backwards).  A seat can take more than its share at the optimum, so the grade is held to
100, and to 0 below; the points beside it are as they were."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from negtui.classroom.dbtypes import DBError
from negtui.classroom.gradebook import gradebook
from negtui.classroom.scoring import score
from negtui.classroom.studentbook import StudentBook
from negtui.classroom.tablebook import Store

if TYPE_CHECKING:
    from negtui.classroom.course import Course, Exercise

COUNTS = ("best", "last")
FIRST_COLUMNS = ("trainee", "student_id")
BOT_PLAYED = ("no", "partly", "wholly")
# how a table's game ended, as its row says where the results database keeps it (`tables.ending`): the
# trainer's call ends it as it stands
BY_TRAINER = "trainer"


def columns_of(ex: Exercise, count: str) -> tuple[str, ...]:
    """An exercise's columns: its id, then what each holds; the score's name in the points' columns says
    what the points are.  No suffix ends another, so two exercises' columns never share a name."""
    return (f"{ex.id}_{count}_{ex.score}", f"{ex.id}_{ex.score}_at_optimum", f"{ex.id}_grade_pct_of_optimum",
            f"{ex.id}_status", f"{ex.id}_attempts_used", f"{ex.id}_bot_played", f"{ex.id}_all_timed_out",
            f"{ex.id}_ended_by_trainer")


def optimum(objective: str, seat_optimum: float | None, baseline: float | None,
            welfare_optimum: float | None) -> float | None:
    """The exercise's score at the welfare optimum, from what the game filed; None where it filed none."""
    if objective == "payoff":
        return seat_optimum
    if objective == "gain":
        return None if seat_optimum is None or baseline is None else seat_optimum - baseline
    if objective == "table_total":
        return welfare_optimum
    return None  # table_minimum: the optimum of the lowest payoff is not filed


def grade(points: float | None, best: float | None) -> float | None:
    """The points as a percentage of the optimum, held to 0–100; None where either is missing or the optimum
    is not positive."""
    if points is None or best is None or not math.isfinite(best) or best <= 1e-9:
        return None
    return round(min(100.0, max(0.0, 100.0 * points / best)), 2)


def bot_played(bot_turns: int | None, decisions: int) -> str | None:
    """Whether a bot played the seat: `wholly` when the person made no decision of it (never sat down),
    `partly` when they made some, None where the game did not file it."""
    if bot_turns is None:
        return None
    if bot_turns <= 0:
        return BOT_PLAYED[0]
    return BOT_PLAYED[2] if decisions == 0 else BOT_PLAYED[1]


@dataclass(frozen=True)
class Counted:
    """The game that counts for one trainee and exercise, as its columns have it."""

    points: float | None
    optimum: float | None
    bot_played: str | None
    all_timed_out: bool
    ended_by_trainer: bool | None

    @property
    def grade(self) -> float | None:
        return grade(self.points, self.optimum)


def has_ending(db: Store) -> bool:
    """Whether the results database says how a table's game ended (a column of newer files)."""
    return any(r["name"] == "ending" for r in db.rows("PRAGMA table_info(tables)"))


def _finished(db: Store, course: str) -> list[dict[str, Any]]:
    ending = "(SELECT tb.ending FROM tables tb WHERE tb.id = g.table_id)" if has_ending(db) else "NULL"
    return [dict(r) for r in db.rows(
        "SELECT g.id, t.name AS trainee, g.exercise, g.payoff, g.payoffs, g.baseline, g.bot_turns, g.seat_optimum,"
        " g.welfare_optimum, g.table_id,"
        " (SELECT COUNT(*) FROM decisions d WHERE d.game_id = g.id) AS decisions,"
        " (SELECT COUNT(*) FROM decisions d WHERE d.game_id = g.id AND d.timed_out = 1) AS timed_out,"
        f" {ending} AS ending"
        " FROM games g JOIN trainees t ON t.id = g.trainee_id WHERE g.course = ? AND g.status = 'finished'"
        " ORDER BY g.started, g.id", (course,))]


def counted(ex: Exercise, games: Sequence[dict[str, Any]], count: str) -> Counted | None:
    """Of one trainee's finished games of `ex` (oldest first), the one that counts: the last, or the best
    by the exercise's score (of equal ones, the later); None when none does."""
    scored = [(score(ex.score, g["payoff"], json.loads(g["payoffs"]) if g["payoffs"] else None, g["baseline"]), g)
              for g in games]
    if count == "last":
        chosen = scored[-1] if scored else None
    else:
        known = [(points, g) for points, g in scored if points is not None]
        chosen = max(reversed(known), key=lambda pg: pg[0]) if known else None  # max keeps the first: the later
    if chosen is None:
        return None
    points, g = chosen
    ended = None if g["table_id"] is not None and g["ending"] is None else g["ending"] == BY_TRAINER
    return Counted(points=points, optimum=optimum(ex.score, g["seat_optimum"], g["baseline"], g["welfare_optimum"]),
                   bot_played=bot_played(g["bot_turns"], int(g["decisions"])),
                   all_timed_out=int(g["decisions"]) > 0 and int(g["timed_out"]) == int(g["decisions"]),
                   ended_by_trainer=ended)


def wide_gradebook(db: Store, course: Course, count: str = "best",
                   exercises: Sequence[str] | None = None) -> tuple[list[str], list[dict[str, Any]]]:
    """The columns and one row per trainee (the long gradebook's trainees, in its order) for the course's
    exercises (or those of `exercises`, in the course's order)."""
    if count not in COUNTS:
        raise DBError(f"which game counts is {' or '.join(COUNTS)}, not {count!r}")
    chosen = [ex for ex in course.exercises if exercises is None or ex.id in exercises]
    columns = [*FIRST_COLUMNS, *(c for ex in chosen for c in columns_of(ex, count))]
    if len(set(columns)) != len(columns):  # only exercise ids built to collide could do it; say so, not overwrite
        raise DBError("two of the course's exercises give a column the same name: " + ", ".join(
            sorted({c for c in columns if columns.count(c) > 1})))
    long = {(r["trainee"], r["exercise"]): r for r in gradebook(db, course)}
    names = list(dict.fromkeys(name for name, _ in long))
    ids = StudentBook(db).all()
    mine: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for g in _finished(db, course.name):
        mine.setdefault((g["trainee"], g["exercise"]), []).append(g)
    rows = []
    for name in names:
        row: dict[str, Any] = {"trainee": name, "student_id": ids.get(name)}
        for ex in chosen:
            c = counted(ex, mine.get((name, ex.id), []), count)
            book = long[(name, ex.id)]
            cells = (None,) * 6 if c is None else (c.points, c.optimum, c.grade, c.bot_played, c.all_timed_out,
                                                   c.ended_by_trainer)
            row.update(zip(columns_of(ex, count), (*cells[:3], book["status"], book["attempts_used"], *cells[3:]),
                           strict=True))
        rows.append(row)
    return columns, rows
