"""A class invited from one roster (`negtui trainees invite --roster FILE --base-url URL --csv`): one code per
trainee named, the new ones made, a CSV for a mail merge; every code good at either door, once; a bad roster
or address refused with where, and nothing filed."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import asyncssh
import pytest

from negtui.classroom.db import ResultsDB
from negtui.classroom.invitebook import Redeemed

SEATING = """\
trainee,exercise,table,seat
alice,trap,north,A
bob,trap,north,B
alice,pill,n1,A
carol,trap,south,A
dave,trap,south,B
"""


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def data(tmp_path: Path) -> Path:
    with ResultsDB.open(tmp_path / "data") as db:
        db.add_trainee("bob")  # known already: invited, not made again
    return tmp_path / "data"


def test_one_roster_one_command_a_code_for_each_trainee(cli, tmp_path, data):
    roster = tmp_path / "roster.csv"
    roster.write_text("\ufeff" + SEATING)  # as a spreadsheet saves "CSV UTF-8"
    res = cli("trainees", "invite", "--roster", roster, "--base-url", "https://class.example.org/", "--hours", "48",
              "--csv", "--data-dir", data)
    assert res.exit_code == 0, res.output
    got = rows(res.stdout)
    assert list(got[0]) == ["trainee", "code", "expires", "ssh", "web"]
    assert [r["trainee"] for r in got] == ["alice", "bob", "carol", "dave"]  # each once, in the roster's order
    for r in got:
        name, code = r["trainee"], r["code"]
        assert r["ssh"] == f"ssh -p 2222 {name}@class.example.org"
        assert r["web"] == f"https://class.example.org/join/{name}/{code}"
    assert "4 invite code(s)" in res.stderr and "3 new trainee(s)" in res.stderr
    with ResultsDB.open(data) as db:
        assert sorted(t.name for t in db.trainees() if t.invite_pending) == ["alice", "bob", "carol", "dave"]
        assert got[0]["expires"] > db.rows("SELECT datetime('now', '+47 hours') AS t")[0]["t"].replace(" ", "T")
        # either door: alice's in a browser, bob's binding the key he connects with over SSH; each once
        assert db.invites.redeem_web("alice", got[0]["code"]) is Redeemed.ENROLLED
        assert db.invites.redeem_web("alice", got[0]["code"]) is Redeemed.USED
        key = asyncssh.generate_private_key("ssh-ed25519")
        assert db.redeem("bob", got[1]["code"], key.export_public_key().decode())
        assert db.invites.redeem_web("bob", got[1]["code"]) is Redeemed.USED
        assert db.invites.redeem_web("carol", "0000-0000") is Redeemed.WRONG


def test_the_ssh_port_comes_from_where_the_server_last_listened(cli, tmp_path, data):
    from negtui.serve.address import keep_address

    keep_address(data, "0.0.0.0", 2022, "http://127.0.0.1:8080")
    roster = tmp_path / "class.csv"
    roster.write_text("student_id,trainee\nS1,erin\n")  # a class list reads too
    res = cli("trainees", "invite", "--roster", roster, "--base-url", "http://10.0.0.5:8080", "--csv", "--data-dir",
              data)
    assert res.exit_code == 0, res.output
    [row] = rows(res.stdout)
    assert row["ssh"] == "ssh -p 2022 erin@10.0.0.5" and row["web"].startswith("http://10.0.0.5:8080/join/erin/")


def test_a_single_invite_still_works_and_names_its_web_link(cli, data):
    res = cli("trainees", "invite", "bob", "--data-dir", data)
    assert res.exit_code == 0 and "invite code for bob:" in res.stdout and "ssh -p PORT bob@HOST" in res.stdout
    res = cli("trainees", "invite", "bob", "--base-url", "http://127.0.0.1:8080", "--data-dir", data)
    code = res.stdout.split("invite code for bob: ")[1].split()[0]
    assert f"or opens http://127.0.0.1:8080/join/bob/{code} in a browser" in res.stdout


@pytest.mark.parametrize(("roster", "args", "said"), [
    ("trainee,table\nalice,north\nbad name,south\n", [], "line 3, trainee: trainee name 'bad name' is not allowed"),
    ("name,table\nalice,north\n", [], "line 1: the header must name the column trainee"),
    ("trainee,trainee\nalice,alice\n", [], "the column trainee"),
    ("trainee,table\nalice\n", [], "line 2: 1 columns; the header has 2"),
    ("trainee\n", [], "no trainee in it"),
    ("trainee\nal\x00ice\n", [], "a control character (U+0000)"),
    ("trainee\nalice\n", ["--base-url", "ftp://x"], "--base-url 'ftp://x' must start with http:// or https://"),
    ("trainee\nalice\n", ["--base-url", "https://x/?a=1"], "no user, query"),
    ("trainee\nalice\n", ["--drop-base"], "give --base-url URL"),
    ("trainee\nalice\n", ["--hours", "0"], "--hours must be above 0"),
    ("trainee\nalice\n", ["alice"], "give a trainee's NAME or --roster FILE (one of them)"),
])
def test_a_bad_roster_or_option_is_refused_with_where_and_nothing_filed(cli, tmp_path, data, roster, args, said):
    path = tmp_path / "roster.csv"
    path.write_text(roster)
    base = [] if "--drop-base" in args or "--base-url" in args else ["--base-url", "https://class.example.org"]
    args = [a for a in args if a != "--drop-base"]
    res = cli("trainees", "invite", *args, "--roster", path, *base, "--csv", "--data-dir", data)
    assert res.exit_code == 2, res.output
    assert said in res.output and "Traceback" not in res.output
    with ResultsDB.open(data) as db:
        assert [t.name for t in db.trainees()] == ["bob"] and not db.trainees()[0].invite_pending
