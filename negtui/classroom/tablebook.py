"""The results database's tables: one row per table the server opened, kept by that table's process
(who sits where, the turn, how it ended) and read by the lobby and the trainer's console.  The server
writes a row when it opens a table and closes rows a stopped server left behind; from then on the row
is its table's to write."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from negtui.classroom.dbtypes import DBError, TableRow, now_iso
from negtui.table.endings import HowEnded
from negtui.table.views import Occupant


class Store(Protocol):
    """What the tables' rows need of the results database (ResultsDB)."""

    def write(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]: ...

STATUSES = ("forming", "playing", "over", "closed")


@dataclass(frozen=True)
class TableRequest:
    """A table the trainer's console asked the server to open."""

    id: int
    exercise: str
    reserved: dict[str, str]  # seats kept: player id -> trainee
    by: str  # who asked
    name: str | None  # the trainer's name for the table (a roster's)
# a seat taken at a table whose game has not started (seatbook.py files it as the trainee's game at once)
_UNPLAYED = "status = 'playing' AND table_id IN (SELECT id FROM tables WHERE started IS NULL)"


class TableBook:
    def __init__(self, db: Store) -> None:
        self.db = db

    def opened(self, course: str, exercise: str, socket: str, name: str | None = None) -> int:
        """A table the server opens; `name` the trainer's for it (a roster's), if any."""
        with self.db.write() as conn:
            cur = conn.execute("INSERT INTO tables (course, exercise, socket, opened, name) VALUES (?, ?, ?, ?, ?)",
                               (course, exercise, socket, now_iso(), name or None))
            return int(cur.lastrowid or 0)

    def _set(self, table_id: int, sql: str, params: tuple[Any, ...]) -> None:
        with self.db.write() as conn:
            if conn.execute(f"UPDATE tables SET {sql} WHERE id = ?", (*params, table_id)).rowcount != 1:
                raise DBError(f"no table {table_id}")

    def set_socket(self, table_id: int, socket: str) -> None:
        self._set(table_id, "socket = ?", (socket,))

    def seated(self, table_id: int, people: tuple[Occupant, ...]) -> None:
        """Who sits where, as the table last told its clients."""
        self._set(table_id, "people = ?", (json.dumps([vars(p) for p in people]),))

    def started(self, table_id: int, record_path: str | None, turns: int, baseline: dict[str, float]) -> None:
        self._set(table_id, "status = 'playing', started = ?, record_path = ?, turns = ?, baseline = ?",
                  (now_iso(), record_path, turns, json.dumps(baseline)))

    def paused(self, table_id: int, paused: bool) -> None:
        self._set(table_id, "paused = ?", (int(paused),))

    def round(self, table_id: int, left: float | None, running: bool) -> None:
        """The round's time: `left` seconds as of now, running down or stopped."""
        self._set(table_id, "round_left = ?, round_ends = ?",
                  (left, now_iso(left) if running and left is not None else None))

    # --- tables the trainer asks the server to open ---------------------------------------------------------
    def request(self, course: str, exercise: str, reserved: dict[str, str], by: str, name: str | None = None) -> int:
        """Ask the server to open a table of `exercise` with `reserved` seats (player id -> trainee), called `name`
        (a roster's name for it) if given; the request's id."""
        with self.db.write() as conn:
            cur = conn.execute("INSERT INTO table_requests (course, exercise, reserved, requested_by, requested, name)"
                               " VALUES (?, ?, ?, ?, ?, ?)",
                               (course, exercise, json.dumps(reserved), by, now_iso(), name or None))
            return int(cur.lastrowid or 0)

    def waiting_requests(self, course: str) -> list[TableRequest]:
        """The requests not answered yet, oldest first."""
        rows = self.db.rows("SELECT id, exercise, reserved, requested_by, name FROM table_requests WHERE course = ?"
                            " AND status = 'waiting' ORDER BY id", (course,))
        return [TableRequest(int(r["id"]), r["exercise"], json.loads(r["reserved"]), r["requested_by"], r["name"])
                for r in rows]

    def answered(self, request_id: int, table_id: int | None, why: str | None = None) -> None:
        with self.db.write() as conn:
            conn.execute("UPDATE table_requests SET status = ?, table_id = ?, why = ? WHERE id = ?",
                         ("opened" if table_id is not None else "refused", table_id, why, request_id))

    def request_answer(self, request_id: int) -> tuple[str, int | None, str | None]:
        """(status, the table opened, why refused) of a request."""
        rows = self.db.rows("SELECT status, table_id, why FROM table_requests WHERE id = ?", (request_id,))
        if not rows:
            raise DBError(f"no table request {request_id}")
        return rows[0]["status"], rows[0]["table_id"], rows[0]["why"]

    def progress(self, table_id: int, t: int, payoffs: dict[str, float]) -> None:
        """The turn under way and what everyone would get were the game to end now."""
        self._set(table_id, "turn = ?, payoffs = ?", (t, json.dumps(payoffs)))

    def deciding(self, table_id: int, player: str | None) -> None:
        """The game now waits for `player`'s decision (None: for nobody's, the game is over)."""
        self._set(table_id, "deciding = ?, deciding_since = ?", (player, now_iso() if player is not None else None))

    def over(self, table_id: int, ending: HowEnded = "turns") -> None:
        """The game is over and its results filed: played to its last turn, or ended as it stood by the clock
        or the trainer (`ending`)."""
        self._set(table_id, "status = 'over', ended = ?, ending = ?, deciding = NULL, deciding_since = NULL",
                  (now_iso(), ending))

    def closed(self, table_id: int, why: str, abandon: bool = True) -> None:
        """Closed before its game was over: the games played at it are abandoned (the seats taken at a table
        whose game never started played nothing: no attempt).  `abandon` False: the game was over and its
        results are being filed (a server stopped as a table worked out its debriefs)."""
        with self.db.write() as conn:
            conn.execute("UPDATE tables SET status = 'closed', ended = ?, end_reason = ? WHERE id = ?"
                         " AND status IN ('forming', 'playing')", (now_iso(), why, table_id))
            if not abandon:
                return
            conn.execute(f"DELETE FROM games WHERE table_id = ? AND {_UNPLAYED}", (table_id,))
            conn.execute("UPDATE games SET status = 'abandoned', finished = ? WHERE table_id = ?"
                         " AND status = 'playing'", (now_iso(), table_id))

    def close_left_over(self, why: str) -> int:
        """Tables a stopped server left open (their processes went with it), and the games at them; how
        many tables."""
        with self.db.write() as conn:
            live = "(SELECT id FROM tables WHERE status IN ('forming', 'playing'))"
            conn.execute(f"DELETE FROM games WHERE table_id IN {live} AND {_UNPLAYED}")
            conn.execute("UPDATE games SET status = 'abandoned', finished = ? WHERE status = 'playing' AND table_id"
                         f" IN {live}", (now_iso(),))
            return int(conn.execute("UPDATE tables SET status = 'closed', ended = ?, end_reason = ?"
                                    " WHERE status IN ('forming', 'playing')", (now_iso(), why)).rowcount)

    @staticmethod
    def _row(r: sqlite3.Row) -> TableRow:
        d = {f: r[f] for f in TableRow.__dataclass_fields__}
        d["people"] = tuple(Occupant(**p) for p in json.loads(d["people"] or "[]"))
        d["payoffs"] = json.loads(d["payoffs"]) if d["payoffs"] else None
        d["baseline"] = json.loads(d["baseline"]) if d["baseline"] else None
        d["paused"] = bool(d["paused"])
        return TableRow(**d)

    def get(self, table_id: int) -> TableRow | None:
        rows = self.db.rows("SELECT * FROM tables WHERE id = ?", (table_id,))
        return self._row(rows[0]) if rows else None

    def recent(self, course: str, limit: int = 200) -> list[TableRow]:
        """The course's tables, live ones first, then the newest."""
        rows = self.db.rows("SELECT * FROM tables WHERE course = ? ORDER BY status IN ('forming', 'playing') DESC,"
                            " id DESC LIMIT ?", (course, limit))
        return [self._row(r) for r in rows]

    def names(self, course: str) -> dict[int, str]:
        """The trainer's names of the course's tables that have one (a roster's), by table id."""
        rows = self.db.rows("SELECT id, name FROM tables WHERE course = ? AND name IS NOT NULL", (course,))
        return {int(r["id"]): str(r["name"]) for r in rows}

    def live(self, course: str, exercise: str | None = None) -> list[TableRow]:
        """Tables forming or playing, oldest first."""
        rows = self.db.rows("SELECT * FROM tables WHERE course = ?1 AND (?2 IS NULL OR exercise = ?2)"
                            " AND status IN ('forming', 'playing') ORDER BY id", (course, exercise))
        return [self._row(r) for r in rows]
