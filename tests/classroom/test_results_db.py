"""The results database of negtui serve, and the `trainees` and `results` commands, on real SQLite files."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import asyncssh
import pytest

from negtui.classroom import db as dbmod
from negtui.classroom.db import DB_NAME, SCHEMA_VERSION, DBError, Decision, ResultsDB
from negtui.classroom.dbtypes import RESULT_COLUMNS
from negtui.classroom.scoring import Standing, personal_best, score, standings
from negtui.serve.address import keep_address


def new_key(comment: str = "") -> tuple[str, asyncssh.SSHKey]:
    """A fresh key pair: the public key line (as in id_ed25519.pub) and the public key object."""
    private = asyncssh.generate_private_key("ssh-ed25519", comment=comment or None)
    line = private.export_public_key().decode()
    return line, asyncssh.import_public_key(line)


@pytest.fixture
def db(tmp_path: Path):
    with ResultsDB.open(tmp_path / "data") as d:
        yield d


def raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path / DB_NAME)


def finish(db: ResultsDB, game_id: int, payoff: float, baseline: float = 10.0, decisions: int = 2) -> None:
    db.game_finished(game_id, payoff=payoff, payoffs=[payoff, 5.0], baseline=baseline,
                     counterfactuals={"myopic": payoff - 1, "upper": payoff + 2, "lower": payoff - 3},
                     welfare_optimum=50.0, efficiency=(payoff + 5.0) / 50.0, duration=12.5,
                     decisions=[Decision(t, "propose" if t % 2 else "respond", f"offer {t}", 0.5 * t, {"upper": t})
                                for t in range(decisions)])


# ---- schema and migrations ----------------------------------------------------------------------------

def test_open_creates_a_private_file_with_the_current_schema(tmp_path: Path):
    data = tmp_path / "new" / "dir"
    ResultsDB.open(data).close()
    path = data / DB_NAME
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    con = raw(data)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"trainees", "keys", "invites", "sessions", "games", "decisions"} <= tables
    indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"games_trainee", "games_exercise"} <= indexes
    con.close()
    ResultsDB.open(data).close()  # opening again changes nothing


def test_a_version_0_file_is_migrated(tmp_path: Path):
    tmp_path.joinpath(DB_NAME).touch()  # an empty file is an empty SQLite database at version 0
    with ResultsDB.open(tmp_path) as d:
        d.add_trainee("ada")
        assert [t.name for t in d.trainees()] == ["ada"]
    assert raw(tmp_path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_each_migration_is_one_transaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    ResultsDB.open(tmp_path).close()
    broken = dbmod.MIGRATIONS + ("CREATE TABLE extra (x INTEGER); CREATE TABLE broken (;",)
    monkeypatch.setattr(dbmod, "MIGRATIONS", broken)
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", len(broken))
    with pytest.raises(DBError, match=f"cannot upgrade .* to schema version {SCHEMA_VERSION + 1}"):
        ResultsDB.open(tmp_path)
    con = raw(tmp_path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'extra'").fetchone()
    con.close()
    good = dbmod.MIGRATIONS[:-1] + ("CREATE TABLE extra (x INTEGER);",)
    monkeypatch.setattr(dbmod, "MIGRATIONS", good)
    ResultsDB.open(tmp_path).close()
    assert raw(tmp_path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1


def test_a_newer_schema_is_refused(tmp_path: Path):
    ResultsDB.open(tmp_path).close()
    con = raw(tmp_path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.close()
    with pytest.raises(DBError, match=f"schema version {SCHEMA_VERSION + 1}, newer than this negtui knows"):
        ResultsDB.open(tmp_path)


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path):
    tmp_path.joinpath(DB_NAME).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DBError, match="cannot open the results database"):
        ResultsDB.open(tmp_path)


# ---- trainees and keys ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["a", "ada", "Ada.Lovelace", "p-3_x", "9lives", "x" * 64])
def test_good_names(db: ResultsDB, name: str):
    db.add_trainee(name)
    assert [t.name for t in db.trainees()] == [name]


@pytest.mark.parametrize("name", ["", "-ada", ".ada", "_ada", "ada lovelace", "ada@host", "ada/..", "x" * 65,
                                  "adé", "ada\n", "a;b"])
def test_bad_names(db: ResultsDB, name: str):
    with pytest.raises(DBError, match="letters, digits"):
        db.add_trainee(name)
    assert db.trainees() == []


def test_trainees_and_keys(db: ResultsDB):
    line1, key1 = new_key("ada@laptop")
    line2, key2 = new_key()
    db.add_trainee("ada")
    with pytest.raises(DBError, match="already exists"):
        db.add_trainee("ada")
    k = db.add_keys("ada", [line1])[0]
    assert k.fingerprint == key1.get_fingerprint("sha256") and k.comment == "ada@laptop"
    assert db.add_keys("bob", [line2], create=True)[0].fingerprint == key2.get_fingerprint("sha256")
    [ada, bob] = db.trainees()
    assert (ada.name, [x.fingerprint for x in ada.keys], ada.invite_pending, ada.games) == \
        ("ada", [k.fingerprint], False, 0)
    assert bob.keys[0].comment == ""
    assert db.key_matches("ada", key1) and db.key_matches("bob", key2)
    assert not db.key_matches("ada", key2) and not db.key_matches("nobody", key1)
    with pytest.raises(DBError, match="no trainee 'carol'"):
        db.add_keys("carol", [new_key()[0]])
    db.remove_trainee("ada")
    assert [t.name for t in db.trainees()] == ["bob"]
    assert not db.key_matches("ada", key1)
    db.add_keys("bob", [line1])  # the key was released with ada
    with pytest.raises(DBError, match="no trainee"):
        db.remove_trainee("ada")


def test_malformed_private_and_duplicate_keys_are_refused(db: ResultsDB):
    line, _ = new_key()
    db.add_keys("ada", [line], create=True)
    db.add_trainee("bob")
    for bad in ["ssh-ed25519 AAAAnotakey bob", "hello", "", line.split()[0]]:
        with pytest.raises(DBError, match="not an OpenSSH public key"):
            db.add_keys("bob", [bad])
    private = asyncssh.generate_private_key("ssh-ed25519").export_private_key().decode()
    with pytest.raises(DBError, match="private key"):
        db.add_keys("bob", [private])[0]
    with pytest.raises(DBError, match="already bound to trainee 'ada'"):
        db.add_keys("bob", [line])[0]
    with pytest.raises(DBError, match="already bound to trainee 'ada'"):
        db.add_keys("ada", [line])[0]
    fresh, _ = new_key()
    with pytest.raises(DBError, match="already bound"):  # all or nothing: the fresh key is not kept either
        db.add_keys("bob", [fresh, line])
    assert [len(t.keys) for t in db.trainees()] == [1, 0]


# ---- invites ------------------------------------------------------------------------------------------

def test_invite_redeem_binds_the_key_once(tmp_path: Path):
    data = tmp_path / "data"
    line, key = new_key()
    with ResultsDB.open(data) as d:
        d.add_trainee("ada")
        assert not d.has_invite("ada")
        code = d.invite("ada")
        assert len(code) == 9 and code[4] == "-"
        assert d.has_invite("ada") and d.trainees()[0].invite_pending
        assert not d.redeem("ada", "0000-0000" if code != "0000-0000" else "1111-1111", key)
        assert not d.redeem("bob", code, key)
        assert not d.key_matches("ada", key)
        assert d.redeem("ada", f" {code.upper()} ", line)  # case and spaces do not matter
        assert d.key_matches("ada", key) and not d.has_invite("ada")
        assert not d.redeem("ada", code, new_key()[1])  # used
    files = b"".join(p.read_bytes() for p in data.iterdir())
    for form in (code, code.replace("-", ""), code.upper()):
        assert form.encode() not in files


def test_invites_expire_and_replace_each_other(db: ResultsDB):
    _, key = new_key()
    db.add_trainee("ada")
    old = db.invite("ada")
    new = db.invite("ada")
    assert not db.redeem("ada", old, key) or old == new
    code = db.invite("ada", ttl=0.05)
    time.sleep(0.1)
    assert not db.has_invite("ada")
    assert not db.redeem("ada", code, key)
    with pytest.raises(DBError, match="positive"):
        db.invite("ada", ttl=0)
    with pytest.raises(DBError, match="no trainee"):
        db.invite("nobody")


def test_redeeming_with_a_key_of_someone_else_keeps_the_invite(db: ResultsDB):
    line, key = new_key()
    db.add_keys("ada", [line], create=True)
    db.add_trainee("bob")
    code = db.invite("bob")
    with pytest.raises(DBError, match="already enrolled") as err:
        db.redeem("bob", code, key)
    assert "ada" not in str(err.value)
    assert db.has_invite("bob")


# ---- sessions and games -------------------------------------------------------------------------------

def test_game_lifecycle_attempts_best_and_leaderboard(db: ResultsDB):
    for name in ("ada", "bob", "cy"):
        db.add_trainee(name)
    sid = db.session_started("ada", "10.0.0.1:5555", "SHA256:abc")
    g1 = db.game_started("ada", "intro", "pill", "poison-pill", "d1", "A", "/r/1.jsonl", session_id=sid)
    g2 = db.game_started("ada", "intro", "pill", "poison-pill", "d1", "A", Path("/r/2.jsonl"))
    g3 = db.game_started("bob", "intro", "pill", "poison-pill", "d1", "B", "/r/3.jsonl")
    g4 = db.game_started("cy", "intro", "pill", "poison-pill", "d1", "A", "/r/4.jsonl")
    g5 = db.game_started("cy", "intro", "other", "x", "d2", "A", "/r/5.jsonl")
    assert [g.id for g in db.unfinished_games("ada")] == [g2, g1]
    finish(db, g1, 30.0)
    finish(db, g2, 40.0, decisions=3)
    finish(db, g3, 40.0)
    finish(db, g4, 20.0)
    assert db.game_abandoned(g5) and not db.game_abandoned(g5)
    db.session_ended(sid, "disconnected")
    with pytest.raises(DBError, match="no session"):
        db.session_ended(999, "x")
    with pytest.raises(DBError, match="finished, not playing"):
        finish(db, g1, 99.0)
    with pytest.raises(DBError, match="no game"):
        finish(db, 999, 1.0)
    row = db.game(g1)
    assert row is not None and (row.status, row.trainee, row.session_id, row.payoff, row.payoffs) == \
        ("finished", "ada", sid, 30.0, [30.0, 5.0])
    assert row.counterfactuals == {"myopic": 29.0, "upper": 32.0, "lower": 27.0} and row.duration == 12.5
    assert db.game(999) is None and db.unfinished_games("ada") == []
    pill = db.games("intro", "pill")
    assert (db.grades.attempts("ada", "intro", "pill"), personal_best(standings(pill, "payoff"), "ada")) == (2, 40.0)
    assert (db.grades.attempts("cy", "intro", "other"),
            personal_best(standings(db.games("intro", "other"), "payoff"), "cy")) == (0, None)
    assert db.grades.attempts("cy", "intro", "other", every_start=True) == 1  # an assessment counts every start
    assert db.grades.abandoned("cy", "intro", "other") == 1
    # seat by seat: A's and B's are different roles, never ranked together
    assert standings(pill, "payoff") == {"A": [Standing(1, "ada", 40.0, 2), Standing(2, "cy", 20.0, 1)],
                                         "B": [Standing(1, "bob", 40.0, 1)]}
    rows = db.results()
    assert [r["record_path"] for r in rows] == ["/r/1.jsonl", "/r/2.jsonl", "/r/3.jsonl", "/r/4.jsonl", "/r/5.jsonl"]
    assert rows[-1]["status"] == "abandoned"  # said everywhere
    assert list(rows[0]) == list(RESULT_COLUMNS)
    assert rows[1]["improvement"] == 30.0 and rows[1]["decisions"] == 3
    assert rows[1]["counterfactual_upper"] == 42.0 and rows[1]["efficiency"] == pytest.approx(0.9)
    assert [r["trainee"] for r in db.results(trainee="cy")] == ["cy", "cy"]
    assert db.results(course="none") == []
    g6 = db.game_started("bob", "intro", "pill", "poison-pill", "d1", "B", "/r/6.jsonl")
    assert db.results(trainee="bob")[-1]["status"] == "playing" and db.results()[-1]["payoff"] is None
    assert db.game(g6) is not None


def test_game_finished_is_all_or_nothing(tmp_path: Path, db: ResultsDB):
    db.add_trainee("ada")
    gid = db.game_started("ada", "intro", "pill", "poison-pill", "d1", "A", "/r/1.jsonl")
    decisions = [Decision(0, "propose", "pass", 0.0, {"upper": 1.0}), Decision(1, "respond", "accept", 1.0,
                                                                               {"bad": object()})]
    with pytest.raises(DBError, match=r"decision 1 .* not JSON"):
        db.game_finished(gid, payoff=1.0, payoffs=[1.0], baseline=0.0, counterfactuals={}, welfare_optimum=None,
                         efficiency=None, duration=1.0, decisions=decisions)
    with pytest.raises(DBError, match="decision 0"):  # a phase the schema does not know
        db.game_finished(gid, payoff=1.0, payoffs=[1.0], baseline=0.0, counterfactuals={}, welfare_optimum=None,
                         efficiency=None, duration=1.0, decisions=[Decision(0, "dither", "x", 0.0)])
    row = db.game(gid)
    assert row is not None and (row.status, row.payoff, row.finished) == ("playing", None, None)
    assert raw(tmp_path / "data").execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == 0
    finish(db, gid, 5.0)
    assert raw(tmp_path / "data").execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == 2


def test_removing_a_trainee_with_games_needs_force(tmp_path: Path, db: ResultsDB):
    db.add_trainee("ada")
    sid = db.session_started("ada", "peer", "fp")
    finish(db, db.game_started("ada", "c", "e", "s", "d", "A", "/r", session_id=sid), 1.0)
    db.invite("ada")
    with pytest.raises(DBError, match="has 1 game"):
        db.remove_trainee("ada")
    assert db.remove_trainee("ada", force=True) == 1
    con = raw(tmp_path / "data")
    for table in ("trainees", "keys", "invites", "sessions", "games", "decisions"):
        assert con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table


WRITER = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from negtui.classroom.db import Decision, ResultsDB
    data, me, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    (data.parent / f"{me}.ready").touch()
    while not (data.parent / "go").exists():  # start together: open the new file and write at the same time
        time.sleep(0.005)
    with ResultsDB.open(data) as db:
        db.add_trainee(me)
        for i in range(n):
            gid = db.game_started(me, "c", "e", "s", "d", "A", f"/r/{me}/{i}")
            db.game_finished(gid, payoff=float(i), payoffs=[float(i)], baseline=0.0, counterfactuals={},
                             welfare_optimum=None, efficiency=None, duration=0.1,
                             decisions=[Decision(t, "propose", "x", 0.0, {"t": t}) for t in range(5)])
""")


def test_two_connections_to_a_new_file_write_in_turn(tmp_path: Path):
    """Two handles opened one after the other on a folder with no database yet (the second finds the
    schema the first made), their writes interleaved: every game and decision kept, each in its place."""
    n, who = 20, ("ada", "bob")
    data = tmp_path / "data"
    with ResultsDB.open(data) as first, ResultsDB.open(data) as second:
        handles = dict(zip(who, (first, second)))
        for name, d in handles.items():
            d.add_trainee(name)
        for i in range(n):
            for name, d in handles.items():
                gid = d.game_started(name, "c", "e", "s", "d", "A", f"/r/{name}/{i}")
                d.game_finished(gid, payoff=float(i), payoffs=[float(i)], baseline=0.0, counterfactuals={},
                                welfare_optimum=None, efficiency=None, duration=0.1,
                                decisions=[Decision(t, "propose", "x", 0.0, {"t": t}) for t in range(5)])
        for d in handles.values():  # each sees the other's writes
            assert {t.name: t.games for t in d.trainees()} == dict.fromkeys(who, n)
    with ResultsDB.open(data) as d:
        assert standings(d.games("c", "e"), "payoff")["A"] == [Standing(k, w, n - 1.0, n)
                                                               for k, w in enumerate(who, start=1)]
    assert raw(data).execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == len(who) * n * 5


@pytest.mark.stress
def test_several_processes_open_a_new_file_and_write_at_once(tmp_path: Path):
    """The race of the test above: three processes open the new file and write at the same moment."""
    n, who = 100, ("ada", "bob", "cy")
    data = tmp_path / "data"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(data), w, str(n)], stderr=subprocess.PIPE)
             for w in who]
    try:
        deadline = time.monotonic() + 60
        while not all((tmp_path / f"{w}.ready").exists() for w in who):
            assert time.monotonic() < deadline, f"the writers never all started: {[p.poll() for p in procs]}"
            time.sleep(0.01)
        (tmp_path / "go").touch()
        for p in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err.decode()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    with ResultsDB.open(data) as d:
        assert {t.name: t.games for t in d.trainees()} == dict.fromkeys(who, n)
        assert standings(d.games("c", "e"), "payoff")["A"] == [Standing(k, w, n - 1.0, n)
                                                               for k, w in enumerate(who, start=1)]
    assert raw(data).execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == len(who) * n * 5


# ---- the commands -------------------------------------------------------------------------------------

def test_cli_trainees_add_list_invite_remove(cli, tmp_path: Path):
    data = str(tmp_path / "data")
    (line1, key1), (line2, _) = new_key("ada@laptop"), new_key()
    keyfile = tmp_path / "ada.pub"
    keyfile.write_text(f"# ada's keys\n\n{line1}{line2}")
    res = cli("trainees", "add", "ada", str(keyfile), "--data-dir", data)
    assert res.exit_code == 0, res.output
    assert key1.get_fingerprint("sha256") in res.stdout and res.stdout.count("added key") == 2

    res = cli("trainees", "list", "--json", "--data-dir", data)
    assert res.exit_code == 0, res.output
    [ada] = json.loads(res.stdout)
    assert ada["name"] == "ada" and len(ada["keys"]) == 2 and ada["keys"][0]["comment"] == "ada@laptop"

    res = cli("trainees", "invite", "bob", "--hours", "2", "--data-dir", data)
    assert res.exit_code == 0, res.output
    code = res.stdout.split("invite code for bob: ")[1].split()[0]
    assert "ssh -p PORT bob@" in res.stdout and "the one negtui serve listens on" in res.stdout  # never served
    keep_address(Path(data), "127.0.0.1", 2399)  # as the server does when it starts
    again = cli("trainees", "invite", "bob", "--data-dir", data)
    assert "ssh -p 2399 bob@" in again.stdout
    code = again.stdout.split("invite code for bob: ")[1].split()[0]  # the new code replaces the first
    with ResultsDB.open(Path(data)) as d:
        assert d.redeem("bob", code, new_key()[1])
    assert "bob" in cli("trainees", "list", "--data-dir", data).stdout
    (line3, _) = new_key()
    (tmp_path / "tess.pub").write_text(line3)
    assert cli("trainees", "add", "tess", str(tmp_path / "tess.pub"), "--trainer", "--data-dir", data).exit_code == 0
    listed = {line.split()[0]: line for line in cli("trainees", "list", "--data-dir", data).stdout.splitlines()
              if not line.startswith(" ")}
    assert "trainer (logs in to the console)" in listed["tess"] and "trainer" not in listed["bob"]
    assert [t["trainer"] for t in json.loads(cli("trainees", "list", "--json", "--data-dir", data).stdout)] == \
        [False, False, True]
    cli("trainees", "remove", "tess", "--data-dir", data)

    res = cli("trainees", "remove", "ada", "--data-dir", data)
    assert res.exit_code == 0, res.output
    assert [t["name"] for t in json.loads(cli("trainees", "list", "--json", "--data-dir", data).stdout)] == ["bob"]
    res = cli("trainees", "remove", "ada", "--data-dir", data)
    assert res.exit_code == 2 and "no trainee 'ada'" in res.stderr


def test_cli_add_refuses_bad_files_and_adds_nothing(cli, tmp_path: Path):
    data = str(tmp_path / "data")
    good, _ = new_key()
    bad = tmp_path / "keys.pub"
    bad.write_text(f"{good}ssh-ed25519 garbage me@host\n")
    res = cli("trainees", "add", "ada", str(bad), "--data-dir", data)
    assert res.exit_code == 2 and f"{bad}:2: not an OpenSSH public key" in res.stderr
    assert "Traceback" not in res.output
    res = cli("trainees", "add", "ada", str(tmp_path / "missing.pub"), "--data-dir", data)
    assert res.exit_code == 2 and "missing.pub" in res.stderr
    res = cli("trainees", "add", "ada@host", str(bad), "--data-dir", data)
    assert res.exit_code == 2 and "letters, digits" in res.stderr
    twice = tmp_path / "twice.pub"
    twice.write_text(f"{good}{good}")
    res = cli("trainees", "add", "ada", str(twice), "--data-dir", data)
    assert res.exit_code == 2 and f"{twice}:2: the same key as line 1" in res.stderr
    with ResultsDB.open(Path(data)) as db:
        assert db.trainees() == []
    one = tmp_path / "one.pub"
    one.write_text(good)
    assert cli("trainees", "add", "ada", str(one), "--data-dir", data).exit_code == 0
    res = cli("trainees", "add", "bob", str(one), "--data-dir", data)
    assert res.exit_code == 2 and "already bound to trainee 'ada'" in res.stderr
    assert [t["name"] for t in json.loads(cli("trainees", "list", "--json", "--data-dir", data).stdout)] == ["ada"]


def test_cli_results_table_json_csv_and_remove_force(cli, tmp_path: Path):
    data = tmp_path / "data"
    with ResultsDB.open(data) as d:
        d.add_trainee("ada")
        finish(d, d.game_started("ada", "intro", "pill", "poison-pill", "d1", "A", "/r/1.jsonl"), 30.0)
        d.game_started("ada", "intro", "pill", "poison-pill", "d1", "A", "/r/2.jsonl")
        d.add_trainee("bob")
        finish(d, d.game_started("bob", "advanced", "x", "s", "d2", "B", "/r/3.jsonl"), 12.0)

    res = cli("results", "--data-dir", str(data))
    assert res.exit_code == 0, res.output
    assert "ada" in res.stdout and "playing" in res.stdout and "3 game(s)" in res.stdout

    res = cli("results", "--json", "--course", "intro", "--data-dir", str(data))
    rows = json.loads(res.stdout)
    assert [(r["trainee"], r["status"], r["payoff"]) for r in rows] == [("ada", "finished", 30.0),
                                                                           ("ada", "playing", None)]
    assert rows[0]["improvement"] == 20.0

    res = cli("results", "--csv", "--data-dir", str(data))
    assert res.exit_code == 0, res.output
    table = list(csv.DictReader(io.StringIO(res.stdout)))
    assert list(table[0]) == list(RESULT_COLUMNS) and len(table) == 3
    assert [r["trainee"] for r in table] == ["ada", "ada", "bob"]
    assert float(table[2]["payoff"]) == 12.0 and table[1]["payoff"] == ""
    empty = cli("results", "--csv", "--trainee", "nobody", "--data-dir", str(data)).stdout
    assert empty.strip().split(",") == list(RESULT_COLUMNS)
    assert cli("results", "--csv", "--json", "--data-dir", str(data)).exit_code == 2

    res = cli("trainees", "remove", "ada", "--data-dir", str(data))
    assert res.exit_code == 2 and "--force" in res.stderr
    res = cli("trainees", "remove", "ada", "--force", "--data-dir", str(data))
    assert res.exit_code == 0 and "2 game(s)" in res.stdout
    assert [r["trainee"] for r in json.loads(cli("results", "--json", "--data-dir", str(data)).stdout)] == ["bob"]


def test_scores_under_each_objective_and_a_resume_continues_the_same_game(db: ResultsDB):
    db.add_trainee("ada")
    # a game at a table: ada got 30 (baseline 10), the others 5 and -2
    assert [score(o, 30.0, [30.0, 5.0, -2.0], 10.0) for o in ("payoff", "gain", "table_total", "table_minimum")] \
        == [30.0, 20.0, 33.0, -2.0]
    assert score("gain", None, None, 10.0) is None and score("table_total", 3.0, [], 1.0) is None
    old = db.session_started("ada", "p", "f")
    gid = db.game_started("ada", "c", "exam", "s", "d", "A", "/r/1.jsonl", session_id=old)
    db.session_ended(old, "disconnected")
    new = db.session_started("ada", "p", "f")
    db.grades.continued(gid, "/r/1-resumed.jsonl", new)
    row = db.game(gid)
    assert row is not None and (row.status, row.record_path, row.session_id) == ("playing", "/r/1-resumed.jsonl", new)
    assert db.grades.attempts("ada", "c", "exam", every_start=True) == 1  # the same attempt
    # left idle: the open session keeps it; once its session has ended longer ago than the timeout, abandoned
    assert db.grades.abandon_left("c", ["exam"], idle=0.0) == []
    db.session_ended(new, "idle")
    assert db.grades.abandon_left("c", ["exam"], idle=3600.0) == []
    assert db.grades.abandon_left("c", ["other"], idle=0.0) == []
    time.sleep(0.01)
    assert db.grades.abandon_left("c", ["exam"], idle=0.0) == [gid]
    assert db.game(gid).status == "abandoned"  # type: ignore[union-attr]
    with pytest.raises(DBError, match="abandoned, not playing"):
        db.grades.continued(gid, "/r/x.jsonl", None)
