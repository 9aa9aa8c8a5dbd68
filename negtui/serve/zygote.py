"""A fork server for the training app: `python -m negtui.serve.zygote SOCKET`.

Starting the app costs most of a second of CPU in imports (Textual, numpy, pydantic, negtui); with
dozens of trainees logging in at once that alone saturates a small machine.  The zygote imports
everything once and forks a ready child for each connection: the child shares the imported code
copy-on-write and starts in milliseconds.

`python -m negtui.serve.zygote SOCKET COURSE` also checks the course served before it forks.

Protocol, on a Unix socket, one connection per child: the server sends one JSON line (`argv` for
`negtui.serve.child`, `env`, `memory` limit) with the pseudo-terminal's slave end attached (SCM_RIGHTS), or
three pipes for the child's stdin, stdout and stderr (an app served to a browser speaks Textual's web
driver protocol on them);
the zygote answers `{"pid": N}` once the child runs, and `{"exit": CODE}` (negative: killed by that
signal) when it ends.  Single-threaded (no thread may be running when a process forks): one select
loop that also reaps children.  When the server is gone (or stops it with SIGTERM) the zygote hangs up
on every child it forked, as a closed connection would, gives them `GRACE` seconds to save and exit,
kills the rest and reaps them all: no app outlives the server."""

from __future__ import annotations

import fcntl
import gc
import importlib
import json
import os
import resource
import selectors
import signal
import socket
import sys
import termios
import time

GRACE = 5.0  # seconds a child has to exit after the hang-up before it is killed
# a child's young-object collections: Textual allocates thousands of short-lived objects a frame, and at
# Python's 700 a session ran about 230 collections (~90 ms of CPU); at this, about 10 (~35 ms)
YOUNG = 10_000


# imported by the app only once it runs (its terminal driver, layouts, the bots' random numbers, …);
# about 30 ms per child otherwise
LATE_IMPORTS = ("textual.drivers.linux_driver", "textual._xterm_parser", "textual.layouts.factory",
                "textual.layouts.horizontal", "textual.layouts.stream", "numpy.random", "statistics",
                "negtui.engine.memory", "negtui.scenario.hnc", "negtui.scenario.scoresheets", "textual.scrollbar",
                "textual.pilot", "textual.drivers.headless_driver", "concurrent.futures.thread", "rich._emoji_codes")


def preload(course: str | None = None) -> None:
    """What the app loads only as it runs, loaded once here too, not in every child; `course`, the course
    served, is checked here once (each app checks it again only if its files change)."""
    for late in LATE_IMPORTS:
        importlib.import_module(late)
    from rich._unicode_data import load

    from negtui.classroom.course_loading import CourseError, load_course  # every session checks its course
    from negtui.scenario.library import bundled_root, catalogue
    from negtui.tui.app import NegtuiApp
    from negtui.tui.stylesheet import preparse

    load()  # the table of character widths, read on the first line drawn
    catalogue(bundled_root())  # the library by name: a course may name its scenarios so
    preparse(NegtuiApp(None, record=False))  # every widget's CSS, under the apps' theme
    if course is not None:
        try:
            load_course(course, kept=True)
        except CourseError:
            pass  # each app says what is wrong with it


def _child(fds: list[int], request: dict) -> None:
    """In the forked child, leading a session of its own: its pty as controlling terminal and standard
    streams (one fd), or the three pipes it is given as stdin, stdout and stderr (the web door's app), then
    the app."""
    try:
        os.setsid()
        streams = fds if len(fds) == 3 else [fds[0]] * 3
        if len(fds) == 1:
            fcntl.ioctl(fds[0], termios.TIOCSCTTY, 0)
        for fd, stream in enumerate(streams):
            os.dup2(stream, fd)
        for fd in set(fds) - {0, 1, 2}:
            os.close(fd)
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(request["env"])
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if request.get("memory"):
            resource.setrlimit(resource.RLIMIT_AS, (request["memory"], request["memory"]))
        gc.set_threshold(YOUNG, 10, 10)
        from negtui.serve.child import main

        code = main(request["argv"])
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    except BaseException:  # whatever happens, a forked child never returns into the zygote
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def serve(path: str, course: str | None = None) -> None:
    import negtui.trainee.training  # noqa: F401 — the point: everything the app needs, imported once

    preload(course)

    # what is imported now lives as long as every child: out of the collector's sight, a child's
    # collections neither walk it (CPU) nor write to its pages (which would un-share them)
    gc.collect()
    gc.freeze()

    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)
    listener.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}  # pid -> the connection its exit is reported on
    stopping = False

    def _stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C at the server's terminal: the server stops us
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while os.getppid() == parent and not stopping:
        for _key, _ in sel.select(0.2):
            conn, _ = listener.accept()
            conn.settimeout(10)
            try:
                data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
                request = json.loads(data)
            except (OSError, ValueError):
                conn.close()
                continue
            if len(fds) not in (1, 3):
                for fd in fds:
                    os.close(fd)
                conn.close()
                continue
            pid = os.fork()
            if pid == 0:
                listener.close()
                conn.close()
                for other in children.values():
                    other.close()
                _child(fds, request)
            for fd in fds:
                os.close(fd)
            children[pid] = conn
            _send(conn, {"pid": pid})
        _reap(children)
    listener.close()
    _end_children(children)


def _reap(children: dict[int, socket.socket]) -> None:
    """Collect every child that has ended and report its exit to whoever asked for it."""
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            children.clear()
            break
        if pid == 0:
            break
        conn = children.pop(pid, None)
        if conn is not None:
            _send(conn, {"exit": os.waitstatus_to_exitcode(status)})
            conn.close()


def _end_children(children: dict[int, socket.socket]) -> None:
    """A hang-up to each child's process group (the app saves and exits), SIGKILL after the grace."""
    for sig in (signal.SIGHUP, signal.SIGKILL):
        for pid in list(children):
            try:
                os.killpg(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + GRACE
        while children and time.monotonic() < deadline:
            _reap(children)
            if children:
                time.sleep(0.05)
        if not children:
            return


def _send(conn: socket.socket, message: dict) -> None:
    try:
        conn.sendall((json.dumps(message) + "\n").encode())
    except OSError:
        pass


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
