"""The results database of `negtui serve`: trainees, their SSH keys and invites, sessions, games, decisions.

One SQLite file shared by the server process and one app process per connection, so every write is a
`BEGIN IMMEDIATE` transaction (the writer takes the lock before it reads, so a read-then-write never fails
half-way with a stale snapshot), the journal is WAL (readers never block the writer) and a busy timeout
makes writers queue instead of failing.  The schema (schema.py) carries its version in
`PRAGMA user_version`; `MIGRATIONS[k]` brings it from version k to k+1, each in its own transaction, so an
old file is upgraded on open and a file from a newer negtui is refused instead of being misread."""

from __future__ import annotations

import hmac
import json
import math
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from negtui.classroom.classbook import ClassBook, Filters
from negtui.classroom.dbtypes import RESULT_COLUMNS, DBError, Decision, GameRow, Key, Trainee, now_iso
from negtui.classroom.gradebook import Allowance, GradeBook, attempt_numbers, check_allowance
from negtui.classroom.identity import check_name, code_hash, key_of
from negtui.classroom.invitebook import InviteBook
from negtui.classroom.schema import MIGRATIONS, SCHEMA_VERSION, statements
from negtui.classroom.scoring import score
from negtui.classroom.seatbook import SeatBook
from negtui.classroom.studentbook import StudentBook
from negtui.classroom.tablebook import TableBook

if TYPE_CHECKING:
    from asyncssh import SSHKey

DB_NAME = "results.sqlite3"


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


class ResultsDB:
    """Use `ResultsDB.open(data_dir)`; the connection is in autocommit mode so that transactions are
    exactly the explicit `BEGIN IMMEDIATE` blocks of `write`."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self._conn = conn
        self.path = path
        self._lock = threading.RLock()  # one connection may be shared by threads; transactions must not interleave
        self.tables = TableBook(self)
        self.classroom = ClassBook(self)
        self.grades = GradeBook(self)
        self.seats = SeatBook(self)
        self.students = StudentBook(self)
        self.invites = InviteBook(self)

    @classmethod
    def open(cls, data_dir: Path) -> Self:
        data_dir = Path(data_dir)
        path = data_dir / DB_NAME
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))  # created private: it holds who trains and how
            conn = sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None)
        except (OSError, sqlite3.Error) as err:
            raise DBError(f"cannot open the results database {path}: {err}") from None
        db = cls(conn, path)
        try:
            conn.execute("PRAGMA busy_timeout=10000")
            conn.execute("PRAGMA foreign_keys=ON")
            db._wal()
            db._migrate()
        except sqlite3.Error as err:
            conn.close()
            raise DBError(f"cannot open the results database {path}: {err}") from None
        except DBError:
            conn.close()
            raise
        return db

    def _wal(self) -> None:
        """Switching a new file to WAL needs it to itself and SQLite does not wait for that (no busy handler),
        so two processes opening a new file at once retry here for up to the busy timeout."""
        deadline = time.monotonic() + 10
        while self._conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            try:
                self._conn.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _migrate(self) -> None:
        """Each step re-reads the version under the write lock: two processes opening a new file at once
        must not both create the tables."""
        while True:
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise DBError(f"the results database {self.path} has schema version {version}, newer than this "
                              f"negtui knows ({SCHEMA_VERSION}); upgrade negtui")
            if version == SCHEMA_VERSION:
                return
            with self.write() as conn:
                if conn.execute("PRAGMA user_version").fetchone()[0] != version:
                    continue  # another process migrated meanwhile; look again
                try:
                    for statement in statements(MIGRATIONS[version]):
                        conn.execute(statement)
                except sqlite3.Error as err:
                    raise DBError(f"cannot upgrade the results database {self.path} to schema version "
                                  f"{version + 1}: {err}") from None
                conn.execute(f"PRAGMA user_version = {int(version) + 1}")  # pragmas take no parameters

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One all-or-nothing write transaction; an exception inside rolls everything back."""
        with self._lock:
            try:
                with self._conn:
                    self._conn.execute("BEGIN IMMEDIATE")
                    yield self._conn
            except sqlite3.Error as err:  # locked past the busy timeout, disk full, a damaged file
                raise DBError(f"results database {self.path}: {err}") from None

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                cur = self._conn.execute(sql, params)
                cur.row_factory = sqlite3.Row
                return cur.fetchall()
            except sqlite3.Error as err:
                raise DBError(f"results database {self.path}: {err}") from None

    def _trainee_id(self, conn: sqlite3.Connection, name: str) -> int:
        row = conn.execute("SELECT id FROM trainees WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise DBError(f"no trainee {name!r}")
        return int(row[0])

    def add_trainee(self, name: str) -> None:
        check_name(name)
        with self.write() as conn:
            if conn.execute("SELECT 1 FROM trainees WHERE name = ?", (name,)).fetchone():
                raise DBError(f"trainee {name!r} already exists")
            conn.execute("INSERT INTO trainees (name, created) VALUES (?, ?)", (name, now_iso()))

    def remove_trainee(self, name: str, force: bool = False) -> int:
        """Games are the results a course is about, so a trainee who has any is kept unless `force`, which
        deletes their games and decisions too.  Keys, invites and sessions always go.  Returns the number of
        games deleted."""
        with self.write() as conn:
            tid = self._trainee_id(conn, name)
            n = conn.execute("SELECT COUNT(*) FROM games WHERE trainee_id = ?", (tid,)).fetchone()[0]
            if n and not force:
                raise DBError(f"trainee {name!r} has {n} game(s); removing them too needs force")
            conn.execute("DELETE FROM games WHERE trainee_id = ?", (tid,))
            conn.execute("DELETE FROM trainees WHERE id = ?", (tid,))
            return int(n)

    def trainees(self) -> list[Trainee]:
        now = now_iso()
        keys: dict[int, list[Key]] = {}
        for r in self.rows("SELECT trainee_id, fingerprint, comment, added FROM keys ORDER BY added, id"):
            keys.setdefault(r["trainee_id"], []).append(Key(r["fingerprint"], r["comment"], r["added"]))
        rows = self.rows(
            "SELECT t.id, t.name, t.created, t.trainer, t.student_id,"
            " EXISTS (SELECT 1 FROM invites i WHERE i.trainee_id = t.id AND i.used IS NULL AND i.expires > ?) AS inv,"
            " (SELECT COUNT(*) FROM games g WHERE g.trainee_id = t.id) AS n FROM trainees t ORDER BY t.name",
            (now,))
        return [Trainee(r["name"], r["created"], keys.get(r["id"], []), bool(r["inv"]), r["n"], bool(r["trainer"]),
                        r["student_id"]) for r in rows]

    def add_keys(self, name: str, key_texts: Sequence[str | SSHKey], *, create: bool = False) -> list[Key]:
        """All the keys or none: an admin adding a file of keys never ends up with half of it."""
        check_name(name)
        parsed = [key_of(k) for k in key_texts]
        with self.write() as conn:
            if create and not conn.execute("SELECT 1 FROM trainees WHERE name = ?", (name,)).fetchone():
                conn.execute("INSERT INTO trainees (name, created) VALUES (?, ?)", (name, now_iso()))
            tid = self._trainee_id(conn, name)
            return [self._bind(conn, tid, key) for key in parsed]

    def _bind(self, conn: sqlite3.Connection, tid: int, key: SSHKey, *, owner_hint: bool = True) -> Key:
        fp = key.get_fingerprint("sha256")
        owner = conn.execute("SELECT t.name FROM keys k JOIN trainees t ON t.id = k.trainee_id"
                             " WHERE k.fingerprint = ?", (fp,)).fetchone()
        if owner is not None:
            raise DBError(f"key {fp} is already bound to trainee {owner[0]!r}" if owner_hint
                          else f"key {fp} is already enrolled")
        comment = (key.get_comment_bytes() or b"").decode("utf-8", "replace")
        line = key.export_public_key("openssh").decode().strip()
        added = now_iso()
        conn.execute("INSERT INTO keys (trainee_id, fingerprint, key, comment, added) VALUES (?, ?, ?, ?, ?)",
                     (tid, fp, line, comment, added))
        return Key(fp, comment, added)

    def key_matches(self, name: str, key: SSHKey) -> bool:
        """For the SSH server's public-key check; an unknown name is simply no match."""
        fp = key.get_fingerprint("sha256")
        return bool(self.rows("SELECT 1 FROM keys k JOIN trainees t ON t.id = k.trainee_id"
                              " WHERE t.name = ? AND k.fingerprint = ?", (name, fp)))

    def key_owner(self, key: SSHKey) -> str | None:
        """The trainee a key is bound to, if any (an invited trainee may enrol only a key nobody holds)."""
        rows = self.rows("SELECT t.name FROM keys k JOIN trainees t ON t.id = k.trainee_id WHERE k.fingerprint = ?",
                         (key.get_fingerprint("sha256"),))
        return str(rows[0]["name"]) if rows else None

    def invite(self, name: str, ttl: float = 86400) -> str:
        """Only a salted slow hash is kept: a copy of the database does not let anyone enrol."""
        if not (isinstance(ttl, int | float) and math.isfinite(ttl) and ttl > 0):
            raise DBError(f"an invite must last a positive number of seconds, not {ttl!r}")
        raw = secrets.token_hex(4)
        code = f"{raw[:4]}-{raw[4:]}"
        salt = secrets.token_bytes(16)
        digest = code_hash(code, salt)
        with self.write() as conn:
            tid = self._trainee_id(conn, name)
            conn.execute("DELETE FROM invites WHERE trainee_id = ? AND used IS NULL", (tid,))
            conn.execute("INSERT INTO invites (trainee_id, code_hash, salt, expires) VALUES (?, ?, ?, ?)",
                         (tid, digest, salt, now_iso(ttl)))
        return code

    def has_invite(self, name: str) -> bool:
        return bool(self.rows("SELECT 1 FROM invites i JOIN trainees t ON t.id = i.trainee_id"
                              " WHERE t.name = ? AND i.used IS NULL AND i.expires > ?", (name, now_iso())))

    def redeem(self, name: str, code: str, key: str | SSHKey) -> bool:
        """The slow hash is computed outside the write lock; the invite is then claimed with a conditional
        update, so of two simultaneous redemptions exactly one wins.  A key enrolled to someone else raises
        DBError without naming them (the message goes to whoever connected)."""
        pub = key_of(key)
        rows = self.rows("SELECT i.id, i.code_hash, i.salt FROM invites i JOIN trainees t ON t.id = i.trainee_id"
                         " WHERE t.name = ? AND i.used IS NULL AND i.expires > ? ORDER BY i.id DESC LIMIT 1",
                         (name, now_iso()))
        if not rows:
            return False
        if not hmac.compare_digest(code_hash(code, rows[0]["salt"]), rows[0]["code_hash"]):
            return False
        with self.write() as conn:
            claimed = conn.execute("UPDATE invites SET used = ? WHERE id = ? AND used IS NULL AND expires > ?",
                                   (now_iso(), rows[0]["id"], now_iso())).rowcount
            if claimed != 1:
                return False
            tid = self._trainee_id(conn, name)
            fp = pub.get_fingerprint("sha256")
            if not conn.execute("SELECT 1 FROM keys WHERE trainee_id = ? AND fingerprint = ?", (tid, fp)).fetchone():
                self._bind(conn, tid, pub, owner_hint=False)
        return True

    def session_started(self, name: str, peer: str, fingerprint: str) -> int:
        with self.write() as conn:
            tid = self._trainee_id(conn, name)
            cur = conn.execute("INSERT INTO sessions (trainee_id, peer, key_fingerprint, started) VALUES (?, ?, ?, ?)",
                               (tid, peer, fingerprint, now_iso()))
            return int(cur.lastrowid or 0)

    def session_ended(self, session_id: int, reason: str) -> None:
        with self.write() as conn:
            if conn.execute("UPDATE sessions SET ended = ?, end_reason = ? WHERE id = ?",
                            (now_iso(), reason, session_id)).rowcount != 1:
                raise DBError(f"no session {session_id}")

    def sessions_left_open(self, reason: str) -> int:
        """End every session still open: called as a server starts, when none can be running (the data
        directory's lock is held), so these are a killed server's; how many."""
        with self.write() as conn:
            return conn.execute("UPDATE sessions SET ended = ?, end_reason = ? WHERE ended IS NULL",
                                (now_iso(), reason)).rowcount

    def game_started(self, name: str, course: str, exercise: str, scenario: str, scenario_digest: str, seat: str,
                     record_path: str | os.PathLike[str], session_id: int | None = None,
                     table_id: int | None = None, allowance: Allowance | None = None) -> int:
        """A new game, filed as being played; with `allowance`, only if the exercise allows it now, checked in
        the same transaction (gradebook.NoAttempt says why not)."""
        with self.write() as conn:
            tid = self._trainee_id(conn, name)
            if allowance is not None:
                check_allowance(conn, tid, course, exercise, allowance)
            if session_id is not None and not conn.execute("SELECT 1 FROM sessions WHERE id = ?",
                                                           (session_id,)).fetchone():
                raise DBError(f"no session {session_id}")
            cur = conn.execute(
                "INSERT INTO games (trainee_id, session_id, course, exercise, scenario, scenario_digest, seat,"
                " record_path, status, started, table_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'playing', ?, ?)",
                (tid, session_id, course, exercise, scenario, scenario_digest, seat, str(record_path), now_iso(),
                 table_id))
            return int(cur.lastrowid or 0)

    def _status(self, conn: sqlite3.Connection, game_id: int) -> str:
        row = conn.execute("SELECT status FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise DBError(f"no game {game_id}")
        return str(row[0])

    def game_finished(self, game_id: int, *, payoff: float, payoffs: list[float], baseline: float,
                      counterfactuals: dict[str, float], welfare_optimum: float | None, efficiency: float | None,
                      duration: float, decisions: list[Decision], seat_optimum: float | None = None,
                      table_efficiency: float | None = None, bot_turns: int | None = None,
                      mode: str | None = None) -> None:
        """The result and every decision in one transaction: a game is never finished with half its
        decisions.  `efficiency` is the seat's own (its payoff over `seat_optimum`, its payoff at the welfare
        optimum), `table_efficiency` the table's total over the optimum."""
        with self.write() as conn:
            status = self._status(conn, game_id)
            if status != "playing":
                raise DBError(f"game {game_id} is {status}, not playing")
            conn.execute(
                "UPDATE games SET status = 'finished', finished = ?, duration = ?, payoff = ?, payoffs = ?,"
                " baseline = ?, counterfactuals = ?, welfare_optimum = ?, efficiency = ?, seat_optimum = ?,"
                " table_efficiency = ?, bot_turns = ?, mode = COALESCE(?, mode) WHERE id = ?",
                (now_iso(), duration, payoff, json.dumps(list(payoffs)), baseline, json.dumps(dict(counterfactuals)),
                 welfare_optimum, efficiency, seat_optimum, table_efficiency, bot_turns, mode, game_id))
            for i, d in enumerate(decisions):
                try:
                    numbers = json.dumps(d.numbers)
                except (TypeError, ValueError) as err:
                    raise DBError(
                        f"game {game_id}, decision {i} (turn {d.turn}): numbers are not JSON: {err}") from None
                try:
                    conn.execute("INSERT INTO decisions (game_id, turn, phase, choice, cost, numbers, timed_out)"
                                 " VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 (game_id, d.turn, d.phase, d.choice, d.cost, numbers, int(d.timed_out)))
                except sqlite3.IntegrityError as err:
                    raise DBError(f"game {game_id}, decision {i} (turn {d.turn}): {err}") from None

    def game_abandoned(self, game_id: int) -> bool:
        """Idempotent, since a dropped connection and the game's own end may race: False when the game had
        already ended (finished or abandoned)."""
        with self.write() as conn:
            if self._status(conn, game_id) != "playing":
                return False
            conn.execute("UPDATE games SET status = 'abandoned', finished = ? WHERE id = ?", (now_iso(), game_id))
            return True

    _GAME_SQL = "SELECT g.*, t.name AS trainee FROM games g JOIN trainees t ON t.id = g.trainee_id"

    @staticmethod
    def _game_row(r: sqlite3.Row) -> GameRow:
        d = {f: r[f] for f in GameRow.__dataclass_fields__}
        d.update(payoffs=_loads(d["payoffs"]), counterfactuals=_loads(d["counterfactuals"]))
        return GameRow(**d)

    def game(self, game_id: int) -> GameRow | None:
        rows = self.rows(f"{self._GAME_SQL} WHERE g.id = ?", (game_id,))
        return self._game_row(rows[0]) if rows else None

    def games(self, course: str, exercise: str, status: str = "finished") -> list[GameRow]:
        """An exercise's games in one status, oldest first (the class debrief's material)."""
        rows = self.rows(f"{self._GAME_SQL} WHERE g.course = ? AND g.exercise = ? AND g.status = ?"
                         " ORDER BY g.started, g.id", (course, exercise, status))
        return [self._game_row(r) for r in rows]

    def unfinished_games(self, name: str) -> list[GameRow]:
        rows = self.rows(f"{self._GAME_SQL} WHERE t.name = ? AND g.status = 'playing'"
                         " ORDER BY g.started DESC, g.id DESC", (name,))
        return [self._game_row(r) for r in rows]

    def results(self, course: str | None = None, trainee: str | None = None,
                exercises: Mapping[tuple[str, str], tuple[str, str]] | None = None) -> list[dict[str, Any]]:
        """Flat rows with `RESULT_COLUMNS`, oldest first: what a CSV export or a pandas DataFrame wants.
        `exercises`: (course, exercise) -> (mode, score objective), from the course file; without it a
        game's mode is the one filed with it (where it was) and its score is left out (the objective is the
        course's)."""
        rows = [dict(r) for r in self.rows(
            "SELECT t.name AS trainee, g.course, g.exercise, g.scenario, g.seat, g.status, g.started, g.finished,"
            " g.duration, g.payoff, g.baseline, g.payoff - g.baseline AS improvement,"
            " json_extract(g.counterfactuals, '$.myopic') AS counterfactual_myopic,"
            " json_extract(g.counterfactuals, '$.upper') AS counterfactual_upper,"
            " json_extract(g.counterfactuals, '$.lower') AS counterfactual_lower, g.welfare_optimum, g.efficiency,"
            " (SELECT COUNT(*) FROM decisions d WHERE d.game_id = g.id) AS decisions, g.record_path,"
            " g.table_id AS \"table\", g.mode, g.seat_optimum, g.table_efficiency, g.bot_turns, g.id, g.payoffs"
            " FROM games g JOIN trainees t ON t.id = g.trainee_id"
            " WHERE (?1 IS NULL OR g.course = ?1) AND (?2 IS NULL OR t.name = ?2) ORDER BY g.started, g.id",
            (course, trainee))]
        for r in rows:
            mode, objective = (exercises or {}).get((r["course"], r["exercise"]), (r["mode"], None))
            r["mode"], r["objective"] = mode, objective
        attempts = attempt_numbers(rows)
        out = []
        for r in rows:
            payoffs = _loads(r["payoffs"])
            r["attempt"] = attempts[r["id"]]
            r["score"] = None if r["objective"] is None else score(r["objective"], r["payoff"], payoffs, r["baseline"])
            r["table"] = None if r["table"] is None else int(r["table"])
            r["bot_played"] = None if r["bot_turns"] is None else r["bot_turns"] > 0
            out.append({c: r[c] for c in RESULT_COLUMNS})
        return out

    def decisions(self, filters: Filters | None = None) -> list[dict[str, Any]]:
        """Every decision of the games kept, as `classroom.decisions` gives them, each saying whether the
        clock made it (`timed_out`: the person's time ran out, the table passed or rejected for them)."""
        rows = self.classroom.decisions(filters or Filters())
        clock = {(r["game_id"], r["turn"] + 1, r["phase"]) for r in self.rows(
            "SELECT game_id, turn, phase FROM decisions WHERE timed_out = 1")}
        for r in rows:
            r["timed_out"] = (r["game"], r["turn"], r["phase"]) in clock
        return rows
