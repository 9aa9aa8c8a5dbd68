"""One game, one record: the app and `negtui autoplay` write the same bytes for the same game, but for
the time it started and the signature (the app signs with its data directory's key)."""

from __future__ import annotations

import json

import pytest

from negtui.tui.app import NegtuiApp
from tests.paths import PILL, SIX

pytestmark = pytest.mark.asyncio


def _lines(path) -> list[str]:
    """Each line as written, without its start time and signature."""
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        data = json.loads(raw)
        data.pop("started", None)
        data.pop("mac", None)
        out.append(json.dumps(data, separators=(",", ":"), allow_nan=False))
    return out


@pytest.mark.parametrize("scenario", [SIX, PILL], ids=["six-party", "poison-pill"])
async def test_the_app_and_autoplay_write_the_same_record(cli, settle, wait_until, tmp_path, scenario):
    app = NegtuiApp(scenario, ask_seats=False, record=True, data_dir=tmp_path / "app", partner="greedy", sims=4,
                    autoplay=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.game is not None and app.game.over, "the game's end", timeout=60)
        await settle(pilot)
        [written] = (tmp_path / "app" / "records").glob("*.jsonl")
    cli_record = tmp_path / "cli.jsonl"
    res = cli("autoplay", scenario, "--partner", "greedy", "--sims", "4", "--record", cli_record, "--quiet")
    assert res.exit_code == 0, res.output
    ours, theirs = _lines(written), _lines(cli_record)
    assert json.loads(ours[-1])["type"] == "result" and len(ours) == len(theirs)
    assert ours == theirs
    assert "mac" in json.loads(written.read_text().splitlines()[0])  # the app's is signed, and only that differs
