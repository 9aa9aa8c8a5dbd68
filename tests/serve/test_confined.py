"""An app served over SSH acts on nothing of the server's machine (negtui/tui/confined.py): the command
palette offers no screenshot, and Textual's calls that save files, open a browser or stop the process
are refused whichever way they are reached, with the trainee told why."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.serve.console.app import ClassApp, ServedClassApp
from negtui.serve.course import load_course
from negtui.serve.db import ResultsDB
from negtui.serve.training import TrainingApp

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


async def _try_everything(app, pilot, home: Path) -> list[str]:
    titles = [c.title for c in app.get_system_commands(app.screen)]
    assert "Screenshot" not in titles
    assert {"Theme", "Quit"} <= set(titles)
    await pilot.press("ctrl+p")  # the palette, as a trainee would: type the command and Enter
    await pilot.pause(0.3)
    for key in "screenshot":
        await pilot.press(key)
    await pilot.pause(0.5)
    await pilot.press("enter")
    await pilot.pause(0.5)
    app.action_screenshot()
    app.save_screenshot()
    app.deliver_screenshot()
    app.deliver_text(str(home / "x.txt"))
    app.deliver_binary(str(home / "x.bin"))
    app.open_url("https://example.org")
    app.action_suspend_process()
    await pilot.pause(0.3)
    assert _files(home) == []
    return [n.message for n in app._notifications]


async def test_a_trainees_app_saves_no_screenshot_or_file_on_the_server(tmp_path: Path, home: Path) -> None:
    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    with ResultsDB.open(tmp_path / "data") as db:
        db.add_trainee("alice")
        app = TrainingApp(course, db, "alice", data_dir=tmp_path / "data")
        async with app.run_test(size=(100, 32), notifications=True) as pilot:
            await pilot.pause(0.5)
            said = await _try_everything(app, pilot, home)
    assert any("Screenshots: not on the training server" in m for m in said), said
    assert any("Opening links" in m for m in said) and any("Saving files" in m for m in said)


async def test_the_console_is_confined_over_ssh_and_not_on_the_trainers_terminal(tmp_path: Path,
                                                                                 home: Path) -> None:
    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    with ResultsDB.open(tmp_path / "data") as db:
        served = ServedClassApp(course, db, data_dir=tmp_path / "data")
        async with served.run_test(size=(100, 32), notifications=True) as pilot:
            await pilot.pause(0.5)
            await _try_everything(served, pilot, home)
        local = ClassApp(course, db, data_dir=tmp_path / "data")
        async with local.run_test(size=(100, 32)) as pilot:
            await pilot.pause(0.3)
            assert "Screenshot" in [c.title for c in local.get_system_commands(local.screen)]
