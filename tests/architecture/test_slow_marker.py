"""The slow marker is checked as the suite runs (tests/slowness.py): a test over the limit that is not marked
slow fails and says how to put it right, with or without pytest-xdist's workers; a marked one, or a quick
one, passes.  Run in a pytest of its own, on a limit of a tenth of a second."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

SUITE = '''
import time

import pytest

from tests.slowness import limit


def test_quick():
    pass


def test_slow_unmarked():
    time.sleep(limit() + 0.3)


@pytest.mark.slow
def test_slow_marked():
    time.sleep(limit() + 0.3)
'''


@pytest.mark.parametrize("workers", ["0", pytest.param("2", marks=pytest.mark.slow)])  # workers take seconds to start
def test_a_test_over_the_limit_fails_unless_it_is_marked_slow(tmp_path: Path, workers: str) -> None:
    (tmp_path / "conftest.py").write_text("from tests.slowness import pytest_runtest_makereport  # noqa: F401\n")
    (tmp_path / "test_timed.py").write_text(SUITE)
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEGTUI_SLOW_LIMIT": "0.1"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers,
                          str(tmp_path)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "1 failed, 2 passed" in out, out
    assert "FAILED test_timed.py::test_slow_unmarked" in out
    assert "is not marked slow" in out and "Mark it @pytest.mark.slow" in out


def test_the_limit_is_off_at_zero_and_grows_on_a_loaded_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests import slowness

    monkeypatch.setenv("NEGTUI_SLOW_LIMIT", "0")
    assert slowness.limit() == 0
    monkeypatch.setenv("NEGTUI_SLOW_LIMIT", "10")
    cores = os.cpu_count() or 1
    for load, allowed in ((0.0, 15.0), (cores * 2.0, 30.0), (cores * 100.0, 60.0)):
        monkeypatch.setattr(slowness.os, "getloadavg", lambda load=load: (load, load, load))
        assert slowness.limit() == pytest.approx(allowed)
