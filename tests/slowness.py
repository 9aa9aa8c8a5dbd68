"""The `slow` marker kept honest: a test whose call takes more than 10 s fails unless it is marked slow, so
`pytest -m 'not slow'` stays a quick run.  tests/conftest.py imports the hook from here.

Only the test's own call is timed (not its fixtures' set-up, nor the wait for the workers' lock of
`exclusive` tests), and a loaded machine is allowed for: the limit grows by half again, then by how many
runnable processes there were per core over the last minute (at most 4 times), so a test is failed for
being slow, not for sharing the machine.  NEGTUI_SLOW_LIMIT=SECONDS sets the 10 s; 0 turns the check off.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

LIMIT = 10.0  # seconds a test not marked slow may take (its call), on a machine of its own
MARGIN = 1.5  # the limit allows for a machine half again slower than the one it was measured on
MOST_CONTENTION = 4.0  # a machine this much over-subscribed (or more) allows four times the time


def limit() -> float:
    """The seconds a test's call may take now, unmarked: 0 when the check is off."""
    base = float(os.environ.get("NEGTUI_SLOW_LIMIT", LIMIT))
    per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    return base * MARGIN * min(MOST_CONTENTION, max(1.0, per_core))


def verdict(item: pytest.Item, report: pytest.TestReport) -> str | None:
    """Why a test that passed fails after all (too slow and not marked so), or None."""
    if report.when != "call" or not report.passed or item.get_closest_marker("slow") is not None:
        return None
    allowed = limit()
    if not allowed or report.duration <= allowed:
        return None
    return (f"{item.nodeid} took {report.duration:.1f} s and is not marked slow (allowed here: {allowed:.1f} s, "
            f"{os.environ.get('NEGTUI_SLOW_LIMIT', LIMIT)} s with the margin for a loaded machine).  Mark it "
            "@pytest.mark.slow, or make it quicker (share an expensive set-up in a fixture); "
            "NEGTUI_SLOW_LIMIT=0 turns this check off.")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, object, object]:
    """A passing call over the limit, unmarked, is reported failed, with how to put it right (under
    pytest-xdist too: the worker's report is what the controller shows)."""
    report = yield
    if isinstance(report, pytest.TestReport):
        why = verdict(item, report)
        if why is not None:
            report.outcome = "failed"
            report.longrepr = why
    return report
