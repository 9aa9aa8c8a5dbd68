"""Records are never lost, mixed up or forged: one writer per file (racing processes and apps), ids that
contain dots, headers validated as strictly as scenarios, everything recomputable checked by
`replay --verify`, and signed records whose every edit is caught with the key."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from negtui.engine import PAPER
from negtui.play import LiveGame
from negtui.record import Replay, load_record, state_digest
from negtui.record.signing import data_dir_key
from negtui.scenario import load_scenario, parse_scenario
from negtui.seats import Seat
from tests.paths import PILL, SIX

CLI = [sys.executable, "-m", "negtui.cli"]


def lines_of(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def write_lines(path: Path, objs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    return path


def valid_complete(path: Path) -> Replay:
    rp = Replay(load_record(path))
    assert rp.record.complete, path
    return rp


# --- one writer per record -----------------------------------------------------------------------------------

@pytest.mark.parametrize("force", [False, True])
def test_a_pair_of_writers_one_after_the_other_on_one_record_path(cli, tmp_path, force):
    """The race below in a fixed order: the first game is recorded whole; the second writer is refused with a
    message naming the file, or with --force replaces it by its own whole game once the first is finished."""
    path = tmp_path / "pair.jsonl"
    games = {}
    for lens in ("myopic", "lower"):
        res = cli("autoplay", SIX, "--lens", lens, "--partner", "greedy", "--record", path, "--json",
                  *(["--force"] if force else []))
        assert "Traceback" not in res.output, res.output
        games[lens] = res
    assert games["myopic"].exit_code == 0, games["myopic"].output
    if force:
        assert games["lower"].exit_code == 0, games["lower"].output
    else:
        assert games["lower"].exit_code == 2, games["lower"].output
        assert str(path) in games["lower"].stderr and "exists; pass --force" in games["lower"].stderr, \
            games["lower"].stderr
    winner = "lower" if force else "myopic"
    rp = valid_complete(path)
    assert rp.record.header.seats["P0"].propose_lens == winner
    assert [t.offer for t in rp.record.turns] == [t["offer"] for t in json.loads(games[winner].stdout)["turns"]]
    assert cli("replay", path, "--verify").exit_code == 0


@pytest.mark.stress
@pytest.mark.slow
@pytest.mark.exclusive
@pytest.mark.parametrize("force", [False, True])
def test_twenty_pairs_of_processes_racing_on_one_record_path(cli, tmp_path, force):
    """Each pair writes the same path at the same moment: one game is recorded whole, the other is refused
    with a message (or, with --force, may replace it once the first is finished); no file mixes games."""
    procs = []
    for k in range(20):
        path = tmp_path / f"race{k}.jsonl"
        for lens in ("myopic", "lower"):
            args = [*CLI, "autoplay", str(SIX), "--lens", lens, "--partner", "greedy", "--record", str(path), "--json"]
            procs.append((path, lens, subprocess.Popen(args + (["--force"] if force else []), stdout=subprocess.PIPE,
                                                       stderr=subprocess.PIPE, text=True)))
    outcomes: dict[Path, list] = {}
    for path, lens, proc in procs:
        out, err = proc.communicate(timeout=180)
        assert "Traceback" not in err, err
        assert proc.returncode in (0, 2), err
        if proc.returncode == 2:
            assert str(path) in err and ("exists; pass --force" in err or "being written by another" in err), err
        outcomes.setdefault(path, []).append((lens, proc.returncode, json.loads(out) if proc.returncode == 0 else None))
    for path, results in outcomes.items():
        winners = [r for r in results if r[1] == 0]
        assert winners, f"{path}: both writers refused"
        if not force:
            assert len(winners) == 1, f"{path}: two writers both claim the file"
        rp = valid_complete(path)
        lens = rp.record.header.seats["P0"].propose_lens
        game = next(out for lz, _, out in winners if lz == lens)  # the file is one whole game of a winner
        assert [t.offer for t in rp.record.turns] == [t["offer"] for t in game["turns"]]
        assert cli("replay", path, "--verify").exit_code == 0


def _app(data: Path) -> subprocess.Popen:
    """`negtui play --autoplay` without a terminal: it plays the poison pill into the data directory and stays
    open until interrupted."""
    return subprocess.Popen([*CLI, "play", str(PILL), "--seat", "A=myopic", "--seat", "B=upper", "--data-dir",
                             str(data), "--autoplay"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "NEGTUI_HEADLESS": "1"})


def _finished_records(records: Path) -> list[Path]:
    """The records in the folder that hold a result line (a game played to its end)."""
    if not records.exists():
        return []
    return [p for p in records.glob("*.jsonl") if '"type":"result"' in p.read_text()]


def _apps_into_one_data_directory(cli, wait_for, data: Path, apps: int, together: bool) -> None:
    """`apps` apps into one data directory, started together or each once the one before has finished its
    game: as many record files with distinct names, each a whole, verifiable, signed game; SIGINT then ends
    each app with status 130."""
    records = data / "records"
    procs: list[subprocess.Popen] = []

    def exited() -> list[tuple[int, str]]:
        return [(p.returncode, p.stderr.read()) for p in procs if p.poll() is not None]

    try:
        for k in range(apps):
            procs.append(_app(data))
            if not together:
                wait_for(lambda k=k: len(_finished_records(records)) == k + 1, f"the game of app {k + 1} recorded",
                         timeout=120, seen=lambda: (_finished_records(records), exited()))
        wait_for(lambda: len(_finished_records(records)) == apps, f"the games of {apps} apps recorded", timeout=180,
                 seen=lambda: (len(_finished_records(records)), exited()))
        ended = exited()
        assert not ended, f"an app ended before it was interrupted: {ended}"
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        codes = [proc.wait(timeout=30) for proc in procs]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    errors = [proc.stderr.read() for proc in procs]
    assert codes == [130] * apps, errors
    assert not any("Traceback" in e for e in errors), errors
    files = sorted(records.glob("*.jsonl"))
    assert len(files) == apps and len({f.name for f in files}) == apps
    key = data / "record.key"
    for f in files:
        valid_complete(f)
        res = cli("replay", f, "--verify", "--key", key)
        assert res.exit_code == 0 and "signature valid" in res.stdout, res.output


def test_two_apps_one_after_the_other_into_one_data_directory(cli, wait_for, tmp_path):
    """The twenty apps below, two of them in a fixed order: two record files with distinct names (made within
    moments of each other), each a whole, verifiable game; SIGINT then ends each app with status 130."""
    _apps_into_one_data_directory(cli, wait_for, tmp_path / "data", 2, together=False)


@pytest.mark.stress
@pytest.mark.slow
@pytest.mark.exclusive
def test_twenty_apps_started_together_into_one_data_directory(cli, wait_for, tmp_path):
    """Twenty apps at once: twenty record files with distinct names, each a whole, verifiable game; SIGINT
    then ends each app with status 130."""
    _apps_into_one_data_directory(cli, wait_for, tmp_path / "data", 20, together=True)


def test_the_lock_refuses_a_second_writer_while_the_first_writes(tmp_path):
    from negtui.engine import Negotiation
    from negtui.record import RecordWriter
    from negtui.record.writer import CannotWrite

    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    path = tmp_path / "held.jsonl"
    seats = [Seat.lens("upper")] * 2
    with RecordWriter(path, neg, seats, neg.initial_state()):
        with pytest.raises(FileExistsError):
            RecordWriter(path, neg, seats, neg.initial_state())
        with pytest.raises(CannotWrite, match="being written by another negtui process"):
            RecordWriter(path, neg, seats, neg.initial_state(), force=True)
    RecordWriter(path, neg, seats, neg.initial_state(), force=True).close(discard_empty=False)  # free once closed
    assert load_record(path).header.format == "negtui-record/2"
    RecordWriter(path, neg, seats, neg.initial_state(), force=True).close()  # nothing played: nothing kept
    assert not path.exists()


# --- ids with dots ---------------------------------------------------------------------------------------------

def test_ids_with_dots_replay_exactly(cli, tmp_path):
    """Player 'a' with action 'b.c' beside player 'a.b' with action 'c' both read 'a.b.c' as text: records
    name commitments as [player, action] pairs, so the game replays and verifies."""
    sc = {
        "name": "dots",
        "players": [{"id": "a", "actions": [{"id": "b.c"}, {"id": "x"}]}, {"id": "a.b", "actions": [{"id": "c"}]}],
        "goals": [{"id": "g", "requires": [{"player": "a", "action": "b.c"}, {"player": "a.b", "action": "c"}],
                   "values": {"a": 5, "a.b": 5}},
                  {"id": "h", "requires": [{"player": "a.b", "action": "c"}], "values": {"a": -1, "a.b": 3}}],
        "protocol": {"rounds": 2, "seed": 3},
    }
    path = tmp_path / "dots.json"
    path.write_text(json.dumps(sc))
    rec = tmp_path / "dots.jsonl"
    res = cli("autoplay", path, "--lens", "myopic", "--record", rec, "--json")
    assert res.exit_code == 0, res.output
    made = [c for t in json.loads(res.stdout)["turns"] if t["accepted"] for c in t["offer"]]
    assert ["a", "b.c"] in made and ["a.b", "c"] in made
    assert cli("replay", rec, "--verify").exit_code == 0
    game = Replay(load_record(rec)).neg.game
    assert game.bits_of([["a", "b.c"]]) != game.bits_of([["a.b", "c"]])
    with pytest.raises(ValueError, match="ambiguous"):
        game.bits_of(["a.b.c"])  # the format-1 spelling cannot tell them apart


# --- headers as strict as scenarios -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def six_record(cli, tmp_path_factory) -> Path:
    rec = tmp_path_factory.mktemp("six") / "six.jsonl"
    assert cli("autoplay", SIX, "--lens", "myopic", "--partner", "greedy", "--record", rec, "-q").exit_code == 0
    return rec


@pytest.mark.parametrize("edit, path, words", [
    (lambda h: h["seats"]["P0"].update(propose="psychic"), "$.seats.P0", "unknown lens 'psychic'"),
    (lambda h: h["seats"]["P0"].update(partner="oracle"), "$.seats.P0", "unknown partner method 'oracle'"),
    (lambda h: h["seats"]["P0"].update(seed=-1), "$.seats.P0.seed", "greater than or equal to 0"),
    (lambda h: h["seats"]["P0"].update(ucb="NaN"), "$.seats.P0.ucb", "finite number"),
    (lambda h: h["seats"]["P0"].update(sims=0), "$.seats.P0.sims", "greater than or equal to 1"),
    (lambda h: h["rules"].update(accept_tolerance=-1), "$.rules", "accept_tolerance"),
    (lambda h: h["scenario"]["protocol"].update(rounds=10**9), "$.scenario.protocol.rounds", "less than or equal"),
    (lambda h: h.update(start_turn=999), "$.start_turn", "outside the game"),
])
def test_a_bad_header_is_a_located_error_for_every_command(cli, tmp_path, six_record, edit, path, words):
    objs = lines_of(six_record)
    edit(objs[0])
    bad = write_lines(tmp_path / "bad.jsonl", objs)
    for args in (["replay", bad, "--print"], ["replay", bad, "--verify"],
                 ["autoplay", "--from-record", bad, "--turn", 3]):
        res = cli(*args)
        assert res.exit_code == 2, (args, res.output)
        assert str(bad) in res.stderr and "line 1" in res.stderr and path in res.stderr and words in res.stderr, \
            res.stderr


# --- --verify checks everything it can --------------------------------------------------------------------------

def _first_deal(objs: list[dict]) -> int:
    return next(k for k, o in enumerate(objs) if o["type"] == "turn" and o["accepted"] and o["offer"])


@pytest.mark.parametrize("what, edit, words", [
    ("forecasts", lambda o, k: o[k]["forecasts"]["upper"].__setitem__(0, 12345.0), "$.forecasts.upper"),
    ("decider", lambda o, k: o[k].update(decided_by="P0 (human)"), "$.decided_by"),
    ("fault", lambda o, k: o[k].update(fault="no answer within 30 s"), "a lens bot, which cannot fail"),
    ("baseline", lambda o, k: o[-1]["baseline"].__setitem__(0, 1.0), "$.baseline"),
    ("welfare", lambda o, k: o[-1]["welfare"].update(sum=1.0), "$.welfare.sum"),
])
def test_verify_catches_edits_the_digests_cannot(cli, tmp_path, six_record, what, edit, words):
    objs = lines_of(six_record)
    edit(objs, _first_deal(objs))
    bad = write_lines(tmp_path / f"{what}.jsonl", objs)
    assert cli("replay", bad, "--print").exit_code == 0  # a consistent game: loading alone cannot tell
    res = cli("replay", bad, "--verify")
    assert res.exit_code == 2 and words in res.stderr and str(bad) in res.stderr, res.output


def test_verify_checks_a_forks_parent(cli, tmp_path, six_record):
    fork = tmp_path / "fork.jsonl"
    assert cli("autoplay", "--from-record", six_record, "--turn", 7, "--seat", "P1=lower", "--record", fork,
               "-q").exit_code == 0
    assert cli("replay", fork, "--verify").exit_code == 0
    objs = lines_of(fork)
    objs[0]["parent"]["digest"] = state_digest(7, 0)
    bad = write_lines(tmp_path / "badparent.jsonl", objs)
    res = cli("replay", bad, "--verify")
    assert res.exit_code == 2 and "$.parent.digest" in res.stderr, res.output
    objs[0]["parent"]["file"] = str(tmp_path / "gone.jsonl")
    gone = write_lines(tmp_path / "gone-parent.jsonl", objs)
    res = cli("replay", gone, "--verify")
    assert res.exit_code == 0 and "cannot be checked" in res.stdout, res.output


# --- signed records ----------------------------------------------------------------------------------------------

def _signed_game_with_a_person(tmp_path: Path) -> tuple[Path, Path]:
    """The poison pill with A played by a person (who offers the bait alone) in a signed record."""
    data = tmp_path / "data"
    key = data_dir_key(data)
    rec = tmp_path / "signed.jsonl"
    ses = LiveGame(load_scenario(PILL), PAPER, {"A": Seat.human(), "B": Seat.lens("upper")}, record=rec, record_key=key)
    try:
        assert ses.submit(ses.propose(1, [0, 2])) is None  # A.bait and B.bait to B; B (a bot) answers
        for move in ses.think():
            ses.submit(move)
        for move in ses.think():  # B's turn
            ses.submit(move)
        assert ses.over
    finally:
        ses.close()
    return rec, data / "record.key"


def test_a_signed_record_cut_short_says_it_is_incomplete_and_where_it_stops(cli, tmp_path):
    """Lines cut from the end leave the lines before them validly signed: the verification says so, names the
    turn the record stops after, and does not vouch for a result it does not have."""
    rec, key = _signed_game_with_a_person(tmp_path)
    cut = write_lines(tmp_path / "cut.jsonl", lines_of(rec)[:2])  # the header and the first turn
    res = cli("replay", cut, "--verify", "--key", key)
    assert res.exit_code == 0, res.output
    out = " ".join(res.stdout.split())
    assert "the record is incomplete: it stops after turn 1 of 2 with no result line" in out
    assert "signature valid: all 2 lines as written — of an incomplete record" in out
    assert "baseline and welfare recorded are the game's" not in out
    body = json.loads(cli("replay", cut, "--json").stdout)
    assert body["complete"] is False and "after turn 1 of 2" in body["incomplete"]


def test_a_forged_human_move_in_a_signed_record_is_caught(cli, tmp_path):
    rec, key = _signed_game_with_a_person(tmp_path)
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    res = cli("replay", rec, "--verify", "--key", key)
    assert res.exit_code == 0 and "signature valid: all 4 lines as written" in res.stdout, res.output
    # the person's move rewritten (a different, legal offer), every digest and the result recomputed
    objs = lines_of(rec)
    objs[1]["offer"] = [["A", "bait"], ["A", "side"], ["B", "bait"]]
    objs[1]["digest"] = state_digest(1, 0b0111)
    objs[2]["digest"] = state_digest(2, 0b0111)
    sc = parse_scenario(objs[0]["scenario"])
    from negtui.engine import Negotiation

    pay = Negotiation.from_scenario(sc, PAPER).returns(Replay(load_record(rec)).final.__class__(2, 0b0111))
    objs[3]["payoffs"] = [float(v) for v in pay]
    objs[3]["commitments"] = [["A", "bait"], ["A", "side"], ["B", "bait"]]
    from negtui.engine.metrics import welfare_summary

    objs[3]["welfare"] = welfare_summary(pay)
    forged = write_lines(tmp_path / "forged.jsonl", objs)
    assert cli("replay", forged, "--verify").exit_code == 0  # unsigned checks cannot tell a person's move
    res = cli("replay", forged, "--verify", "--key", key)
    assert res.exit_code == 2 and "line 2" in res.stderr and "MAC does not match" in res.stderr, res.output
    # dropping a line, or the MACs altogether, is caught too
    res = cli("replay", write_lines(tmp_path / "dropped.jsonl", lines_of(rec)[:2] + lines_of(rec)[3:]), "--verify",
              "--key", key)
    assert res.exit_code == 2
    stripped = [{k: v for k, v in o.items() if k != "mac"} for o in lines_of(rec)]
    res = cli("replay", write_lines(tmp_path / "stripped.jsonl", stripped), "--verify", "--key", key)
    assert res.exit_code == 2 and "not signed" in res.stderr


def test_an_unsigned_record_says_so(cli, six_record, tmp_path):
    res = cli("replay", six_record, "--verify")
    assert res.exit_code == 0 and "unsigned" in res.stdout
    key = tmp_path / "k"
    key.write_text("00" * 32)
    res = cli("replay", six_record, "--verify", "--key", key)
    assert res.exit_code == 2 and "the record is not signed" in res.stderr


def _key_of_a_fresh_directory(data: str, start: float) -> str:
    while time.time() < start:  # every process asks at the same moment
        pass
    try:
        return data_dir_key(data).hex()
    except Exception as err:
        return f"{type(err).__name__}: {err}"


def test_a_process_that_loses_the_race_for_the_key_signs_with_the_winners(tmp_path, monkeypatch):
    """The race below in a fixed order: another process makes and links its key while this one is between
    writing its own and linking it; this one then finds the key taken, uses the winner's, and removes its
    temporary file.  A process that comes later reads the same key."""
    import multiprocessing

    from negtui.record import signing

    ctx = multiprocessing.get_context("fork")
    data = tmp_path / "d"
    link = os.link
    other: dict[str, str | None] = {}

    def link_once_another_has(src, dst):
        if "key" not in other:  # the first link of this process: the other process gets there first
            other["key"] = None  # forked after this, the other process links as usual
            with ctx.Pool(1) as pool:
                other["key"] = pool.apply(_key_of_a_fresh_directory, (str(data), 0.0))
        return link(src, dst)

    monkeypatch.setattr(signing.os, "link", link_once_another_has)
    mine = data_dir_key(data).hex()
    monkeypatch.undo()
    assert other["key"] is not None and len(other["key"]) == 64, other
    assert mine == other["key"]
    with ctx.Pool(1) as pool:
        assert pool.apply(_key_of_a_fresh_directory, (str(data), 0.0)) == mine
    assert [p.name for p in data.iterdir()] == ["record.key"]  # no temporary left


@pytest.mark.stress
def test_processes_making_a_data_directorys_key_at_once_all_get_the_whole_key(tmp_path):
    """The first use of a data directory is often many processes at once (a class, a sweep): none may read
    a key file another is still writing, and all sign with the one key that stays."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(8) as pool:
        for round_ in range(40):
            data = tmp_path / f"d{round_}"
            start = time.time() + 0.05
            keys = pool.starmap(_key_of_a_fresh_directory, [(str(data), start)] * 8)
            assert len(set(keys)) == 1, keys
            assert keys[0] == data_dir_key(data).hex()
    assert not [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "record.key"]  # no temporary left
