"""Hostile command lines: options out of range end with status 2 and a message naming the option; Ctrl-C at
any moment of start-up ends with status 130 and a message (or 0, if the game was over).  Never a traceback
and never a hang."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.paths import PILL, SIX


@pytest.mark.parametrize("args, words", [
    (["autoplay", PILL, "--sims", "0"], "--sims: Input should be greater than or equal to 1"),
    (["autoplay", PILL, "--sims", "-5"], "--sims"),
    (["autoplay", PILL, "--ucb", "nan"], "--ucb: Input should be a finite number"),
    (["autoplay", PILL, "--ucb", "-1"], "--ucb"),
    (["autoplay", PILL, "--budget", "-1"], "budget -1"),
    (["autoplay", PILL, "--seed", "-1"], "--seed"),
    (["autoplay", PILL, "--agent-timeout", "-1"], "--agent-timeout"),
    (["welfare", PILL, "--sims", "0"], "--sims"),
    (["autoplay", PILL, "--record", "/proc/negtui-x.jsonl"], "cannot write /proc/negtui-x.jsonl"),
    (["autoplay", PILL, "--record", "/nonexistent-dir/x.jsonl"], "No such file or directory"),
])
def test_options_out_of_range_exit_2_with_a_message(cli, args, words):
    res = cli(*args)
    assert res.exit_code == 2, res.output
    assert words in res.stderr and "Traceback" not in res.output, res.stderr


@pytest.mark.parametrize("args, words", [
    (["--budget", "65"], "--budget: must be between 1 and 64 (got 65)"),
    (["--players", "501"], "--players: must be between 3 and 500 (got 501)"),
    (["--actions", "65"], "--actions: must be between 1 and 64 per player (got 65)"),
    (["--actions", "1-99999999999"], "--actions: must be between 1 and 64 per player (got 99999999999)"),
    (["--goals", "5001"], "--goals: must be between 3 and 5000 (got 5001)"),
    (["--rounds", "20000"], "--rounds: must be between 1 and 10000 (got 20000)"),
    (["--players", "500", "--rounds", "201"], "--rounds: 201 rounds of 500 players make 100,500 turns; the limit "
                                              "is 100,000"),
    (["--actions", "30", "--budget", "30"], "--budget: 30 actions with a budget of 30 give 1,073,741,824 possible"),
    (["--players", "500", "--actions", "64", "--goals", "5000", "--budget", "1"], "the offer search would evaluate"),
    (["--seed", str(2**64)], "--seed: must be a whole number from 0 to 9223372036854775807"),
    (["--taste", "0,1e308"], "--taste: MEAN,SD of the players' latent tastes"),
])
def test_generate_past_the_limits_names_the_option_and_its_range(cli, tmp_path, args, words):
    out = tmp_path / "x.json"
    res = cli("generate", *args, "-o", out)
    assert res.exit_code == 2, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert f"error: {words}" in res.stderr and "Traceback" not in res.output, res.stderr
    assert not out.exists()


def _mapped(pid: int, library: str) -> bool:
    """Whether `library` is mapped into the process (False once the process is gone)."""
    try:
        return library in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def _ctrl_c_once_numpy_is_loaded(wait_for, delay: float) -> tuple[int, str]:
    """Start an autoplay of several seconds, wait until numpy's library is mapped in it (negtui's own code
    is running), wait `delay` more seconds and send SIGINT; its status and stderr."""
    proc = subprocess.Popen([sys.executable, "-m", "negtui.cli", "autoplay", str(SIX), "--sims", "5000", "-q"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: _mapped(proc.pid, "numpy") or proc.poll() is not None, "numpy's library mapped in negtui",
                 timeout=60, every=0.002)
        assert proc.poll() is None, f"negtui ended (status {proc.returncode}) before numpy was loaded: " \
                                    f"{proc.communicate()[1]}"
        time.sleep(delay)  # the moment of the signal is what the test varies
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err


_CTRL_C_INSIDE_EXEC = """
import sys, typer
import negtui.cli, negtui.cli.commands
from negtui.cli.errors import user_errors

def command():  # Ctrl-C while a class is being made, the way dataclasses make __init__
    try:
        with user_errors():
            exec("raise KeyboardInterrupt")
    except typer.Exit as done:  # what Click does with it
        sys.exit(done.exit_code)

negtui.cli.commands.loaded = lambda argv=None: command
negtui.cli.main()
"""


def test_ctrl_c_inside_exec_of_a_string_still_ends_with_status_130(tmp_path):
    """CPython takes a KeyboardInterrupt inside `exec()` of a string for an unhandled one, caught or not,
    and would end a program run as a module (as `negtui` is) by SIGINT (status -2) rather than with 130."""
    (tmp_path / "ctrl_c_inside_exec.py").write_text(_CTRL_C_INSIDE_EXEC)
    proc = subprocess.run([sys.executable, "-m", "ctrl_c_inside_exec"], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path)
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr == "interrupted\n"


def test_ctrl_c_once_numpy_is_loaded_ends_with_status_130_and_no_traceback(wait_for):
    """Ctrl-C well inside the imports of the commands (numpy's library just mapped): a game of several seconds
    cannot be over yet, so the status is 130 and the message is said."""
    code, err = _ctrl_c_once_numpy_is_loaded(wait_for, 0.0)
    assert "Traceback" not in err, err
    assert code == 130, (code, err)
    assert "interrupted" in err, err


@pytest.mark.stress
@pytest.mark.slow
def test_ctrl_c_at_any_moment_of_start_up_ends_with_status_130_and_no_traceback(wait_for):
    """From the moment negtui's own code runs (here: once numpy's library is mapped, well inside the
    imports of the commands) to the end of a game, Ctrl-C is a message and status 130.  (The interpreter's
    own first milliseconds, before any code of ours, are Python's.)  Where in start-up each delay lands
    depends on the machine's speed and load: a race, run by `make stress`."""
    for delay in [0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.8, 1.2]:
        code, err = _ctrl_c_once_numpy_is_loaded(wait_for, delay)
        assert "Traceback" not in err, (delay, err)
        assert code in (0, 130), (delay, code, err)
        if code == 130:
            assert "interrupted" in err
