"""A fuzz of mutated scenarios and records through the commands that read them (validate, autoplay,
replay, a fork from a record).  Every case ends with status 0 or 2 and a message naming the file and the
JSON path, never a traceback and never a hang."""

from __future__ import annotations

import json
import random
import signal
import time
from pathlib import Path

import pytest

from tests.mutations import mutate, text_mutation
from tests.paths import COALITION_TRAP, HUMANITARIAN, PILL, SIX


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
            path.write_text(text_mutation(src.read_text(), rng))
        else:
            path.write_text(json.dumps(mutate(json.loads(src.read_text()), rng)))
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
            lines[n] = text_mutation(lines[n], rng)
        else:
            lines[n] = json.dumps(mutate(json.loads(lines[n]), rng))
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
