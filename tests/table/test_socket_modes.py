"""A local table's socket is its owner's alone: whoever reaches it may sit at the table or watch it as its
trainer (pause it, end it), so `negtui table open` makes the socket mode 0600 in a folder of mode 0700, even
a tables folder that was left open to others."""

from __future__ import annotations

import re
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.paths import COALITION_TRAP
from tests.table.conftest import listening


def test_a_tables_socket_is_0600_in_a_0700_folder() -> None:
    with tempfile.TemporaryDirectory(prefix="nt") as short:  # a socket's path is short: not pytest's deep folders
        _opened_in(Path(short))


def _opened_in(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)  # as an older negtui or the umask left it
    proc = subprocess.Popen([sys.executable, "-m", "negtui.cli", "table", "open", str(COALITION_TRAP), "--seat",
                             "A=human", "--no-record", "--data-dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        found = re.search(r" at (\S+\.sock)$", first.strip())
        assert found, f"`negtui table open` said {first!r} (status {proc.poll()})"
        sock = Path(found.group(1))
        deadline = time.monotonic() + 60
        while not listening(sock):
            assert proc.poll() is None, f"`negtui table open` exited ({proc.returncode})"
            assert time.monotonic() < deadline, f"`negtui table open` never listened at {sock}"
            time.sleep(0.05)
        assert sock.parent == folder
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
