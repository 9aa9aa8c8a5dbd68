"""A roster file nobody vouches for (classroom/seating.py): a cell past the limit, a NUL, a file past its size
are refused with the line and the limit in words; Excel's "CSV UTF-8" (a byte-order mark) is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.classroom.course_loading import load_course
from negtui.classroom.seating import MAX_ROSTER_BYTES, RosterError, read_roster
from negtui.scenario import limits

COURSE = """\
name = "tables"
title = "Tables"

[[exercises]]
id = "pill"
title = "The poison pill, in pairs"
scenario = "poison-pill"
humans = ["A", "B"]
"""
CLASS = {"alice", "bob"}
GOOD = "trainee,exercise,table,seat\nalice,pill,red,A\nbob,pill,red,B\n"


def roster(tmp_path: Path, text: str | bytes) -> tuple[Path, object]:
    (tmp_path / "course.toml").write_text(COURSE)
    path = tmp_path / "roster.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path, load_course(tmp_path / "course.toml")


def refusal(path: Path, course) -> str:
    with pytest.raises(RosterError) as err:
        read_roster(path, course, set(CLASS))
    return err.value.render()


def test_a_field_past_csvs_own_limit_is_refused_at_its_line(tmp_path):
    path, course = roster(tmp_path, GOOD + '"' + "z" * 140_000 + '",pill,red,A\n')
    assert f"line 4: a cell over the limit of {limits.MAX_CELL:,} characters" in refusal(path, course)
    path, course = roster(tmp_path, GOOD + "z" * (limits.MAX_CELL + 1) + ",pill,red,A\n")
    assert "line 4, column 1: a cell over the limit" in refusal(path, course)


def test_a_nul_in_a_name_is_refused_not_dropped(tmp_path):
    path, course = roster(tmp_path, GOOD.replace("bob,", "b\x00ob,"))
    assert "line 3: a control character (U+0000) at character 2" in refusal(path, course)


def test_a_roster_saved_as_csv_utf8_by_a_spreadsheet_is_read(tmp_path):
    path, course = roster(tmp_path, b"\xef\xbb\xbf" + GOOD.replace("\n", "\r\n").encode())
    plans = read_roster(path, course, set(CLASS))
    assert [(p.label, p.seats) for p in plans] == [("red", {"A": "alice", "B": "bob"})]


def test_a_roster_past_its_size_says_the_limit_in_kib(tmp_path):
    path, course = roster(tmp_path, GOOD + "alice,pill,red,A\n" * (MAX_ROSTER_BYTES // 10))
    assert f"$: file is over the limit of {MAX_ROSTER_BYTES // 1024} KiB" in refusal(path, course)
