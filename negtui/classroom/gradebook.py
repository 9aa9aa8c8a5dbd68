"""The results database as attempts count: how many plays a trainee has used, a game resumed as the
same attempt, graded games (`mode = "assessment"`) left past the idle timeout filed as abandoned, each
game's attempt number, and the gradebook (one row per trainee and exercise of a course).

A practice game counts once it is finished; an assessment's counts as soon as it starts, so quitting a
game that goes badly never buys another try."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from negtui.classroom.dbtypes import DBError, now_iso
from negtui.classroom.scoring import score
from negtui.classroom.tablebook import Store

if TYPE_CHECKING:
    from negtui.classroom.course import Course

# one row per trainee and exercise, in this order
GRADEBOOK_COLUMNS: tuple[str, ...] = (
    "trainee", "course", "exercise", "mode", "score_by", "attempts_used", "attempts_allowed", "status",
    "best_score", "last_score", "finished", "abandoned", "bot_turns",
)


class NoAttempt(DBError):
    """A new game the exercise does not allow now; the message says why, to the trainee."""


@dataclass(frozen=True)
class Allowance:
    """What a new game of an exercise must fit: the plays allowed (None: as many as wanted), and whether
    every start counts (an assessment) or only a finished game (practice)."""

    plays: int | None
    every_start: bool


def counted_statuses(every_start: bool) -> str:
    """The statuses of the games that are attempts, as `counts` has it, in SQL (a constant: no parameter)."""
    return "('finished', 'playing', 'abandoned')" if every_start else "('finished')"


def check_allowance(conn: sqlite3.Connection, trainee_id: int, course: str, exercise: str,
                    allowance: Allowance) -> None:
    """Inside the write transaction that files a new game played alone (so no other session's start can come
    between the count and the game): NoAttempt when the plays are used up (a practice game under way counted
    as one), or when an assessment's game is under way already (to be resumed: a second one would be a second
    try at the same attempt).  A table's seat is checked where it is taken (seatbook.py)."""
    mine = "trainee_id = ? AND course = ? AND exercise = ?"
    args = (trainee_id, course, exercise)
    # a start whose session ended before its record was named (the app killed as it started) played nothing
    conn.execute(f"DELETE FROM games WHERE {mine} AND status = 'playing' AND record_path = '' AND session_id IN"
                 " (SELECT id FROM sessions WHERE ended IS NOT NULL)", args)
    if allowance.every_start and conn.execute(
            f"SELECT 1 FROM games WHERE {mine} AND status = 'playing' AND table_id IS NULL", args).fetchone():
        raise NoAttempt("your game of this exercise is under way: resume it (from the lobby, or in the session "
                        "that has it open)")
    if allowance.plays is None:
        return
    used = int(conn.execute(
        f"SELECT COUNT(*) FROM games WHERE {mine} AND status IN {counted_statuses(allowance.every_start)}",
        args).fetchone()[0])
    # a practice game counts once finished, so one under way (in another session, or left to resume) may become
    # the last play: it is counted here too, or two sessions could each finish one more than allowed
    under_way = 0 if allowance.every_start else int(conn.execute(
        f"SELECT COUNT(*) FROM games WHERE {mine} AND status = 'playing' AND table_id IS NULL", args).fetchone()[0])
    if used + under_way >= allowance.plays:
        if under_way:
            raise NoAttempt("your game of this exercise under way is your last play: resume it (from the lobby, or "
                            "in the session that has it open)")
        raise NoAttempt(f"no plays of this exercise left ({used} of {allowance.plays} used)")


def counts(mode: str | None, status: str) -> bool:
    """Whether a game is an attempt: a finished one always, an assessment's as soon as it starts."""
    return status == "finished" or (mode == "assessment" and status in ("playing", "abandoned"))


def attempt_numbers(games: Iterable[Mapping[str, Any]]) -> dict[int, int | None]:
    """Each game's attempt (1, 2, …) among its trainee's games of its exercise, or None for a game that is
    no attempt (a practice game abandoned or not finished yet).  `games`: rows with id, trainee, course,
    exercise, status and mode, oldest first."""
    used: dict[tuple[str, str, str], int] = {}
    out: dict[int, int | None] = {}
    for g in games:
        key = (g["trainee"], g["course"], g["exercise"])
        if counts(g["mode"], g["status"]):
            used[key] = used.get(key, 0) + 1
            out[int(g["id"])] = used[key]
        else:
            out[int(g["id"])] = None
    return out


def _status(statuses: set[str]) -> str:
    """A trainee's standing on an exercise: a game under way first, then a finished one, then one given up."""
    for status, words in (("playing", "in progress"), ("finished", "finished"), ("abandoned", "abandoned")):
        if status in statuses:
            return words
    return "not started"


class GradeBook:
    def __init__(self, db: Store) -> None:
        self.db = db

    def attempts(self, name: str, course: str, exercise: str, *, every_start: bool = False) -> int:
        """Plays used: finished games, or (`every_start`, an assessment) every game started."""
        return int(self.db.rows(
            "SELECT COUNT(*) FROM games g JOIN trainees t ON t.id = g.trainee_id WHERE t.name = ? AND g.course = ?"
            f" AND g.exercise = ? AND g.status IN {counted_statuses(every_start)}", (name, course, exercise))[0][0])

    def abandoned(self, name: str, course: str, exercise: str) -> int:
        return int(self.db.rows(
            "SELECT COUNT(*) FROM games g JOIN trainees t ON t.id = g.trainee_id WHERE t.name = ? AND g.course = ?"
            " AND g.exercise = ? AND g.status = 'abandoned'", (name, course, exercise))[0][0])

    def continued(self, game_id: int, record_path: str | Path, session_id: int | None) -> None:
        """Where a game being played is written and by which session: a new game's record once play begins
        (its attempt was filed first), a resumed game's continuation (the same game, and attempt).  A game
        another session of the trainee still holds open is not taken from it (NoAttempt): two sessions
        playing one graded game on would be two tries at one attempt."""
        with self.db.write() as conn:
            row = conn.execute("SELECT status, session_id FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise DBError(f"no game {game_id}")
            if row[0] != "playing":
                raise DBError(f"game {game_id} is {row[0]}, not playing")
            holder = row[1]
            if session_id is not None and holder is not None and holder != session_id and conn.execute(
                    "SELECT 1 FROM sessions WHERE id = ? AND ended IS NULL", (holder,)).fetchone():
                raise NoAttempt("this game is open in another session of yours: go on with it there, or end that "
                                "session first (one the network cut off ends within a few minutes)")
            conn.execute("UPDATE games SET record_path = ?, session_id = ? WHERE id = ?",
                         (str(record_path), session_id, game_id))

    def unclaimed(self, game_id: int) -> None:
        """A game filed for a start that then failed (no record could be written): no game was played, so
        no attempt is spent."""
        with self.db.write() as conn:
            conn.execute("DELETE FROM games WHERE id = ? AND status = 'playing' AND record_path = ''", (game_id,))

    def abandon_left(self, course: str, exercises: Sequence[str], idle: float) -> list[int]:
        """Games of these exercises (played alone) whose session ended more than `idle` seconds ago, filed
        as abandoned; their ids.  A game in an open session (or played with none) is never touched."""
        if not exercises:
            return []
        marks = ", ".join("?" for _ in exercises)
        with self.db.write() as conn:
            ids = [int(r[0]) for r in conn.execute(
                "SELECT g.id FROM games g JOIN sessions s ON s.id = g.session_id WHERE g.status = 'playing'"
                f" AND g.table_id IS NULL AND g.course = ? AND g.exercise IN ({marks}) AND s.ended < ?",
                (course, *exercises, now_iso(-idle)))]
            if ids:
                conn.execute(f"UPDATE games SET status = 'abandoned', finished = ?, mode = 'assessment' WHERE id IN "
                             f"({', '.join('?' for _ in ids)})", (now_iso(), *ids))
            return ids


def gradebook(db: Store, course: Course) -> list[dict[str, Any]]:
    """One row per trainee and exercise of `course` (`GRADEBOOK_COLUMNS`), by name then the course's
    order: the mode, attempts used (as the lobby counts them) and allowed, where the trainee stands, the best
    and the last finished game's score by the exercise's `score`, and the turns bots played in their seat.
    Every trainee is listed (trainer accounts only where they played)."""
    games = [dict(r) for r in db.rows(
        "SELECT g.id, t.name AS trainee, g.course, g.exercise, g.status, g.payoff, g.payoffs, g.baseline,"
        " g.bot_turns FROM games g JOIN trainees t ON t.id = g.trainee_id WHERE g.course = ?"
        " ORDER BY g.started, g.id", (course.name,))]
    modes = {ex.id: ex.mode for ex in course.exercises}
    for g in games:
        g["mode"] = modes.get(g["exercise"])
    numbers = attempt_numbers(games)
    played = {g["trainee"] for g in games}
    names = [r["name"] for r in db.rows("SELECT name, trainer FROM trainees ORDER BY name")
             if not r["trainer"] or r["name"] in played]
    mine: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for g in games:
        mine.setdefault((g["trainee"], g["exercise"]), []).append(g)
    out = []
    for name in names:
        for ex in course.exercises:
            rows = mine.get((name, ex.id), [])
            finished = [g for g in rows if g["status"] == "finished"]
            scores = [score(ex.score, g["payoff"], json.loads(g["payoffs"]) if g["payoffs"] else None, g["baseline"])
                      for g in finished]
            known = [v for v in scores if v is not None]
            bots = [g["bot_turns"] for g in finished if g["bot_turns"] is not None]
            out.append({
                "trainee": name, "course": course.name, "exercise": ex.id, "mode": ex.mode, "score_by": ex.score,
                "attempts_used": sum(numbers[int(g["id"])] is not None for g in rows),
                "attempts_allowed": ex.attempts, "status": _status({g["status"] for g in rows}),
                "best_score": max(known, default=None), "last_score": scores[-1] if scores else None,
                "finished": len(finished), "abandoned": sum(g["status"] == "abandoned" for g in rows),
                "bot_turns": sum(bots) if bots else None,
            })
    return out
