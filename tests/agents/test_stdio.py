"""Outside agents over stdio, driven through the real console script: whole games where every seat is a
program, programs that crash, hang, answer late, illegally or with garbage, and the records they leave."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from negtui.agents.wire import protocol_schema
from negtui.record import Replay, load_record
from tests.paths import LENS_AGENT, PILL, RANDOM_AGENT, SIX

FLAKY = Path(__file__).resolve().parent / "programs" / "flaky_agent.py"
FORGING = Path(__file__).resolve().parent / "programs" / "forging_agent.py"
# the tests that run FLAKY share a worker under pytest-xdist: one of them looks for leftover FLAKY processes
ONE_FLAKY_TEST_AT_A_TIME = pytest.mark.xdist_group("flaky_agent")
PY = shlex.quote(sys.executable)


def negtui(*args: object, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "negtui.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def cmd(script: Path, *args: object) -> str:
    return "cmd:" + " ".join([PY, shlex.quote(str(script)), *map(str, args)])


def moves(out: dict) -> list[tuple]:
    return [(t["proposer"], t["partner"], t["offer"], t["accepted"]) for t in out["turns"]]


@pytest.mark.slow
def test_every_seat_a_lens_agent_plays_the_game_the_built_in_bots_play(tmp_path):
    builtin = negtui("autoplay", SIX, "--lens", "myopic", "--partner", "greedy", "--json")
    assert builtin.returncode == 0, builtin.stderr
    seats = [a for i in range(6) for a in ("--seat", f"P{i}=" + cmd(LENS_AGENT, "--lens", "myopic", "--partner",
                                                                       "greedy", "--seed", i))]
    rec = tmp_path / "agents.jsonl"
    outside = negtui("autoplay", SIX, *seats, "--json", "--record", rec)
    assert outside.returncode == 0, outside.stderr
    a, b = json.loads(builtin.stdout), json.loads(outside.stdout)
    assert moves(a) == moves(b) and a["payoffs"] == b["payoffs"]
    assert sum(t["accepted"] for t in a["turns"]) > 3  # a game with deals, not a string of passes
    assert all(s["agent"] == "cmd" for s in b["seats"].values())
    header = load_record(rec).header
    assert header.seats["P3"].command.endswith("--seed 3")
    res = negtui("replay", rec, "--verify")
    assert res.returncode == 0 and "verified" in res.stdout, res.stderr


def test_every_seat_a_random_agent_finishes_and_the_record_verifies(tmp_path):
    rec = tmp_path / "random.jsonl"
    seats = [a for i in range(6) for a in ("--seat", f"P{i}=" + cmd(RANDOM_AGENT, "--seed", i))]
    res = negtui("autoplay", SIX, *seats, "--record", rec, "--quiet")
    assert res.returncode == 0, res.stderr
    assert "[P0] playing P0 in generated-N6-J10-cooperative-positive-seed7" in res.stderr  # the agent's stderr
    rp = Replay(load_record(rec))
    assert rp.record.complete and len(rp.record.turns) == rp.neg.game.T
    assert not any(t.fault for t in rp.record.turns)
    assert negtui("replay", rec, "--verify").returncode == 0


def _running(token: str) -> list[str]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if token in line and "ps -eo" not in line]


# The time limit of a decision where some decisions must run out of it: a program's first decision also waits
# for its hello, so for its interpreter to start, which a loaded machine slows.  The late answer (P4's, to its
# request of turn 6) comes half a limit after that request ran out and about half a limit before P4 is asked
# again (turn 12, after P1's hang at turn 10 has taken a whole limit): skipped then, never in a race with it.
TIMEOUT = 1.5
LATE = 1.5 * TIMEOUT


@pytest.mark.slow
@ONE_FLAKY_TEST_AT_A_TIME
def test_agents_that_crash_hang_answer_late_illegally_or_with_garbage_never_stop_the_game(tmp_path):
    flaky = {"P0": ("crash", 6), "P1": ("hang", 10), "P2": ("illegal", 4), "P3": ("garbage", 8),
             "P4": ("late", 5)}
    seats = [a for k, (pid, (mode, turn)) in enumerate(flaky.items())
             for a in ("--seat", f"{pid}=" + cmd(FLAKY, mode, turn, "--seed", k, "--delay", LATE))]
    rec = tmp_path / "flaky.jsonl"
    started = time.monotonic()
    res = negtui("autoplay", SIX, *seats, "--seat", "P5=myopic", "--agent-timeout", TIMEOUT, "--record", rec,
                 "--quiet")
    assert res.returncode == 0, res.stderr
    assert time.monotonic() - started < 60
    err = res.stderr
    rp = Replay(load_record(rec))
    assert rp.record.complete and len(rp.record.turns) == rp.neg.game.T == 24
    faults = {t.t: t for t in rp.record.turns if t.fault}
    by_seat = {pid: [t for t in faults.values() if pid in (t.proposer, t.partner) and t.decided_by.startswith(pid)]
               for pid in flaky}
    # P0 crashed: the message names the seat, the turn and what the program said; later turns fail at once
    assert "seat P0 (cmd: " in err and "the program has exited (status 3): flaky agent: crashing on purpose" in err
    assert by_seat["P0"] and all("has exited" in t.fault for t in by_seat["P0"])
    # P1 hung: every decision from turn 10 on times out
    assert by_seat["P1"] and all(t.fault == f"no answer within {TIMEOUT:g} s" and t.t >= 10 for t in by_seat["P1"])
    # P2 offered a commitment of a third player: a pass, with the rule broken
    assert any("offered an illegal deal" in t.fault and "belongs to neither" in t.fault for t in by_seat["P2"])
    # P3 answered with prose
    assert any("not valid JSON" in t.fault for t in by_seat["P3"])
    # P4 answered one request late: that decision timed out, its late answer was skipped, then it played on
    late = by_seat["P4"]
    assert len(late) == 1 and late[0].fault == f"no answer within {TIMEOUT:g} s"
    assert any(t.t > late[0].t and t.proposer == "P4" and not t.fault for t in rp.record.turns)
    for t in faults.values():
        played = "a pass" if not t.offer else "a rejection"
        assert f"turn {t.t + 1}: {t.fault}; played as {played}" in err  # people count turns from 1
        assert not t.accepted
    res = negtui("replay", rec, "--verify")
    assert res.returncode == 0, res.stderr
    assert "P0's agent failed: the program has exited" in negtui("replay", rec, "--print").stdout
    assert not _running(str(FLAKY)), "an agent process outlived the game"


@ONE_FLAKY_TEST_AT_A_TIME
@pytest.mark.parametrize("mode, timeout, words", [  # a short limit only where running out of it is the point
    ("bad-hello", 8, 'not {"type": "ready"}'),
    ("silent-hello", 0.5, "no answer within 0.5 s"),
    ("unknown", 8, "a commitment the game does not have"),
])
def test_a_broken_handshake_or_an_unknown_commitment_is_a_fault(tmp_path, mode, timeout, words):
    res = negtui("autoplay", PILL, "--seat", "A=" + cmd(FLAKY, mode, 0), "--agent-timeout", timeout, "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["turns"][0]["fault"] and words in out["turns"][0]["fault"]
    assert "seat A (cmd: flaky_agent.py), turn 1: " in res.stderr and words in res.stderr


def test_a_command_that_cannot_start_exits_2_naming_the_seat():
    res = negtui("autoplay", PILL, "--seat", "A=cmd:no-such-program-negtui --x")
    assert res.returncode == 2
    assert "seat A: cannot start 'no-such-program-negtui --x'" in res.stderr and "Traceback" not in res.stderr
    res = negtui("autoplay", PILL, "--seat", "A=cmd:")
    assert res.returncode == 2 and "needs a command" in res.stderr


@pytest.mark.slow
def test_forks_restart_outside_agents_only_when_given_again(tmp_path):
    """A record's program is not run by a fork of it (a lens bot plays the seat, and stderr says so); given
    again with --seat, it plays on as it played."""
    rec, fork, bots = tmp_path / "rec.jsonl", tmp_path / "fork.jsonl", tmp_path / "bots.jsonl"
    seat = "P2=" + cmd(LENS_AGENT, "--lens", "myopic", "--partner", "greedy", "--seed", 2)
    assert negtui("autoplay", SIX, "--lens", "myopic", "--partner", "greedy", "--seat", seat, "--record", rec,
                  "--quiet").returncode == 0
    res = negtui("autoplay", "--from-record", rec, "--turn", 10, "--record", bots, "--quiet")
    assert res.returncode == 0, res.stderr
    assert load_record(bots).header.seats["P2"].agent == "lens"
    assert "was a program (cmd: lens_agent.py)" in res.stderr and "--seat P2=cmd:COMMAND" in res.stderr
    res = negtui("autoplay", "--from-record", rec, "--turn", 10, "--seat", seat, "--record", fork, "--quiet")
    assert res.returncode == 0, res.stderr
    assert "a record never decides what runs" not in res.stderr
    assert load_record(fork).header.seats["P2"].agent == "cmd"
    assert [t.model_dump() for t in load_record(fork).turns] == [t.model_dump() for t in load_record(rec).turns[9:]]


def test_the_committed_protocol_schema_is_current(root):
    committed = json.loads((root / "negtui" / "agents" / "agent-protocol.schema.json").read_text())
    assert committed == protocol_schema(), "run `make schema` and commit the result"
    res = negtui("schema", "agent-protocol")
    assert res.returncode == 0 and json.loads(res.stdout) == committed


LISTENING = Path(__file__).resolve().parent / "programs" / "listening_agent.py"


@pytest.mark.parametrize("information", ["private", "public"])
def test_under_private_information_an_agent_is_sent_no_other_players_value(tmp_path, information):
    """Every line before the end (the hello's scenario, every observation) holds A's values only; the
    game_over line reveals them all.  The same game in public shows them, so the test can see a leak."""
    from tests.secrets import leaks, write_secret_scenario

    scenario = write_secret_scenario(tmp_path / "secret.json")
    heard, rec = tmp_path / "heard.jsonl", tmp_path / "r.jsonl"
    res = negtui("autoplay", scenario, "--seat", "A=" + cmd(LISTENING, heard), "--information", information,
                 "--record", rec, "--quiet")
    assert res.returncode == 0, res.stderr
    lines = heard.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "hello" and json.loads(lines[-1])["type"] == "game_over"
    during = "\n".join(lines[:-1])
    if information == "private":
        assert leaks(during) == [] and json.loads(lines[0])["information"] == "private"
        assert leaks(lines[-1]) != []  # the end reveals everything
        assert load_record(rec).header.information == "private"
    else:
        assert leaks(during) != [] and load_record(rec).header.information is None
    verified = negtui("replay", rec, "--verify")
    assert verified.returncode == 0 and "re-runs identically" in verified.stdout


@ONE_FLAKY_TEST_AT_A_TIME
@pytest.mark.parametrize("mode, words", [
    ("deep", "nested too deeply"),
    ("bigint", "not valid JSON: an integer of 5,000 digits"),
    ("closed", "closed its output but did not exit"),
    ("endless", f"a line of over {1 << 20:,} characters"),
])
def test_answers_that_crashed_or_swamped_the_game_are_faults_and_the_game_ends(tmp_path, mode, words):
    """Deep JSON, a 5,000-digit integer, a program that closes stdout and lives on, output without end or
    newline: each a fault of that seat, the game played to its end, the record whole."""
    rec = tmp_path / "g.jsonl"
    res = negtui("autoplay", PILL, "--seat", "A=" + cmd(FLAKY, mode, 0), "--agent-timeout", 8, "--json",
                 "--record", rec)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "Traceback" not in res.stderr
    out = json.loads(res.stdout)
    assert out["turns"][0]["fault"] and words in out["turns"][0]["fault"], out["turns"][0]
    if mode == "endless":  # nothing it says can be read any more: stopped, not waited for at every later turn
        assert out["turns"][1]["fault"].endswith(": stopped"), out["turns"][1]
    assert Replay(load_record(rec)).record.complete
    assert not _running(f"{FLAKY} {mode}"), "the agent outlived the game"


@ONE_FLAKY_TEST_AT_A_TIME
def test_an_agents_stderr_is_shown_capped_and_without_escapes_and_its_children_end_with_it(tmp_path):
    res = negtui("autoplay", PILL, "--seat", "A=" + cmd(FLAKY, "noisy", 0), "--seat",
                 "B=" + cmd(FLAKY, "forker", 0), "--agent-timeout", 8, "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "\x1b" not in res.stderr and "\x07" not in res.stderr
    assert "[A] ]0;owned" in res.stderr and "more not shown" in res.stderr
    assert len(res.stderr) < 200_000  # of 2 MB written
    assert not any(t.get("fault") for t in json.loads(res.stdout)["turns"])  # both played on
    assert not _running("flaky_agent child"), "a program's child outlived the game"


@ONE_FLAKY_TEST_AT_A_TIME
def test_a_daemon_an_agent_started_in_a_session_of_its_own_ends_with_the_game(tmp_path):
    """setsid() takes a grandchild out of the agent's process group; it still ends when the game does."""
    res = negtui("autoplay", PILL, "--seat", "A=" + cmd(FLAKY, "daemon", 0), "--seat", "B=" + cmd(FLAKY, "daemon", 1),
                 "--agent-timeout", 8, "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    assert not any(t.get("fault") for t in json.loads(res.stdout)["turns"])  # the daemons held no stream up
    assert not _running("flaky_agent daemon"), "a daemon of an agent outlived the game"


def test_an_agents_words_reach_the_terminal_as_plain_text(tmp_path):
    """A program naming a commitment `A\\nt  9 r9  B accepted…\\x1b]0;PWN\\x07\\u202e…`: autoplay's turn log
    and fault lines hold no control or bidi character and no line the program wrote, and the record keeps the
    fault cleaned too."""
    rec = tmp_path / "forged.jsonl"
    res = negtui("autoplay", PILL, "--seat", "A=" + cmd(FORGING), "--seat", "B=upper", "--record", rec)
    assert res.returncode == 0, res.stderr
    for stream in (res.stdout, res.stderr):
        assert not any(ch in stream for ch in "\x1b\x07\r\u202e")
        assert not any(line.startswith("t  9") for line in stream.splitlines())
    assert "a commitment the game does not have" in res.stderr
    faults = [t.fault for t in load_record(rec).turns if t.fault]
    assert faults and all("\n" not in f and "\x1b" not in f and "\u202e" not in f for f in faults)
    printed = negtui("replay", rec, "--print")
    assert printed.returncode == 0 and "\x1b" not in printed.stdout and "\u202e" not in printed.stdout
