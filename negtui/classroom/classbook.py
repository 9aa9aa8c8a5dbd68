"""The results database as the trainer's console reads and writes it: who is online and where, the
trainer's notices to the whole class, trainer accounts, and every decision with its coaching numbers
(`negtui results --decisions`).  Each session's app writes its own place; the console only reads them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from negtui.classroom.dbtypes import DBError, now_iso
from negtui.classroom.tablebook import Store
from negtui.table.talk import clean

PLACE_CHARS = 200
NOTICES_KEPT = 500  # the newest notices; older ones go when a new one is sent

# the columns of `decisions()` every row has, in order; the coaching numbers follow (see `decision_columns`)
DECISION_COLUMNS: tuple[str, ...] = (
    "trainee", "course", "exercise", "table", "game", "seat", "status", "turn", "phase", "choice", "cost",
    "reference", "agreeing",
)


@dataclass(frozen=True)
class Present:
    """A trainee (or trainer) with an open session."""

    name: str
    session: int
    since: str  # when the session started (UTC, ISO)
    place: str  # what their app last said it shows ("" before it said anything)


@dataclass(frozen=True)
class Filters:
    """Which decisions: None is any."""

    course: str | None = None
    exercise: str | None = None
    trainee: str | None = None
    table: int | None = None


class ClassBook:
    def __init__(self, db: Store) -> None:
        self.db = db

    # --- trainer accounts ---------------------------------------------------------------------------------
    def set_trainer(self, name: str, trainer: bool = True) -> None:
        with self.db.write() as conn:
            if conn.execute("UPDATE trainees SET trainer = ? WHERE name = ?", (int(trainer), name)).rowcount != 1:
                raise DBError(f"no trainee {name!r}")

    def is_trainer(self, name: str) -> bool:
        rows = self.db.rows("SELECT trainer FROM trainees WHERE name = ?", (name,))
        return bool(rows and rows[0]["trainer"])

    # --- who is where ---------------------------------------------------------------------------------------
    def place(self, session_id: int, text: str) -> None:
        """Where a session's app is now, in its own words (the lobby, a table and its turn, …)."""
        with self.db.write() as conn:
            conn.execute("UPDATE sessions SET place = ? WHERE id = ?", (clean(text)[:PLACE_CHARS], session_id))

    def online(self) -> list[Present]:
        """Every open session, by name then age (one person may have several)."""
        rows = self.db.rows(
            "SELECT t.name, s.id, s.started, s.place FROM sessions s JOIN trainees t ON t.id = s.trainee_id"
            " WHERE s.ended IS NULL ORDER BY t.name, s.started, s.id")
        return [Present(r["name"], r["id"], r["started"], r["place"] or "") for r in rows]

    def close_left_over(self, why: str) -> int:
        """Sessions a stopped server left open (their apps went with it); how many."""
        with self.db.write() as conn:
            return int(conn.execute("UPDATE sessions SET ended = ?, end_reason = ? WHERE ended IS NULL",
                                    (now_iso(), why)).rowcount)

    def live_games(self) -> list[dict[str, Any]]:
        """Games being played now, newest first: at a table whose game is under way, or alone in a session still
        open (a game whose app went away without filing it is not live, whatever its row says; a seat taken at
        a table waiting for people is filed as its game, not played yet)."""
        rows = self.db.rows(
            "SELECT t.name AS trainee, g.course, g.exercise, g.seat, g.started, g.record_path, g.table_id AS \"table\""
            " FROM games g JOIN trainees t ON t.id = g.trainee_id LEFT JOIN sessions s ON s.id = g.session_id"
            " LEFT JOIN tables tb ON tb.id = g.table_id WHERE g.status = 'playing' AND"
            " (tb.status = 'playing' OR (g.table_id IS NULL AND s.id IS NOT NULL AND s.ended IS NULL))"
            " ORDER BY g.started DESC, g.id DESC")
        return [dict(r) for r in rows]

    # --- the trainer's notices --------------------------------------------------------------------------------
    def notice(self, text: str) -> int:
        """A message to everyone online, wherever they are; its id (0: nothing to send)."""
        text = clean(text)
        if not text:
            return 0
        with self.db.write() as conn:
            cur = conn.execute("INSERT INTO notices (sent, text) VALUES (?, ?)", (now_iso(), text))
            new = int(cur.lastrowid or 0)
            conn.execute("DELETE FROM notices WHERE id <= ?", (new - NOTICES_KEPT,))
            return new

    def last_notice(self) -> int:
        return int(self.db.rows("SELECT COALESCE(MAX(id), 0) FROM notices")[0][0])

    def notices_after(self, notice_id: int, limit: int = NOTICES_KEPT) -> list[tuple[int, str, str]]:
        """(id, when sent, text) of the notices sent after notice `notice_id`, oldest first (the newest `limit`)."""
        rows = self.db.rows("SELECT id, sent, text FROM notices WHERE id > ? ORDER BY id DESC LIMIT ?",
                            (notice_id, limit))
        return [(int(r["id"]), r["sent"], r["text"]) for r in reversed(rows)]

    def notices_since(self, sent: str, limit: int) -> list[tuple[int, str, str]]:
        """(id, when sent, text) of the newest `limit` notices sent at or after `sent` (now_iso's spelling),
        oldest first."""
        rows = self.db.rows("SELECT id, sent, text FROM notices WHERE sent >= ? ORDER BY id DESC LIMIT ?",
                            (sent, limit))
        return [(int(r["id"]), r["sent"], r["text"]) for r in reversed(rows)]

    # --- results the trainer holds until released ---------------------------------------------------------------
    def release(self, course: str, exercise: str) -> None:
        """Let the trainees see the exercise's results (held under private roles, or when the course says so)."""
        with self.db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO releases (course, exercise, released) VALUES (?, ?, ?)",
                         (course, exercise, now_iso()))

    def released(self, course: str) -> set[str]:
        """The exercises of the course whose results the trainer has released."""
        return {r["exercise"] for r in self.db.rows("SELECT exercise FROM releases WHERE course = ?", (course,))}

    # --- decisions ----------------------------------------------------------------------------------------------
    def decisions(self, filters: Filters = Filters()) -> list[dict[str, Any]]:
        """Every decision of the games kept (finished ones: a game's decisions are kept with its result),
        oldest first, with its coaching numbers flattened (`decision_columns`); `numbers` holds them whole."""
        f = filters
        rows = self.db.rows(
            "SELECT t.name AS trainee, g.course, g.exercise, g.table_id AS \"table\", g.id AS game, g.seat, g.status,"
            " d.turn, d.phase, d.choice, d.cost, d.numbers FROM decisions d JOIN games g ON g.id = d.game_id"
            " JOIN trainees t ON t.id = g.trainee_id WHERE (?1 IS NULL OR g.course = ?1)"
            " AND (?2 IS NULL OR g.exercise = ?2) AND (?3 IS NULL OR t.name = ?3) AND (?4 IS NULL OR g.table_id = ?4)"
            " ORDER BY g.started, g.id, d.turn, d.id", (f.course, f.exercise, f.trainee, f.table))
        return [_flat(dict(r)) for r in rows]


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    """The turn counted from 1; a decision's numbers as columns: what each lens makes of the choice made
    (`value_<lens>`), and what each lens (or the exact solution) would have chosen and what that is worth
    (`<who>_choice`, `<who>_value`, valued as `reference` says)."""
    row["turn"] += 1  # counted from 1, as the game's header counts
    numbers = json.loads(row["numbers"] or "{}")
    reference = numbers.get("reference", "")
    row["reference"] = reference
    row["agreeing"] = " ".join(numbers.get("agreeing") or [])
    yours = numbers.get("yours") or {}
    for lens, v in sorted((yours.get("values") or {}).items()):
        row[f"value_{lens}"] = v
    for other in numbers.get("others") or []:
        who, values = str(other.get("who")), other.get("values") or {}
        row[f"{who}_choice"] = choice_text(other)
        row[f"{who}_value"] = valued(values, reference)
    row["numbers"] = numbers
    return row


def choice_text(c: dict[str, Any]) -> str:
    if "partner" not in c:
        return "accept" if c.get("accept") else "reject"
    words = c.get("words") or "no offer"
    return f"to {c['partner']}: {words}"


def valued(values: dict[str, float], reference: str) -> float | None:
    if reference == "exact":
        return values.get("exact")
    lenses = [v for k, v in values.items() if k != "exact"]
    return round(sum(lenses) / len(lenses), 6) if lenses else None


def decision_columns(rows: list[dict[str, Any]]) -> list[str]:
    """The CSV's columns: the fixed ones, then every coaching column any row has, in a stable order."""
    extra = sorted({k for r in rows for k in r} - set(DECISION_COLUMNS) - {"numbers"})
    return [*DECISION_COLUMNS, *extra]
