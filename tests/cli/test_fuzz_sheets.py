"""A fuzz of mutated scoresheets, points tables, courses and rosters through what reads them (validate,
import-scoresheet, autoplay and serve on the command line; the seating's roster reader).  Every case ends with
status 0 or 2, never a traceback; a roster is read or refused with a RosterError, nothing else."""

from __future__ import annotations

import json
import random
import time
import tomllib
from pathlib import Path

import pytest

from negtui.classroom.course_loading import load_course
from negtui.classroom.seating import RosterError, read_roster
from tests.mutations import TEXT_PIECES, mutate, text_mutation
from tests.paths import ROOT, SCENARIOS

CASE = SCENARIOS / "cases" / "regional-bus-network.toml"
COURSE = ROOT / "courses" / "cases.toml"
TABLE_COURSE = """\
name = "tables"
title = "Tables"

[[exercises]]
id = "pill"
title = "The poison pill, in pairs"
scenario = "poison-pill"
humans = ["A", "B"]
"""
ROSTER = "trainee,exercise,table,seat\nalice,pill,red,A\nbob,pill,red,B\ncarol,pill,blue,A\n"
PARTIES = ("authority", "city", "upland", "valley")


def _check(res, path: Path, case: str) -> None:
    assert res.exit_code in (0, 2), f"{case}: exit {res.exit_code}\n{res.output}\n{res.exception!r}"
    assert res.exception is None or isinstance(res.exception, SystemExit), f"{case}: {res.exception!r}"
    assert "Traceback" not in res.output, f"{case}: {res.output}"
    if res.exit_code == 2:
        assert str(path) in res.stderr or "error:" in res.stderr, f"{case}: {res.stderr}"


def _tabled(data: dict) -> tuple[dict, str]:
    """The case with its points moved into a points table: the sheet (decoded) and the table's text."""
    sheet = json.loads(json.dumps(data))
    rows = [",".join(("issue", "option", *PARTIES))]
    for issue in sheet["issues"]:
        for option in issue["options"]:
            points = option.pop("points")
            rows.append(",".join([issue["id"], option["id"], *(str(points[p]) for p in PARTIES)]))
    sheet["points_table"] = "points.csv"
    return sheet, "\n".join(rows) + "\n"


def _case(k: int, rng: random.Random, folder: Path, sheet: dict, table: str) -> tuple[list[list[object]], Path]:
    """Case k's files written into `folder`, and the command lines that read them."""
    kind = k % 4
    if kind == 0:  # the sheet's TOML text
        path = folder / "sheet.toml"
        path.write_text(text_mutation(CASE.read_text(), rng, TEXT_PIECES))
        return [["validate", path], ["import-scoresheet", path]] + [["autoplay", path, "--partner", "greedy", "-q"]] * (
            k % 8 == 0), path
    if kind == 1:  # the sheet's fields, as JSON
        path = folder / "sheet.json"
        path.write_text(json.dumps(mutate(tomllib.loads(CASE.read_text()), rng)))
        return [["validate", path]], path
    if kind == 2:  # the points table beside a sheet
        path = folder / "sheet.json"
        path.write_text(json.dumps(sheet if rng.random() < 0.7 else mutate(sheet, rng)))
        (folder / "points.csv").write_text(text_mutation(table, rng, TEXT_PIECES))
        return [["validate", path], ["import-scoresheet", path]], path
    # a course of the tabled sheet, as TOML text or as mutated JSON; serve only a course that is refused
    (folder / "sheet.json").write_text(json.dumps(sheet))
    (folder / "points.csv").write_text(text_mutation(table, rng, TEXT_PIECES) if rng.random() < 0.5 else table)
    course = tomllib.loads(COURSE.read_text())
    for ex in course["exercises"]:
        ex["scenario"] = "sheet.json"
    if rng.random() < 0.5:
        path = folder / "course.json"
        path.write_text(json.dumps(mutate(course, rng)))
    else:
        path = folder / "course.toml"
        text = COURSE.read_text().replace("cases/regional-bus-network.toml", "sheet.json")
        path.write_text(text_mutation(text, rng, TEXT_PIECES))
    return [["validate", path], ["serve", "--course", path, "--data-dir", folder / "data", "--port", "1"]], path


@pytest.mark.parametrize("cases, at_least", [
    pytest.param(32, 60, id="short"),
    pytest.param(1500, 3000, id="long", marks=[pytest.mark.stress, pytest.mark.slow]),
])
def test_fuzz_mutated_sheets_tables_courses_and_rosters(cli, tmp_path, cases, at_least):
    rng = random.Random(20260417)
    sheet, table = _tabled(tomllib.loads(CASE.read_text()))
    (tmp_path / "tables.toml").write_text(TABLE_COURSE)
    tables = load_course(tmp_path / "tables.toml")
    started = time.monotonic()
    runs = 0
    for k in range(cases):
        folder = tmp_path / f"c{k}"
        folder.mkdir()
        commands, path = _case(k, rng, folder, sheet, table)
        for args in commands:
            if args[0] == "serve":
                res = cli("validate", path)  # a course that validates would start a server: only a refused one
                if res.exit_code == 0:
                    continue
            _check(cli(*args), path, f"case {k} {args[0]} {path.name}")
            runs += 1
        roster = folder / "roster.csv"
        roster.write_text(text_mutation(ROSTER, rng, TEXT_PIECES))
        try:
            read_roster(roster, tables, {"alice", "bob", "carol"})
        except RosterError as err:
            assert str(roster) in err.render()
        runs += 1
    assert runs >= at_least and time.monotonic() - started < (120 if cases < 100 else 600), runs
