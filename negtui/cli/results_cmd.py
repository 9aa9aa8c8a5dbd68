"""`negtui results`: the results database read as a table, JSON or CSV (games, decisions, the gradebook)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from negtui.cli.common import DataDirOpt, JsonOpt, emit_json
from negtui.cli.errors import fail, user_errors
from negtui.cli.resultsdb import opened
from negtui.cli.root import app

if TYPE_CHECKING:
    from rich.table import Table

    from negtui.classroom.course import Course, LoadedCourse
    from negtui.classroom.db import ResultsDB


@app.command()
def results(
    course: Annotated[str | None, typer.Option("--course", help=(
        "Only this course: its name, or its course file (then each game's mode, attempt and score follow the "
        "course's exercises).  --gradebook needs the file."))] = None,
    trainee: Annotated[str | None, typer.Option("--trainee", help="Only this trainee.")] = None,
    exercise: Annotated[str | None, typer.Option("--exercise", help="Only this exercise (its id).")] = None,
    table: Annotated[int | None, typer.Option("--table", help="Only the games at this table.")] = None,
    decisions: Annotated[bool, typer.Option("--decisions", help=(
        "One row per decision of the finished games: the choice, whether the clock made it (a time-out), its "
        "cost and the coaching numbers (what each lens made of it, what each lens or the exact solution would "
        "have chosen)."))] = False,
    gradebook: Annotated[bool, typer.Option("--gradebook", help=(
        "One row per trainee and exercise of the course (--course FILE): mode, attempts used and allowed, "
        "status, best and last score by the exercise's score, turns bots played in the trainee's seat."))] = False,
    wide: Annotated[bool, typer.Option("--wide", help=(
        "With --gradebook: one row per trainee, for a registrar — student_id, then per exercise the points of the "
        "game that counts, the same score at the welfare optimum, the grade (percent of that optimum, 0–100), "
        "status, attempts used and flags (a bot played, every decision timed out, the trainer ended it)."))] = False,
    count: Annotated[str | None, typer.Option("--count", metavar="best|last", help=(
        "With --wide: which finished game counts, the best by the exercise's score or the last  [default: best]"))
    ] = None,
    as_json: JsonOpt = False,
    as_csv: Annotated[bool,
                      typer.Option("--csv", help="Print CSV with a header row (pandas.read_csv reads it).")] = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Results of negtui serve: one row per finished or unfinished game (or per decision, or per trainee
    and exercise), oldest first."""
    with user_errors():
        _check_shape(as_json, as_csv, gradebook, decisions, wide, count)
        loaded = _course_file(course)
        if gradebook and loaded is None:
            fail("error: --gradebook needs the course file (--course path/to/course.toml): it lists the "
                 "exercises, the attempts they allow and what each scores by")
        if wide and exercise is not None and loaded is not None and exercise not in {
                ex.id for ex in loaded.course.exercises}:
            fail(f"error: no exercise {exercise!r} in course {loaded.course.name!r}")
        with opened(data_dir, read=True) as db:
            columns, rows = _rows(db, course, loaded, trainee, exercise, table, decisions, gradebook, wide, count)
    if as_json:
        emit_json(rows)
    elif as_csv:
        _csv(rows, columns)
    elif wide:
        _wide(rows, loaded.course if loaded is not None else None, count or "best", exercise)
    elif gradebook:
        _gradebook(rows)
    elif decisions:
        _decisions(rows)
    else:
        _table(rows)


def _check_shape(as_json: bool, as_csv: bool, gradebook: bool, decisions: bool, wide: bool,
                 count: str | None) -> None:
    """The options that pick the output's shape go together, or say which way they may."""
    if as_json and as_csv:
        fail("error: give --json or --csv, not both")
    if gradebook and decisions:
        fail("error: give --gradebook or --decisions, not both")
    if wide and not gradebook:
        fail("error: --wide is a shape of the gradebook: give --gradebook --wide")
    if count is not None and not wide:
        fail("error: --count picks the game of the wide gradebook (--gradebook --wide); the long form gives "
             "best_score and last_score both")
    if count not in (None, "best", "last"):
        fail(f"error: --count is best or last, not {count!r}")


def _rows(db: ResultsDB, course: str | None, loaded: LoadedCourse | None, trainee: str | None, exercise: str | None,
          table: int | None, decisions: bool, gradebook: bool, wide: bool,
          count: str | None) -> tuple[list[str], list[dict[str, Any]]]:
    """The CSV's columns and the rows the options ask for, read from the results database."""
    from negtui.classroom.classbook import Filters, decision_columns
    from negtui.classroom.dbtypes import RESULT_COLUMNS
    from negtui.classroom.gradebook import GRADEBOOK_COLUMNS
    from negtui.classroom.gradebook import gradebook as grades
    from negtui.classroom.wide_gradebook import wide_gradebook

    if wide or gradebook:
        assert loaded is not None  # --gradebook without the course file is refused before
        if wide:
            columns, rows = wide_gradebook(db, loaded.course, count or "best", None if exercise is None else [exercise])
            return columns, [r for r in rows if trainee in (None, r["trainee"])]
        return list(GRADEBOOK_COLUMNS), [r for r in grades(db, loaded.course)
                                         if trainee in (None, r["trainee"]) and exercise in (None, r["exercise"])]
    name = loaded.course.name if loaded is not None else course
    if decisions:
        rows = db.decisions(Filters(name, exercise, trainee, table))
        return _decision_columns(decision_columns(rows)), rows
    settings: dict[tuple[str, str], tuple[str, str]] | None = None if loaded is None else {
        (loaded.course.name, ex.id): (ex.mode, ex.score) for ex in loaded.course.exercises}
    return list(RESULT_COLUMNS), [r for r in db.results(course=name, trainee=trainee, exercises=settings)
                                  if exercise in (None, r["exercise"]) and table in (None, r["table"])]


def _course_file(course: str | None) -> LoadedCourse | None:
    """The course loaded when `--course` names a file, else None (a course's name)."""
    if course is None or not Path(course).is_file():
        return None
    from negtui.classroom.course_loading import CourseError, load_course

    try:
        return load_course(Path(course))
    except CourseError as err:
        fail(err.render())


def _decision_columns(columns: list[str]) -> list[str]:
    """`timed_out` beside the choice it qualifies."""
    out = [c for c in columns if c != "timed_out"]
    out.insert(out.index("choice") + 1, "timed_out")
    return out


def _csv(rows: list[dict[str, Any]], columns: list[str]) -> None:
    from negtui.csvcells import write_rows

    buf = io.StringIO()
    write_rows(buf, columns, rows)
    typer.echo(buf.getvalue(), nl=False)


def _decisions(rows: list[dict[str, Any]]) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True, padding=(0, 1),
                  title=f"{len(rows)} decision(s)", caption=(
                      "turn: counted from 1; cost: what the best alternative was worth more to the trainee, under the "
                      "exact solution or the mean of the lenses (ref.); --csv or --json give every number"))
    for col in ("trainee", "exercise", "table", "seat"):
        table.add_column(col, overflow="fold")
    table.add_column("turn", justify="right")
    table.add_column("choice", overflow="fold")
    table.add_column("cost", justify="right", no_wrap=True)
    table.add_column("ref.", no_wrap=True)
    for r in rows:
        choice = r["choice"] + (" (time ran out)" if r.get("timed_out") else "")
        table.add_row(r["trainee"], r["exercise"], "" if r["table"] is None else str(r["table"]), r["seat"],
                      str(r["turn"]), Text(choice), f"{r['cost']:z.2f}", r["reference"])
    _print_wide(table)


def _gradebook(rows: list[dict[str, Any]]) -> None:
    from rich import box
    from rich.table import Table

    def num(x: float | None) -> str:
        return "" if x is None else f"{x:z.2f}"

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True, padding=(0, 1),
                  title=f"{len(rows)} trainee × exercise row(s)", caption=(
                      "attempts: used of allowed (an assessment counts every game started); best, last: the finished "
                      "games' scores by the exercise's score; bot turns: turns a bot played in the trainee's seat"))
    for col in ("trainee", "exercise", "mode", "status"):
        table.add_column(col, overflow="fold")
    table.add_column("attempts", justify="right", no_wrap=True)
    table.add_column("score by", no_wrap=True)
    for col in ("best", "last", "bot turns"):
        table.add_column(col, justify="right", no_wrap=True)
    for r in rows:
        allowed = "" if r["attempts_allowed"] is None else f" of {r['attempts_allowed']}"
        table.add_row(r["trainee"], r["exercise"], r["mode"], r["status"], f"{r['attempts_used']}{allowed}",
                      r["score_by"], num(r["best_score"]), num(r["last_score"]),
                      "" if r["bot_turns"] is None else str(r["bot_turns"]))
    _print_wide(table)


def _wide(rows: list[dict[str, Any]], course: Course | None, count: str, exercise: str | None) -> None:
    """Per exercise one column: the grade and the points, and a mark for each flag the caption spells."""
    from rich import box
    from rich.table import Table

    from negtui.classroom.wide_gradebook import columns_of

    assert course is not None
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True, padding=(0, 1),
                  title=f"{len(rows)} trainee(s), the {count} game of each exercise", caption=(
                      "grade: percent of the score at the welfare optimum, 0–100 (points in brackets); B: a bot played "
                      "the seat wholly, b: partly; T: every decision timed out; E: the trainer ended it; --csv "
                      "gives every column"))
    table.add_column("trainee", overflow="fold")
    table.add_column("student id", overflow="fold")
    exercises = [ex for ex in course.exercises if exercise in (None, ex.id)]
    for ex in exercises:
        table.add_column(f"{ex.id}\n{ex.score}", justify="right", overflow="fold")
    for r in rows:
        cells = []
        for ex in exercises:
            points, _, pct, status, _, bots, clock, trainer = (r[c] for c in columns_of(ex, count))
            if points is None:
                cells.append(status)
                continue
            marks = {"wholly": "B", "partly": "b"}.get(bots or "", "") + "T" * bool(clock) + "E" * bool(trainer)
            cells.append(("" if pct is None else f"{pct:z.1f}% ") + f"({points:z.2f})" + (f" {marks}" if marks else ""))
        table.add_row(r["trainee"], r["student_id"] or "", *cells)
    _print_wide(table)


def _print_wide(table: Table) -> None:
    """Rich truncates to the terminal; piped output gets a wide table (for files, --csv is the format)."""
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, 160)
    console.print(table)


def _table(rows: list[dict[str, Any]]) -> None:
    from rich import box
    from rich.table import Table

    def num(x: float | None) -> str:
        return "" if x is None else f"{x:z.2f}"

    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True, padding=(0, 1),
                  title=f"{len(rows)} game(s)",
                  caption="Δ base: payoff minus the No-Negotiation baseline; eff.: efficiency; times UTC")
    for col in ("trainee", "course", "exercise", "status"):
        table.add_column(col, overflow="fold")
    for col in ("payoff", "Δ base", "eff."):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("started", no_wrap=True)
    for r in rows:
        table.add_row(r["trainee"], r["course"], r["exercise"], r["status"], num(r["payoff"]), num(r["improvement"]),
                      num(r["efficiency"]), r["started"][:16].replace("T", " "))
    _print_wide(table)
