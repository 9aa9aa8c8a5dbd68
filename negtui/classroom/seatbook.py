"""The results database where a trainee takes a seat at a course's table: one write transaction checks that
the seat may be theirs and claims it, so that no interleaving of a trainee's sessions, of tables and of the
trainer's seating gets round the exercise's rules.

- A seat is an attempt from the moment it is taken: it is filed at once as the trainee's game at that table
  (status 'playing'; its record is named when the game starts), and a trainee holds one seat of an exercise's
  tables at a time.  A seat given up before the start, or at a table that closes before it, files nothing.
- Confidential roles (private information, or a briefing per seat): the first seat of an exercise a trainee
  is shown is the only one of its tables they may take, at any table, ever (`roles_shown`).
- A seat the trainer keeps for a trainee binds them: while it is kept (at a table waiting for people, or a seat a
  bot plays at a table under way, given to a latecomer), no other table of the exercise seats them, and the
  trainer cannot keep them a second one.

The same checks answer the trainer keeping a seat (`may_keep`), in words for the trainer."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from negtui.classroom.dbtypes import DBError, now_iso, table_called
from negtui.classroom.gradebook import Allowance, NoAttempt, counted_statuses
from negtui.classroom.tablebook import Store

if TYPE_CHECKING:
    from negtui.classroom.course import LoadedCourse


class SeatClosed(DBError):
    """A seat the exercise's rules keep from this trainee (a role they may not read, a seat kept for them
    elsewhere, a table of it they sit at already); the message says why, to them."""


@dataclass(frozen=True)
class SeatRules:
    """What taking a seat at a table of one exercise must fit."""

    course: str
    exercise: str
    allowance: Allowance
    one_role: bool  # confidential roles: one seat of the exercise per trainee
    scenario: str = ""  # filed with each game
    digest: str = ""
    labels: dict[str, str] = field(default_factory=dict)  # player id -> how the trainee knows the seat

    def seat(self, pid: str) -> str:
        label = self.labels.get(pid, pid)
        return pid if label == pid else f"{label} ({pid})"


def seat_rules(course: LoadedCourse, exercise: str) -> SeatRules:
    from negtui.classroom.course import scenario_digest

    ex = course.exercise(exercise)
    sc = course.scenarios[ex.id]
    return SeatRules(course.course.name, ex.id, Allowance(ex.attempts, not ex.guided), ex.one_role, sc.name,
                     scenario_digest(sc), {p.id: p.display for p in sc.players})


@dataclass(frozen=True)
class _Who:
    """The same refusal told to the trainee ("you") or to the trainer keeping a seat (by name)."""

    name: str
    trainer: bool

    def say(self, to_trainee: str, to_trainer: str) -> str:
        return to_trainer if self.trainer else to_trainee


class SeatBook:
    def __init__(self, db: Store) -> None:
        self.db = db

    def claim(self, table_id: int, name: str, seat: str, rules: SeatRules, record: str | None = None) -> int:
        """`name` takes `seat` at the table: their game there (the one they have, when they come back), or
        NoAttempt / SeatClosed saying why not.  `record`: the table's record, once its game has started."""
        with self.db.write() as conn:
            return self._claim(conn, table_id, name, seat, rules, record)

    def may_keep(self, table_id: int, name: str, seat: str, rules: SeatRules) -> None:
        """Whether the trainer may keep `seat` for `name` (NoAttempt / SeatClosed in the trainer's words):
        a kept seat must be one its trainee can take."""
        with self.db.write() as conn:
            _check(conn, _trainee(conn, name), table_id, seat, rules, _Who(name, trainer=True))

    def given_up(self, table_id: int, name: str) -> None:
        """A seat left before the start: no game was played there."""
        with self.db.write() as conn:
            conn.execute("DELETE FROM games WHERE table_id = ? AND status = 'playing' AND trainee_id IN"
                         " (SELECT id FROM trainees WHERE name = ?) AND table_id IN"
                         " (SELECT id FROM tables WHERE started IS NULL)", (table_id, name))

    def started(self, table_id: int, record: str, seated: dict[str, str],
                rules: SeatRules) -> tuple[dict[str, int], list[str]]:
        """The game at the table starts with `seated` (player id -> trainee: those sitting at it): each one's
        game, its record named and its start now (a seat kept for someone who has not come is filed as theirs
        only when they sit down).  Returns the games by seat and, for a seat that could not be theirs, why
        (its bot plays with no game filed)."""
        games: dict[str, int] = {}
        refused: list[str] = []
        with self.db.write() as conn:
            conn.execute("DELETE FROM games WHERE table_id = ? AND status = 'playing' AND trainee_id NOT IN"
                         f" (SELECT id FROM trainees WHERE name IN ({', '.join('?' for _ in seated)}))",
                         (table_id, *seated.values()))
            for pid, name in seated.items():
                try:
                    games[pid] = self._claim(conn, table_id, name, pid, rules, record)
                except DBError as err:  # NoAttempt, SeatClosed, or a name no longer enrolled
                    refused.append(f"{name} in {pid}: {err}")
            conn.execute("UPDATE games SET record_path = ?, started = ? WHERE table_id = ? AND status = 'playing'",
                         (record, now_iso(), table_id))
        return games, refused

    def role_seen(self, name: str, course: str, exercise: str) -> str | None:
        """The seat whose role `name` has been shown in the exercise, if any."""
        rows = self.db.rows("SELECT r.seat FROM roles_shown r JOIN trainees t ON t.id = r.trainee_id"
                            " WHERE t.name = ? AND r.course = ? AND r.exercise = ?", (name, course, exercise))
        return str(rows[0]["seat"]) if rows else None

    def _claim(self, conn: sqlite3.Connection, table_id: int, name: str, seat: str, rules: SeatRules,
               record: str | None) -> int:
        tid = _trainee(conn, name)
        _check(conn, tid, table_id, seat, rules, _Who(name, trainer=False))
        if rules.one_role:
            conn.execute("INSERT OR IGNORE INTO roles_shown (trainee_id, course, exercise, seat, table_id, shown)"
                         " VALUES (?, ?, ?, ?, ?, ?)", (tid, rules.course, rules.exercise, seat, table_id, now_iso()))
        mine = conn.execute("SELECT id FROM games WHERE table_id = ? AND trainee_id = ? AND status = 'playing'",
                            (table_id, tid)).fetchone()
        if mine is not None:  # back at the table (or a kept seat they came to): the same game
            conn.execute("UPDATE games SET seat = ? WHERE id = ?", (seat, mine[0]))
            return int(mine[0])
        cur = conn.execute(
            "INSERT INTO games (trainee_id, course, exercise, scenario, scenario_digest, seat, record_path, status,"
            " started, table_id, mode) VALUES (?, ?, ?, ?, ?, ?, ?, 'playing', ?, ?, ?)",
            (tid, rules.course, rules.exercise, rules.scenario, rules.digest, seat, record or "", now_iso(), table_id,
             "assessment" if rules.allowance.every_start else "practice"))
        return int(cur.lastrowid or 0)


def _trainee(conn: sqlite3.Connection, name: str) -> int:
    row = conn.execute("SELECT id FROM trainees WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise DBError(f"no trainee {name!r}")
    return int(row[0])


def _check(conn: sqlite3.Connection, tid: int, table_id: int, seat: str, rules: SeatRules, who: _Who) -> None:
    """Every rule a seat must fit, most particular first; raises with the first that refuses it."""
    status = conn.execute("SELECT status FROM tables WHERE id = ?", (table_id,)).fetchone()
    if status is None or status[0] not in ("forming", "playing"):
        raise SeatClosed("the table has closed")
    _one_role(conn, tid, seat, rules, who)
    if conn.execute("SELECT 1 FROM games WHERE table_id = ? AND trainee_id = ? AND status = 'playing'",
                    (table_id, tid)).fetchone():
        return  # their seat at this table already: the attempt was counted when they took it
    mine = (tid, rules.course, rules.exercise)
    # a seat kept for them they have not sat in: at a table waiting for people, or one under way (a latecomer's,
    # a bot playing it meanwhile; a seat they sat in and left is theirs by its game, below)
    kept = conn.execute(
        "SELECT t.id, json_extract(p.value, '$.player'), t.name FROM tables t, json_each(t.people) p"
        " WHERE t.course = ? AND t.exercise = ? AND t.status IN ('forming', 'playing') AND t.id != ?"
        " AND json_extract(p.value, '$.name') = ? AND NOT json_extract(p.value, '$.online') AND NOT EXISTS"
        " (SELECT 1 FROM games g WHERE g.table_id = t.id AND g.trainee_id = ? AND g.status = 'playing')"
        " ORDER BY t.id LIMIT 1", (rules.course, rules.exercise, table_id, who.name, tid)).fetchone()
    if kept is not None:
        at = table_called(kept[0], kept[2])
        raise SeatClosed(who.say(
            f"the trainer keeps {rules.seat(kept[1])} at {at} for you: your seat of this exercise is "
            "there (first in your lobby)",
            f"{rules.seat(kept[1])} at {at} is kept for {who.name} already"))
    elsewhere = conn.execute(
        "SELECT g.table_id, t.name FROM games g JOIN tables t ON t.id = g.table_id WHERE g.trainee_id = ?"
        " AND g.course = ? AND g.exercise = ? AND g.status = 'playing' AND g.table_id != ?"
        " AND t.status IN ('forming', 'playing') ORDER BY g.table_id LIMIT 1", (*mine, table_id)).fetchone()
    if elsewhere is not None:
        at = table_called(elsewhere[0], elsewhere[1])
        raise SeatClosed(who.say(
            f"you sit at {at} of this exercise already (in this session or another): go back to it "
            "from the lobby, or leave it before its game starts to give the seat up",
            f"{who.name} sits at {at} of this exercise"))
    plays = rules.allowance.plays
    if plays is None:
        return
    used = int(conn.execute("SELECT COUNT(*) FROM games WHERE trainee_id = ? AND course = ? AND exercise = ? AND"
                            f" status IN {counted_statuses(rules.allowance.every_start)}", mine).fetchone()[0])
    if used >= plays:
        raise NoAttempt(who.say(f"no plays of this exercise left ({used} of {plays} used)",
                                f"{who.name} has no plays of this exercise left ({used} of {plays} used)"))


def _one_role(conn: sqlite3.Connection, tid: int, seat: str, rules: SeatRules, who: _Who) -> None:
    if not rules.one_role:
        return
    seen = conn.execute("SELECT seat FROM roles_shown WHERE trainee_id = ? AND course = ? AND exercise = ?",
                        (tid, rules.course, rules.exercise)).fetchone()
    if seen is not None and seen[0] != seat:
        role = rules.seat(seen[0])
        raise SeatClosed(who.say(
            f"you have been shown the confidential role of {role} in this exercise: at its tables you sit as "
            f"{role} only",
            f"{who.name} has been shown the role of {role} in this exercise: keep {role} for them"))
