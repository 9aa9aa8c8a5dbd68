"""Student ids, the wide gradebook's key: given with `negtui trainees add|set --student-id` or read from a
class list (`negtui trainees import`), listed by `trainees list`, never shared by two trainees, and set all or
nothing — a broken class list says every problem with its line and changes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import asyncssh
import pytest

from negtui.classroom import db as dbmod
from negtui.classroom.db import ResultsDB


def _ids(cli, data: Path) -> dict[str, str | None]:
    out = cli("trainees", "list", "--json", "--data-dir", data)
    assert out.exit_code == 0, out.output
    return {t["name"]: t["student_id"] for t in json.loads(out.stdout)}


def _key(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.pub"
    path.write_text(asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode())
    return path


@pytest.fixture
def data(tmp_path: Path) -> Path:
    with ResultsDB.open(tmp_path / "data") as db:
        for name in ("ada", "ben", "cy"):
            db.add_trainee(name)
    return tmp_path / "data"


def test_add_and_set_give_an_id_no_two_trainees_share(cli, data: Path, tmp_path: Path) -> None:
    out = cli("trainees", "add", "dee", _key(tmp_path, "dee"), "--student-id", "S-004", "--data-dir", data)
    assert out.exit_code == 0 and "dee's student id is S-004" in out.stdout, out.output
    assert cli("trainees", "set", "ada", "--student-id", "S-001", "--data-dir", data).exit_code == 0
    assert _ids(cli, data) == {"ada": "S-001", "ben": None, "cy": None, "dee": "S-004"}
    listed = {line.split()[0]: line for line in cli("trainees", "list", "--data-dir", data).stdout.splitlines()
              if not line.startswith(" ")}
    assert "student id S-001" in listed["ada"] and "student id" not in listed["ben"]

    taken = cli("trainees", "set", "ben", "--student-id", "S-001", "--data-dir", data)
    assert taken.exit_code == 2 and "student id 'S-001' is ada's already" in taken.stderr
    again = cli("trainees", "add", "eve", _key(tmp_path, "eve"), "--student-id", "S-004", "--data-dir", data)
    assert again.exit_code == 2 and "dee's already" in again.stderr
    assert "eve" not in _ids(cli, data)  # refused before any key was added
    bad = cli("trainees", "set", "ben", "--student-id", "S\x1b[2J", "--data-dir", data)
    assert bad.exit_code == 2 and "control character (U+001B)" in bad.stderr and "\x1b" not in bad.stderr
    assert cli("trainees", "set", "nobody", "--student-id", "S-9", "--data-dir", data).exit_code == 2
    assert cli("trainees", "set", "ada", "--data-dir", data).exit_code == 2  # nothing to set: said, not a no-op

    cleared = cli("trainees", "set", "ada", "--student-id", "", "--data-dir", data)
    assert cleared.exit_code == 0 and "ada has no student id now" in cleared.stdout
    assert cli("trainees", "set", "ben", "--student-id", "S-001", "--data-dir", data).exit_code == 0  # free now
    assert _ids(cli, data)["ben"] == "S-001" and _ids(cli, data)["ada"] is None


def test_a_class_list_sets_every_id_it_gives(cli, data: Path, tmp_path: Path) -> None:
    cli("trainees", "set", "ada", "--student-id", "S-002", "--data-dir", data)
    cli("trainees", "set", "ben", "--student-id", "S-001", "--data-dir", data)
    listing = tmp_path / "class.csv"
    # the registrar's export: its own columns, any order and case, a byte-order mark; ada's and ben's ids swapped
    listing.write_text("\ufeffName,STUDENT_ID,email,trainee\nAda L.,S-001,a@uni.example,ada\n"
                       "Ben K.,S-002,b@uni.example,ben\n,,,\nDee,S-004,d@uni.example,dee\n")
    refused = cli("trainees", "import", listing, "--data-dir", data)
    assert refused.exit_code == 2 and f"{listing}: line 5: no trainee 'dee'" in refused.stderr
    assert "--create adds them" in refused.stderr
    assert _ids(cli, data) == {"ada": "S-002", "ben": "S-001", "cy": None}  # nothing changed
    out = cli("trainees", "import", listing, "--create", "--data-dir", data)
    assert out.exit_code == 0, out.output
    assert "added 1 trainee(s) without a key: dee" in out.stdout and "3 trainee(s): 3 set, 0 as they were" in out.stdout
    assert _ids(cli, data) == {"ada": "S-001", "ben": "S-002", "cy": None, "dee": "S-004"}
    twice = cli("trainees", "import", listing, "--data-dir", data)
    assert twice.exit_code == 0 and "0 set, 3 as they were" in twice.stdout

    other = tmp_path / "other.csv"
    other.write_text("trainee,student_id\ncy,S-004\n")  # dee's, and dee is not in this list
    held = cli("trainees", "import", other, "--data-dir", data)
    assert held.exit_code == 2 and "line 2: student id 'S-004' is dee's already" in held.stderr


@pytest.mark.parametrize(("text", "said"), [
    ("name,id\nada,S-1\n", "line 1: the header must name the columns trainee and student_id"),
    ("trainee,student_id,trainee\nada,S-1,ada\n", "the column trainee is named twice"),
    ("trainee,student_id\nada,S-1\nada,S-2\nben,S-1\n",
     "line 3, trainee: ada is on line 2 already\n  line 4, student_id: 'S-1' is ada's, on line 2"),
    ("trainee,student_id\nada,\n", "line 2, student_id: no student id for ada"),
    ("trainee,student_id\nada,S-1,extra\n", "line 2: 3 columns; the header has 2"),
    ("trainee,student_id\nada@host,S-1\n", "line 2, trainee: trainee name 'ada@host' is not allowed"),
    ("trainee,student_id\nada,S\u202e1\n", "line 2, student_id: student id 'S\\u202e1' holds a bidirectional control"),
    ("trainee,student_id\nada,S\x001\n", "line 2: a control character (U+0000)"),
    ("trainee,student_id\n", "no trainee in it"),
    ("trainee,student_id\n" + "ada,S-1\n" * 2001, "2,001 rows; a class list holds at most 2,000"),
    ("trainee,student_id\nada," + "9" * 70 + "\n", "is not allowed: 1–64 characters"),
])
def test_a_broken_class_list_says_where_and_sets_nothing(cli, data: Path, tmp_path: Path, text: str,
                                                         said: str) -> None:
    listing = tmp_path / "class.csv"
    listing.write_text(text)
    out = cli("trainees", "import", listing, "--data-dir", data)
    assert out.exit_code == 2 and f"{listing}: invalid class list" in out.stderr and said in out.stderr, out.output
    assert "Traceback" not in out.output
    assert set(_ids(cli, data).values()) == {None}


def test_a_class_list_that_is_no_file_is_refused(cli, data: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.csv"
    big.write_text("trainee,student_id\n" + "x" * (256 * 1024))
    assert "over the limit of 256 KiB" in cli("trainees", "import", big, "--data-dir", data).stderr
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    out = cli("trainees", "import", fifo, "--data-dir", data)  # would block a reader that waited for a writer
    assert out.exit_code == 2 and "cannot read a FIFO" in out.stderr


def test_an_older_results_file_gains_student_ids(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = next(k for k, script in enumerate(dbmod.MIGRATIONS) if "student_id" in script)
    with monkeypatch.context() as m:
        m.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:before])
        m.setattr(dbmod, "SCHEMA_VERSION", before)
        with ResultsDB.open(tmp_path) as db:
            db.add_trainee("ada")
    with ResultsDB.open(tmp_path) as db:
        assert [(t.name, t.student_id) for t in db.trainees()] == [("ada", None)]
        db.students.set("ada", "S-1")
        assert db.students.all() == {"ada": "S-1"}
