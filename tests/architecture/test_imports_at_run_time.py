"""The layers stay apart, checked in a fresh interpreter: importing a part must not load the parts of its own
layer or the layers above it (layers.py, the table test_import_graph.py reads from the source), nor the app,
the MILP solver or the research stack where they do not belong.  This test sees what an import really loads,
third-party packages and lazy packages' names too; some modules are held to more than their layer (the SSH
server runs no game, a table's process no app).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.architecture.layers import not_below

UI_AND_SOLVER = ("textual", "pulp", "highspy")
RESEARCH = ("distributed", "dask", "pyarrow", "matplotlib")  # the sweep's, loaded by it alone


# module -> what it must not import beyond its layer's rule (third-party top-level names, or negtui parts its
# layer may import but it need not)
EXTRA: dict[str, tuple[str, ...]] = {
    "negtui.scenario": UI_AND_SOLVER,
    "negtui.generator": UI_AND_SOLVER,
    "negtui.engine": UI_AND_SOLVER + ("sklearn",),
    "negtui.engine.learned": UI_AND_SOLVER + RESEARCH + ("sklearn",),  # the learned lens reads its model in numpy
    "negtui.seats": UI_AND_SOLVER,
    "negtui.narrate": UI_AND_SOLVER,
    "negtui.agents": UI_AND_SOLVER + ("httpx",),  # a language model's client is imported when one sits
    "negtui.agents.process": UI_AND_SOLVER + ("httpx",),
    "negtui.agents.stdio": UI_AND_SOLVER + ("httpx",),
    "negtui.agents.llm": UI_AND_SOLVER,
    "negtui.record": UI_AND_SOLVER + ("negtui.agents",),
    "negtui.welfare": ("textual", "negtui.agents", "negtui.record"),
    "negtui.coach": UI_AND_SOLVER + ("negtui.record",),
    "negtui.classroom.db": UI_AND_SOLVER + ("negtui.engine", "negtui.play"),
    "negtui.classroom.dbtypes": UI_AND_SOLVER + ("negtui.engine", "negtui.play", "sqlite3", "asyncssh"),
    "negtui.classroom.identity": UI_AND_SOLVER + ("negtui.engine", "negtui.play", "sqlite3"),
    "negtui.classroom.course": UI_AND_SOLVER + ("negtui.play", "negtui.record"),
    "negtui.classroom.course_loading": UI_AND_SOLVER + ("negtui.play", "negtui.record"),
    # the class export imports matplotlib only when it draws
    "negtui.classroom.export": UI_AND_SOLVER + RESEARCH,
    # what the SSH server reads of the class runs no game
    "negtui.classroom.classbook": UI_AND_SOLVER + ("numpy", "negtui.engine", "negtui.play"),
    "negtui.serve.server": UI_AND_SOLVER + ("negtui.tui", "negtui.play", "numpy", "negtui.trainee.training",
                                            "negtui.trainee.lobby", "negtui.console"),
    # the doors start apps as processes of their own: neither loads one
    "negtui.serve.ssh_door": UI_AND_SOLVER + ("negtui.tui", "negtui.play", "numpy", "negtui.trainee.training",
                                              "negtui.trainee.lobby", "negtui.console", "aiohttp"),
    "negtui.serve.web": UI_AND_SOLVER + ("negtui.tui", "negtui.play", "numpy", "negtui.trainee.training",
                                         "negtui.trainee.lobby", "negtui.console", "asyncssh"),
    "negtui.serve.tables": UI_AND_SOLVER + ("negtui.tui", "negtui.play", "numpy", "negtui.trainee.training"),
    # a course's table runs its game and files its results: no app, no SSH, no research stack
    "negtui.serve.table_child": ("textual", "negtui.tui", "asyncssh", "negtui.trainee.training", "negtui.console")
    + RESEARCH,
    "negtui.tui.app": ("pulp", "highspy") + RESEARCH,  # the MILP runs in a worker
    # the sweep plays games through the engine's and the agents' public API, never the app or a session
    "negtui.sweep.spec": UI_AND_SOLVER + RESEARCH,
    "negtui.sweep.tasks": UI_AND_SOLVER + RESEARCH,
    "negtui.sweep.runner": ("textual", "matplotlib", "distributed"),
    # the report groups the results table's rows with pyarrow, as it reads them; it draws nothing itself
    "negtui.sweep.report": UI_AND_SOLVER + ("distributed", "dask", "matplotlib"),
    # the results table is plain pyarrow: the engine and the agents stay in the workers
    "negtui.sweep.results": UI_AND_SOLVER + ("matplotlib", "distributed", "dask", "negtui.engine", "negtui.agents"),
    "negtui.play": UI_AND_SOLVER,
    # a table's process runs the game and its bots: no app, no server, no research stack
    "negtui.table.host": UI_AND_SOLVER + RESEARCH + ("asyncssh",),
    "negtui.table.source": UI_AND_SOLVER + RESEARCH + ("asyncssh",),
    # drawing the training set solves games; scikit-learn is loaded by the fit alone
    "negtui.learn.data": UI_AND_SOLVER + ("sklearn", "matplotlib", "distributed"),
    "negtui.learn.train": UI_AND_SOLVER + ("sklearn", "matplotlib", "distributed"),
    "negtui.datadir": UI_AND_SOLVER + ("numpy", "negtui.engine"),
    "negtui.tui": ("pulp", "highspy") + RESEARCH,
    "negtui.trainee.training": ("pulp", "highspy"),
    # the trainer's console: the app and the database; no solver, no SSH, no research stack
    "negtui.console.app": ("pulp", "highspy", "asyncssh") + RESEARCH,
    # steering a table is a few lines over its socket: none of the game
    "negtui.table.steer": UI_AND_SOLVER + ("numpy", "negtui.engine", "negtui.play"),
}


def forbidden(module: str) -> tuple[str, ...]:
    """The layer's rule (layers.py) and the module's own (EXTRA)."""
    return tuple(f"negtui.{part}" for part in not_below(module.split(".")[1])) + EXTRA.get(module, ())


def imported_by(module: str) -> set[str]:
    # every name the module exports: a package whose names are imported on first use (negtui.lazy) loads
    # them all, as a program using it eventually does
    code = f"import sys\nfrom {module} import *\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(out.split())


@pytest.mark.parametrize("module", sorted(EXTRA))
def test_a_layer_does_not_import_the_layers_above_it(module):
    loaded = imported_by(module)
    bad = sorted(m for m in loaded for f in forbidden(module) if m == f or m.startswith(f + "."))
    assert bad == [], f"{module} imports {bad}"


def test_the_command_line_starts_without_the_app_the_solver_or_the_agents():
    """Heavy imports happen inside the commands that need them, so `negtui validate` starts fast."""
    loaded = imported_by("negtui.cli")
    bad = sorted(m for m in loaded for f in UI_AND_SOLVER + ("negtui.tui", "negtui.agents", "negtui.play",
                                                             "rich.table", "httpx", "negtui.sweep", "negtui.learn",
                                                             "sklearn") + RESEARCH
                 if m == f or m.startswith(f + "."))
    assert bad == [], f"negtui.cli imports {bad}"


@pytest.mark.parametrize("module", ["negtui.engine.vocabulary", "negtui.seats", "negtui.tui.screens.seats",
                                    "negtui.tui.app"])
def test_the_seat_dialog_is_drawn_before_numpy_is_imported(module):
    """`negtui play` shows its seat dialog while numpy, the engine's arrays and the bots are imported (about
    0.1 s of its first screen): the words a seat is described in, the learned lens's name among them, are plain
    names; the learned lens's model is read with numpy only when a seat names it."""
    assert "numpy" not in imported_by(module)
