"""The training app for a browser: the same child process as over SSH (pty_child.py), forked from the same
fork server under the same limits, but on three pipes instead of a terminal.

Its Textual driver is the web driver (`negtui.serve.child --web`), which reads and writes Textual's web
protocol on them (web_protocol.py): what the browser types and its size come in as packets on stdin, the
screen goes out as packets on stdout.  Packets must arrive whole, so what is written to the app's stdin is
queued while the pipe is full, up to `QUEUED`: past that a packet is dropped whole (keys typed into an app
that stopped reading), never cut.  What the app prints on stderr (a traceback) is kept, its last
`STDERR_KEPT` bytes, for the server's log."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from negtui.serve.pty_child import PtyChild

QUEUED = 1 << 20  # bytes of input held for an app that is not reading
STDERR_KEPT = 8192


class PipeChild(PtyChild):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._queued = bytearray()
        self._stderr = -1
        self.stderr_tail = b""

    async def start(self) -> None:
        child_in, self._input = os.pipe()
        self.master, child_out = os.pipe()
        self._stderr, child_err = os.pipe()
        ours = (self._input, self.master, self._stderr)
        try:
            await self._spawn([child_in, child_out, child_err],
                              lambda fds: self._exec(fds[0], fds[1], fds[2], terminal=False))
        except BaseException:
            for fd in ours:
                os.close(fd)
            self.master = self._input = self._stderr = -1
            raise
        finally:
            for fd in (child_in, child_out, child_err):
                os.close(fd)
        os.set_blocking(self._input, False)
        os.set_blocking(self._stderr, False)
        asyncio.get_running_loop().add_reader(self._stderr, self._read_stderr)
        self._reading()

    def _read_stderr(self) -> None:
        try:
            data = os.read(self._stderr, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self._stderr)
            os.close(self._stderr)
            self._stderr = -1
            return
        self.stderr_tail = (self.stderr_tail + data)[-STDERR_KEPT:]

    def write(self, data: bytes) -> None:
        """Whole packets, in order: what the pipe does not take now is queued and written as it drains."""
        if self._input < 0:
            return
        if self._queued:
            if len(self._queued) + len(data) <= QUEUED:
                self._queued += data
            return
        try:
            sent = os.write(self._input, data)
        except BlockingIOError:
            sent = 0
        except OSError:
            return
        if sent < len(data):
            self._queued += data[sent:]
            asyncio.get_running_loop().add_writer(self._input, self._drain)

    def _drain(self) -> None:
        try:
            sent = os.write(self._input, self._queued)
        except BlockingIOError:
            return
        except OSError:
            sent = len(self._queued)
        del self._queued[:sent]
        if not self._queued:
            asyncio.get_running_loop().remove_writer(self._input)

    def resize(self, cols: int, rows: int) -> None:
        """A browser's size is a packet of the protocol (web_protocol.resize), written as any input."""
        self.cols, self.rows = cols, rows

    async def _wind_up(self, code: int) -> None:
        if self._input >= 0 and self._queued:
            asyncio.get_running_loop().remove_writer(self._input)
            self._queued.clear()
        await super()._wind_up(code)
