"""Reading files nobody vouches for: JSON and TOML (scenarios, topfiles, records, scoresheets, courses) and
CSV tables (a scoresheet's points, a roster).

Only regular files under a size limit are read (a FIFO, a device or /dev/zero would block or never
end); the text must be UTF-8; JSON's own rules hold (no NaN or Infinity); nesting, Unicode and numbers
are checked once, walking the decoded data, so a hostile file is an ordinary error with a JSON path.  A CSV
table's cells are bounded and hold no control characters, and a mistake in one is named by its line."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import stat
import unicodedata
from pathlib import Path

from negtui.scenario.limits import MAX_CELL, MAX_DEPTH

MAX_INT = 2**63 - 1


# control characters but tab and newline, and the bidirectional controls (they reorder what follows on screen)
_UNSHOWN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


class Untrusted(ValueError):
    """A file or text that cannot be read as the JSON it should be; `path` is a JSON path or '$'."""

    def __init__(self, message: str, path: str = "$"):
        super().__init__(message)
        self.path = path


class BadTable(Untrusted):
    """CSV text that cannot be read as a table; `line` (and `column`, from 1, where known) say where."""

    def __init__(self, message: str, line: int, column: int | None = None):
        super().__init__(message, f"line {line}" + (f", column {column}" if column is not None else ""))
        self.line, self.column = line, column


def size_text(limit: int) -> str:
    """A size limit in the unit it is a round number of: 32 MiB, 256 KiB, 100 bytes."""
    for unit, size in (("MiB", 2**20), ("KiB", 2**10)):
        if limit >= size:
            amount = limit / size
            return f"{amount:.0f} {unit}" if amount == int(amount) else f"{amount:.1f} {unit}"
    return f"{limit} bytes"


def one_line(text: str, limit: int) -> str:
    """Printable text on one line: control characters (escape sequences' ESC among them), format
    characters (bidirectional overrides) and surrogates dropped, whitespace runs made one space, cut
    to `limit` characters."""
    kept = []
    for ch in text:
        if ch.isspace():
            kept.append(" ")
        elif unicodedata.category(ch)[0] != "C":  # Cc control, Cf format, Cs surrogate, Co private use, Cn unassigned
            kept.append(ch)
    return " ".join("".join(kept).split())[:limit]


BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def control_problem(text: str, keep: str = "", *, strict: bool = False) -> str | None:
    """What makes `text` unfit to be shown on a terminal, or None: a control character (ESC starts the
    sequences a terminal acts on, CR and BS overwrite what was written) other than those in `keep`, or a
    bidirectional control (it reorders what follows it on screen).  `strict` (ids): any character of
    Unicode's "other" categories, format characters among them."""
    if text.isprintable():  # the common case, in C: no control, format, unassigned or private-use character
        return None
    for i, ch in enumerate(text):
        if ch in keep:
            continue
        cat = unicodedata.category(ch)
        if cat == "Cc" or ch in BIDI_CONTROLS or cat == "Cs" or (strict and cat[0] == "C"):
            what = "a bidirectional control" if ch in BIDI_CONTROLS else "a control character"
            if strict and cat[0] == "C" and cat != "Cc" and ch not in BIDI_CONTROLS:
                what = "an invisible or unassigned character"
            return f"holds {what} (U+{ord(ch):04X}) at character {i + 1}: text is shown on terminals, which act on it"
    return None


def printable(text: str) -> str:
    """Text safe to print whatever it holds: lone surrogates and control characters but newline and tab
    become escapes (a file name or a value in a message cannot move the cursor or hide what follows)."""
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return _UNSHOWN.sub(lambda m: f"\\x{ord(m.group()):02x}" if m.group() < "\u0100" else f"\\u{ord(m.group()):04x}",
                        text)


def read_text(path: Path, limit: int) -> str:
    """The file's text; refuses what is not a regular file, is over `limit` bytes or is not UTF-8."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise Untrusted("file not found") from None
    except OSError as err:
        raise Untrusted(f"cannot read file: {err.strerror or err}") from None
    except ValueError:  # a NUL in the name: no file can have it
        raise Untrusted("cannot read file: its name holds a NUL character") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "something that is not a regular file")
        raise Untrusted(f"cannot read {kind}: give a regular file")
    with os.fdopen(fd, "rb") as fh:
        try:
            data = fh.read(limit + 1)
        except OSError as err:
            raise Untrusted(f"cannot read file: {err.strerror or err}") from None
    if len(data) > limit:
        raise Untrusted(f"file is over the limit of {size_text(limit)}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise Untrusted(f"not UTF-8 text: byte {err.start} cannot be decoded") from None


def reject_constant(name: str) -> float:
    """json's parse_constant: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not a number JSON allows")


def loads(text: str) -> object:
    """Decode and check JSON text (one document)."""
    try:
        data = json.loads(text, parse_constant=reject_constant)
    except json.JSONDecodeError as err:
        raise Untrusted(f"not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}") from None
    except RecursionError:
        raise Untrusted(f"nested too deeply (more than {MAX_DEPTH} levels)") from None
    except ValueError as err:  # NaN/Infinity, or an integer of thousands of digits
        raise Untrusted(f"not valid JSON: {_too_long_integer(text) or err}") from None
    check(data)
    return data


def _key(k: str) -> str:
    if k.isidentifier() and k.isascii():
        return f".{k}"
    return f"[{json.dumps(k)}]"


def check(data: object) -> None:
    """Walk decoded JSON (without recursion): nesting depth, valid Unicode, finite numbers in range."""
    stack: list[tuple[object, str, int]] = [(data, "$", 0)]
    while stack:
        value, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Untrusted(f"nested too deeply (more than {MAX_DEPTH} levels)", path)
        if isinstance(value, str):
            _unicode(value, path)
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if abs(value) > MAX_INT:
                raise Untrusted("integer out of range", path)
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise Untrusted("number out of range (not finite)", path)
        elif isinstance(value, dict):
            for k, v in value.items():
                _unicode(k, path + " (a key)")
                stack.append((v, path + _key(k), depth + 1))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                stack.append((v, f"{path}[{i}]", depth + 1))


def _unicode(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise Untrusted(f"not valid Unicode: {printable(text[err.start:err.end])} is a lone surrogate",
                        printable(path)) from None


def load(path: Path, limit: int) -> object:
    return loads(read_text(path, limit))


def load_document(path: Path, limit: int, kind: str) -> object:
    """A TOML or JSON file (by its suffix) decoded under the same guards as every untrusted file; `kind`
    names what it should be in the message for another suffix ("a course is a .toml or .json file")."""
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        what = repr(suffix) if suffix else "a file without a suffix"
        raise Untrusted(f"{kind} is a .toml or .json file, not {what}")
    if suffix == ".json":
        return load(path, limit)
    import tomllib

    text = read_text(path, limit)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise Untrusted(f"not valid TOML: {err}") from None
    except RecursionError:
        raise Untrusted("nested too deeply") from None
    except ValueError as err:  # an integer of thousands of digits: Python's int() refuses to read it
        raise Untrusted(f"not valid TOML: {_too_long_integer(text) or err}") from None
    check(data)  # depth, Unicode and finite numbers (TOML allows nan and inf)
    return data


# Python reads at most this many digits into an int (sys.get_int_max_str_digits(), 4300 unless changed); a
# longer one is refused by json and tomllib with a message about Python, not about the file
_LONG_DIGITS = re.compile(r"[0-9][0-9_]{4299,}")


def _too_long_integer(text: str) -> str | None:
    """Where text holds an integer of more digits than Python reads, in words (None: it holds none)."""
    found = _LONG_DIGITS.search(text)
    if found is None:
        return None
    line = text.count("\n", 0, found.start()) + 1
    return f"an integer of {found.end() - found.start():,} digits at line {line} (a number is out of range long before)"


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")  # every control character but tab, LF and CR


def csv_rows(text: str, cell_limit: int = MAX_CELL) -> list[tuple[int, list[str]]]:
    """Every row of CSV text with the line it starts on (blank rows too, as []).  A byte-order mark at the
    start is dropped (spreadsheets write one in "CSV UTF-8"); a control character anywhere (a NUL: a binary
    file, or a name that would print wrongly) or a cell over `cell_limit` characters raises BadTable."""
    text = text.removeprefix("\ufeff")
    bad = _CONTROL.search(text)
    if bad is not None:
        line = text.count("\n", 0, bad.start()) + 1
        at = bad.start() - text.rfind("\n", 0, bad.start())
        raise BadTable(f"a control character (U+{ord(bad.group()):04X}) at character {at}, where text should be: "
                       "is this a CSV file?", line)
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[tuple[int, list[str]]] = []
    start = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return rows
        except csv.Error as err:  # csv's own limit on a cell (far above ours), or quoting it cannot follow
            if "field larger than field limit" in str(err):
                raise BadTable(f"a cell over the limit of {cell_limit:,} characters", start) from None
            raise BadTable(f"not CSV: {err}", start) from None
        for c, cell in enumerate(row, start=1):
            if len(cell) > cell_limit:
                raise BadTable(f"a cell over the limit of {cell_limit:,} characters", start, c)
        rows.append((start, row))
        start = reader.line_num + 1
