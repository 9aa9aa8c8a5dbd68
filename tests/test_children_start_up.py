"""A child of negtui's own (here the welfare worker) whose parent is killed while the child is still starting
up (importing numpy and the rest, its request already waiting in the pipe) ends too, instead of solving for
minutes for nobody: the parent is named in the child's environment before the child exists."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from tests.waiting import alive, wait_for

PARENT = textwrap.dedent("""
    import os, signal, time
    from negtui.engine import PAPER
    from negtui.engine.portable import PortableGame
    from negtui.generator import GeneratorParams, generate
    from negtui.welfare import WelfareJob, WelfareOptions, WelfareRequest

    # a request that fits in a pipe (about 42 KiB) for a solve of well over a minute
    sc = generate(GeneratorParams(players=40, actions=2, goals=60, factors=5, rounds=1, seed=2))
    game = PortableGame(sc.model_dump(mode="json"), PAPER.as_dict())
    job = WelfareJob(WelfareRequest(game, 0, WelfareOptions(objective="nash", time_limit=300)))
    deadline = time.monotonic() + 60
    while not job._proc.stdin.closed:  # the whole request is in the pipe: the child reads it once started
        assert time.monotonic() < deadline, "the request was never written"
        time.sleep(0.001)
    print(job._proc.pid, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # the child is most likely still importing
""")


def test_a_child_whose_parent_died_while_it_started_ends_too() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline()
        assert line.strip().isdigit(), f"the parent printed no child: {line!r} (status {parent.wait()})"
        child = int(line)
        parent.wait()
        wait_for(lambda: not alive(child), "the welfare worker to end with its parent (it would solve on for "
                                            "minutes)", timeout=60)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child is not None and alive(child):
            os.kill(child, signal.SIGKILL)  # not left behind by a failing run


def test_a_child_started_by_hand_without_a_parent_named_watches_the_one_it_has() -> None:
    """`python -m negtui.welfare.worker` run by hand (no parent named): its parent is whoever started it,
    and a request answered as usual."""
    env = {k: v for k, v in os.environ.items() if k != "NEGTUI_PARENT_PID"}
    done = subprocess.run([sys.executable, "-I", "-m", "negtui.welfare.worker"], input="not a request",
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1 and "JSONDecodeError" in done.stderr  # it ran to its own error, not away
