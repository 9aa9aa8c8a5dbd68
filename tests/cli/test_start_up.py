"""What `negtui play` loads before its first screen: the command alone, errors matched without importing
their modules, and no engine arrays, bots or records until a game starts."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from negtui.cli.commands import MODULES
from negtui.cli.errors import RENDERED, SAID
from tests.paths import PILL


def test_each_command_is_registered_by_the_module_the_table_names():
    code = textwrap.dedent("""
        import importlib, json
        from typer.main import get_command_name
        from negtui.cli.root import app
        def names():
            return {c.name or get_command_name(c.callback.__name__) for c in app.registered_commands} | {
                g.name for g in app.registered_groups}
        by, seen = {}, set()
        for module in sorted(set(MODULES.values())):
            importlib.import_module("negtui.cli." + module)
            now = names()
            by.update({name: module for name in now - seen})
            seen = now
        print(json.dumps(by))
        """)
    out = subprocess.run([sys.executable, "-c", f"MODULES = {MODULES!r}\n" + code], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out) == MODULES


def test_the_full_command_line_knows_every_command_of_the_table(cli):
    res = cli("--help")
    assert res.exit_code == 0
    for name in MODULES:
        assert name in res.output


@pytest.mark.parametrize(("module", "name"), RENDERED + SAID)
def test_every_error_a_user_can_cause_is_named_where_it_lives(module, name):
    import importlib

    kind = getattr(importlib.import_module(module), name)
    assert isinstance(kind, type) and issubclass(kind, Exception)
    if (module, name) in RENDERED:
        assert callable(getattr(kind, "render", None))


def test_a_command_run_alone_still_reports_errors_as_a_message_and_status_2(tmp_path):
    """The errors of modules the command imports on its way are matched once they are imported."""
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "play", str(broken)], capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr and "broken.json" in res.stderr
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "play", str(PILL), "--seat", "A=nonsense"],
                         capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr and "nonsense" in res.stderr


FIRST_SCREEN = """
import asyncio, json, sys
from pathlib import Path
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.picker import PickerScreen
from negtui.tui.screens.seats import SeatsScreen

class App(NegtuiApp):
    def on_mount(self):
        super().on_mount()
        self.set_interval(0.01, self._look)

    def _look(self):
        if isinstance(self.screen, (SeatsScreen, PickerScreen)) and self.screen.is_mounted:
            print(json.dumps([type(self.screen).__name__, sorted(sys.modules)]))
            self.exit()

path = {path!r}
asyncio.run(App(Path(path) if path else None, record=False).run_async(headless=True, size=(80, 24)))
"""


@pytest.mark.parametrize(("path", "first"), [(str(PILL), "SeatsScreen"), (None, "PickerScreen")])
def test_the_first_screen_is_drawn_before_the_engine_the_bots_or_the_records_are_imported(path, first):
    """The seat dialog needs the scenario alone, the picker the list of scenarios: the rest is imported
    while the person reads them."""
    out = subprocess.run([sys.executable, "-c", FIRST_SCREEN.format(path=path)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    shown, loaded = json.loads(out.splitlines()[-1])
    assert shown == first
    heavy = ("numpy", "negtui.engine.game", "negtui.agents.seating", "negtui.record.writer", "negtui.play",
             "negtui.tui.screens.live", "negtui.coach.assess", "negtui.generator", "pulp")
    assert [m for m in heavy if m in loaded] == []
