"""The training app for one connection: a child process on its own pseudo-terminal.

One process per connection (Textual takes over its process's standard streams and signals, and one
heavy solve must not stall every trainee).  The child is the leader of a new session with the pty as
its controlling terminal, so a window-size change on the pty reaches it as SIGWINCH; it gets the
client's TERM, COLORTERM, and never COLUMNS/LINES (they would freeze its size).  Resource limits are
set in the child before the program starts."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import resource
import signal
import socket
import struct
import sys
import termios
from collections.abc import Callable, Coroutine
from typing import Any

GRACE = 3.0  # seconds between asking the child to stop (SIGHUP) and killing it
_RUNNING: set[asyncio.Future[Any]] = set()


def in_background(work: Coroutine[Any, Any, object]) -> None:
    """Run `work` with nobody awaiting it.  The event loop keeps only a weak reference to a task, so
    one nobody holds may be collected before it finishes: it is held here until done."""
    task = asyncio.ensure_future(work)
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)


# the terminal sizes an app is given, whatever the client asks: a 10000x10000 request had an app use a
# gigabyte and a core for 20 s and send 200 MB; a 1x1 one crashed it.  Below the app's own minimum
# (tui/too_small.py) a client is told its terminal is too small.
MIN_SIZE = (40, 12)
MAX_SIZE = (500, 200)


def clamp(cols: int, rows: int) -> tuple[int, int]:
    return (min(max(cols, MIN_SIZE[0]), MAX_SIZE[0]), min(max(rows, MIN_SIZE[1]), MAX_SIZE[1]))


def _winsize(fd: int, cols: int, rows: int) -> None:
    cols, rows = clamp(cols, rows)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


class PtyChild:
    """`args` are the app's (negtui.serve.child) arguments; with `zygote` (a fork server's socket, see
    zygote.py) the child is forked from it, else started as a new interpreter."""

    def __init__(self, args: list[str], env: dict[str, str], cols: int, rows: int, memory_limit: int | None,
                 on_output: Callable[[bytes], None], on_exit: Callable[[int], None], zygote: str | None = None):
        self.args, self.env = args, env
        self.cols, self.rows = cols, rows
        self.memory_limit = memory_limit
        self.on_output, self.on_exit = on_output, on_exit
        self.zygote = zygote
        self.pid: int | None = None
        self.returncode: int | None = None
        self._ended: asyncio.Future[int] | None = None
        self.master = -1  # what the app draws is read here
        self._input = -1  # and what the client types written here (the same terminal, or a pipe)
        self._paused = False

    async def start(self) -> None:
        master, slave = pty.openpty()
        _winsize(slave, self.cols, self.rows)
        try:
            await self._spawn([slave], self._exec_pty)
        finally:
            os.close(slave)
        self.master = self._input = master
        self._reading()

    async def _spawn(self, fds: list[int], exec_: Callable[[list[int]], Coroutine[Any, Any, int]]) -> None:
        """The child, given `fds` (its terminal, or its standard streams): forked by the fork server if there
        is one, else started by `exec_`."""
        self._ended = asyncio.get_running_loop().create_future()
        if self.zygote:
            try:
                loop = asyncio.get_running_loop()
                self.pid = await loop.run_in_executor(None, self._fork, self.zygote, fds, loop)
            except OSError:  # the fork server is gone: start a new interpreter instead
                self.zygote = None
        if not self.zygote:
            self.pid = await exec_(fds)

    def _reading(self) -> None:
        os.set_blocking(self.master, False)
        asyncio.get_running_loop().add_reader(self.master, self._readable)

    def _fork(self, zygote: str, fds: list[int], loop: asyncio.AbstractEventLoop) -> int:
        """Ask the fork server for a child on these fds; a thread then waits for its exit report."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(30)
        sock.connect(zygote)
        request = {"argv": self.args, "env": self.env, "memory": self.memory_limit}
        socket.send_fds(sock, [json.dumps(request).encode()], fds)
        stream = sock.makefile("r")
        pid = int(json.loads(stream.readline())["pid"])
        sock.settimeout(None)

        def wait() -> None:
            line = stream.readline()
            code = int(json.loads(line)["exit"]) if line else -signal.SIGKILL
            stream.close()
            sock.close()
            loop.call_soon_threadsafe(self._exited, code)

        import threading

        threading.Thread(target=wait, daemon=True).start()
        return pid

    async def _exec_pty(self, fds: list[int]) -> int:
        return await self._exec(fds[0], fds[0], fds[0], terminal=True)

    async def _exec(self, stdin: int, stdout: int, stderr: int, terminal: bool) -> int:
        """The app as a new interpreter, leading a session of its own (`terminal`: its stdin the controlling
        terminal), with the resource limits set before it runs."""
        limit = self.memory_limit

        def setup() -> None:  # in the child, after setsid()
            if terminal:
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if limit:
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-m", "negtui.serve.child", *self.args, stdin=stdin, stdout=stdout, stderr=stderr,
            env=self.env, start_new_session=True, preexec_fn=setup, close_fds=True)

        async def wait() -> None:
            self._exited(await proc.wait())

        in_background(wait())
        return proc.pid

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

    def pause_reading(self) -> None:
        """Stop reading the app's output (the client is not taking it): the pty fills, and the app waits
        on its own writes instead of the server holding everything it draws."""
        if not self._paused and self.master >= 0 and self.returncode is None:
            self._paused = True
            self._stop_reading()

    def resume_reading(self) -> None:
        if self._paused and self.master >= 0 and self.returncode is None:
            self._paused = False
            asyncio.get_running_loop().add_reader(self.master, self._readable)

    def _stop_reading(self) -> None:
        if self.master >= 0:
            try:
                asyncio.get_running_loop().remove_reader(self.master)
            except (RuntimeError, ValueError):
                pass

    def _exited(self, code: int) -> None:
        self.returncode = code
        if self._ended is not None and not self._ended.done():
            self._ended.set_result(code)
        in_background(self._wind_up(code))

    async def _wind_up(self, code: int) -> None:
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
        for fd in {self.master, self._input} - {-1}:
            os.close(fd)
        self.master = self._input = -1
        self.on_exit(code)

    def write(self, data: bytes) -> None:
        if self._input < 0:
            return
        try:
            os.write(self._input, data)
        except BlockingIOError:  # the app is not reading fast enough: keys are dropped rather than queued
            pass
        except OSError:
            pass

    def resize(self, cols: int, rows: int) -> None:
        self.cols, self.rows = cols, rows
        if self.master >= 0:
            _winsize(self.master, cols, rows)  # the kernel sends SIGWINCH to the child's process group

    async def stop(self) -> None:
        """SIGHUP (the app saves and exits 129), then SIGKILL after a grace period; always reaped (by
        the server, or by the fork server, which reports the exit)."""
        if self.pid is None or self._ended is None or self.returncode is not None:
            return
        for sig, wait in ((signal.SIGHUP, GRACE), (signal.SIGKILL, GRACE)):
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                break
            try:
                await asyncio.wait_for(asyncio.shield(self._ended), wait)
                break
            except TimeoutError:
                continue
