"""Who a browser is to the web door: a session cookie, given when an invite link is followed.

The cookie is signed, not looked up: an HMAC-SHA256 over the trainee's name, when the trainee was created
and when the cookie was given, with a key kept in the data directory (`web.key`, mode 0600, made as the
records key is).  So nothing is stored per browser and the server can restart without signing anyone out;
a trainee removed (or removed and made again under the same name) is let in by no cookie given before, as
the creation time no longer matches; a cookie lasts `MAX_AGE` at most, then the trainee asks for a new
invite.  Stopping every browser at once: delete `web.key`."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from dataclasses import dataclass
from pathlib import Path

from negtui.classroom.dbtypes import DBError
from negtui.classroom.identity import check_name

KEY_FILE = "web.key"
COOKIE = "negtui_session"
MAX_AGE = 30 * 86400  # seconds a browser stays enrolled: a course's month
_VERSION = "1"
MAX_COOKIE = 400  # characters; a longer one is no cookie of ours


def key(data_dir: Path) -> bytes:
    from negtui.record.signing import data_dir_key

    return data_dir_key(data_dir, KEY_FILE)


def _mac(secret: bytes, body: str) -> str:
    digest = hmac.new(secret, body.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def give(secret: bytes, trainee: str, created: str, now: float | None = None) -> str:
    """The cookie's value for `trainee` (created at `created`, the database's spelling)."""
    body = f"{_VERSION}:{trainee}:{int(time.time() if now is None else now)}"
    return f"{body}:{_mac(secret, body + ':' + created)}"


@dataclass(frozen=True)
class Claim:
    """What a cookie says, once its signature is checked against the trainee's creation time."""

    trainee: str
    given: int  # seconds since the epoch


def read(value: str | None) -> tuple[str, str] | None:
    """The trainee a cookie names and its body, before anything is checked (None: not a cookie of ours)."""
    if not value or len(value) > MAX_COOKIE or value.count(":") != 3:  # a name may hold dots, never a colon
        return None
    version, trainee, given, _ = value.split(":")
    if version != _VERSION or not given.isdigit():
        return None
    try:
        check_name(trainee)
    except DBError:
        return None
    return trainee, f"{version}:{trainee}:{given}"


def check(secret: bytes, value: str | None, created: str | None, now: float | None = None) -> Claim | None:
    """The claim of a cookie signed with `secret` for a trainee created at `created` (None: no such trainee),
    given at most MAX_AGE ago; None for anything else."""
    parsed = read(value)
    if parsed is None or created is None or value is None:
        return None
    trainee, body = parsed
    if not hmac.compare_digest(_mac(secret, body + ":" + created), value.rsplit(":", 1)[1]):
        return None
    given = int(body.rsplit(":", 1)[1])
    age = (time.time() if now is None else now) - given
    if not -60 <= age <= MAX_AGE:
        return None
    return Claim(trainee, given)
