"""A bounded fuzz of what comes from outside during a game: hostile answers from stdio agents and hostile
bodies from a model server (tests/agents/programs/mutations.py), through the real command line; dozens in
a short seeded run, hundreds in the long one (`make stress`).  Every game ends with status 0, no traceback,
every turn played (a failed decision is a pass or a rejection), and its record verifies."""

from __future__ import annotations

import json
import os
import random
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from negtui.record import load_record
from tests.agents.fake_chat import FakeChat
from tests.agents.programs.mutations import HOSTILE_VALUES, mutated_lines, mutated_object
from tests.agents.test_llm import proposing, schema_of
from tests.paths import SIX

FUZZ_AGENT = Path(__file__).resolve().parent / "programs" / "fuzz_agent.py"
GAMES = 10  # about 30 hostile answers each
MODEL_GAMES = 14  # about 20 hostile bodies each (a model proposes in one request)
CLI = [sys.executable, "-m", "negtui.cli"]
# every case is seeded: a short run is the first games of the long one, and `make stress` plays them all
SHORT, LONG = "short", "long"


def _played_and_verified(proc: subprocess.Popen, record: Path, case: str) -> None:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, f"{case}: exit {proc.returncode}\n{err[-3000:]}"
    assert "Traceback" not in err, f"{case}: {err[-3000:]}"
    rec = load_record(record)
    assert rec.complete, case
    assert len(rec.turns) == json.loads(out)["turns"].__len__() == 24, case  # every turn of the six-party game
    verify = subprocess.run([*CLI, "replay", str(record), "--verify"], capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0, f"{case}: {verify.stdout}{verify.stderr}"


@pytest.mark.parametrize("games", [pytest.param(2, id=SHORT),
                                   pytest.param(GAMES, id=LONG, marks=[pytest.mark.stress, pytest.mark.slow])])
def test_hostile_answers_from_stdio_agents_never_break_a_game(tmp_path, games):
    running = []
    for game in range(games):
        seats = []
        for i in range(6):
            log = tmp_path / f"cases-{game}-{i}.log"
            command = " ".join(map(shlex.quote, [sys.executable, str(FUZZ_AGENT), "--seed", str(game * 6 + i),
                                                 "--rate", "0.6", "--log", str(log)]))
            seats += ["--seat", f"P{i}=cmd:{command}"]
        record = tmp_path / f"game-{game}.jsonl"
        running.append((record, subprocess.Popen([*CLI, "autoplay", str(SIX), *seats, "--json", "--record",
                                                  str(record), "--agent-timeout", "10"],
                                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
        if len(running) == 2:  # two games at a time: the machine's cores
            _played_and_verified(running[0][1], running[0][0], f"game {game - 1}")
            running.pop(0)
    for record, proc in running:
        _played_and_verified(proc, record, record.name)
    cases = [line.split() for f in tmp_path.glob("cases-*.log") for line in f.read_text().splitlines()]
    kinds = {kind for _, kind in cases}
    assert len(cases) >= 22 * games, len(cases)  # about 24 a game: a faulty offer spares the partner a request
    assert len(kinds) >= 15, kinds  # nearly every kind of mutation was sent at least once
    faults = sum(t.fault is not None for f in tmp_path.glob("game-*.jsonl") for t in load_record(f).turns)
    assert faults >= 5 * games, faults  # the hostile answers were noticed, not taken for moves


def _model_policy(seed: int, log: list[str]):
    rng = random.Random(seed)

    def answer(body: dict) -> object:
        if proposing(body):
            partners = schema_of(body)["properties"]["partner"]["enum"]
            good: dict = {"partner": rng.choice(partners), "offer": [], "reason": "let us see"}
        else:
            good = {"accept": rng.random() < 0.5, "reason": "fine"}
        if rng.random() >= 0.8:
            return good
        where = rng.randrange(4)
        if where == 0:  # the content, as a model might write it
            kind, lines = mutated_lines(good, rng)
            log.append(f"content-{kind}")
            return b"\n".join(lines).decode("utf-8", "replace")
        envelope = {"id": "c", "object": "chat.completion", "model": body["model"],
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(good)}}]}
        if where == 1:  # the completion around it
            kind, lines = mutated_lines(envelope, rng)
            log.append(f"envelope-{kind}")
            return ("raw", 200, b"\n".join(lines))
        if where == 2:
            broken = mutated_object(envelope, rng) if rng.random() < 0.5 else {
                **envelope, "choices": rng.choice(HOSTILE_VALUES)}
            log.append("envelope-object")
            return ("raw", 200, json.dumps(broken).encode())
        status = rng.choice([400, 401, 404, 429, 500, 502, 503])
        kind, lines = mutated_lines({"error": {"message": "\x1b[2Jgo away\x07"}}, rng)
        log.append(f"status-{status}-{kind}")
        return ("raw", status, b"\n".join(lines))

    return answer


@pytest.mark.parametrize("games", [pytest.param(2, id=SHORT, marks=pytest.mark.slow),
                                   pytest.param(MODEL_GAMES, id=LONG, marks=[pytest.mark.stress, pytest.mark.slow])])
def test_hostile_bodies_from_a_model_server_never_break_a_game(tmp_path, games):
    cases: list[str] = []
    for game in range(games):
        chat = FakeChat(_model_policy(game, cases))
        try:
            record = tmp_path / f"llm-{game}.jsonl"
            env = {**os.environ, "OPENAI_API_KEY": "sk-fuzz"}
            seats = [a for i in range(6) for a in ("--seat", f"P{i}=llm:fuzz-model")]
            proc = subprocess.Popen([*CLI, "autoplay", str(SIX), *seats, "--json", "--record", str(record),
                                     "--llm-base-url", chat.url, "--agent-timeout", "10"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            _played_and_verified(proc, record, f"model game {game}")
        finally:
            chat.close()
    assert len(cases) >= 250 * games // MODEL_GAMES, len(cases)
    assert len({c.split("-")[0] for c in cases}) == 3 and len(set(cases)) >= min(40, 10 * games), cases
