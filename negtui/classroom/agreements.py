"""What each play of a case of issues (a compiled scoresheet) agreed, issue by issue, for the class debrief:
the option each issue was settled on, or none, and who walked away.

The results keep payoffs, not commitments; a play's final commitments are the result line of its record,
the file's last line.  Only the end of the file is read (`TAIL` bytes), so a debrief of forty tables reads
a bounded amount whatever the records hold; a record without a result line in reach (a game cut short, a
file gone) says nothing, and its play is listed as not known.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from negtui.coach.sheet import Sheet
from negtui.engine.game import Game, GameError

TAIL = 1 << 20  # bytes of a record's end read for its result line


@dataclass(frozen=True)
class Agreement:
    where: str
    settled: tuple[str, ...] | None  # per issue, the option settled ("" for an issue left open); None: not known
    walked: tuple[str, ...] = ()  # the parties that walked away


def final_commitments(path: str | os.PathLike[str]) -> list | None:
    """The commitments of a record's result line, or None when its last line in reach is no result."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - TAIL))
            tail = f.read(TAIL)
    except OSError:
        return None
    lines = tail.rstrip(b"\n").rsplit(b"\n", 1)
    if len(lines) < 2 and size > TAIL:  # the last line begins before the part read
        return None
    try:
        line = json.loads(lines[-1])
    except (ValueError, RecursionError):
        return None
    if not isinstance(line, dict) or line.get("type") != "result" or not isinstance(line.get("commitments"), list):
        return None
    return line["commitments"]


def agreement(game: Game, where: str, record: str | None) -> Agreement:
    """What the play recorded at `record` agreed (nothing known without a record or its result)."""
    cells = final_commitments(Path(record)) if record else None
    if cells is None:
        return Agreement(where, None)
    try:
        bits = game.bits_of([tuple(c) for c in cells if isinstance(c, list) and len(c) == 2])
    except (GameError, TypeError):  # a record of another version of the scenario
        return Agreement(where, None)
    sheet = Sheet(game)
    outcomes = tuple((done.id if (done := issue.outcome) is not None else "") for issue in sheet.issues(bits, 0))
    walked = tuple(sheet.names[i] for i in range(game.n) if sheet.left(bits, i))
    return Agreement(where, outcomes, walked)
