"""`--llm-base-url` reaches the requests wherever a language-model seat plays: a fork taken over in the
app from a replay (the seat given again, as `negtui replay FILE --seat A=llm:m` gives it), and a sweep
(autoplay and its forks: tests/agents/test_llm.py).  Each time a second server named by OPENAI_BASE_URL
must hear nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from negtui.seats import Seat
from negtui.sweep.results import read_table
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.live import LiveScreen
from negtui.tui.screens.seats import SeatsScreen
from tests.agents.test_llm import pill_policy
from tests.paths import PILL


def _llm_record(fake_chat, tmp_path, env):
    chat = fake_chat(pill_policy)
    rec = tmp_path / "llm.jsonl"
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", str(PILL), "--seat", "A=llm:m", "--seat",
                          "B=upper", "--llm-base-url", chat.url, "--record", str(rec), "--quiet"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    return rec


@pytest.mark.asyncio
async def test_a_fork_taken_over_in_the_app_asks_the_server_given(fake_chat, tmp_path, monkeypatch, settle,
                                                                   wait_until):
    elsewhere = fake_chat(pill_policy)
    monkeypatch.setenv("OPENAI_BASE_URL", elsewhere.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    rec = _llm_record(fake_chat, tmp_path, dict(os.environ))
    given = fake_chat(pill_policy)
    app = NegtuiApp(replay=rec, data_dir=tmp_path / "data", base=Seat(base_url=given.url),
                    seats={"A": Seat(agent="llm", model="m")})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")  # take over at the first turn: A is the model seat given
        await settle(pilot)
        assert isinstance(app.screen, SeatsScreen)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen), "the forked game")
        await pilot.press("space")  # A's turn: the model proposes
        await wait_until(pilot, lambda: bool(given.requests), "a request to the server given", timeout=30)
    assert not elsewhere.requests


@pytest.mark.slow
def test_a_sweep_asks_the_server_given(cli, fake_chat, tmp_path, monkeypatch):
    elsewhere, given = fake_chat(pill_policy), fake_chat(pill_policy)
    monkeypatch.setenv("OPENAI_BASE_URL", elsewhere.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    spec = tmp_path / "llm.toml"
    spec.write_text(f'name = "llm"\nscenarios = ["{PILL}"]\nseeds = 1\nexact = false\nwelfare = "none"\n'
                    'llm_samples = 1\nmethods = [{ name = "model", seats = "llm:m" }]\n')
    results = tmp_path / "r.csv"
    res = cli("sweep", spec, "-o", results, "--workers", "1", "--llm-base-url", given.url)
    assert res.exit_code == 0, res.output
    assert given.requests and not elsewhere.requests
    rows = read_table(results).to_pylist()
    assert {r["method"] for r in rows} == {"baseline", "model"}
    assert [r["payoffs"] for r in rows if r["method"] == "model"] == [[30.0, 30.0]]  # pill_policy's game
    res = cli("sweep", spec, "--dry-run", "--llm-base-url", "file:///etc/passwd")
    assert res.exit_code == 2 and "--llm-base-url" in res.stderr
