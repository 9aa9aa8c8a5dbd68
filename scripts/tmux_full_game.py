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
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PILL = ROOT / "scenarios" / "teaching" / "poison-pill.json"
SIX = ROOT / "scenarios" / "generated" / "six-party.json"
EXIT_MARK = "NEGTUI-EXITED:"
# COLUMNS and LINES (set by test runners) would pin the app's size and it would ignore every resize
TERMINAL_ENV = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}


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
        self.tmux("set-option", "-t", name, "window-size", "manual")  # resize-window sizes it, no client does

    def resize(self, width: int, height: int) -> None:
        self.tmux("resize-window", "-t", self.target, "-x", str(width), "-y", str(height))

    def tmux(self, *args: str) -> str:
        res = subprocess.run(["tmux", "-L", self.socket, "-f", os.devnull, *args], capture_output=True, text=True,
                             timeout=30, env=TERMINAL_ENV)
        if res.returncode != 0:
            raise Failure(f"tmux {' '.join(args)} failed: {res.stderr.strip()}")
        return res.stdout

    def keys(self, *keys: str) -> None:
        for key in keys:  # one at a time, as typed: escape run together with the next key would read as alt+key
            self.tmux("send-keys", "-t", self.target, key)
            time.sleep(0.05)  # the keys of one call go to one screen: each step waits for what it needs on screen

    def capture(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.target)

    def wait_for(self, *texts: str, timeout: float = 60.0, step: str = "") -> str:
        """Poll the pane until every text (a regular expression) is on it and the screen is drawn; the capture."""
        deadline = time.monotonic() + timeout
        screen = last = ""
        while time.monotonic() < deadline:
            screen = self.capture()
            if all(re.search(t, screen) for t in texts) and (EXIT_MARK in screen or drawn(screen, last)):
                return screen
            last = screen
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
        """End the private server and remove its socket file (tmux 3.3 leaves it behind: a file a run)."""
        try:
            path = self.tmux("display-message", "-p", "#{socket_path}").strip()
            self.tmux("kill-server")
        except (Failure, subprocess.TimeoutExpired):
            return
        if path:
            Path(path).unlink(missing_ok=True)


STARTED = time.monotonic()


def drawn(screen: str, last: str) -> bool:
    """A whole frame: the key bar at the bottom, and the same on two captures in a row.  On a loaded machine
    the app may pause between drawing its panes and its key bar for longer than a capture takes."""
    lines = [ln for ln in screen.splitlines() if ln.strip()]
    return screen == last and bool(lines) and "help" in lines[-1] and "quit" in lines[-1]


@contextmanager
def running(t: Tmux, keep: bool):
    """The tmux server goes when the block ends, unless it failed and --keep asks to look at it."""
    ok = False
    try:
        yield t
        ok = True
    finally:
        if ok or not keep:
            t.close()
        else:
            print(f"left running: tmux -L {t.socket} attach -t {t.target}")


OPAQUE = re.compile(r"\b(a\d+|[A-Za-z_]+\.a\d+)\b|^\s+0  1  2", re.M)  # action ids or column numbers


def check(title: str, screen: str) -> None:
    """What no screen may show: a traceback, a footer cut before help and quit, an action's bare index."""
    if "Traceback" in screen:
        raise Failure(f"{title}: a traceback on screen:\n{screen}")
    lines = [ln for ln in screen.splitlines() if ln.strip()]
    if EXIT_MARK not in screen and not ("help" in lines[-1] and "quit" in lines[-1]):
        raise Failure(f"{title}: the key bar does not end with help and quit: {lines[-1]!r}\n{screen}")
    # a notification (its border ▌, the right of the screen) may name a file, whose random tag can read "a485"
    hit = OPAQUE.search("\n".join(line.split("▌")[0] for line in screen.splitlines()))
    if hit:
        raise Failure(f"{title}: an index where a name should be ({hit.group(0)!r}):\n{screen}")


def show(title: str, screen: str) -> None:
    check(title, screen)
    title = f"{title} [{time.monotonic() - STARTED:.1f} s]"
    print(f"--- {title} " + "-" * max(0, 76 - len(title)))
    print(screen.rstrip("\n"))


def quit_app(t: Tmux) -> str:
    """q closes the summary, q again quits; the shell then prints the exit status.  The screen between."""
    t.keys("q")
    screen = t.wait_gone("Game over", step="summary closed")
    show("the play screen at the end", screen)
    t.keys("q")
    return expect_exit(t)


def expect_exit(t: Tmux) -> str:
    screen = t.wait_for(EXIT_MARK + r"\d+", step="quit")
    code = re.search(EXIT_MARK + r"(\d+)", screen).group(1)
    if code != "0":
        raise Failure(f"negtui exited with status {code}:\n{screen}")
    print(f"negtui quit with status {code}")
    return screen


def human_game(keep: bool, data: Path) -> None:
    """The poison pill by its library name, A made human in the seat dialog, recorded into `data`."""
    cmd = negtui_command() + ["play", "poison-pill", "--data-dir", str(data)]
    t = Tmux("pill", cmd)
    with running(t, keep):
        screen = t.wait_for("who plays each player", r"A · Alice", r"B · Bob", step="the seat dialog", timeout=90)
        show("the seat dialog", screen)
        t.keys("Enter")  # the cursor starts on A's seat: its choices
        screen = t.wait_for(r"human", r"maximin", r"esc close", step="A's choices")
        show("A's choices", screen)
        t.keys("Home", "Enter")  # human, the first
        screen = t.wait_for(r"A · Alice\s+human", r"\^s start", step="A made human")
        show("A is human", screen)
        t.keys("C-s")
        screen = t.wait_for("choose a partner", r"A · Alice \(human\)", step="partner dialog at A's turn", timeout=90)
        show("A's turn: the partner dialog", screen)
        t.keys("?")  # help from inside a dialog, and back
        screen = t.wait_for("negtui — keys", "escape, q or \\? closes", step="help over the partner dialog")
        show("help over the partner dialog", screen)
        t.keys("?")
        t.wait_gone("negtui — keys", step="help closed")
        t.wait_for("choose a partner", step="the partner dialog again")
        t.resize(160, 50)
        screen = t.wait_for("choose a partner", r"A alone", r"▶ A · Alice", r"·· bait", r"(?m)^.{150,}$",
                            step="160×50")
        show("the partner dialog at 160×50, beside the matrix", screen)
        t.resize(80, 24)  # the pane keeps the old frame, cropped, until the app has drawn the new one
        screen = t.wait_for("choose a partner", r"(?m)\? help\s*$", step="back to 80×24")
        show("back to 80×24", screen)
        t.keys("Escape")  # the partner dialog closed: the play screen's keys, welfare among them
        t.wait_gone("choose a partner", step="partner dialog closed")
        t.wait_for(r"p partner", step="the play screen's keys")
        t.keys("w")
        screen = t.wait_for(r"utilitarian: welfare 60\.00\b", r"A commits bait; B commits bait", step="welfare")
        show("the welfare screen", screen)
        t.keys("m")  # the optimum marked on the matrix
        screen = t.wait_for(r"◇◇ bait", r"◇◇ utilitarian optimum", step="optimum on the matrix")
        show("the optimum marked on the matrix", screen)
        t.keys("p")
        t.wait_for("choose a partner", step="the partner dialog reopened")
        t.keys("Down", "Enter")  # the options are A alone, then B
        t.wait_for("offer to B", r"offer to B: nothing", step="partner B chosen")
        t.keys("Enter", "Down", "Down", "Enter")  # A.bait, then B.bait two lines below it (a line per action)
        screen = t.wait_for(r"offer to B: A commits bait; B commits", "accepts\\?", r"yes ◀", step="offer built")
        show("the offer: bait alone", screen)
        t.keys("o")
        screen = t.wait_for(r"accepted: A commits bait; B commits bait", r"B · Bob \(lower\)", step="B accepts")
        show("B accepted; B's turn", screen)
        t.keys("n")  # B's bot turn
        # payoff, then the no-negotiation baseline: 30.00 each (a swallowed pill would show A 40.00, B 7.00)
        t.wait_for("Game over", r"A\s+30\.00\s+30\.00", r"B\s+30\.00\s+30\.00", step="game over")
        screen = t.wait_for("Game over", "utilitarian optimum 60.00", step="welfare in the summary", timeout=60)
        show("the summary", screen)
        screen = quit_app(t)
        records = sorted((data / "records").glob("*.jsonl"))
        if len(records) != 1 or f"recorded: {records[0]}" not in screen.replace("\n", ""):
            raise Failure(f"on quitting, the terminal does not name the record {records}:\n{screen}")


def replay_game(keep: bool, data: Path) -> None:
    """The record of the first game: listed by `negtui replay`, then replayed and stepped in the app;
    help and quit from inside the jump dialog."""
    listing = subprocess.run(negtui_command() + ["replay", "--data-dir", str(data)], capture_output=True, text=True,
                             timeout=60, cwd=ROOT)
    records = sorted((data / "records").glob("*.jsonl"))
    if listing.returncode != 0 or len(records) != 1 or str(records[0]) not in listing.stdout:
        raise Failure(f"negtui replay did not list the one record {records}:\n{listing.stdout}{listing.stderr}")
    print(f"negtui replay lists {records[0].name}")
    t = Tmux("replay", negtui_command() + ["replay", str(records[0]), "--data-dir", str(data)])
    with running(t, keep):
        screen = t.wait_for(r"REPLAY 0/2", step="the replay opened", timeout=90)
        show("the replay at its start", screen)
        t.keys(".")
        screen = t.wait_for(r"REPLAY 1/2", r"A commits bait; B commits bait", step="one turn forward")
        show("the replay after one turn", screen)
        t.keys("g")
        screen = t.wait_for(r"Show the game after how many turns", step="the jump dialog")
        t.keys("?")
        t.wait_for("negtui — keys", step="help over the jump dialog")
        t.keys("Escape")
        t.wait_gone("negtui — keys", step="help closed")
        t.keys("C-q")  # quit from inside the dialog
        expect_exit(t)


def bot_game(keep: bool) -> None:
    """The humanitarian access game by name, every seat a bot: its actions have opaque ids (a0, a1…),
    so every screen must speak in their labels.  Autoplay, resized to 80×24 mid-game and back."""
    cmd = negtui_command() + ["play", "humanitarian-access", "--seat", "Donor_Group=upper", "--partner", "greedy",
                              "--sims", "4", "--no-record"]
    t = Tmux("hum", cmd, 160, 50)
    with running(t, keep):
        screen = t.wait_for(r"Armed Group", r"turn 1/18", r"·· Fund the corridor operation", step="opened", timeout=90)
        show("humanitarian access at 160×50, all bots", screen)
        t.keys("r")  # run
        t.wait_for(r"turn ([4-9]|1\d)/18", step="autoplay under way", timeout=120)
        t.resize(80, 24)
        screen = t.wait_for(r"(Game over|turn \d+/18)", r"q quit", step="80×24 during autoplay", timeout=60)
        show("resized to 80×24 during autoplay", screen)
        t.resize(160, 50)
        screen = t.wait_for("Game over", r"\bsum\b", r"utilitarian optimum", step="autoplay to the end", timeout=180)
        show("the summary after autoplay, back at 160×50", screen)
        t.keys("q")
        t.wait_gone("Game over", step="summary closed")
        screen = t.wait_for(r"game over\s+turn 18/18", r"q quit", step="all 18 turns played")
        show("the play screen at the end", screen)
        t.keys("q")
        expect_exit(t)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", action="store_true", help="leave the tmux server running when a check fails")
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="negtui-tmux-") as data:
            human_game(args.keep, Path(data))
            replay_game(args.keep, Path(data))
        bot_game(args.keep)
    except Failure as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    print(f"OK: both games played to the end and replayed in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
