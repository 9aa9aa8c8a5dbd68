"""Hostile input: files that are not files, JSON that is too deep, not Unicode or not numbers, games past
the documented limits, options out of range, Ctrl-C at any moment, and a fuzz of mutated scenarios and
records.  Every case ends with status 0 or 2 and a message naming the file and the JSON path, never a
traceback and never a hang."""

from __future__ import annotations

import copy
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from negtui.scenario import limits
from tests.paths import COALITION_TRAP, HUMANITARIAN, PILL, SIX


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


def test_bytes_that_are_not_utf8(cli, tmp_path):
    bad = tmp_path / "latin.json"
    bad.write_bytes(PILL.read_bytes().replace(b"Alice", b"Al\xefce"))
    refused(cli("validate", bad), bad, "not UTF-8 text")


# --- options and signals ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["autoplay", PILL, "--sims", "0"], "--sims: Input should be greater than or equal to 1"),
    (["autoplay", PILL, "--sims", "-5"], "--sims"),
    (["autoplay", PILL, "--ucb", "nan"], "--ucb: Input should be a finite number"),
    (["autoplay", PILL, "--ucb", "-1"], "--ucb"),
    (["autoplay", PILL, "--budget", "-1"], "budget -1"),
    (["autoplay", PILL, "--seed", "-1"], "--seed"),
    (["autoplay", PILL, "--agent-timeout", "-1"], "--agent-timeout"),
    (["welfare", PILL, "--sims", "0"], "--sims"),
    (["autoplay", PILL, "--record", "/proc/negtui-x.jsonl"], "cannot write /proc/negtui-x.jsonl"),
    (["autoplay", PILL, "--record", "/nonexistent-dir/x.jsonl"], "No such file or directory"),
])
def test_options_out_of_range_exit_2_with_a_message(cli, args, words):
    res = cli(*args)
    assert res.exit_code == 2, res.output
    assert words in res.stderr and "Traceback" not in res.output, res.stderr


def _loading(pid: int, library: str) -> bool:
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return True


def test_ctrl_c_at_any_moment_of_start_up_ends_with_status_130_and_no_traceback():
    """From the moment negtui's own code runs (here: once numpy's library is mapped, well inside the
    imports of the commands) to the end of a game, Ctrl-C is a message and status 130.  (The interpreter's
    own first milliseconds, before any code of ours, are Python's.)"""
    for delay in [0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.2]:
        proc = subprocess.Popen([sys.executable, "-m", "negtui.cli", "autoplay", str(SIX), "--sims", "5000", "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 20
        while not _loading(proc.pid, "numpy") and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert "Traceback" not in err, (delay, err)
        assert proc.returncode in (0, 130), (delay, proc.returncode, err)
        if proc.returncode == 130:
            assert "interrupted" in err


# --- fuzz ---------------------------------------------------------------------------------------------------

def _mutate(data: object, rng: random.Random) -> object:
    """One random structural or value mutation somewhere in a JSON document."""
    data = copy.deepcopy(data)
    nodes = [data]
    target = data
    for _ in range(rng.randint(1, 6)):
        children = list(target.items()) if isinstance(target, dict) else list(enumerate(target)) \
            if isinstance(target, list) else []
        if not children:
            break
        key, child = rng.choice(children)
        if not isinstance(child, (dict, list)) or rng.random() < 0.3:
            break
        target = child
        nodes.append(target)
    if isinstance(target, dict) and target:
        key = rng.choice(list(target))
        op = rng.randrange(6)
        if op == 0:
            del target[key]
        elif op == 1:
            target[key] = rng.choice([None, -1, 0, 10**12, 1e300, "", "x" * 300, [], {}, True, 3.5, "P0"])
        elif op == 2:
            target[key + "_extra"] = 1
        elif op == 3 and isinstance(target[key], list) and target[key]:
            target[key] = target[key] * rng.randint(2, 3)
        elif op == 4 and isinstance(target[key], str):
            target[key] = target[key] + rng.choice([".", " ", "\u00e9", "\ud800"])
        else:
            target[key] = rng.choice([[], {}, -(2**70), 2**70])
    elif isinstance(target, list) and target:
        k = rng.randrange(len(target))
        op = rng.randrange(3)
        if op == 0:
            del target[k]
        elif op == 1:
            target.insert(k, copy.deepcopy(target[k]))
        else:
            target[k] = rng.choice([None, "?", 7, -7, {}])
    return data


def _text_mutation(text: str, rng: random.Random) -> str:
    k = rng.randrange(max(1, len(text)))
    return rng.choice([text[:k], text[:k] + rng.choice(["}", "]", ",", '"', "\\", "\x00", "NaN"]) + text[k:],
                       text[:k] + text[k + rng.randint(1, 20):]])


def _bounded(seconds: float):
    def handler(signum, frame):
        raise TimeoutError("hang")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return old


def _check(res, path: Path, case: str) -> None:
    assert res.exit_code in (0, 2), f"{case}: exit {res.exit_code}\n{res.output}\n{res.exception!r}"
    assert res.exception is None or isinstance(res.exception, SystemExit), f"{case}: {res.exception!r}"
    assert "Traceback" not in res.output
    if res.exit_code == 2:
        assert str(path) in res.stderr and "$" in res.stderr, f"{case}: {res.stderr}"


def test_fuzz_mutated_scenarios_and_records(cli, tmp_path):
    rng = random.Random(20261122)
    scenarios = [PILL, SIX, COALITION_TRAP, HUMANITARIAN]
    rec = tmp_path / "base.jsonl"
    assert cli("autoplay", SIX, "--lens", "myopic", "--partner", "greedy", "--record", rec, "-q").exit_code == 0
    rec_lines = rec.read_text().splitlines()
    started = time.monotonic()
    cases = 0
    for k in range(160):  # scenarios: validate, and play a few
        src = scenarios[k % len(scenarios)]
        path = tmp_path / f"s{k}.json"
        if k % 5 == 4:
            path.write_text(_text_mutation(src.read_text(), rng))
        else:
            path.write_text(json.dumps(_mutate(json.loads(src.read_text()), rng)))
        old = _bounded(20)
        try:
            for args in (["validate", path], ["autoplay", path, "--partner", "greedy", "-q"])[:1 + (k % 4 == 0)]:
                _check(cli(*args), path, f"scenario case {k} {args[0]}")
                cases += 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    for k in range(140):  # records: print, verify, fork
        lines = list(rec_lines)
        n = rng.randrange(len(lines))
        if k % 4 == 3:
            lines[n] = _text_mutation(lines[n], rng)
        else:
            lines[n] = json.dumps(_mutate(json.loads(lines[n]), rng))
        path = tmp_path / f"r{k}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        old = _bounded(20)
        try:
            for args in (["replay", path, "--print"], ["replay", path, "--verify"],
                         ["autoplay", "--from-record", path, "--turn", "3", "-q"])[k % 3: k % 3 + 1]:
                _check(cli(*args), path, f"record case {k} {args[0]} line {n + 1}")
                cases += 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    assert cases >= 300 and time.monotonic() - started < 120
