"""The real app in a real terminal: scripts/tmux_full_game.py drives it in tmux (skipped when tmux is not
installed) through the seat dialog, a human seat on a library scenario named, help and quit from inside
dialogs, a resize from 160×50 to 80×24 and back, the welfare screen, a full game, its replay, and an
autoplayed game whose actions have opaque ids. The script fails on a traceback, a key bar cut before
help and quit, or an index where a name should be."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.paths import SCRIPTS

SCRIPT = SCRIPTS / "tmux_full_game.py"


@pytest.mark.tmux
@pytest.mark.slow
def test_full_games_in_tmux(root):
    res = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=420, cwd=root)
    assert res.returncode == 0, f"{res.stdout}\n{res.stderr}"
    out = res.stdout
    assert "OK: both games played to the end and replayed" in out
    assert out.count("negtui quit with status 0") == 3
    # what the script saw: the seat made human, help over a dialog, both sizes, the optimum marked, the
    # bait accepted, 30/30 in the summary, the record listed and replayed, and autoplay's last turn
    for seen in ("A · Alice              human", "negtui — keys", "the partner dialog at 160×50", "◇◇ bait",
                 "accepted: A commits bait; B commits bait", "utilitarian optimum 60.00", "negtui replay lists",
                 "REPLAY 1/2", "game over  turn 18/18", "Fund the corridor operation"):
        assert seen in out, seen
