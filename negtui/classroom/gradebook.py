"""The results database as attempts count: how many plays a trainee has used, a game resumed as the
same attempt, and graded games (`mode = "assessment"`) left past the idle timeout filed as abandoned.

A practice game counts once it is finished; an assessment's counts as soon as it starts, so quitting a
game that goes badly never buys another try."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from negtui.classroom.dbtypes import DBError, now_iso
from negtui.classroom.tablebook import Store


class GradeBook:
    def __init__(self, db: Store) -> None:
        self.db = db

    def attempts(self, name: str, course: str, exercise: str, *, every_start: bool = False) -> int:
        """Plays used: finished games, or (`every_start`, an assessment) every game started."""
        statuses = "('finished', 'playing', 'abandoned')" if every_start else "('finished')"
        return int(self.db.rows(
            "SELECT COUNT(*) FROM games g JOIN trainees t ON t.id = g.trainee_id WHERE t.name = ? AND g.course = ?"
            f" AND g.exercise = ? AND g.status IN {statuses}", (name, course, exercise))[0][0])

    def abandoned(self, name: str, course: str, exercise: str) -> int:
        return int(self.db.rows(
            "SELECT COUNT(*) FROM games g JOIN trainees t ON t.id = g.trainee_id WHERE t.name = ? AND g.course = ?"
            " AND g.exercise = ? AND g.status = 'abandoned'", (name, course, exercise))[0][0])

    def continued(self, game_id: int, record_path: str | Path, session_id: int | None) -> None:
        """A game resumed: the same game (and attempt), now written to its continuation's record by this
        session."""
        with self.db.write() as conn:
            row = conn.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise DBError(f"no game {game_id}")
            if row[0] != "playing":
                raise DBError(f"game {game_id} is {row[0]}, not playing")
            conn.execute("UPDATE games SET record_path = ?, session_id = ? WHERE id = ?",
                         (str(record_path), session_id, game_id))

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
                conn.execute(f"UPDATE games SET status = 'abandoned', finished = ? WHERE id IN "
                             f"({', '.join('?' for _ in ids)})", (now_iso(), *ids))
            return ids
