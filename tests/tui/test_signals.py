"""An app ended by a signal ends, even when its terminal has stopped taking output.

A terminal that is gone or frozen (a dropped SSH connection, a killed tmux pane mid-start) leaves
Textual's output thread blocked in a write; its shutdown then waits on that thread for ever, and the
process outlives its terminal.  The app gives its ending a grace period, then leaves."""

from __future__ import annotations

import os
import platform
import pty
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.paths import PILL

WRITE_CALLS = {"x86_64": {1, 20}, "aarch64": {64, 66}}  # the numbers of write(2) and writev(2)


def blocked_writing(pid: int, terminal: str) -> bool | None:
    """Whether a thread of the process is in a write to the terminal (Linux's /proc shows each thread's system
    call and its first argument, the file written); None where that cannot be seen."""
    calls, tasks = WRITE_CALLS.get(platform.machine()), Path(f"/proc/{pid}/task")
    if calls is None or not tasks.is_dir():
        return None
    for task in tasks.iterdir():
        try:
            call, fd = (task / "syscall").read_text().split()[:2]
            if int(call) in calls and os.readlink(f"/proc/{pid}/fd/{int(fd, 16)}") == terminal:
                return True
        except PermissionError:  # a system that keeps other processes' calls to itself
            return None
        except (OSError, ValueError):  # running (no call to show), or gone
            continue
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_app_whose_terminal_takes_no_more_output(sig):
    master, slave = pty.openpty()
    terminal = os.ttyname(slave)
    os.set_blocking(master, False)
    proc = subprocess.Popen([sys.executable, "-m", "negtui.cli", "play", str(PILL), "--no-record"],
                            stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                            env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "50"})
    os.close(slave)
    try:
        deadline = time.monotonic() + 30
        shown = b""
        while b"\x1b[?1049h" not in shown:  # the app has taken the screen; from now on nobody reads
            assert proc.poll() is None and time.monotonic() < deadline, shown[-500:]
            try:
                shown += os.read(master, 65536)
            except BlockingIOError:
                time.sleep(0.02)
        deadline = time.monotonic() + 30
        while not (blocked := blocked_writing(proc.pid, terminal)):  # its first screen fills the terminal's buffer
            if blocked is None:
                pytest.skip("this system does not show whether a process is blocked in a write")
            assert proc.poll() is None, "the app ended before its output blocked"
            assert time.monotonic() < deadline, "timed out after 30 s waiting for the app's output to block"
            time.sleep(0.02)
        proc.send_signal(sig)
        assert proc.wait(timeout=20) == 128 + sig  # the status says which signal ended it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


@pytest.mark.asyncio
@pytest.mark.parametrize("where", ["game", "dialog"])
async def test_ctrl_c_in_the_app_ends_it_with_130(wait_until, pill_app, where):
    """Raw mode turns Ctrl-C into a key, not a signal: the key ends the app as the signal ends a command."""
    from negtui.seats import Seat
    from negtui.tui.screens.dialogs import PartnerScreen
    from negtui.tui.screens.game import GameScreen

    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "A's partner dialog")
        if where == "game":
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), "the game screen")
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: app.return_code is not None, "the app ending")
    assert app.return_code == 130


@pytest.mark.asyncio
async def test_ctrl_c_over_text_selected_in_a_field_copies_it(wait_until, tmp_path):
    from textual.widgets import Input

    from negtui.tui.app import NegtuiApp
    from negtui.tui.screens.picker import GenerateScreen

    app = NegtuiApp(None, record=False, data_dir=tmp_path)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: app.screen.query("#scenario-list"), "the picker")
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GenerateScreen), "the generator's form")
        field = app.screen.query(Input).first()
        field.focus()
        field.select_all()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running and app.clipboard == field.value and field.value
