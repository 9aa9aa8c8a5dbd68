"""Who a trainee is to `negtui serve`: a name usable as an SSH user name, OpenSSH public keys, the
one-time invite codes (stored only as salted hashes), and the student id a registrar knows them by."""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

from negtui.classroom.dbtypes import DBError

if TYPE_CHECKING:
    from asyncssh import SSHKey

PBKDF2_ROUNDS = 100_000

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", re.ASCII)
NAME_RULE = "1–64 letters, digits, '-', '_' or '.', starting with a letter or digit"


def check_name(name: str) -> str:
    """Trainee names are SSH user names, so only characters every client and shell pass through unchanged."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise DBError(f"trainee name {name!r} is not allowed: {NAME_RULE}")
    return name


MAX_STUDENT_ID = 64
STUDENT_ID_RULE = f"1–{MAX_STUDENT_ID} characters on one line, no control or invisible character"


def check_student_id(text: str) -> str:
    """A registrar's id as the gradebook carries it: any visible text (ids are "S-0042", "2024/117",
    "ab123"), so only what would move a terminal's cursor, hide text or break a CSV row is refused; the
    spaces round it, which a copied cell brings along, are dropped."""
    from negtui.scenario.untrusted import control_problem

    sid = text.strip() if isinstance(text, str) else ""
    problem = control_problem(sid, strict=True)
    if problem is not None:
        raise DBError(f"student id {sid!r} {problem}")
    if not 1 <= len(sid) <= MAX_STUDENT_ID:
        raise DBError(f"student id {sid[:MAX_STUDENT_ID]!r}{'…' if len(sid) > MAX_STUDENT_ID else ''} is not "
                      f"allowed: {STUDENT_ID_RULE}")
    return sid


def parse_public_key(text: str) -> SSHKey:
    """One OpenSSH public key line; a private key is refused (asyncssh would quietly derive its public half,
    and a private key pasted into an admin command is a mistake worth naming)."""
    import asyncssh

    line = text.strip()
    if "PRIVATE KEY" in line:
        raise DBError("not an OpenSSH public key: this is a private key; give the .pub file")
    if not line or "\n" in line:
        raise DBError("not an OpenSSH public key: expected one line 'ssh-ed25519 AAAA… comment'")
    try:
        return asyncssh.import_public_key(line)
    except (asyncssh.KeyImportError, ValueError, TypeError) as err:
        raise DBError(f"not an OpenSSH public key: {err} ({line[:40]!r})") from None


def key_of(key: str | SSHKey) -> SSHKey:
    return parse_public_key(key) if isinstance(key, str) else key


def code_hash(code: str, salt: bytes) -> bytes:
    """Codes are compared without the dash, spaces or case, so `ab12-CD34` and `ab12cd34` both work."""
    canon = re.sub(r"[\s-]", "", code).lower()
    return hashlib.pbkdf2_hmac("sha256", canon.encode(), salt, PBKDF2_ROUNDS)
