#!/usr/bin/env python3
"""Drive the real negtui app in tmux through full games: send keys, read the pane, check what it shows.

    python scripts/tmux_full_game.py            # both games; exit status 0 when everything was seen
    python scripts/tmux_full_game.py --keep     # leave the tmux server running on failure, to look at it

1. The poison pill with A played by hand (80×24): choose partner B, offer the bait alone (A.bait and
   B.bait), submit, let B's bot move, and expect the end-of-game summary with 30.00 for both.
2. Six-party with every seat a bot: start autoplay (r) and expect the summary after all 24 turns.

Each game runs in its own tmux server (a private socket), so nothing else running tmux is touched.
Every step waits for the text it needs on screen (polling `capture-pane`) instead of sleeping a fixed
time, with generous timeouts: it stays reliable on a slow, loaded machine.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PILL = ROOT / "scenarios" / "teaching" / "poison-pill.json"
SIX = ROOT / "scenarios" / "generated" / "six-party.json"
EXIT_MARK = "NEGTUI-EXITED:"


class Failure(Exception):
    pass


def negtui_command() -> list[str]:
    """The negtui entry point of this checkout's virtualenv if there is one, else this Python's module."""
    venv = ROOT / ".venv" / "bin" / "negtui"
    if venv.exists():
        return [str(venv)]
    return [sys.executable, "-m", "negtui.cli"]


class Tmux:
    """One detached tmux session on a private server, running one command."""

    def __init__(self, name: str, command: list[str], width: int = 80, height: int = 24) -> None:
        self.socket = f"negtui-{name}-{os.getpid()}"
        self.target = name
        # the shell prints the exit status and stays, so a crash or a clean quit can both be read
        shell = f"cd {shlex.quote(str(ROOT))} && {shlex.join(command)}; echo {EXIT_MARK}$?; sleep 600"
        self.tmux("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), "sh", "-c", shell)

    def tmux(self, *args: str) -> str:
        res = subprocess.run(["tmux", "-L", self.socket, "-f", os.devnull, *args], capture_output=True, text=True,
                             timeout=30)
        if res.returncode != 0:
            raise Failure(f"tmux {' '.join(args)} failed: {res.stderr.strip()}")
        return res.stdout

    def keys(self, *keys: str) -> None:
        for key in keys:  # one at a time: the app handles each before the next arrives
            self.tmux("send-keys", "-t", self.target, key)
            time.sleep(0.05)

    def capture(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.target)

    def wait_for(self, *texts: str, timeout: float = 60.0, step: str = "") -> str:
        """Poll the pane until every text (a regular expression) is on it; the capture."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture()
            if all(re.search(t, screen) for t in texts):
                return screen
            if EXIT_MARK in screen:
                break  # the app is gone: no point waiting
            time.sleep(0.1)
        missing = [t for t in texts if not re.search(t, screen)]
        raise Failure(f"{step}: {missing} not on screen after {timeout:.0f} s. The pane shows:\n{screen}")

    def wait_gone(self, text: str, timeout: float = 60.0, step: str = "") -> str:
        """Poll the pane until a text (a regular expression) has left it; the capture."""
        deadline = time.monotonic() + timeout
        screen = self.capture()
        while re.search(text, screen):
            if time.monotonic() > deadline:
                raise Failure(f"{step}: {text!r} still on screen after {timeout:.0f} s:\n{screen}")
            time.sleep(0.1)
            screen = self.capture()
        return screen

    def close(self) -> None:
        try:
            self.tmux("kill-server")
        except (Failure, subprocess.TimeoutExpired):
            pass


STARTED = time.monotonic()


def show(title: str, screen: str) -> None:
    title = f"{title} [{time.monotonic() - STARTED:.1f} s]"
    print(f"--- {title} " + "-" * max(0, 76 - len(title)))
    print(screen.rstrip("\n"))


def quit_app(t: Tmux) -> str:
    """q closes the summary, q again quits; the shell then prints the exit status.  The screen between."""
    t.keys("q")
    screen = t.wait_gone("Game over", step="summary closed")
    show("the play screen at the end", screen)
    t.keys("q")
    screen = t.wait_for(EXIT_MARK + r"\d+", step="quit")
    code = re.search(EXIT_MARK + r"(\d+)", screen).group(1)
    if code != "0":
        raise Failure(f"negtui exited with status {code}:\n{screen}")
    print(f"negtui quit with status {code}")
    return screen


def human_game(keep: bool) -> None:
    cmd = negtui_command() + ["play", str(PILL), "--seat", "A=human", "--no-record"]
    t = Tmux("pill", cmd)
    ok = False
    try:
        screen = t.wait_for("choose a partner", r"A · Alice \(human\)", step="partner dialog at A's turn", timeout=90)
        show("A's turn: the partner dialog", screen)
        t.keys("Down", "Enter")  # the options are A itself, then B
        t.wait_for("offer to B", r"offer A → B: nothing", step="partner B chosen")
        t.keys("Enter", "Down", "Down", "Enter")  # A.bait, then B.bait two lines below it (a line per action)
        screen = t.wait_for(r"offer A → B: A commits bait; B commits", "accepts\\?", r"yes ◀", step="offer built")
        show("the offer: bait alone", screen)
        t.keys("o")
        screen = t.wait_for(r"A commits bait; B commits bait — accepted", r"B · Bob \(upper\)", step="B accepts")
        show("B accepted; B's turn", screen)
        t.keys("n")  # B's bot turn
        # payoff, then the no-negotiation baseline: 30.00 each (a swallowed pill would show A 40.00, B 7.00)
        t.wait_for("Game over", r"A\s+30\.00\s+30\.00", r"B\s+30\.00\s+30\.00", step="game over")
        screen = t.wait_for("Game over", "utilitarian optimum 60.00", step="welfare in the summary", timeout=60)
        show("the summary", screen)
        quit_app(t)
        ok = True
    finally:
        if ok or not keep:
            t.close()
        else:
            print(f"left running: tmux -L {t.socket} attach -t {t.target}")


def bot_game(keep: bool) -> None:
    cmd = negtui_command() + ["play", str(SIX), "--seat", "P0=upper", "--partner", "greedy", "--sims", "4",
                              "--no-record"]
    t = Tmux("six", cmd)
    ok = False
    try:
        screen = t.wait_for(r"P4 \(upper\)", r"turn 1/24", step="six-party opened", timeout=90)
        show("six-party, all bots", screen)
        t.keys("+", "+", "r")  # full speed, run (tmux key names: "+" is the plus key)
        screen = t.wait_for("Game over", r"P5\s+\d+\.\d\d", r"\bsum\b", step="autoplay to the end", timeout=120)
        show("the summary after autoplay", screen)
        t.keys("q")
        screen = t.wait_gone("Game over", step="summary closed")
        screen = t.wait_for(r"game over\s+turn 24/24", r"t 23 r4 ", r"q quit", step="all 24 turns played")
        show("the play screen at the end", screen)
        t.keys("q")
        t.wait_for(EXIT_MARK + r"0\b", step="quit")
        print("negtui quit with status 0")
        ok = True
    finally:
        if ok or not keep:
            t.close()
        else:
            print(f"left running: tmux -L {t.socket} attach -t {t.target}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", action="store_true", help="leave the tmux server running when a check fails")
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        human_game(args.keep)
        bot_game(args.keep)
    except Failure as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    print(f"OK: both games played to the end in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
