"""The engine stays free of UI and solver code: checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

FORBIDDEN = ("textual", "pulp", "highspy")


@pytest.mark.parametrize("module", ["negtui.engine", "negtui.generator", "negtui.scenario", "negtui.agents", "negtui.narrate"])
def test_core_modules_do_not_import_ui_or_solver(module):
    code = (
        f"import sys, {module}\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"{module} imports {out}"
