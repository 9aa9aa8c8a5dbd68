"""The results database's student ids: the registrar's key for each trainee, which the wide gradebook
carries so that its rows import into the registrar's system without matching names by hand.  A trainee has
none until the trainer gives one (`negtui trainees add|set … --student-id`, or a class list); two trainees
never share one."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from negtui.classroom.dbtypes import DBError, now_iso
from negtui.classroom.identity import check_name, check_student_id
from negtui.classroom.tablebook import Store


@dataclass(frozen=True)
class Given:
    """What a class list gave: a trainee's student id, and the line it is on (for the messages)."""

    trainee: str
    student_id: str
    line: int = 0


@dataclass(frozen=True)
class Filed:
    """What setting a class list's ids did: trainees created (`create`), ids set or changed, ids already so."""

    created: tuple[str, ...]
    changed: tuple[str, ...]
    same: tuple[str, ...]


def _holder(conn: sqlite3.Connection, student_id: str) -> str | None:
    row = conn.execute("SELECT name FROM trainees WHERE student_id = ?", (student_id,)).fetchone()
    return None if row is None else str(row[0])


class StudentBook:
    def __init__(self, db: Store) -> None:
        self.db = db

    def set(self, name: str, student_id: str | None) -> None:
        """`name`'s id (None or "": none); DBError for a trainee not known or an id another one holds."""
        sid = check_student_id(student_id) if student_id else None
        with self.db.write() as conn:
            holder = None if sid is None else _holder(conn, sid)
            if holder is not None and holder != name:
                raise DBError(f"student id {sid!r} is {holder}'s already")
            if conn.execute("UPDATE trainees SET student_id = ? WHERE name = ?", (sid, name)).rowcount != 1:
                raise DBError(f"no trainee {name!r}")

    def set_all(self, given: Sequence[Given], *, create: bool = False) -> Filed:
        """Every id of a class list or none (one transaction): a trainee not known is an error naming its line,
        unless `create` (then they are added, with no key: invite them); an id held by a trainee the list does
        not give it to is an error too.  Ids may move between the list's trainees (the list is the truth)."""
        for g in given:
            check_name(g.trainee)
            check_student_id(g.student_id)
        with self.db.write() as conn:
            known = {str(r[0]): r[1] for r in conn.execute("SELECT name, student_id FROM trainees")}
            missing = [g for g in given if g.trainee not in known]
            if missing and not create:
                raise DBError("; ".join(f"line {g.line}: no trainee {g.trainee!r}" for g in missing[:10])
                              + (f"; and {len(missing) - 10} more" if len(missing) > 10 else "")
                              + " (--create adds them, without a key: invite them then)")
            named = {g.trainee for g in given}
            for g in given:
                holder = _holder(conn, g.student_id)
                if holder is not None and holder not in named:
                    raise DBError(f"line {g.line}: student id {g.student_id!r} is {holder}'s already "
                                  f"(give {holder} another one in the list, or `negtui trainees set {holder} "
                                  "--student-id ''` to clear it)")
            for g in missing:
                conn.execute("INSERT INTO trainees (name, created) VALUES (?, ?)", (g.trainee, now_iso()))
            # cleared first, so that ids swapped between two trainees of the list never meet in the index
            conn.executemany("UPDATE trainees SET student_id = NULL WHERE name = ?", [(g.trainee,) for g in given])
            conn.executemany("UPDATE trainees SET student_id = ? WHERE name = ?",
                             [(g.student_id, g.trainee) for g in given])
        news = {g.trainee for g in missing}
        return Filed(created=tuple(g.trainee for g in missing),
                     changed=tuple(g.trainee for g in given
                                   if g.trainee not in news and known[g.trainee] != g.student_id),
                     same=tuple(g.trainee for g in given if known.get(g.trainee) == g.student_id))

    def all(self) -> dict[str, str]:
        """Every trainee's id that has one, by name."""
        return {str(r["name"]): str(r["student_id"])
                for r in self.db.rows("SELECT name, student_id FROM trainees WHERE student_id IS NOT NULL")}
