"""Hostile scoresheets, points tables and courses: every one ends with status 2 and a message naming the file
and where in it (a TOML path, a CSV line), never a traceback, in every command that reads it: validate,
import-scoresheet, autoplay and serve (which refuses its course before it listens)."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

import pytest

from negtui.scenario import limits
from tests.paths import ROOT, SCENARIOS

CASE = SCENARIOS / "cases" / "regional-bus-network.toml"
COURSE = ROOT / "courses" / "cases.toml"
POINTS = re.compile(r"points = \{[^}]*\}\n")


def refused(res, *words: str) -> None:
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output
    for w in words:
        assert w in res.stderr, res.stderr


def tabled(folder: Path, table: str | None = None, name: str = "points.csv") -> Path:
    """The bundled case with its points in a CSV table `name` beside it: the table given, or the case's own."""
    text = CASE.read_text()
    sheet = POINTS.sub("", text).replace("[agreement]", f"points_table = {json.dumps(name)}\n\n[agreement]")
    path = folder / "sheet.toml"
    path.write_text(sheet)
    if table is None:
        parties = ["authority", "city", "upland", "valley"]
        table = ",".join(["issue", "option", *parties]) + "\n" + "".join(
            ",".join([issue["id"], option["id"], *(str(option["points"][p]) for p in parties)]) + "\n"
            for issue in tomllib.loads(text)["issues"] for option in issue["options"])
    if "/" not in name and "\x00" not in name:
        (folder / name).write_text(table)
    return path


def course_of(folder: Path, scenario: str) -> Path:
    path = folder / "course.toml"
    path.write_text(COURSE.read_text().replace('scenario = "cases/regional-bus-network.toml"',
                                               f"scenario = {json.dumps(scenario)}"))
    return path


def every_command(cli, sheet: Path, tmp_path: Path, *words: str) -> None:
    """The sheet refused alike by validate, import-scoresheet, autoplay and serve (through a course)."""
    for args in (["validate", sheet], ["import-scoresheet", sheet], ["autoplay", sheet, "-q"]):
        res = cli(*args)
        refused(res, str(sheet), *words)
    course = course_of(sheet.parent, sheet.name)
    res = cli("serve", "--course", course, "--data-dir", tmp_path / "data", "--port", "2222")
    refused(res, f"{course}: invalid course", "$.exercises[0].scenario", *words)


def test_the_case_as_a_table_is_the_case(cli, tmp_path):
    sheet = tabled(tmp_path)
    res = cli("validate", sheet)
    assert res.exit_code == 0 and "48 actions, 36 goals" in res.stdout, res.output


# --- TOML ---------------------------------------------------------------------------------------------------

def test_an_integer_python_will_not_read_is_an_error_at_its_line(cli, tmp_path):
    sheet = tmp_path / "sheet.toml"
    sheet.write_text(CASE.read_text().replace("rounds = 4", "rounds = " + "7" * 5000))
    line = 1 + CASE.read_text()[:CASE.read_text().index("rounds = 4")].count("\n")
    every_command(cli, sheet, tmp_path, "an integer of 5,000 digits at line " + str(line))
    res = cli("validate", sheet)
    assert f"{sheet}: invalid scoresheet" in res.stderr  # said from its format line, though it does not decode
    course = tmp_path / "big-course.toml"
    course.write_text(COURSE.read_text().replace("attempts = 3", "attempts = " + "7" * 4400, 1))
    refused(cli("validate", course), f"{course}: invalid course", "an integer of 4,400 digits")
    refused(cli("serve", "--course", course, "--data-dir", tmp_path / "data"), f"{course}: invalid course")


def test_a_broken_scoresheet_is_called_a_scoresheet(cli, tmp_path):
    sheet = tmp_path / "sheet.toml"
    sheet.write_text(CASE.read_text().replace('title = "A regional bus network"', "title = "))
    refused(cli("validate", sheet), f"{sheet}: invalid scoresheet (1 problem)", "not valid TOML")


# --- the points table ---------------------------------------------------------------------------------------

def test_a_scoresheet_over_its_limit_or_in_broken_json_is_called_a_scoresheet(cli, tmp_path):
    """Said from its format line, read from the file's first 64 KiB: a TOML sheet over 4 MiB was called an
    invalid course, a JSON sheet that does not decode an invalid scenario."""
    big = tmp_path / "big.toml"
    big.write_text('format = "negtui-scoresheet/1"\nname = "x"\n' + "#" * (5 << 20))
    refused(cli("validate", big), f"{big}: invalid scoresheet (1 problem)", "over the limit of 4 MiB")
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "negtui-scoresheet/1", "name": ')
    refused(cli("validate", broken), f"{broken}: invalid scoresheet (1 problem)", "not valid JSON")
    scenario = tmp_path / "scenario.json"
    scenario.write_text('{"format": "negtui-scenario/1", "name": ')
    refused(cli("validate", scenario), f"{scenario}: invalid scenario (1 problem)", "not valid JSON")


def test_a_cell_past_the_limit_is_refused_at_its_line(cli, tmp_path):
    good = tabled(tmp_path).with_name("points.csv").read_text()
    huge = good + 'fares,flat,"' + "9" * 140_000 + '",1,1,1\n'  # past csv's own limit of 131,072
    tabled(tmp_path, huge)
    every_command(cli, tmp_path / "sheet.toml", tmp_path,
                  f"points.csv:14: a cell over the limit of {limits.MAX_CELL:,} characters")
    tabled(tmp_path, good.replace("fares,flat,5", "fares,flat," + "5" * (limits.MAX_CELL + 1)))
    refused(cli("validate", tmp_path / "sheet.toml"), "points.csv:5: a cell over the limit")


def test_a_table_past_its_size_limit_is_refused(cli, tmp_path):
    tabled(tmp_path, "issue,option\n" + "x,y\n" * (limits.MAX_TABLE_BYTES // 4 + 1))
    refused(cli("validate", tmp_path / "sheet.toml"), "$.points_table", "over the limit of 4 MiB")


@pytest.mark.parametrize("table", ["issue\nfares\n", "issue\n", "x\ny\nz\n"])
def test_rows_of_one_cell_are_a_mistake_at_their_line(cli, tmp_path, table):
    sheet = tabled(tmp_path, table)
    every_command(cli, sheet, tmp_path, "points.csv:1: 1 column: a points table has issue, option and a column "
                                        "for each party")


@pytest.mark.parametrize("name, words", [
    ("/etc/passwd", "'/etc/passwd': a points table is kept beside its scoresheet"),
    ("../points.csv", "'../points.csv': a points table is kept beside its scoresheet"),
    ("p\x00.csv", "p\\x00.csv: cannot read file: its name holds a NUL character"),
])
def test_a_points_table_named_outside_the_sheets_folder_or_with_a_nul_is_refused(cli, tmp_path, name, words):
    (tmp_path / "points.csv").write_text("issue,option,a\n")
    folder = tmp_path / "sheets"
    folder.mkdir()
    every_command(cli, tabled(folder, name=name), tmp_path, "$.points_table", words)


def test_a_link_out_of_the_sheets_folder_is_refused_and_a_table_below_it_is_read(cli, tmp_path):
    folder = tmp_path / "sheets"
    (folder / "tables").mkdir(parents=True)
    table = tabled(folder).with_name("points.csv")
    table.rename(tmp_path / "elsewhere.csv")
    (folder / "points.csv").symlink_to(tmp_path / "elsewhere.csv")
    refused(cli("validate", folder / "sheet.toml"), "'points.csv' links to a file outside the scoresheet's folder")
    (tmp_path / "elsewhere.csv").rename(folder / "tables" / "points.csv")
    tabled(folder, (folder / "tables" / "points.csv").read_text(), name="tables/points.csv")
    res = cli("validate", folder / "sheet.toml")
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("cell, shown", [
    ("1" + "0" * 400, "1" + "0" * 39),  # past a float's range: no OverflowError
    ("1e400", "1e400"), ("1_0", "1_0"), ("nan", "nan"), ("inf", "inf"), ("٣", "٣"), ("0x10", "0x10"),
])
def test_a_cell_that_is_not_a_number_in_range_is_refused_at_its_line_and_column(cli, tmp_path, cell, shown):
    good = tabled(tmp_path).with_name("points.csv").read_text()
    tabled(tmp_path, good.replace("fares,flat,5", f"fares,flat,{cell}"))
    every_command(cli, tmp_path / "sheet.toml", tmp_path,
                  f"points.csv:5 column 3 (authority): should be a number up to 1e+12 in size, not {shown!r}")


def test_a_table_saved_with_a_byte_order_mark_is_read(cli, tmp_path):
    good = tabled(tmp_path).with_name("points.csv").read_text()
    (tmp_path / "points.csv").write_bytes(b"\xef\xbb\xbf" + good.replace("\n", "\r\n").encode())
    res = cli("validate", tmp_path / "sheet.toml")
    assert res.exit_code == 0, res.output


def test_a_binary_file_as_a_table_is_refused_at_its_line(cli, tmp_path):
    tabled(tmp_path, "issue,option,authority\nfares,flat\x00,1\n")
    refused(cli("validate", tmp_path / "sheet.toml"), "points.csv:2: a control character (U+0000) at character 11")


def test_a_hundred_thousand_problems_are_listed_as_fifty_and_a_count(cli, tmp_path):
    tabled(tmp_path, "issue,option,authority,city,upland,valley\n" + "x,y\n" * 100_000)
    res = cli("validate", tmp_path / "sheet.toml")
    refused(res, "invalid scoresheet (100,012 problems)", "… and 99,962 more")
    assert len(res.stderr.splitlines()) == 1 + 50 + 1


# --- a course's exercises ------------------------------------------------------------------------------------

def test_a_scenario_name_too_long_for_the_system_is_an_error(cli, tmp_path):
    name = "a" * 256
    course = course_of(tmp_path, f"{name}/x.toml")
    for args in (["validate", course], ["serve", "--course", course, "--data-dir", tmp_path / "data"]):
        refused(cli(*args), f"{course}: invalid course", "$.exercises[0].scenario", "File name too long")
    refused(cli("autoplay", name, "-q"), f"{name}: invalid scenario", "File name too long")
    refused(cli("import-scoresheet", name + ".toml"), "File name too long")


def test_a_scenario_that_is_a_loop_of_links_is_an_error(cli, tmp_path):
    os.symlink(tmp_path / "b.toml", tmp_path / "a.toml")
    os.symlink(tmp_path / "a.toml", tmp_path / "b.toml")
    course = course_of(tmp_path, "a.toml")
    for args in (["validate", course], ["serve", "--course", course, "--data-dir", tmp_path / "data"]):
        refused(cli(*args), f"{course}: invalid course", "$.exercises[0].scenario",
                "Too many levels of symbolic links")
    refused(cli("autoplay", tmp_path / "a.toml", "-q"), "Too many levels of symbolic links")
