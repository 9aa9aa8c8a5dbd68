"""An outside agent, and everything it starts, ends with the game.

An agent may start helpers of its own, and a helper that calls `setsid()` leaves the agent's process
group, so killing the group at the end of a game misses it: it lives on after negtui, holding memory or
the agent's output pipe.  On Linux the agent therefore runs under this small program (standard library
only, started as a script so it does not import negtui): it makes itself a child subreaper, so whatever
the agent orphans, in any session, becomes its child instead of init's, and it ends every process below
it when the agent exits, when negtui asks it to stop (SIGTERM, SIGINT, SIGHUP) or when negtui is gone.

    python -I reaper.py STATUS_FD COMMAND [ARG...]

STATUS_FD gets "ERRNO STRERROR" when COMMAND cannot start, and is closed without a word once it has, so
`spawn` can say at once why a command does not run.  Elsewhere `spawn` falls back to a process group.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from typing import Any

PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>
GRACE = 1.0  # s between SIGTERM and SIGKILL when asked to stop; under the 2 s the agent's owner waits
STOPPING = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
WATCHED = {signal.SIGCHLD, *STOPPING}
STATUS_MAX = 4096
KILL_LIMIT = 5.0  # s of SIGKILLs before giving up on a process that cannot die (stuck in the kernel)


def spawn(command: list[str], **popen: Any) -> subprocess.Popen:
    """Start `command` in a session of its own, under the reaper where there is one; raises OSError (with
    the command's errno and strerror) when the command cannot start, as `subprocess.Popen` does."""
    if not command:
        raise ValueError("no command")
    if not sys.platform.startswith("linux"):
        return subprocess.Popen(command, start_new_session=True, **popen)
    read, write = os.pipe()
    try:
        proc = subprocess.Popen([sys.executable, "-I", os.path.abspath(__file__), str(write), *command],
                                pass_fds=(write,), start_new_session=True, **popen)
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    with os.fdopen(read, "rb") as status:
        said = status.read(STATUS_MAX)  # returns once the command runs, or with why it does not
    if said:
        proc.wait()
        number, _, why = said.decode("utf-8", "replace").partition(" ")
        raise OSError(int(number) if number.isdigit() else 0, why)
    return proc


# --- the reaper itself (runs as its own process) ---------------------------------------------------------

def _become_subreaper() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # then orphans go to init; the process group is still ended by the owner


def _below(root: int) -> list[int]:
    """Every live process under `root`, parents before children (read from /proc; zombies left out)."""
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()  # the name in parentheses may hold spaces
        if len(fields) > 1 and fields[0] != b"Z":
            children.setdefault(int(fields[1]), []).append(int(name))
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            found.append(pid)
            todo.append(pid)
    return found


def _signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


class _Reaper:
    def __init__(self, agent: int):
        self.agent = agent
        self.code: int | None = None  # the agent's exit code, once it has gone

    def reap(self) -> bool:
        """Collect every child that has ended (orphans of the agent become ours), noting the agent's end;
        whether a child is left."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.agent:
                self.code = os.waitstatus_to_exitcode(status)

    def end_all(self, grace: float) -> None:
        """SIGTERM everything below us and wait up to `grace`; then SIGKILL what is left until nothing is."""
        me = os.getpid()
        if grace > 0:
            _signal_all(_below(me), signal.SIGTERM)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline and _below(me):
                signal.sigtimedwait({signal.SIGCHLD}, 0.02)
                self.reap()
        # Done when no child is left, not when a scan finds nothing: a daemon's middle process may fork and
        # exit between the listing of /proc and the reading of its entry, and the scan then sees a zombie
        # and nothing below it.  Every orphan below us becomes our child, so "no child" is the whole tree.
        give_up = time.monotonic() + KILL_LIMIT
        while time.monotonic() < give_up:
            _signal_all(_below(me), signal.SIGKILL)  # a killed process forks no more; our children stay
            if not self.reap():  # zombies until reaped, so no pid is reused under us
                return
            time.sleep(0.005)
        self.reap()

    def run(self) -> int:
        parent = os.getppid()
        while self.code is None:
            got = signal.sigtimedwait(WATCHED, 0.25)
            self.reap()
            if self.code is not None:
                break
            if (got is not None and got.si_signo in STOPPING) or os.getppid() != parent:
                self.end_all(GRACE)  # asked to stop, or negtui is gone
                while self.code is None:
                    try:
                        os.waitpid(self.agent, 0)
                    except ChildProcessError:
                        self.code = -signal.SIGKILL
                    self.reap()
        self.end_all(0)  # the agent has ended: what it left behind goes too
        return self.code


def _exit_as(code: int) -> None:
    """End as the agent ended, by the same signal if a signal ended it."""
    if code < 0:
        if -code not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(-code, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF if code >= 0 else 1)


def main(argv: list[str]) -> None:
    status_fd, command = int(argv[1]), argv[2:]
    old = signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED)  # no stop request is lost before the loop
    _become_subreaper()
    try:
        agent = subprocess.Popen(command, preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, old))
    except (OSError, ValueError) as err:
        number = err.errno if isinstance(err, OSError) and err.errno else 0
        why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        os.write(status_fd, f"{number} {why}".encode()[:STATUS_MAX])
        os._exit(127)
    os.close(status_fd)
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):  # the agent alone holds its streams: when it closes stdout, negtui sees the end
        os.dup2(quiet, fd)
    os.close(quiet)
    _exit_as(_Reaper(agent.pid).run())


if __name__ == "__main__":
    main(sys.argv)
