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
