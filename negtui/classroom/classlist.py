"""A class list: the CSV file a registrar hands a trainer, read for each trainee's student id
(`negtui trainees import`).  Its header names the columns `trainee` and `student_id`, in any order and
case; other columns (an e-mail, a full name) are left alone, so the registrar's own export reads once those
two are named.  Every mistake is reported at once, with its line, before anything is set."""

from __future__ import annotations

from pathlib import Path

from negtui.classroom.dbtypes import DBError
from negtui.classroom.identity import check_name, check_student_id
from negtui.classroom.studentbook import Given
from negtui.scenario import untrusted
from negtui.scenario.io import FileProblems, Problem

MAX_CLASS_LIST_BYTES = 256 * 1024
MAX_CLASS_LIST_ROWS = 2_000
NEEDED = ("trainee", "student_id")


class ClassListError(FileProblems):
    kind = "class list"


def read_class_list(path: Path) -> list[Given]:
    """Each row's trainee and student id; ClassListError with every problem, each at its line."""
    try:
        text = untrusted.read_text(path, MAX_CLASS_LIST_BYTES)
    except untrusted.Untrusted as err:
        raise ClassListError(str(path), [Problem("$", str(err))]) from None
    return parse_class_list(text, str(path))


def parse_class_list(text: str, source: str) -> list[Given]:
    try:
        rows = untrusted.csv_rows(text)
    except untrusted.BadTable as err:
        raise ClassListError(source, [Problem(err.path, str(err))]) from None
    header = [c.strip().lower() for c in rows[0][1]] if rows else []
    absent = [c for c in NEEDED if c not in header]
    if absent:
        raise ClassListError(source, [Problem("line 1", f"the header must name the columns {' and '.join(NEEDED)} "
                                                         f"(other columns are left alone); {' and '.join(absent)} "
                                                         "is missing")])
    doubled = sorted({c for c in NEEDED if header.count(c) > 1})
    if doubled:
        raise ClassListError(source, [Problem("line 1", f"the column {doubled[0]} is named twice")])
    if len(rows) - 1 > MAX_CLASS_LIST_ROWS:
        raise ClassListError(source, [Problem("$", f"{len(rows) - 1:,} rows; a class list holds at most "
                                                   f"{MAX_CLASS_LIST_ROWS:,}")])
    at = {c: header.index(c) for c in NEEDED}
    problems: list[Problem] = []
    out: list[Given] = []
    lines: dict[str, int] = {}  # trainee -> its line
    owners: dict[str, tuple[str, int]] = {}  # student id -> (trainee, line)
    for n, row in rows[1:]:
        if not any(c.strip() for c in row):
            continue
        where = f"line {n}"
        if len(row) != len(header):
            problems.append(Problem(where, f"{len(row)} columns; the header has {len(header)}"))
            continue
        name, sid = row[at["trainee"]].strip(), row[at["student_id"]].strip()
        try:
            check_name(name)
        except DBError as err:
            problems.append(Problem(f"{where}, trainee", str(err)))
            continue
        if not sid:
            problems.append(Problem(f"{where}, student_id", f"no student id for {name} (leave the row out to keep "
                                                            "the one they have)"))
            continue
        try:
            sid = check_student_id(sid)
        except DBError as err:
            problems.append(Problem(f"{where}, student_id", str(err)))
            continue
        if name in lines:
            problems.append(Problem(f"{where}, trainee", f"{name} is on line {lines[name]} already"))
            continue
        if sid in owners:
            problems.append(Problem(f"{where}, student_id", f"{sid!r} is {owners[sid][0]}'s, on line "
                                                            f"{owners[sid][1]}"))
            continue
        lines[name], owners[sid] = n, (name, n)
        out.append(Given(name, sid, n))
    if problems:
        raise ClassListError(source, problems)
    if not out:
        raise ClassListError(source, [Problem("$", "no trainee in it (one row per trainee under the header)")])
    return out


def read_trainees(path: Path) -> list[str]:
    """The trainees a roster names, in its order, each once: any CSV whose header names a `trainee` column
    (a class list, the console's seating roster with a row per trainee and exercise, a registrar's export);
    ClassListError with every problem, each at its line."""
    try:
        text = untrusted.read_text(path, MAX_CLASS_LIST_BYTES)
    except untrusted.Untrusted as err:
        raise ClassListError(str(path), [Problem("$", str(err))]) from None
    return parse_trainees(text, str(path))


def parse_trainees(text: str, source: str) -> list[str]:
    try:
        rows = untrusted.csv_rows(text)
    except untrusted.BadTable as err:
        raise ClassListError(source, [Problem(err.path, str(err))]) from None
    header = [c.strip().lower() for c in rows[0][1]] if rows else []
    if header.count("trainee") != 1:
        said = "is named twice" if "trainee" in header else "is missing"
        raise ClassListError(source, [Problem("line 1", f"the header must name the column trainee (other columns "
                                                         f"are left alone); it {said}")])
    if len(rows) - 1 > MAX_CLASS_LIST_ROWS:
        raise ClassListError(source, [Problem("$", f"{len(rows) - 1:,} rows; a roster holds at most "
                                                   f"{MAX_CLASS_LIST_ROWS:,}")])
    at = header.index("trainee")
    problems: list[Problem] = []
    names: dict[str, int] = {}  # trainee -> the first line naming them
    for n, row in rows[1:]:
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            problems.append(Problem(f"line {n}", f"{len(row)} columns; the header has {len(header)}"))
            continue
        name = row[at].strip()
        try:
            check_name(name)
        except DBError as err:
            problems.append(Problem(f"line {n}, trainee", str(err)))
            continue
        names.setdefault(name, n)
    if problems:
        raise ClassListError(source, problems)
    if not names:
        raise ClassListError(source, [Problem("$", "no trainee in it (one row per trainee under the header)")])
    return list(names)
