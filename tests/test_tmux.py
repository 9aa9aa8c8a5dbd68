"""The real app in a real terminal: scripts/tmux_full_game.py plays two full games in tmux (skipped
when tmux is not installed)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "tmux_full_game.py"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_full_games_in_tmux():
    res = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=420, cwd=ROOT)
    assert res.returncode == 0, f"{res.stdout}\n{res.stderr}"
    out = res.stdout
    assert "OK: both games played to the end" in out
    assert out.count("negtui quit with status 0") == 2
    # what the script saw: the bait accepted, 30/30 in the summary, and autoplay's last turn
    assert "A commits bait; B commits bait — accepted" in out
    assert "utilitarian optimum 60.00" in out
    assert "game over  turn 24/24" in out
