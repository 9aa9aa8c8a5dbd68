"""Simultaneous turns on the command line (docs/simultaneous.md), on the worked example
scenarios/teaching/simultaneous-race.json: autoplay's turn log and JSON name every offer and what became of it,
a record of a simultaneous game verifies and prints its void offer, an edited outcome is refused with its JSON
path, a fork reads the recorded turn, an outside program is told each turn's outcomes, and what the simultaneous
rules cannot play is refused with a reason, status 2 and no traceback."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import TEACHING

RACE = TEACHING / "simultaneous-race.json"
SIM = "paper+simultaneous"
VOID_REASON = "C would make 4 new commitments in this turn; the budget is 2"
# the plain reading with greedy partner choice: both lines ask the port, the second deal is void
PLAIN = ("autoplay", RACE, "--rules", SIM, "--partner", "greedy")


def test_autoplay_json_lists_every_offer_with_partner_answer_and_result(cli):
    res = cli(*PLAIN, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["rules"] == SIM and out["payoffs"] == [10.0, 0.0, 2.0, 0.0]
    assert out["void"] == 1 and "exact" not in out  # no exact solution to compare with
    (turn,) = out["turns"]
    assert turn["t"] == 0 and turn["proposers"] == ["A", "B"] and turn["void"] == 1
    a, b = turn["offers"]
    assert (a["proposer"], a["partner"], a["answer"], a["result"]) == ("A", "C", True, "applied")
    assert a["offer"] == [["A", "fund"], ["C", "berth1"], ["C", "berth2"]] and "void" not in a
    assert (b["proposer"], b["partner"], b["answer"], b["result"]) == ("B", "C", True, "void")
    assert b["offer"] == [["C", "berth3"], ["C", "berth4"]]
    assert (b["void"], b["reason"]) == ("budget", VOID_REASON)
    assert b["decided_by"] == "C (lower)"


def test_autoplay_json_of_the_anticipating_and_the_sequential_game(cli):
    ahead = json.loads(cli("autoplay", RACE, "--rules", SIM, "--seat", "B=anticipate:myopic", "--json").stdout)
    assert ahead["payoffs"] == [10.0, 6.0, 2.0, 1.0] and ahead["void"] == 0
    assert [(o["proposer"], o["partner"], o["result"]) for o in ahead["turns"][0]["offers"]] == [
        ("A", "C", "applied"), ("B", "D", "applied")]
    assert ahead["seats"]["B"]["propose"] == "anticipate:myopic"
    seq = json.loads(cli("autoplay", RACE, "--json").stdout)
    assert seq["rules"] == "paper" and seq["payoffs"] == [10.0, 10.0, 4.0, 0.0] and "void" not in seq
    assert [(t["proposer"], t["partner"], t["accepted"]) for t in seq["turns"]] == [("A", "C", True), ("B", "C", True)]


def test_autoplay_log_says_how_many_proposers_and_why_an_offer_is_void(cli):
    res = cli(*PLAIN)
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == ("simultaneous-race — 4 players, 3 goals, 1 turns of 2 proposers at once, "
                        "rules paper+simultaneous")
    assert "t  1 r1  2 proposers at once: 1 applied, 1 void" in lines
    assert "         A → C accepted: A commits fund; C commits berth1, berth2" in lines
    assert f"         B → C accepted but void ({VOID_REASON}): C commits berth3, berth4" in lines
    assert "accepted offers void: 1" in res.stdout and "no L1 error" in res.stdout


def record(cli, path: Path) -> Path:
    res = cli(*PLAIN, "--record", path, "--quiet")
    assert res.exit_code == 0, res.output
    return path


def test_a_record_of_a_simultaneous_game_verifies_and_prints_its_void_offer(cli, tmp_path):
    rec = record(cli, tmp_path / "race.jsonl")
    turn = json.loads(rec.read_text().splitlines()[1])
    assert turn["type"] == "turn" and [o["result"] for o in turn["offers"]] == ["applied", "void"]
    assert turn["offers"][1]["void"] == "budget" and turn["offers"][1]["reason"] == VOID_REASON
    assert "proposer" not in turn and "accepted" not in turn  # a turn of several offers lists them only
    verified = cli("replay", rec, "--verify")
    assert verified.exit_code == 0, verified.output
    assert "verified: every bot decision of 1 turns re-runs identically" in verified.stdout
    printed = cli("replay", rec, "--print")
    assert printed.exit_code == 0, printed.output
    assert "2 proposers at once: 1 applied, 1 void" in printed.stdout
    assert f"B → C accepted but void ({VOID_REASON}): C commits berth3, berth4 (C (lower))" in printed.stdout
    assert "payoffs: A 10.00, B 0.00, C 2.00, D 0.00" in printed.stdout


def edited(rec: Path, change) -> Path:
    """The record with its turn line changed by `change(turn)`, written beside it."""
    lines = rec.read_text().splitlines()
    turn = json.loads(lines[1])
    change(turn)
    lines[1] = json.dumps(turn)
    out = rec.with_name("edited-" + rec.name)
    out.write_text("\n".join(lines) + "\n")
    return out


def make_applied(turn: dict) -> None:
    offer = turn["offers"][1]
    offer["result"] = "applied"
    del offer["void"], offer["reason"]


@pytest.mark.parametrize("how", ["--verify", "--print"])
def test_an_edited_offer_result_is_refused_with_its_json_path(cli, tmp_path, how):
    rec = edited(record(cli, tmp_path / "race.jsonl"), make_applied)
    res = cli("replay", rec, how)
    assert res.exit_code == 2, res.output
    assert "line 2: invalid record" in res.stderr
    assert f"$.offers[1].result: recorded applied, but these rules make it void ({VOID_REASON})" in res.stderr
    assert "Traceback" not in res.output


def test_an_edited_answer_or_order_of_offers_is_refused_with_its_json_path(cli, tmp_path):
    rec = record(cli, tmp_path / "race.jsonl")

    def reject(turn: dict) -> None:
        turn["offers"][0]["answer"] = False  # then A's deal is rejected and B's applies: neither as recorded

    res = cli("replay", edited(rec, reject), "--print")
    assert res.exit_code == 2
    assert "$.offers[0].result: recorded applied, but these rules make it rejected" in res.stderr
    assert "$.offers[1].result: recorded void, but these rules make it applied" in res.stderr

    def swap(turn: dict) -> None:
        turn["offers"].reverse()

    res = cli("replay", edited(rec, swap), "--print")
    assert res.exit_code == 2
    assert "$.offers: the record lists the offers of B, A; turn 1's proposers are A, B" in res.stderr


def test_a_fork_of_the_recorded_turn_with_an_anticipating_line(cli, tmp_path):
    rec = record(cli, tmp_path / "race.jsonl")
    res = cli("autoplay", "--from-record", rec, "--turn", 1, "--seat", "B=anticipate:myopic", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["payoffs"] == [10.0, 6.0, 2.0, 1.0] and out["void"] == 0 and out["parent"]["turn"] == 0


PORT = """\
import json, sys
with open(sys.argv[1], "a") as log:
    for line in sys.stdin:
        msg = json.loads(line)
        log.write(json.dumps(msg) + "\\n")
        log.flush()
        if msg["type"] == "hello":
            print(json.dumps({"type": "ready", "name": "port"}), flush=True)
        elif msg["type"] == "choose_partner":
            print(json.dumps({"id": msg["id"], "partner": msg["legal_partners"][0]}), flush=True)
        elif msg["type"] == "make_offer":
            print(json.dumps({"id": msg["id"], "offer": []}), flush=True)
        elif msg["type"] == "respond":
            print(json.dumps({"id": msg["id"], "accept": True}), flush=True)
"""


def test_an_outside_program_answers_each_offer_made_to_it_and_is_told_the_turns_outcomes(tmp_path):
    """The port as an outside program that accepts everything: it is asked about both offers, sees only the
    offers made to it (here both), and after the turn is told every offer's outcome, the void one with why."""
    program, log = tmp_path / "port.py", tmp_path / "port.log"
    program.write_text(PORT)
    seat = "C=cmd:" + " ".join(shlex.quote(str(x)) for x in (sys.executable, program, log))
    res = subprocess.run([sys.executable, "-m", "negtui.cli", *map(str, PLAIN), "--seat", seat, "--json"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["payoffs"] == [10.0, 0.0, 2.0, 0.0]
    messages = [json.loads(line) for line in log.read_text().splitlines()]
    assert [m["type"] for m in messages] == ["hello", "respond", "respond", "observe", "game_over"]
    assert messages[0]["rules"]["simultaneous"] is True
    asked = sorted(m["offer"]["proposer"] for m in messages if m["type"] == "respond")
    assert asked == ["A", "B"]
    for m in messages[1:3]:
        seen = m["observation"]
        assert seen["proposers"] == ["A", "B"] and seen["phase"] == "respond"
        assert [o["proposer"] for o in seen["offers"]] == ["A", "B"]  # both are addressed to C
    told = messages[3]
    assert told["turn"] == 0
    assert [(o["proposer"], o["answer"], o["result"]) for o in told["offers"]] == [("A", True, "applied"),
                                                                                  ("B", True, "void")]
    assert told["offers"][1]["void"] == "budget" and told["offers"][1]["reason"] == VOID_REASON


# --- what simultaneous rules cannot play -----------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["solve", RACE, "--rules", SIM], "the exact solver does not solve simultaneous games"),
    (["solve", RACE, "--rules", SIM, "--json"], "use a lens, and compare outcomes by improvement and welfare"),
    (["autoplay", RACE, "--rules", SIM, "--lens", "exact"], "the exact solver does not solve simultaneous games"),
    (["play", RACE, "--rules", SIM, "--seat", "A=exact", "--no-record"],
     "the exact solver does not solve simultaneous games"),  # people play simultaneous games, an exact seat does not
    (["autoplay", RACE, "--rules", "paper+simultaneous=0"], "a simultaneous turn has at least one proposer"),
    (["autoplay", RACE, "--rules", "paper+simultaneous=5"],
     "the paper+simultaneous=5 rules have 5 proposers in each turn, and this scenario has 4 players"),
    (["autoplay", RACE, "--rules", "reference+simultaneous"], "the reference implementation bit for bit, which has "
                                                              "one proposer a turn"),
    (["autoplay", RACE, "--rules", "paper-simultaneous=2"], "a number of proposers goes with +simultaneous=K"),
    (["autoplay", RACE, "--rules", SIM, "--lens", "anticipate:exact"], "anticipate: reads a closed-form lens"),
    (["autoplay", RACE, "--rules", SIM, "--information", "private", "--lens", "anticipate:myopic"],
     "anticipate: lenses predict the other proposers' deals from everyone's values, which private information hides"),
])
def test_what_simultaneous_rules_cannot_play_is_refused_with_a_reason(cli, args, words):
    res = cli(*args)
    assert res.exit_code == 2, res.output
    assert words in res.stderr, res.stderr
    assert "Traceback" not in res.output and not res.stdout.strip(), res.output


def test_a_refusal_from_the_console_script_is_one_message(tmp_path):
    """The same refusal outside the test runner: one line on stderr, nothing on stdout, status 2."""
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "solve", str(RACE), "--rules", SIM],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("error: the exact solver does not solve simultaneous games") and \
        "Traceback" not in res.stderr
