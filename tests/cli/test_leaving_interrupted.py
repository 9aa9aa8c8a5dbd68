"""Ctrl-C ends the process with 130 even when a thread of it never finishes (a process pool's manager thread
whose workers were ended under it waited forever, and the interrupted sweep with it)."""

from __future__ import annotations

import subprocess
import sys
import time

CODE = """
import threading
from negtui.cli import exits
exits.JOIN_SECONDS = 0.5
threading.Thread(target=threading.Event().wait).start()  # not a daemon, and it never ends
print("joined threads:", flush=True)
exits.leave_interrupted()
"""


def test_a_thread_that_never_ends_does_not_keep_an_interrupted_process_alive():
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=60)
    assert res.returncode == 130, res.stderr
    assert "joined threads:" in res.stdout
    assert time.monotonic() - t0 < 30, "the wait for the other thread was not bounded"
