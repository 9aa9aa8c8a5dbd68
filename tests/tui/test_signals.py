"""An app ended by a signal ends, even when its terminal has stopped taking output.

A terminal that is gone or frozen (a dropped SSH connection, a killed tmux pane mid-start) leaves
Textual's output thread blocked in a write; its shutdown then waits on that thread for ever, and the
process outlives its terminal.  The app gives its ending a grace period, then leaves."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import time

import pytest

from tests.paths import PILL


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_app_whose_terminal_takes_no_more_output(sig):
    master, slave = pty.openpty()
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
        time.sleep(2.0)  # its first screen fills the terminal's buffer: the output thread blocks
        proc.send_signal(sig)
        assert proc.wait(timeout=20) == 128 + sig  # the status says which signal ended it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
