"""Invites for a whole class, and an invite redeemed by a browser.

A trainer enrols a class from one roster: one code per trainee, every trainee new to the database made in
the same transaction, so a roster half-filed never leaves some trainees invited and others not.  A code
works at either door: typed at the SSH enrolment screen it binds the key the trainee connected with
(`ResultsDB.redeem`), followed as a web link it enrols that browser (`redeem_web`, which says why a code
does not work, since the browser shows it: wrong, used, expired, or no invite at all)."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from negtui.classroom.dbtypes import DBError, now_iso
from negtui.classroom.identity import check_name, code_hash
from negtui.classroom.tablebook import Store


@dataclass(frozen=True)
class Issued:
    """A code made for a trainee: shown once, only its salted hash kept."""

    trainee: str
    code: str
    expires: str  # now_iso's spelling (UTC)
    created: bool  # the trainee was new to the database


class Redeemed(Enum):
    """What following a web link with a code came to."""

    ENROLLED = "enrolled"
    WRONG = "wrong"  # an invite is pending, and this is not its code
    USED = "used"  # the trainee's last invite was used already
    EXPIRED = "expired"
    NONE = "none"  # no such trainee, or never invited


def new_code() -> str:
    raw = secrets.token_hex(4)
    return f"{raw[:4]}-{raw[4:]}"


class InviteBook:
    def __init__(self, db: Store) -> None:
        self.db = db

    def issue(self, names: Sequence[str], ttl: float, hashed: Callable[[int], None] | None = None) -> list[Issued]:
        """A new code for each of `names` (trainees not known yet are made), replacing any code still pending;
        all of them or none.  The slow hashes are made before the write lock is taken; `hashed(k)` is called
        after each, for a progress bar."""
        for name in names:
            check_name(name)
        if len(set(names)) != len(names):
            raise DBError("a trainee is named twice")
        made: list[tuple[str, str, bytes, bytes]] = []
        for k, name in enumerate(names, 1):
            code, salt = new_code(), secrets.token_bytes(16)
            made.append((name, code, salt, code_hash(code, salt)))
            if hashed is not None:
                hashed(k)
        expires = now_iso(ttl)
        out: list[Issued] = []
        with self.db.write() as conn:
            for name, code, salt, digest in made:
                row = conn.execute("SELECT id FROM trainees WHERE name = ?", (name,)).fetchone()
                created = row is None
                if created:
                    tid = int(conn.execute("INSERT INTO trainees (name, created) VALUES (?, ?)",
                                           (name, now_iso())).lastrowid or 0)
                else:
                    tid = int(row[0])
                conn.execute("DELETE FROM invites WHERE trainee_id = ? AND used IS NULL", (tid,))
                conn.execute("INSERT INTO invites (trainee_id, code_hash, salt, expires) VALUES (?, ?, ?, ?)",
                             (tid, digest, salt, expires))
                out.append(Issued(name, code, expires, created))
        return out

    def redeem_web(self, name: str, code: str, use: bool = True) -> Redeemed:
        """Use `name`'s pending invite if `code` is its code (`use` False: only say whether it would do).  As
        `ResultsDB.redeem`: the slow hash outside the write lock, then a conditional claim, so of two browsers
        following one link at once exactly one is enrolled."""
        rows = self.db.rows("SELECT i.id, i.code_hash, i.salt, i.expires, i.used FROM invites i"
                            " JOIN trainees t ON t.id = i.trainee_id WHERE t.name = ? ORDER BY i.id DESC LIMIT 1",
                            (name,))
        if not rows:
            return Redeemed.NONE
        row = rows[0]
        if not hmac.compare_digest(code_hash(code, row["salt"]), row["code_hash"]):
            return Redeemed.WRONG
        if row["used"] is not None:
            return Redeemed.USED
        if row["expires"] <= now_iso():
            return Redeemed.EXPIRED
        if not use:
            return Redeemed.ENROLLED
        with self.db.write() as conn:
            claimed = conn.execute("UPDATE invites SET used = ? WHERE id = ? AND used IS NULL AND expires > ?",
                                   (now_iso(), row["id"], now_iso())).rowcount
        return Redeemed.ENROLLED if claimed == 1 else Redeemed.USED

    def member(self, name: str) -> tuple[str, bool] | None:
        """When `name` was made a trainee and whether they are a trainer; None: no such trainee.  A browser's
        session is checked against the first (a trainee made again under the name is someone else)."""
        rows = self.db.rows("SELECT created, trainer FROM trainees WHERE name = ?", (name,))
        return (str(rows[0]["created"]), bool(rows[0]["trainer"])) if rows else None
