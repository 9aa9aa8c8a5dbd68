"""A scoresheet's points as a CSV table, for trainers who keep the master scoresheet in a spreadsheet.

One row per option, one column per party:

    issue,option,region,city,upland,valley
    fares,flat,10,25,20,30

The file is read under the same guards as every file nobody vouches for (a regular file beside the sheet,
a size limit, UTF-8, cells of bounded size), and every mistake in it is reported at once with its line and
column, beside the scoresheet's own.
"""

from __future__ import annotations

import math
import re
from pathlib import Path, PurePath

from negtui.scenario import limits as lim
from negtui.scenario import untrusted
from negtui.scenario.scoresheets.model import Scoresheet

Points = dict[tuple[str, str], dict[str, int | float]]  # (issue id, option id) -> party id -> points
KEYS = ("issue", "option")
# numbers as a spreadsheet writes them: ASCII digits, no `_` (Python's int() reads 1_0 as 10, and other
# scripts' digits), no nan or inf
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def number(text: str) -> int | float | None:
    """A cell's number (an integer where it is written as one), or None if it is not a finite number in
    range."""
    if _INTEGER.fullmatch(text):  # a cell's length is bounded (limits.MAX_CELL): int() reads it at once
        whole = int(text)
        return whole if abs(whole) <= lim.MAX_ABS_VALUE else None
    if not _DECIMAL.fullmatch(text):
        return None
    value = float(text)  # past a float's range: inf
    return value if math.isfinite(value) and abs(value) <= lim.MAX_ABS_VALUE else None


def beside(name: str, base: Path) -> Path | str:
    """The file a scoresheet names, in the scoresheet's folder `base` or below it; else why not (an
    absolute path or `..` could make a sheet read any file the server may read)."""
    parts = PurePath(name).parts
    if PurePath(name).is_absolute() or ".." in parts:
        return f"{name!r}: a points table is kept beside its scoresheet (a path in its folder or below)"
    path = base / name
    try:
        inside = path.resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError, ValueError):  # a loop of links, a name too long or holding a NUL: reading it
        # says what is wrong
        return path
    if not inside:
        return f"{name!r} links to a file outside the scoresheet's folder: keep the points table beside it"
    return path


def read_points_table(sheet: Scoresheet, base: Path | None) -> tuple[Points, list[tuple[str, str]]]:
    """The points of the sheet's table (file named relative to `base`, the sheet's folder), and every
    problem found in it as (where, message)."""
    assert sheet.points_table is not None
    name = sheet.points_table
    if base is None:
        return {}, [("$.points_table", "a points table is named relative to the scoresheet's file: read the sheet "
                                       "from its file")]
    path = beside(name, base)
    if isinstance(path, str):
        return {}, [("$.points_table", path)]
    shown = Path(name).name
    try:
        found = untrusted.csv_rows(untrusted.read_text(path, lim.MAX_TABLE_BYTES))
    except untrusted.BadTable as err:
        return {}, [(f"{shown}:{err.line}", str(err))]
    except untrusted.Untrusted as err:
        return {}, [("$.points_table", f"{path}: {err}")]
    rows = [(k, row) for k, row in found if any(cell.strip() for cell in row)]
    if not rows:
        return {}, [("$.points_table", f"{path}: the table is empty; its first row is issue,option and the party ids")]
    return _points(sheet, shown, rows)


def _points(sheet: Scoresheet, shown: str, rows: list[tuple[int, list[str]]]) -> tuple[Points, list[tuple[str, str]]]:
    problems: list[tuple[str, str]] = []
    line, header = rows[0]
    header = [h.strip() for h in header]
    if tuple(header[:2]) != KEYS:
        problems.append((f"{shown}:{line}", f"the first row starts issue,option, not {','.join(header[:2])[:80]}"))
    if len(header) < 2 or len(header) > 2 + lim.MAX_PLAYERS:
        columns = f"{len(header):,} column{'s' * (len(header) != 1)}"
        problems.append((f"{shown}:{line}", f"{columns}: a points table has issue, option and a column for each "
                                            f"party (at most {lim.MAX_PLAYERS})"))
        return {}, problems
    parties = header[2:]
    known = sheet.party_ids
    first: dict[str, int] = {}
    for c, pid in enumerate(parties, start=3):
        if pid not in known:
            problems.append((f"{shown}:{line} column {c}", f"unknown party {pid!r}"))
        elif first.setdefault(pid, c) != c:
            problems.append((f"{shown}:{line} column {c}", f"party {pid!r} has two columns"))
    missing = [pid for pid in known if pid not in parties]
    if missing:
        problems.append((f"{shown}:{line}", f"no column for {', '.join(map(repr, missing))}"))
    options = {(i.id, o.id) for i in sheet.issues for o in i.options}
    points: Points = {}
    named: set[tuple[str, str]] = set()  # options a row names, even a row with a mistake (no second message)
    for line, row in rows[1:]:
        cells = [cell.strip() for cell in row]
        if len(cells) >= 2:
            named.add((cells[0], cells[1]))
        if len(cells) != len(header):
            problems.append((f"{shown}:{line}", f"{len(cells)} cells in a table of {len(header)} columns"))
            continue
        key = (cells[0], cells[1])
        if key not in options:
            issue = next((i for i in sheet.issues if i.id == key[0]), None)
            problems.append((f"{shown}:{line}", f"unknown issue {key[0]!r}" if issue is None
                             else f"issue {key[0]!r} has no option {key[1]!r}"))
            continue
        if key in points:
            problems.append((f"{shown}:{line}", f"a second row for option {key[1]!r} of issue {key[0]!r}"))
            continue
        points[key] = {}
        for c, (pid, cell) in enumerate(zip(parties, cells[2:]), start=3):
            value = number(cell)
            if value is None:
                problems.append((f"{shown}:{line} column {c} ({pid})",
                                 f"should be a number up to {lim.MAX_ABS_VALUE:g} in size, not {cell[:40]!r}"))
            elif pid in known:
                points[key][pid] = value
    for issue in sheet.issues:
        for option in issue.options:
            if (issue.id, option.id) not in named:
                problems.append((shown, f"no row for option {option.id!r} of issue {issue.id!r}"))
    return points, problems
