"""Training over SSH with the system's OpenSSH client: scripts/tmux_serve_game.py logs in to `negtui
serve` in tmux, plays the poison pill from the lobby to the debrief, and checks the results row."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import SCRIPTS

SCRIPT = SCRIPTS / "tmux_serve_game.py"


@pytest.mark.tmux
@pytest.mark.openssh
@pytest.mark.slow
def test_a_trainee_plays_over_openssh_and_the_result_is_kept(root):
    res = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=300, cwd=root)
    assert res.returncode == 0, f"{res.stdout}\n{res.stderr}"
    out = res.stdout
    assert "OK: logged in over ssh, played, coached, debriefed, results kept" in out
    assert "coach, turn 1: upper, learned, exact would have done the same" in out
    assert "results row: alice poison-pill payoff 30.0 decisions 2 efficiency 1.0" in out


@pytest.mark.tmux
@pytest.mark.openssh
@pytest.mark.slow
def test_three_trainees_share_a_table_over_openssh_talk_drop_and_come_back(root):
    res = subprocess.run([sys.executable, str(SCRIPTS / "tmux_class_table.py")], capture_output=True, text=True,
                         timeout=600, cwd=root)
    assert res.returncode == 0, f"{res.stdout}\n{res.stderr}"
    assert "OK: three trainees at one table over ssh, a message, a drop and a return, nothing lost" in res.stdout
    assert "messages ['hello table, let us talk before we commit']" in res.stdout


@pytest.mark.tmux
@pytest.mark.openssh
@pytest.mark.slow
def test_a_timed_private_round_over_openssh_ends_reveals_and_debriefs_on_both_screens(root):
    res = subprocess.run([sys.executable, str(SCRIPTS / "tmux_timed_private_table.py")], capture_output=True,
                         text=True, timeout=300, cwd=root)
    assert res.returncode == 0, f"{res.stdout}\n{res.stderr}"
    assert "OK: a timed private round over ssh ended, revealed and debriefed on both screens" in res.stdout
    assert "table ended by the clock" in res.stdout


@pytest.mark.tmux
@pytest.mark.openssh
@pytest.mark.chromium
@pytest.mark.slow
def test_a_roster_invited_class_plays_at_a_table_one_over_ssh_one_in_chromium(root):
    """scripts/browser_class_table.py: one roster, one `trainees invite --csv`; an SSH trainee types the code at
    the enrolment screen, a browser follows the web link and presses join; both sit at one table, play to the
    debrief, and the results and gradebook hold both."""
    res = subprocess.run([sys.executable, str(SCRIPTS / "browser_class_table.py")], capture_output=True, text=True,
                         timeout=400, cwd=root)
    assert res.returncode == 0, f"{res.stdout}\n{res.stderr}"
    assert "OK: 1 mixed table(s), ssh and chromium, played to their debriefs, every trainee graded" in res.stdout
    assert "tables: [['s1', 'w1']]; gradebook rows: ['s1', 'w1']" in res.stdout
    assert "s1 enrolled over ssh" in res.stdout and "w1 in chromium" in res.stdout
