"""A fuzz of mutated scenarios and records through the commands that read them (validate, autoplay,
replay, a fork from a record).  Every case ends with status 0 or 2 and a message naming the file and the
JSON path, never a traceback and never a hang."""

from __future__ import annotations

import copy
import json
import random
import signal
import time
from pathlib import Path

import pytest

from tests.paths import COALITION_TRAP, HUMANITARIAN, PILL, SIX


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


@pytest.mark.parametrize("scenario_cases, record_cases, at_least", [
    pytest.param(24, 21, 50, id="short"),  # a few dozen cases of the same seed
    pytest.param(160, 140, 300, id="long", marks=[pytest.mark.stress, pytest.mark.slow]),
])
def test_fuzz_mutated_scenarios_and_records(cli, tmp_path, scenario_cases, record_cases, at_least):
    rng = random.Random(20261122)
    scenarios = [PILL, SIX, COALITION_TRAP, HUMANITARIAN]
    rec = tmp_path / "base.jsonl"
    assert cli("autoplay", SIX, "--lens", "myopic", "--partner", "greedy", "--record", rec, "-q").exit_code == 0
    rec_lines = rec.read_text().splitlines()
    started = time.monotonic()
    cases = 0
    for k in range(scenario_cases):  # scenarios: validate, and play a few
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
    for k in range(record_cases):  # records: print, verify, fork
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
    assert cases >= at_least and time.monotonic() - started < 120, cases
