"""An app served over SSH acts on nothing of the server's machine (negtui/tui/confined.py): the command
palette offers no screenshot, and Textual's calls that save files, open a browser or stop the process
are refused whichever way they are reached, with the trainee told why."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette
from textual.widgets import Input

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.console.app import ClassApp, ServedClassApp
from negtui.console.screen import ClassScreen
from negtui.trainee.lobby import LobbyScreen
from negtui.trainee.training import TrainingApp
from negtui.tui.confined import REFUSED

COURSE = """\
name = "c"
title = "C"

[[exercises]]
id = "pill"
title = "The poison pill"
scenario = "poison-pill"
seat = "B"
"""

pytestmark = pytest.mark.asyncio


@pytest.fixture(name="home")
def home_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The server user's home, also the app's working folder: where Textual would save screenshots and
    files."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    return home


def _files(home: Path) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file()]


def _searched(app, query: str) -> list[str]:
    """What the command palette lists once its search for `query` is over (its hits, or that nothing
    matched); empty while it still searches."""
    palette = app.screen
    if (not isinstance(palette, CommandPalette) or palette.query_one(Input).value != query
            or not all(w.is_finished for w in palette.workers)):
        return []
    hits = palette.query_one(CommandList)
    return [str(hits.get_option_at_index(k).prompt) for k in range(hits.option_count)]


async def _try_everything(app, pilot, home: Path, wait_until, settle) -> list[str]:
    """Every way to a screenshot, a file, a link or a suspension; what the app told the trainee (every
    notification, kept here: the app's own vanish after a few seconds)."""
    said: list[str] = []
    notify = app.notify

    def told(message, *args, **kwargs) -> None:
        said.append(str(message))
        notify(message, *args, **kwargs)

    app.notify = told
    titles = [c.title for c in app.get_system_commands(app.screen)]
    assert "Screenshot" not in titles
    assert {"Theme", "Quit"} <= set(titles)
    await pilot.press("ctrl+p")  # the palette, as a trainee would: type the command and Enter
    await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), "the command palette")
    for key in "screenshot":
        await pilot.press(key)
    await wait_until(pilot, lambda: _searched(app, "screenshot"), "the palette's search for 'screenshot'")
    assert not any("Screenshot" in hit for hit in _searched(app, "screenshot")), _searched(app, "screenshot")
    await pilot.press("enter")
    await settle(pilot)  # whatever Enter set going has finished
    before = len(said)
    app.action_screenshot()
    app.save_screenshot()
    app.deliver_screenshot()
    app.deliver_text(str(home / "x.txt"))
    app.deliver_binary(str(home / "x.bin"))
    app.open_url("https://example.org")
    app.action_suspend_process()
    assert len([m for m in said[before:] if REFUSED in m]) == 7, said  # each refused, and the trainee told
    await settle(pilot)  # a file a call saved in the background would be there now
    assert _files(home) == []
    return said


async def test_a_trainees_app_saves_no_screenshot_or_file_on_the_server(tmp_path: Path, home: Path, wait_until,
                                                                        settle) -> None:
    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    with ResultsDB.open(tmp_path / "data") as db:
        db.add_trainee("alice")
        app = TrainingApp(course, db, "alice", data_dir=tmp_path / "data")
        async with app.run_test(size=(100, 32), notifications=True) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            said = await _try_everything(app, pilot, home, wait_until, settle)
    assert any("Screenshots: not on the training server" in m for m in said), said
    assert any("Opening links" in m for m in said) and any("Saving files" in m for m in said)


async def test_the_console_is_confined_over_ssh_and_not_on_the_trainers_terminal(tmp_path: Path, home: Path,
                                                                                 wait_until, settle) -> None:
    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    with ResultsDB.open(tmp_path / "data") as db:
        served = ServedClassApp(course, db, data_dir=tmp_path / "data")
        async with served.run_test(size=(100, 32), notifications=True) as pilot:
            await wait_until(pilot, lambda: isinstance(served.screen, ClassScreen), "the console")
            await _try_everything(served, pilot, home, wait_until, settle)
        local = ClassApp(course, db, data_dir=tmp_path / "data")
        async with local.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(local.screen, ClassScreen), "the console")
            assert "Screenshot" in [c.title for c in local.get_system_commands(local.screen)]
