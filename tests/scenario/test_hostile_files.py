"""Hostile scenario files: files that are not files, JSON that is too deep, not Unicode or not numbers, and
games past the documented limits.  Every case ends with status 2 and a message naming the file and the
JSON path, never a traceback and never a hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from negtui.scenario import limits
from tests.paths import HUMANITARIAN, PILL


def negtui(*args: object, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "negtui.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


def pill() -> dict:
    return json.loads(PILL.read_text())


def write(tmp_path: Path, data: object, name: str = "s.json") -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data))
    return p


def refused(res, path: Path, *words: str) -> None:
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert str(path) in res.stderr, res.stderr
    for w in words:
        assert w in res.stderr, res.stderr


# --- values that validate but broke play ---------------------------------------------------------------------

@pytest.mark.parametrize("text, path, words", [
    ('"A": NaN', "$", "NaN is not a number JSON allows"),
    ('"A": Infinity', "$", "Infinity is not a number JSON allows"),
    ('"A": -Infinity', "$", "Infinity is not a number JSON allows"),
    ('"A": 1e400', '$.goals[0].values.A', "not finite"),
    ('"A": ' + "1" + "0" * 400, '$.goals[0].values.A', "integer out of range"),
    ('"A": 1e308', '$.goals[0].values.A', "a value must be a finite number between"),
])
def test_numbers_that_are_not_finite_or_out_of_range_are_refused(cli, tmp_path, text, path, words):
    raw = PILL.read_text()
    head, sep, tail = raw.partition('"A": 30')
    assert sep, "the poison pill's first value changed"
    bad = write(tmp_path, head + text + tail)
    res = cli("validate", bad)
    refused(res, bad, path, words)
    res = cli("autoplay", bad)
    refused(res, bad, words)


# --- sizes without bounds ------------------------------------------------------------------------------------

def test_an_offer_space_past_the_limit_is_refused_at_once(cli, tmp_path):
    data = pill()
    data["players"][0]["actions"] += [{"id": f"x{k}"} for k in range(28)]
    data["protocol"]["budget"] = 30
    bad = write(tmp_path, data)
    started = time.monotonic()
    res = cli("validate", bad)
    refused(res, bad, "$.players[0].actions", f"the limit is {limits.MAX_OPTIONS:,}")
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("rounds, words", [
    (10**9, f"less than or equal to {limits.MAX_ROUNDS}"),
    (1e30, "integer"),
])
def test_rounds_past_the_limit_are_refused(cli, tmp_path, rounds, words):
    data = pill()
    data["protocol"].pop("schedule")
    data["protocol"]["rounds"] = rounds
    bad = write(tmp_path, data)
    refused(cli("validate", bad), bad, "$.protocol.rounds", words)


def test_too_many_turns_and_too_much_offer_search_name_the_limits(cli, tmp_path):
    data = pill()
    data["protocol"] = {"rounds": 6000}
    data["players"] = [{"id": f"P{i}", "actions": [{"id": "a"}]} for i in range(20)]
    data["goals"] = [{"id": "g", "requires": [{"player": "P0", "action": "a"}], "values": {"P0": 1}}]
    bad = write(tmp_path, data)
    refused(cli("validate", bad), bad, "$.protocol.rounds", f"the limit is {limits.MAX_TURNS:,}")
    data["protocol"] = {"rounds": 1, "budget": 3}
    data["players"] = [{"id": f"P{i}", "actions": [{"id": f"a{k}"} for k in range(40)]} for i in range(3)]
    data["goals"] = [{"id": f"g{j}", "requires": [{"player": "P0", "action": "a0"}], "values": {"P0": 1}}
                     for j in range(50)]
    bad = write(tmp_path, data)
    refused(cli("validate", bad), bad, "offer search", f"{limits.MAX_OFFER_WORK:,}")


# --- hostile files -------------------------------------------------------------------------------------------

def test_deep_nesting_is_an_ordinary_error(cli, tmp_path):
    deep = "[" * 1000 + "]" * 1000
    bad = write(tmp_path, '{"name": "x", "meta": {"a": ' + deep + '}}')
    refused(cli("validate", bad), bad, "nested too deeply")
    medium = write(tmp_path, '{"name": "x", "meta": {"a": ' + "[" * 80 + "]" * 80 + '}}', "m.json")
    refused(cli("validate", medium), medium, "$.meta.a", "nested too deeply (more than 64 levels)")


def test_a_lone_surrogate_is_reported_not_crashed_on(tmp_path):
    data = PILL.read_text().replace('"id": "A"', '"id": "A\\ud800"', 1)
    bad = write(tmp_path, data)
    res = negtui("validate", bad)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert "not valid Unicode" in res.stderr and "\\ud800" in res.stderr and "$.players[0].id" in res.stderr


def test_devices_fifos_and_directories_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for path, words in ((Path("/dev/zero"), "a device"), (fifo, "a FIFO"), (tmp_path, "a directory")):
        res = negtui("validate", path, timeout=10)
        assert res.returncode == 2 and words in res.stderr and str(path) in res.stderr, res.stderr
        res = negtui("replay", path, "--print", timeout=10)
        assert res.returncode == 2 and words in res.stderr, res.stderr


def test_a_file_over_the_size_limit_is_refused(cli, tmp_path):
    big = tmp_path / "big.json"
    with big.open("wb") as fh:
        fh.truncate(limits.MAX_SCENARIO_BYTES + 10)
    refused(cli("validate", big), big, "over the limit of 32 MiB")


def test_tens_of_thousands_of_problems_are_found_in_linear_time_and_fifty_are_listed(cli, tmp_path):
    data = pill()
    data["goals"][0]["values"] = {f"p{k}": "x" for k in range(20_000)}
    bad = write(tmp_path, data)
    started = time.monotonic()
    res = cli("validate", bad)
    refused(res, bad, '$.goals[0].values.p0: should be a number, not "x"', "… and 19,950 more")
    assert time.monotonic() - started < 10  # every problem compared with every other: minutes
    assert len(res.stderr.splitlines()) == 1 + 50 + 1


def test_bytes_that_are_not_utf8(cli, tmp_path):
    bad = tmp_path / "latin.json"
    bad.write_bytes(PILL.read_bytes().replace(b"Alice", b"Al\xefce"))
    refused(cli("validate", bad), bad, "not UTF-8 text")


def test_one_run_reports_a_files_broken_fields_and_its_dangling_references_together(cli, tmp_path):
    """A field that does not validate used to hide every cross-reference problem until it was fixed."""
    data = {"name": "bad",
            "players": [{"id": "A", "actions": [{"id": "a0"}, {"id": "a0"}]}, {"id": "B", "actions": []}],
            "goals": [{"id": "g", "values": {"A": "ten", "D": 3},
                       "requires": [{"player": "A", "action": "zz"}, {"player": "C", "action": "c0"},
                                    {"player": "B", "action": "b9"}]},
                      {"id": "g", "threshold": 5, "requires": [{"player": "A", "action": "a0"}], "values": {"A": 1}}],
            "protocol": {"rounds": 0, "schedule": ["A", "Q"]}}
    bad = write(tmp_path, data)
    res = cli("validate", bad)
    refused(res, bad, "(10 problems)")
    lines = [line.strip() for line in res.stderr.splitlines()[1:]]
    assert lines == [
        "$.players[1].actions: List should have at least 1 item after validation, not 0",
        '$.goals[0].values.A: should be a number, not "ten"',  # once, not once per branch of int | float
        "$.protocol.rounds: Input should be greater than or equal to 1",
        "$.players[0].actions[1].id: duplicate action id 'a0'",
        "$.goals[0].requires[0].action: player 'A' has no action 'zz'",
        "$.goals[0].requires[1].player: unknown player 'C'",  # B's entry is broken: b9 is not judged
        "$.goals[0].values.D: unknown player 'D'",
        "$.goals[1].id: duplicate goal id 'g'",
        "$.goals[1].threshold: threshold 5 exceeds the 1 required commitments",
        "$.protocol.schedule[1]: unknown player 'Q'"]


def test_an_hnc_topfile_reports_its_broken_fields_and_its_dangling_references_together(cli, tmp_path):
    """As for scenarios: a topfile whose satisfaction threshold is a word, whose countries' actions or
    values do not validate, reports every unknown country, action and goal in the same run; a union's
    value (a threshold, an action by text or number) is one problem saying what it may be."""
    data = json.loads(HUMANITARIAN.read_text())
    data["protocol"]["rounds"] = "three"
    data["goal_satisfaction"][0]["threshold"] = "most"
    data["goal_satisfaction"][1]["requirements"][0]["country"] = "Nobody"
    data["goal_satisfaction"][2]["requirements"][0]["action"] = [1]
    data["country_actions"]["Donor Group"] = "give money"  # its references are not judged: reported on its own
    data["country_data"]["Armed Group"] = {"goals_value": {"x": "lots"}}
    data["country_data"]["Donor Group"]["goals_value"]["Nonexistent goal"] = 3.0
    data["mutually_exclusive_agreements"][0][0]["action"] = "Fly"
    data["mutually_exclusive_agreements"][1] = [{"country": "Nobody", "action": "x"}, {"country": 3}]
    bad = write(tmp_path, data)
    res = cli("validate", bad)
    refused(res, bad, "(11 problems)")
    lines = sorted(line.strip() for line in res.stderr.splitlines()[1:])
    assert lines == sorted([
        '$.country_actions["Donor Group"]: Input should be a valid list',
        '$.country_data["Armed Group"].goals_value.x: Input should be a valid number, unable to parse string as a '
        'number',
        '$.country_data["Donor Group"].goals_value["Nonexistent goal"]: unknown goal \'Nonexistent goal\'',
        "$.goal_satisfaction[0].threshold: should be 'all' or 'linear' or a whole number, not \"most\"",
        "$.goal_satisfaction[1].requirements[0].country: unknown country 'Nobody'",
        "$.goal_satisfaction[2].requirements[0].action: should be text or a whole number, not [1]",
        "$.mutually_exclusive_agreements[0][0].action: Host Government has no action 'Fly'",
        "$.mutually_exclusive_agreements[1][0].country: unknown country 'Nobody'",
        "$.mutually_exclusive_agreements[1][1].action: Field required",
        "$.mutually_exclusive_agreements[1][1].country: Input should be a valid string",
        "$.protocol.rounds: Input should be a valid integer, unable to parse string as an integer"])
