"""A disk that fills while a game is recorded: the command line says so and exits 2, the record ends at its
last whole line (and still replays and verifies), a game played in the app or at a table goes on
unrecorded.  The full disk is the kernel's own: a file-size limit, or `/dev/full` under the record."""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from negtui.engine import PAPER, Negotiation
from negtui.play import LiveGame
from negtui.record import RecordWriter, load_record
from negtui.scenario import load_scenario
from negtui.seats import Seat
from tests.paths import PILL, SIX

CLI = [sys.executable, "-m", "negtui.cli"]
FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(not (FULL.exists() and stat.S_ISCHR(FULL.stat().st_mode)),
                                    reason="this system has no /dev/full")


def _limited(size: int):
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return limit


def test_autoplay_on_a_disk_that_fills_keeps_whole_turns_and_exits_2(tmp_path):
    record = tmp_path / "cut.jsonl"
    proc = subprocess.run([*CLI, "autoplay", str(SIX), "--partner", "greedy", "--sims", "4", "--record", str(record),
                           "--quiet"], capture_output=True, text=True, timeout=120, preexec_fn=_limited(6000))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"cannot write {record}: File too large; the record keeps the game up to turn" in proc.stderr
    raw = record.read_bytes()
    assert 0 < len(raw) <= 6000 and raw.endswith(b"\n")  # cut after a whole line, never inside one
    lines = [json.loads(x) for x in raw.decode().splitlines()]
    turns = [x for x in lines if x["type"] == "turn"]
    assert turns and lines[-1]["type"] == "turn"
    assert f"up to turn {turns[-1]['t'] + 1}," in proc.stderr
    verify = subprocess.run([*CLI, "replay", str(record), "--verify"], capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0 and "the game was not finished" in verify.stdout, verify.stdout + verify.stderr


@needs_dev_full
def test_a_record_on_a_full_device_is_refused_and_the_device_is_left_alone(tmp_path):
    proc = subprocess.run([*CLI, "autoplay", str(PILL), "--record", str(FULL), "--force", "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == f"error: cannot write {FULL}: the disk is full; nothing was recorded"
    assert stat.S_ISCHR(FULL.stat().st_mode)  # a record with nothing in it is removed, a device never


def _fill_the_disk_under(game: LiveGame) -> None:
    """From now on every write to the game's record fails as on a full disk."""
    writer = game._writer
    assert writer is not None and writer._fd is not None
    full = os.open(FULL, os.O_WRONLY)
    os.dup2(full, writer._fd)
    os.close(full)


@needs_dev_full
def test_a_live_game_goes_on_unrecorded_and_says_why(tmp_path):
    record = tmp_path / "live.jsonl"
    game = LiveGame(load_scenario(SIX), PAPER, {}, record=record)
    try:
        for move in game.think():
            game.submit(move)
        played = game.state.t
        assert played == 1 and game.record_failed is None
        _fill_the_disk_under(game)
        while not game.over:
            for move in game.think():
                game.submit(move)
        game.keep_message("P0", None, "after the disk filled")
        assert game.record_failed == "the disk is full; the record keeps the game up to turn 1, every line whole"
    finally:
        game.close()
    rec = load_record(record)
    assert [t.t for t in rec.turns] == [0] and not rec.complete


def test_a_game_that_never_played_a_turn_leaves_no_record_and_a_forced_device_is_never_removed(tmp_path):
    seats = {"A": Seat.lens("upper"), "B": Seat.lens("upper")}
    empty = tmp_path / "empty.jsonl"
    LiveGame(load_scenario(PILL), PAPER, seats, record=empty).close()
    assert not empty.exists()
    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    RecordWriter(Path(os.devnull), neg, [Seat.lens("upper")] * 2, neg.initial_state(), force=True).close()
    assert stat.S_ISCHR(Path(os.devnull).stat().st_mode)


def test_a_record_written_into_a_pipe_is_whole(tmp_path):
    """A record need not be a file: `--record /dev/stdout` into a pipe (a pipe has no position to seek)."""
    proc = subprocess.run([*CLI, "autoplay", str(PILL), "--record", "/dev/stdout", "--force", "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "result"
