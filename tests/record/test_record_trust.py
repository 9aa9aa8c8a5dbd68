"""A record says who played; it never decides what runs or where a key goes.  A record handed round can
name any command and any model server in its seats: continuing it (autoplay --from-record, the app's
take-over) must run no command and send no request, with an API key in the environment, unless the person
continuing names the seat again.  And a record cannot pass one rule set off as another."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from negtui.record import RecordError, Replay, load_record
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.live import LiveScreen
from negtui.tui.screens.seats import SeatsScreen
from tests.agents.fake_chat import FakeChat
from tests.agents.test_llm import pill_policy
from tests.paths import PILL

KEY = "sk-test-secret-key"


@pytest.fixture
def fake_chat():
    made: list[FakeChat] = []
    yield lambda policy: made.append(FakeChat(policy)) or made[-1]
    for chat in made:
        chat.close()


def negtui(*args: object, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "negtui.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=env)


def _env(tmp_path: Path, elsewhere: str) -> dict[str, str]:
    return {**os.environ, "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": elsewhere, "HOME": str(tmp_path)}


def _crafted(tmp_path: Path, chat_url: str) -> tuple[Path, Path]:
    """A lens bots' record of the poison pill whose header then says A was a program that writes a file and
    B a model at the record's own address."""
    rec = tmp_path / "plain.jsonl"
    made = subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", PILL, "--lens", "upper", "--record", rec,
                           "--quiet"], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    pwned = tmp_path / "PWNED"
    lines = rec.read_text().splitlines()
    head = json.loads(lines[0])
    head["seats"] = {"A": {"agent": "cmd", "command": f"sh -c {shlex.quote(f'id > {pwned}')}"},
                     "B": {"agent": "llm", "model": "m", "base_url": chat_url}}
    crafted = tmp_path / "crafted.jsonl"
    crafted.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    return crafted, pwned


def test_continuing_a_crafted_record_runs_nothing_and_sends_no_key(tmp_path, fake_chat):
    thief, elsewhere = fake_chat(pill_policy), fake_chat(pill_policy)
    crafted, pwned = _crafted(tmp_path, thief.url)
    res = negtui("autoplay", "--from-record", crafted, "--turn", 1, "--json", cwd=tmp_path,
                 env=_env(tmp_path, elsewhere.url))
    assert res.returncode == 0, res.stderr
    assert not pwned.exists()
    assert not thief.requests and not elsewhere.requests
    out = json.loads(res.stdout)
    assert {s["agent"] for s in out["seats"].values()} == {"lens"}
    # the person is told which recorded seats were a program and a model, and how to give them again
    assert "A · Alice was a program (cmd: sh) and B · Bob a model (llm: m)" in res.stderr
    assert "--seat A=cmd:COMMAND --seat B=llm:MODEL" in res.stderr


def test_a_seat_named_again_plays_at_the_address_the_person_gives(tmp_path, fake_chat):
    """`--seat B=llm:m` gives the model seat back, at `--llm-base-url`: the record's address hears nothing, even
    though parse_seat takes a recorded seat's settings as its base."""
    thief, given, elsewhere = fake_chat(pill_policy), fake_chat(pill_policy), fake_chat(pill_policy)
    crafted, pwned = _crafted(tmp_path, thief.url)
    res = negtui("autoplay", "--from-record", crafted, "--turn", 1, "--seat", "B=llm:m", "--llm-base-url",
                 given.url, "--json", cwd=tmp_path, env=_env(tmp_path, elsewhere.url))
    assert res.returncode == 0, res.stderr
    assert not pwned.exists() and not thief.requests and not elsewhere.requests
    assert given.requests and all(r["headers"]["Authorization"] == f"Bearer {KEY}" for r in given.requests)
    assert json.loads(res.stdout)["seats"]["B"]["agent"] == "llm"
    assert "--seat A=cmd:COMMAND" in res.stderr and "B=llm:MODEL" not in res.stderr  # only A is still stood in for


@pytest.mark.asyncio
async def test_taking_over_a_crafted_record_in_the_app_runs_nothing(tmp_path, fake_chat, monkeypatch, settle,
                                                                    wait_until):
    thief, elsewhere = fake_chat(pill_policy), fake_chat(pill_policy)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", elsewhere.url)
    crafted, pwned = _crafted(tmp_path, thief.url)
    app = NegtuiApp(replay=crafted, data_dir=tmp_path / "data", record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, SeatsScreen)
        assert all(s.is_lens for s in dialog.seats.values())
        assert "a record never decides what runs" in dialog.note and "negtui replay FILE --seat" in dialog.note
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen), "the forked game")
        for _ in range(4):
            await pilot.press("space")
            await settle(pilot)
    assert not pwned.exists()
    assert not thief.requests and not elsewhere.requests


def test_a_record_cannot_pass_one_rule_set_off_as_another(tmp_path):
    """Renaming `paper` to `reference` in a header (switches unchanged) made `replay --verify` pass and print
    it as a reference game."""
    rec = tmp_path / "paper.jsonl"
    made = subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", PILL, "--lens", "upper", "--record", rec,
                           "--quiet"], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    lines = rec.read_text().splitlines()
    head = json.loads(lines[0])
    assert head["rules"]["name"] == "paper"
    Replay(load_record(rec))  # as written, it loads
    head["rules"]["name"] = "reference"
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n")
    with pytest.raises(RecordError) as err:
        load_record(renamed)
    assert "$.rules.name" in err.value.render()
    res = negtui("replay", renamed, "--verify", cwd=tmp_path, env=dict(os.environ))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "rules.name" in res.stderr and "named 'reference'" in res.stderr
