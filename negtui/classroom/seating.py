"""Seating a class: who sits in which seat at which table of a table exercise, decided by the trainer from
a roster file or at random with the roles balanced across the class, before anyone sits down.  A plan is
a list of tables, each the seats kept for trainees; the console asks the server to open each table with
its seats kept (tablebook.request), and each trainee then finds their seat at the top of the lobby.

A roster is a CSV file with the columns trainee, exercise, table, seat (one row per trainee and exercise;
`table` is the roster's own name for a table, rows with the same name sharing one).  Every mistake in it is
reported at once, with its line, before any table opens."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from negtui.classroom.course import LoadedCourse
from negtui.classroom.dbtypes import TABLE_NAME_CHARS
from negtui.scenario import untrusted
from negtui.scenario.io import FileProblems, Problem

MAX_ROSTER_BYTES = 256 * 1024
MAX_ROSTER_ROWS = 2_000
COLUMNS = ("trainee", "exercise", "table", "seat")


class RosterError(FileProblems):
    kind = "roster"


@dataclass
class TablePlan:
    """One table to open: its exercise, the roster's (or the plan's) name for it, the seats kept."""

    exercise: str
    label: str
    seats: dict[str, str] = field(default_factory=dict)  # player id -> trainee
    named: bool = False  # the label is the roster's name for the table, which the table keeps (else a count)

    @property
    def name(self) -> str | None:
        """The name the table is opened with (None: it goes by its number)."""
        return self.label if self.named else None


def read_roster(path: Path, course: LoadedCourse, trainees: set[str]) -> list[TablePlan]:
    """The tables a roster file asks for; RosterError with every problem, each at its line."""
    try:
        text = untrusted.read_text(path, MAX_ROSTER_BYTES)
    except untrusted.Untrusted as err:
        raise RosterError(str(path), [Problem("$", str(err))]) from None
    return parse_roster(text, str(path), course, trainees)


def parse_roster(text: str, source: str, course: LoadedCourse, trainees: set[str]) -> list[TablePlan]:
    try:
        rows = untrusted.csv_rows(text)
    except untrusted.BadTable as err:
        raise RosterError(source, [Problem(err.path, str(err))]) from None
    problems: list[Problem] = []
    if not rows or [c.strip().lower() for c in rows[0][1]] != list(COLUMNS):
        raise RosterError(source, [Problem("line 1", f"the header must be {','.join(COLUMNS)}")])
    if len(rows) - 1 > MAX_ROSTER_ROWS:
        raise RosterError(source, [Problem("$", f"{len(rows) - 1:,} rows; a roster holds at most {MAX_ROSTER_ROWS:,}")])
    plans: dict[tuple[str, str], TablePlan] = {}
    placed: dict[tuple[str, str], int] = {}  # (trainee, exercise) -> the line that seats them
    for n, row in rows[1:]:
        if not any(c.strip() for c in row):
            continue
        where = f"line {n}"
        if len(row) != len(COLUMNS):
            problems.append(Problem(where, f"{len(row)} columns; a row has {len(COLUMNS)}: {', '.join(COLUMNS)}"))
            continue
        trainee, exercise, label, seat = (untrusted.one_line(c, 200).strip() for c in row)
        found = _row_problems(where, trainee, exercise, label, seat, course, trainees)
        if found:
            problems += found
            continue
        if (trainee, exercise) in placed:
            problems.append(Problem(f"{where}, trainee", f"{trainee} is seated at {exercise!r} already, on line "
                                                          f"{placed[(trainee, exercise)]}"))
            continue
        plan = plans.setdefault((exercise, label), TablePlan(exercise, label, named=True))
        if seat in plan.seats:
            problems.append(Problem(f"{where}, seat", f"table {label!r} gives {seat} to {plan.seats[seat]} already"))
            continue
        ex = course.exercise(exercise)
        if len(plan.seats) >= ex.room(course.scenarios[ex.id].player_ids):
            problems.append(Problem(f"{where}, table", f"table {label!r} seats {len(plan.seats)} people already, "
                                                        "all it has room for"))
            continue
        plan.seats[seat] = trainee
        placed[(trainee, exercise)] = n
    if problems:
        raise RosterError(source, problems)
    return list(plans.values())


def _row_problems(where: str, trainee: str, exercise: str, label: str, seat: str, course: LoadedCourse,
                  trainees: set[str]) -> list[Problem]:
    out = []
    if trainee not in trainees:
        out.append(Problem(f"{where}, trainee", f"no trainee {trainee!r} (negtui trainees list)"))
    try:
        ex = course.exercise(exercise)
    except KeyError:
        return [*out, Problem(f"{where}, exercise", f"no exercise {exercise!r} in course {course.course.name!r}")]
    if not ex.is_table:
        return [*out, Problem(f"{where}, exercise", f"{exercise!r} is played alone, not at a table")]
    if not label:
        out.append(Problem(f"{where}, table", "a table's name (any word; rows with the same name share a table)"))
    elif len(label) > TABLE_NAME_CHARS:
        out.append(Problem(f"{where}, table", f"a table's name of {len(label)} characters; at most {TABLE_NAME_CHARS}"
                                              " (every screen names the table by it)"))
    people = ex.people_seats(course.scenarios[ex.id].player_ids)
    if seat not in people:
        out.append(Problem(f"{where}, seat", f"{seat!r} is not a person's seat of {exercise!r}: {', '.join(people)}"))
    return out


def balanced(course: LoadedCourse, exercise: str, trainees: list[str], seed: int = 0) -> list[TablePlan]:
    """Every trainee at a table of `exercise`, at random: as few tables as hold them all, the tables filled
    evenly (their counts differ by one at most), and each seat given to as many trainees as the others (so
    every role is played by about as many people).  The same trainees and seed give the same plan."""
    ex = course.exercise(exercise)
    if not ex.is_table:
        raise ValueError(f"{exercise!r} is played alone, not at a table")
    seats = ex.people_seats(course.scenarios[ex.id].player_ids)
    room = ex.room(course.scenarios[ex.id].player_ids)
    order = sorted(set(trainees))
    random.Random(seed).shuffle(order)
    tables = [TablePlan(exercise, str(k + 1)) for k in range(-(-len(order) // room))]
    played: Counter[str] = Counter()
    for name in order:
        fewest = min(len(t.seats) for t in tables)
        choices = [(played[s], k, seats.index(s)) for k, t in enumerate(tables) if len(t.seats) == fewest
                   for s in seats if s not in t.seats]
        _, k, s = min(choices)
        tables[k].seats[seats[s]] = name
        played[seats[s]] += 1
    return tables
