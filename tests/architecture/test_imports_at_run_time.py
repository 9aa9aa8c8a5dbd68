"""The layers stay apart, checked in a fresh interpreter: importing a package must not load the layers
above it (nor the app or the MILP solver).  test_import_graph.py reads the same layers from the source,
function-level imports included; this test sees what an import really loads, third-party packages too.

    scenario, generator  <  engine  <  seats  <  agents, record  <  coach  <  play  <  table  <  tui  <  serve, cli
                                       engine  <  welfare
                   engine, agents, welfare  <  sweep (tasks, results, report)  <  cli
    the SSH server (serve.server) runs no game itself: it imports neither the engine's arrays nor the app
"""

from __future__ import annotations

import subprocess
import sys

import pytest

UI_AND_SOLVER = ("textual", "pulp", "highspy")
ABOVE_ENGINE = ("negtui.seats", "negtui.agents", "negtui.record", "negtui.play", "negtui.tui", "negtui.cli",
                "negtui.welfare", "negtui.narrate", "negtui.sweep")
RESEARCH = ("distributed", "dask", "pyarrow", "matplotlib")  # the sweep's, loaded by it alone

# module -> packages it must never import (third-party top-level names, or negtui packages)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "negtui.scenario": UI_AND_SOLVER + ABOVE_ENGINE + ("negtui.engine",),
    "negtui.generator": UI_AND_SOLVER + ABOVE_ENGINE,
    "negtui.engine": UI_AND_SOLVER + ABOVE_ENGINE,
    "negtui.seats": UI_AND_SOLVER + ("negtui.agents", "negtui.record", "negtui.play", "negtui.tui",
                                     "negtui.cli", "negtui.welfare"),
    "negtui.narrate": UI_AND_SOLVER + ("negtui.agents", "negtui.record", "negtui.play", "negtui.tui",
                                       "negtui.cli", "negtui.welfare"),
    "negtui.agents": UI_AND_SOLVER + ("negtui.record", "negtui.play", "negtui.tui", "negtui.cli",
                                      "negtui.welfare", "httpx"),
    "negtui.agents.process": UI_AND_SOLVER + ("negtui.record", "negtui.play", "negtui.tui", "negtui.cli",
                                              "negtui.welfare", "httpx"),
    "negtui.agents.stdio": UI_AND_SOLVER + ("negtui.record", "negtui.play", "negtui.tui", "negtui.cli",
                                            "negtui.welfare", "httpx"),
    "negtui.agents.llm": UI_AND_SOLVER + ("negtui.record", "negtui.play", "negtui.tui", "negtui.cli",
                                          "negtui.welfare"),
    "negtui.record": UI_AND_SOLVER + ("negtui.agents", "negtui.play", "negtui.tui", "negtui.cli",
                                      "negtui.welfare"),
    "negtui.welfare": ("textual", "negtui.agents", "negtui.record", "negtui.play", "negtui.tui", "negtui.cli"),
    "negtui.coach": UI_AND_SOLVER + ("negtui.record", "negtui.play", "negtui.tui", "negtui.cli", "negtui.serve"),
    "negtui.serve.db": UI_AND_SOLVER + ("negtui.engine", "negtui.tui", "negtui.cli", "negtui.play"),
    "negtui.serve.dbtypes": UI_AND_SOLVER + ("negtui.engine", "negtui.tui", "negtui.cli", "negtui.play",
                                             "sqlite3", "asyncssh"),
    "negtui.serve.identity": UI_AND_SOLVER + ("negtui.engine", "negtui.tui", "negtui.cli", "negtui.play",
                                              "sqlite3"),
    "negtui.serve.course": UI_AND_SOLVER + ("negtui.tui", "negtui.cli", "negtui.play", "negtui.record"),
    "negtui.serve.server": UI_AND_SOLVER + ("negtui.tui", "negtui.cli", "negtui.play", "numpy"),
    "negtui.serve.tables": UI_AND_SOLVER + ("negtui.tui", "negtui.cli", "negtui.play", "numpy"),
    # a course's table runs its game and files its results: no app, no SSH, no research stack
    "negtui.serve.table_child": ("textual", "negtui.tui", "negtui.cli", "asyncssh") + RESEARCH,
    "negtui.tui.app": ("negtui.cli", "pulp", "highspy", "negtui.sweep") + RESEARCH,  # the MILP runs in a worker
    # the sweep plays games through the engine's and the agents' public API, never the app or a session
    "negtui.sweep.spec": UI_AND_SOLVER + RESEARCH + ("negtui.tui", "negtui.play", "negtui.cli"),
    "negtui.sweep.tasks": UI_AND_SOLVER + RESEARCH + ("negtui.tui", "negtui.play", "negtui.cli"),
    "negtui.sweep.runner": ("textual", "matplotlib", "distributed", "negtui.tui", "negtui.play", "negtui.cli"),
    "negtui.sweep.report": UI_AND_SOLVER + RESEARCH + ("negtui.tui", "negtui.play", "negtui.cli"),
    # the results table is plain pyarrow: the engine and the agents stay in the workers
    "negtui.sweep.results": UI_AND_SOLVER + ("matplotlib", "distributed", "dask", "negtui.engine",
                                             "negtui.agents", "negtui.tui", "negtui.play", "negtui.cli"),
    "negtui.play": UI_AND_SOLVER + ("negtui.tui", "negtui.cli", "negtui.serve", "negtui.sweep", "negtui.table"),
    # a table's process runs the game and its bots: no app, no server, no research stack
    "negtui.table.host": UI_AND_SOLVER + RESEARCH + ("negtui.tui", "negtui.cli", "negtui.serve", "asyncssh"),
    "negtui.table.source": UI_AND_SOLVER + RESEARCH + ("negtui.tui", "negtui.cli", "negtui.serve", "asyncssh"),
    "negtui.datadir": UI_AND_SOLVER + ("numpy", "negtui.engine", "negtui.play", "negtui.tui"),
    "negtui.tui": ("negtui.cli", "negtui.serve", "pulp", "highspy", "negtui.sweep") + RESEARCH,
    "negtui.serve.training": ("negtui.cli", "pulp", "highspy"),
    # the trainer's console: the app and the database; no solver, no SSH, no research stack
    "negtui.serve.console.app": ("negtui.cli", "pulp", "highspy", "negtui.sweep", "asyncssh") + RESEARCH,
    # what the SSH server reads of the class runs no game
    "negtui.serve.classbook": UI_AND_SOLVER + ("numpy", "negtui.engine", "negtui.tui", "negtui.cli", "negtui.play"),
    # steering a table is a few lines over its socket: none of the game
    "negtui.table.steer": UI_AND_SOLVER + ("numpy", "negtui.engine", "negtui.play", "negtui.tui", "negtui.serve"),
}


def imported_by(module: str) -> set[str]:
    # every name the module exports: a package whose names are imported on first use (negtui.lazy) loads
    # them all, as a program using it eventually does
    code = f"import sys\nfrom {module} import *\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


@pytest.mark.parametrize("module", sorted(FORBIDDEN))
def test_a_layer_does_not_import_the_layers_above_it(module):
    loaded = imported_by(module)
    bad = sorted(m for m in loaded for f in FORBIDDEN[module] if m == f or m.startswith(f + "."))
    assert bad == [], f"{module} imports {bad}"


def test_the_command_line_starts_without_the_app_the_solver_or_the_agents():
    """Heavy imports happen inside the commands that need them, so `negtui validate` starts fast."""
    loaded = imported_by("negtui.cli")
    bad = sorted(m for m in loaded for f in UI_AND_SOLVER + ("negtui.tui", "negtui.agents", "negtui.play",
                                                             "rich.table", "httpx", "negtui.sweep") + RESEARCH
                 if m == f or m.startswith(f + "."))
    assert bad == [], f"negtui.cli imports {bad}"
