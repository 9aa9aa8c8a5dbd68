"""`negtui play FILE` reads and checks the scenario once: the app starts from the scenario the command line
loaded (and the game it compiled, when an exact seat made it compile one), not from the file again; a game
started from the seat dialog plays the game compiled while the seats were chosen."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from negtui.engine.game import compile_game
from negtui.engine.rules import get_rules
from negtui.scenario import load_scenario
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.game import GameScreen
from negtui.tui.screens.seats import SeatsScreen
from tests.paths import PILL


def _pill_then_changed(tmp_path: Path) -> tuple[Path, Any]:
    """The poison pill loaded from a file that then says something else (Bob renamed Robert)."""
    path = tmp_path / "pill.json"
    path.write_text(PILL.read_text())
    loaded = load_scenario(path)
    data = json.loads(path.read_text())
    data["players"][1]["name"] = "Robert"
    path.write_text(json.dumps(data))
    return path, loaded


@pytest.mark.asyncio
async def test_the_app_starts_from_the_scenario_and_game_the_command_line_built(tmp_path: Path, screen_text,
                                                                                wait_until) -> None:
    path, loaded = _pill_then_changed(tmp_path)
    compiled = compile_game(loaded, get_rules("paper"))
    app = NegtuiApp(path, ask_seats=False, record=False, partner="greedy", loaded=loaded, compiled=compiled)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        assert app.game is not None and app.game.neg.game is compiled  # not compiled again
        await wait_until(pilot, lambda: "B · Bob" in screen_text(app), "the players as the command line read them")
        assert "Robert" not in screen_text(app)


@pytest.mark.asyncio
async def test_the_seat_dialog_shows_the_loaded_scenario_and_the_game_starts_from_its_compiled_game(
        tmp_path: Path, screen_text, wait_until) -> None:
    path, loaded = _pill_then_changed(tmp_path)
    app = NegtuiApp(path, ask_seats=True, record=False, partner="greedy", loaded=loaded)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen), "the seat dialog")
        await wait_until(pilot, lambda: "B · Bob" in screen_text(app), "the seats as the command line read them")
        # the exact lens is offered once the game is compiled beside the dialog
        await wait_until(pilot, lambda: app._compiled is not None, "the game compiled while the seats are chosen")
        compiled = app._compiled[2]
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        assert app.game is not None and app.game.neg.game is compiled


def test_play_hands_the_app_what_it_read_and_compiled(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line's side: the scenario it checked, and with an exact seat the game it compiled to
    check its size, go to the app (open_app is where the app would start)."""
    import negtui.cli.play_cmd as play_cmd

    given: list[dict[str, Any]] = []
    monkeypatch.setattr(play_cmd, "open_app", lambda **kw: given.append(kw) or 0)
    assert cli("play", PILL, "--no-record").exit_code == 0
    assert given[-1]["loaded"].name == load_scenario(PILL).name and given[-1]["compiled"] is None
    assert cli("play", PILL, "--no-record", "--seat", "A=exact").exit_code == 0
    assert given[-1]["loaded"].name == load_scenario(PILL).name
    assert given[-1]["compiled"] is not None and given[-1]["compiled"].T > 0
