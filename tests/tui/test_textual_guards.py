"""Guards around the pinned Textual version (negtui/tui/textual_guards.py), each shown to matter: the
test fails with the guard removed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import PILL


def test_a_toast_made_as_its_notification_expires_does_not_freeze_the_app():
    """The rack makes a toast for a notification that has not expired; if it expires in the instant
    before the toast is made, the toast's timer gets a negative delay. In a separate process: unguarded,
    Textual's timer loop spins forever."""
    script = f'''
import asyncio, time
from pathlib import Path
from textual.notifications import Notification
from textual.widgets._toast import Toast, ToastHolder, ToastRack
from negtui.tui.app import NegtuiApp

async def main():
    app = NegtuiApp(Path({str(PILL)!r}), ask_seats=False, record=False)
    async with app.run_test(notifications=True) as pilot:
        await pilot.pause()
        note = Notification("expiring", timeout=0.001)
        time.sleep(0.01)
        toast = Toast(note)  # made after the notification expired
        assert toast._timeout < 0
        await app.screen.query_one(ToastRack).mount(ToastHolder(toast))
        await pilot.pause(0.3)
        print("toast gone" if not toast.is_attached else "toast still shown")
        await pilot.press("q")

asyncio.run(main())
'''
    try:
        res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("the app froze on a toast with a negative delay")
    assert res.returncode == 0, res.stderr
    assert "toast gone" in res.stdout
