"""Signed records: an HMAC-SHA256 chain over the lines, with a key kept in the data directory.

Digests show that a record is a consistent game; they cannot show that it is the game that was played
(anyone can recompute them).  A writer holding a key adds `mac` to every line: the MAC of the line
(without its `mac`) chained to the previous line's, so no line can be edited, dropped, reordered or
added unnoticed by whoever holds the key.  A record cut off by a crash still checks up to its last
complete line."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

KEY_FILE = "record.key"
_START = b"negtui-record-mac/1\n"


class SigningKeyError(ValueError):
    """A key file that cannot be used."""


def canonical(line: dict) -> bytes:
    """The bytes a line's MAC covers: its JSON without `mac`, keys sorted, no spaces, ASCII."""
    body = {k: v for k, v in line.items() if k != "mac"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


class Chain:
    """The running MAC of a record's lines."""

    def __init__(self, key: bytes):
        self.key = key
        self.last = b""

    def next(self, line: dict) -> str:
        mac = hmac.new(self.key, (self.last or _START) + canonical(line), hashlib.sha256)
        self.last = mac.digest()
        return mac.hexdigest()


def read_key(path: str | os.PathLike[str]) -> bytes:
    p = Path(path)
    try:
        text = p.read_text(encoding="ascii").strip()
        key = bytes.fromhex(text)
    except FileNotFoundError:
        raise SigningKeyError(f"{p}: key file not found") from None
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise SigningKeyError(f"{p}: not a negtui record key ({err})") from None
    if len(key) < 16:
        raise SigningKeyError(f"{p}: a key needs at least 16 bytes")
    return key


def data_dir_key(data_dir: str | os.PathLike[str], name: str = KEY_FILE) -> bytes:
    """The data directory's record key (or another key of its, `name`: the web door's session key), made on
    first use (32 random bytes, readable by its owner only).

    A data directory is often first used by many processes at once (a class, a sweep): the key is written
    whole to a private file and then linked into place, so no process ever reads a key half written, and
    every process ends up with the one key that stays."""
    p = Path(data_dir) / name
    if not p.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=p.parent)  # mode 0600
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(_new_key())
                fh.flush()
                os.fsync(fh.fileno())
            try:
                os.link(tmp, p)
            except FileExistsError:  # another process's key won
                pass
            except OSError:  # a file system without hard links: create it exclusively instead
                _write_exclusively(p)
        finally:
            os.unlink(tmp)
    if stat.S_IMODE(p.stat().st_mode) & 0o077:
        raise SigningKeyError(f"{p}: the key file must be readable by its owner only (chmod 600)")
    return read_key(p)


def _new_key() -> str:
    """A key file's text: 32 random bytes in hex."""
    return secrets.token_hex(32) + "\n"


def _write_exclusively(p: Path) -> None:
    try:
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    with os.fdopen(fd, "w") as fh:
        fh.write(_new_key())


@dataclass(frozen=True)
class Signature:
    status: str  # "valid" | "unsigned" | "invalid"
    message: str
    line: int | None = None


def check_chain(lines: list[dict], key: bytes) -> Signature:
    """Check every complete line's MAC in order."""
    if not lines or "mac" not in lines[0]:
        return Signature("unsigned", "the record is not signed: its lines carry no MAC, so edits of people's "
                                     "moves cannot be ruled out")
    chain = Chain(key)
    for n, line in enumerate(lines, start=1):
        mac = line.get("mac")
        if not isinstance(mac, str):
            return Signature("invalid", "a signed record's line has no MAC (lines were added)", n)
        if not hmac.compare_digest(mac, chain.next(line)):
            return Signature("invalid", "the MAC does not match: this line, or one before it, was edited, "
                                        "removed or moved, or the key is another", n)
    return Signature("valid", f"signature valid: all {len(lines)} lines as written")
