"""A person's (or the trainer's) connection to a table: lines out, lines in, from any thread."""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path
from typing import Any

from negtui.table.wire import FROM_TABLE, WireError, decode, encode


class TableGone(ConnectionError):
    """The table cannot be reached, or closed the connection."""


class TableClient:
    def __init__(self, path: Path, timeout: float = 5.0) -> None:
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        try:
            self._sock.connect(str(path))
        except OSError as err:
            self._sock.close()
            raise TableGone(f"cannot reach the table: {err.strerror or err}") from None
        self._sock.settimeout(None)
        self._file = self._sock.makefile("rb")
        self._send_lock = threading.Lock()
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        data = encode(message)
        with self._send_lock:
            try:
                self._sock.sendall(data)
            except OSError as err:
                raise TableGone(f"the table is gone: {err.strerror or err}") from None

    def receive(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next line from the table (blocks, for `timeout` seconds at most); None when the table
        closed the connection (or did not answer in time: the connection is then no use)."""
        try:
            self._sock.settimeout(timeout)
            line = self._file.readline(FROM_TABLE + 1)
        except (OSError, ValueError):
            return None
        finally:
            with contextlib.suppress(OSError):
                self._sock.settimeout(None)
        if not line:
            return None
        if not line.endswith(b"\n"):
            raise WireError(f"a line of over {FROM_TABLE} bytes from the table")
        return decode(line, FROM_TABLE)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._file.close()
        self._sock.close()
