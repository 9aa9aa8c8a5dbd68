"""An outside agent's whole process tree ends with it: helpers in its group, daemons that left its session
with setsid(), and everything when negtui itself is killed.  Each test marks its processes with a token
of its own and looks for them in `ps` afterwards."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from negtui.agents.reaper import spawn

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the reaper is Linux's")


def running(token: str) -> list[str]:
    out = subprocess.run(["ps", "-ww", "-eo", "pid,stat,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if token in line and "ps -eo" not in line
            and line.split()[1][0] != "Z"]


def gone(token: str, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while running(token):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def sleepers(token: str) -> list[str]:
    """The processes that run the sleeper of `agent` (its helpers and daemons once they have started it)."""
    return [line for line in running(token) if f"time.sleep(3600)  # {token}" in line]


def agent(body: str) -> tuple[list[str], str]:
    """A Python program for `spawn`, with a token that shows in every process it starts.  `up(n)` in the body
    waits until n processes run its sleeper (a daemon counts once it has left the session and started it)."""
    token = f"reaper-test-{uuid.uuid4().hex[:12]}"
    code = textwrap.dedent(f"""
        import os, signal, subprocess, sys, time
        TOKEN = {token!r}
        def sleeper(*extra):
            return [sys.executable, "-c", "import time; time.sleep(3600)  # " + TOKEN, *extra]
        def daemon():
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execv(sys.executable, sleeper())
                os._exit(0)
        def sleeping():
            mark, found = ("time.sleep(3600)  # " + TOKEN).encode(), 0
            for name in os.listdir("/proc"):
                try:
                    with open(f"/proc/{{name}}/cmdline", "rb") as f:
                        found += mark in f.read()
                except OSError:
                    pass
            return found
        def up(n):
            deadline = time.monotonic() + 60
            while sleeping() < n:
                if time.monotonic() > deadline:
                    print(f"{{sleeping()}} of {{n}} sleepers running after 60 s", flush=True)
                    sys.exit(1)
                time.sleep(0.01)
        """) + textwrap.dedent(body)
    return [sys.executable, "-c", code, token], token


def test_a_daemon_that_left_the_session_ends_when_the_agent_exits():
    command, token = agent("""
        daemon(); daemon()
        subprocess.Popen(sleeper())  # an ordinary child too
        up(3)
        print("ready", flush=True)
        sys.stdin.readline()
        sys.exit(3)
        """)
    proc = spawn(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdin is not None
    assert proc.stdout.readline() == "ready\n"
    assert len(running(token)) >= 4 and len(sleepers(token)) == 3, running(token)  # the agent, two daemons, a child
    proc.stdin.close()
    assert proc.wait(timeout=10) == 3  # the agent's own status
    assert gone(token), running(token)
    assert proc.stdout.read() == ""  # no daemon holds the output open


def test_an_agent_killed_by_a_signal_is_reported_so():
    command, token = agent("""
        daemon()
        os.kill(os.getpid(), signal.SIGKILL)
        """)
    proc = spawn(command)
    assert proc.wait(timeout=10) == -signal.SIGKILL
    assert gone(token), running(token)


def test_asked_to_stop_it_ends_even_an_agent_that_ignores_sigterm():
    command, token = agent("""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        daemon()
        up(1)
        print("ready", flush=True)
        time.sleep(3600)
        """)
    proc = spawn(command, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    started = time.monotonic()
    os.killpg(proc.pid, signal.SIGTERM)  # as the game stops a program: the whole group
    proc.wait(timeout=10)
    assert time.monotonic() - started < 1.9  # within the 2 s before the owner would SIGKILL the group
    assert gone(token), running(token)


def test_when_negtui_is_killed_the_agent_and_its_daemons_end(wait_for):
    command, token = agent("""
        daemon()
        time.sleep(3600)
        """)
    owner = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import subprocess, sys, time
        from negtui.agents.reaper import spawn
        spawn({command!r}, stdin=subprocess.PIPE)
        print("started", flush=True)
        time.sleep(3600)
        """)], stdout=subprocess.PIPE, text=True)
    assert owner.stdout is not None and owner.stdout.readline() == "started\n"
    wait_for(lambda: sleepers(token), "the agent's daemon running", timeout=60, seen=lambda: running(token))
    assert len(running(token)) >= 2, running(token)  # the agent and its daemon
    owner.kill()
    owner.wait()
    assert gone(token), running(token)


def test_a_command_that_cannot_start_raises_its_own_error_at_once():
    with pytest.raises(OSError) as err:
        spawn(["no-such-program-negtui-reaper"])
    assert err.value.errno == errno.ENOENT and err.value.strerror == "No such file or directory"
    with pytest.raises(OSError) as err:
        spawn([os.devnull])
    assert err.value.errno == errno.EACCES


def test_a_scan_that_misses_a_daemon_does_not_end_the_reaping():
    """A daemon's middle process may fork and exit between the reaper's listing of /proc and its reading of
    that process: the scan then sees a zombie and nothing below it, though the daemon lives on as the
    reaper's child.  The reaper stops only once it has no child left, so a missed scan costs a round."""
    token = f"reaper-test-{uuid.uuid4().hex[:12]}"
    script = textwrap.dedent(f"""
        import os, sys, time
        from negtui.agents import reaper
        reaper._become_subreaper()
        if os.fork() == 0:  # the middle process: a new session, a daemon, and gone
            os.setsid()
            if os.fork() == 0:
                quiet = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):  # so that our output ends with us, whatever becomes of the daemon
                    os.dup2(quiet, fd)
                os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)  # {token}"])
            os._exit(0)
        def daemon_alone_below_us():  # the middle process gone, the daemon reparented to us and started
            below = reaper._below(os.getpid())
            if len(below) != 1:
                return False
            try:
                with open(f"/proc/{{below[0]}}/cmdline", "rb") as f:
                    return f.read().split(b"\\0")[2:3] == [b"import time; time.sleep(3600)  # {token}"]
            except OSError:
                return False
        deadline = time.monotonic() + 60
        while not daemon_alone_below_us():
            if time.monotonic() > deadline:
                sys.exit(f"the daemon is not alone below us after 60 s: {{reaper._below(os.getpid())}}")
            time.sleep(0.01)
        real, scans = reaper._below, []
        def below(root):  # the first scan misses it, as the race above would
            scans.append(root)
            return [] if len(scans) == 1 else real(root)
        reaper._below = below
        reaper._Reaper(agent=-2).end_all(0)
        print("done", flush=True)
        """)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert res.stdout == "done\n", res.stderr
    assert gone(token), running(token)
