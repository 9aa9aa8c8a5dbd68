"""The training app for one connection: a child process on its own pseudo-terminal.

One process per connection (Textual takes over its process's standard streams and signals, and one
heavy solve must not stall every trainee).  The child is the leader of a new session with the pty as
its controlling terminal, so a window-size change on the pty reaches it as SIGWINCH; it gets the
client's TERM, COLORTERM, and never COLUMNS/LINES (they would freeze its size).  Resource limits are
set in the child before the program starts."""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import resource
import signal
import struct
import termios
from collections.abc import Callable

GRACE = 3.0  # seconds between asking the child to stop (SIGHUP) and killing it


def _winsize(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", max(rows, 1), max(cols, 1), 0, 0))


class PtyChild:
    def __init__(self, argv: list[str], env: dict[str, str], cols: int, rows: int, memory_limit: int | None,
                 on_output: Callable[[bytes], None], on_exit: Callable[[int], None]):
        self.argv, self.env = argv, env
        self.cols, self.rows = cols, rows
        self.memory_limit = memory_limit
        self.on_output, self.on_exit = on_output, on_exit
        self.proc: asyncio.subprocess.Process | None = None
        self.master = -1
        self._closed = False

    async def start(self) -> None:
        master, slave = pty.openpty()
        _winsize(slave, self.cols, self.rows)
        limit = self.memory_limit

        def setup() -> None:  # in the child, after setsid(): the pty becomes its controlling terminal
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=slave, stdout=slave, stderr=slave, env=self.env, start_new_session=True,
                preexec_fn=setup, close_fds=True)
        finally:
            os.close(slave)
        self.master = master
        os.set_blocking(master, False)
        loop = asyncio.get_running_loop()
        loop.add_reader(master, self._readable)
        asyncio.ensure_future(self._wait())

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: the child closed the terminal
            data = b""
        if not data:
            self._stop_reading()
            return
        self.on_output(data)

    def _stop_reading(self) -> None:
        if self.master >= 0:
            try:
                asyncio.get_running_loop().remove_reader(self.master)
            except (RuntimeError, ValueError):
                pass

    async def _wait(self) -> None:
        code = await self.proc.wait()
        # drain what the child wrote last before it exited
        try:
            while True:
                data = os.read(self.master, 65536)
                if not data:
                    break
                self.on_output(data)
        except OSError:
            pass
        self._stop_reading()
        if self.master >= 0:
            os.close(self.master)
            self.master = -1
        self.on_exit(code)

    def write(self, data: bytes) -> None:
        if self.master < 0:
            return
        try:
            os.write(self.master, data)
        except BlockingIOError:  # the app is not reading fast enough: keys are dropped rather than queued
            pass
        except OSError:
            pass

    def resize(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows
        if self.master >= 0:
            _winsize(self.master, cols, rows)  # the kernel sends SIGWINCH to the child's process group

    async def stop(self) -> None:
        """SIGHUP (the app saves and exits 129), then SIGKILL after a grace period; always reaped."""
        if self.proc is None or self.proc.returncode is not None:
            return
        for sig, wait in ((signal.SIGHUP, GRACE), (signal.SIGKILL, GRACE)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                await asyncio.wait_for(self.proc.wait(), wait)
                break
            except asyncio.TimeoutError:
                continue
