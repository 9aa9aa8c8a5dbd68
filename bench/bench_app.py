"""App start time and key-press latency while bots think and while a welfare solve runs.

    .venv/bin/python bench/bench_app.py [--presses 30] [--starts 3] [--scenarios all|NAME,...]

First screen: what a person sees. `negtui play FILE` runs in a real terminal (a tmux pane at 160x50); the
time runs from the command starting to the first full screen (the seat dialog with its key bar) being on
the terminal, read every 10 ms, for every bundled scenario.
Start: seconds from a Python process starting to the play screen being drawn (headless; /proc clock,
10 ms resolution).
Latency: time from a key event being posted to its action running, sampled during autoplay of the
22-player scenario at full speed and during a Nash welfare solve of the same scenario.
Dialogs: the app's CPU time (process time, headless at 100x32) to close and reopen the partner dialog over the
poison-pill game, and to open and close Help over it, each until the dialog or the game is drawn and settled;
mean ± sd over `--dialogs` cycles after one unmeasured cycle of each.  `--only-dialogs` measures nothing else
(paired runs against another checkout: PYTHONPATH=THAT_CHECKOUT python bench/bench_app.py --only-dialogs; the
first screen's app in its tmux pane, on a tmux server of the benchmark's own, is given the same PYTHONPATH).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIG = ROOT / "scenarios" / "generated" / "twenty-two-party.json"
SMALL = ROOT / "scenarios" / "generated" / "six-party.json"
PILL = ROOT / "scenarios" / "teaching" / "poison-pill.json"

START_SCRIPT = """
import asyncio
import os
from pathlib import Path
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.live import LiveScreen

class Timed(NegtuiApp):
    def on_mount(self):
        super().on_mount()
        self.set_interval(0.005, self._check)

    def _check(self):
        if isinstance(self.screen, LiveScreen) and self.screen.query("#forecast-table"):
            # seconds since this process started (Linux: /proc), printed for the parent
            ticks = int(open("/proc/self/stat").read().rsplit(")", 1)[1].split()[19])
            uptime = float(open("/proc/uptime").read().split()[0])
            print(uptime - ticks / os.sysconf("SC_CLK_TCK"))
            self.exit()

asyncio.run(Timed(Path({path!r}), ask_seats=False, record=False).run_async(headless=True, size=(80, 24)))
"""


FULL_SCREEN = ("player?", "^s start")  # the seat dialog and the key bar under it
RUNS = itertools.count()  # a session name per run: tmux may still be closing the one before
TMUX = ["tmux", "-L", f"bench-app-{os.getpid()}"]  # a tmux server of the benchmark's own, ended with it


def first_screen(path: Path, size: tuple[int, int] = (160, 50), timeout: float = 30.0) -> tuple[float, float]:
    """Seconds from `negtui play FILE` starting in a tmux pane to (anything drawn, the first full screen)."""
    negtui = Path(sys.executable).with_name("negtui")
    with tempfile.TemporaryDirectory() as tmp:
        stamp, name = Path(tmp) / "start", f"bench-app-{os.getpid()}-{next(RUNS)}"
        # the caller's PYTHONPATH reaches the app (a paired run against another checkout's code); tmux gives a
        # pane its server's environment, not the caller's
        where = f"PYTHONPATH={shlex.quote(os.environ['PYTHONPATH'])} " if os.environ.get("PYTHONPATH") else ""
        command = f"date +%s.%N > {stamp}; {where}exec {negtui} play {path} --no-record"
        subprocess.run([*TMUX, "new-session", "-d", "-s", name, "-x", str(size[0]), "-y", str(size[1]),
                        "sh", "-c", command], check=True)
        drawn = full = None
        try:
            deadline = time.time() + timeout
            while full is None and time.time() < deadline:
                screen = subprocess.run([*TMUX, "capture-pane", "-p", "-t", name], capture_output=True,
                                        text=True).stdout
                now = time.time()
                if drawn is None and screen.strip():
                    drawn = now
                if all(text in screen for text in FULL_SCREEN):
                    full = now
                time.sleep(0.01)
        finally:
            subprocess.run([*TMUX, "kill-session", "-t", name], capture_output=True)
        if full is None or drawn is None:
            raise SystemExit(f"{path.name}: no full screen after {timeout:.0f} s")
        started = float(stamp.read_text())
        return drawn - started, full - started


def bundled_scenarios() -> list[Path]:
    from negtui.scenario.library import bundled_root, catalogue

    return [Path(entry.path) for entry in catalogue(bundled_root())]


def first_screens(names: str, starts: int) -> None:
    paths = [p for p in bundled_scenarios() if names == "all" or p.stem in names.split(",")]
    print(f"First full screen of `negtui play FILE` in a terminal (tmux, 160x50), median of {starts}")
    worst = 0.0
    for path in paths:
        runs = [first_screen(path) for _ in range(starts)]
        drawn, full = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        worst = max(worst, full)
        print(f"  {path.stem:<32} first drawn {drawn:.2f} s  full screen {full:.2f} s")
    print(f"  slowest full screen {worst:.2f} s over {len(paths)} scenarios")


def start_time(path: Path) -> float:
    """Seconds from the process starting to the play screen drawn (as the child measures it)."""
    out = subprocess.run([sys.executable, "-c", START_SCRIPT.format(path=str(path))], check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


async def _probe(app, screen, key: str, action: str) -> float:
    """Seconds from a key event being posted to its action starting to run."""
    from textual import events

    seen: list[float] = []
    original = getattr(screen, action)

    def probe(*args):
        seen.append(time.perf_counter())
        return original(*args)

    setattr(screen, action, probe)
    try:
        t0 = time.perf_counter()
        app.post_message(events.Key(key, None))
        while not seen and time.perf_counter() - t0 < 5:
            await asyncio.sleep(0.001)
        return (seen[0] if seen else time.perf_counter()) - t0
    finally:
        setattr(screen, action, original)


async def latencies(presses: int) -> tuple[list[float], list[float], int]:
    from negtui.tui.app import NegtuiApp
    from negtui.tui.screens.live import LiveScreen
    from negtui.tui.screens.welfare import WelfareScreen

    app = NegtuiApp(BIG, ask_seats=False, record=False)
    during_play, during_welfare = [], []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LiveScreen)
        screen.autoplay.speed = 0
        await pilot.press("r")
        await asyncio.sleep(0.5)
        rng = random.Random(1)
        for _ in range(presses):
            # presses at 0.05-0.15 s: a fixed 0.1 s falls in step with the 10-a-second redraws of autoplay
            await asyncio.sleep(rng.uniform(0.05, 0.15))
            during_play.append(await _probe(app, screen, "v", "action_sort_goals"))
        game = app.live.game
        turns = game.state.t
        screen.autoplay.stop()
        await app.workers.wait_for_complete()
        welfare = WelfareScreen(game.neg, game.state.bits, game.neg.returns(game.state), game.forecast("upper"),
                                objective="nash")
        await app.push_screen(welfare)
        await pilot.pause()
        for _ in range(presses):
            if welfare.job is None or welfare.job.done():
                break
            await asyncio.sleep(0.05)
            during_welfare.append(await _probe(app, app, "tab", "action_focus_next"))
        welfare.action_cancel_solve(quiet=True)
    return during_play, during_welfare, turns


async def _until(pilot, cond, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise SystemExit(f"dialogs: no {what} after {timeout:.0f} s")
        await pilot.pause(0.01)


async def dialog_costs(cycles: int, size: tuple[int, int] = (100, 32)) -> dict[str, list[float]]:
    """Seconds of the process's CPU per close and reopen of the partner dialog, and per open and close of Help,
    over A's turn of the poison-pill game (B a bot, idle meanwhile)."""
    from negtui.seats import Seat
    from negtui.tui.app import NegtuiApp
    from negtui.tui.screens.dialogs import HelpScreen, PartnerScreen

    app = NegtuiApp(PILL, seats={"A": Seat.human(), "B": Seat.lens("upper")}, ask_seats=False, record=False)
    costs: dict[str, list[float]] = {"partner": [], "help": []}

    def settled(cls: type) -> bool:
        screen = app.screen
        return isinstance(screen, cls) and screen._backdrop is not None and screen._settling is None

    async with app.run_test(size=size) as pilot:
        await _until(pilot, lambda: settled(PartnerScreen), "partner dialog on A's turn")
        await app.workers.wait_for_complete()
        await pilot.pause(0.2)
        game = app.screen_stack[-2]
        for cycle in range(cycles + 1):
            gc.collect()  # a collection of what earlier cycles left would fall on one cycle at random
            t0 = time.process_time()
            await pilot.press("escape")
            await _until(pilot, lambda: app.screen is game, "game after the partner dialog")
            await pilot.pause(0.1)
            await pilot.press("p")
            await _until(pilot, lambda: settled(PartnerScreen), "partner dialog reopened")
            await pilot.pause(0.1)
            if cycle:  # the first cycle makes what later ones reuse (the screen's CSS, the dialog kept)
                costs["partner"].append(time.process_time() - t0)
            await pilot.press("escape")
            await _until(pilot, lambda: app.screen is game, "game for Help")
            await pilot.pause(0.1)
            gc.collect()
            t0 = time.process_time()
            app.push_screen(HelpScreen("play"))
            await _until(pilot, lambda: settled(HelpScreen), "Help")
            await pilot.pause(0.1)
            await pilot.press("escape")
            await _until(pilot, lambda: app.screen is game, "game after Help")
            await pilot.pause(0.1)
            if cycle:
                costs["help"].append(time.process_time() - t0)
            await pilot.press("p")
            await _until(pilot, lambda: settled(PartnerScreen), "partner dialog for the next cycle")
            await pilot.pause(0.1)
    return costs


def show_dialogs(cycles: int) -> None:
    costs = asyncio.run(dialog_costs(cycles))
    print(f"A dialog's open and close, the app's CPU (headless, 100x32, poison-pill), mean ± sd, n={cycles}")
    for name, label in (("partner", "partner dialog closed and reopened"), ("help", "Help opened and closed")):
        xs = costs[name]
        sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
        print(f"  {label:<38} {1000 * statistics.mean(xs):6.1f} ± {1000 * sd:4.1f} ms")


def show(label: str, xs: list[float]) -> None:
    if not xs:
        print(f"  {label:<38} no samples")
        return
    print(f"  {label:<38} n={len(xs):<3} median {1000 * statistics.median(xs):6.1f} ms   "
          f"max {1000 * max(xs):6.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--presses", type=int, default=30)
    ap.add_argument("--starts", type=int, default=3, help="app starts timed per scenario")
    ap.add_argument("--scenarios", default="all", help="bundled scenarios whose first screen is timed in a "
                    "terminal: all, or names (comma-separated file stems)")
    ap.add_argument("--dialogs", type=int, default=10, help="open-and-close cycles of each dialog measured")
    ap.add_argument("--only-dialogs", action="store_true", help="measure the dialogs' open and close only")
    args = ap.parse_args()
    if args.only_dialogs:
        show_dialogs(args.dialogs)
        return
    if shutil.which("tmux"):
        keep = f"bench-app-{os.getpid()}-keep"  # one session for the whole run keeps the tmux server up
        subprocess.run([*TMUX, "new-session", "-d", "-s", keep, "sleep", "3600"], check=True)
        socket = subprocess.run([*TMUX, "display-message", "-p", "#{socket_path}"], capture_output=True,
                                text=True).stdout.strip()
        try:
            first_screens(args.scenarios, args.starts)
        finally:
            subprocess.run([*TMUX, "kill-server"], capture_output=True)
            if socket:  # tmux 3.3 leaves the socket file of a server it ended
                Path(socket).unlink(missing_ok=True)
    else:
        print("First full screen in a terminal: not measured (no tmux)")
    starts = [start_time(SMALL) for _ in range(args.starts)]
    big = [start_time(BIG) for _ in range(args.starts)]
    print("App start to first drawn play screen (headless, 80x24)")
    print(f"  six-party scenario      median {statistics.median(starts):.2f} s  max {max(starts):.2f} s")
    print(f"  22-player scenario      median {statistics.median(big):.2f} s  max {max(big):.2f} s")
    play, welfare, turns = asyncio.run(latencies(args.presses))
    print(f"Key press to its action running (autoplay moved {turns} turns while sampled)")
    show("during autoplay (22 players, no delay)", play)
    show("during a Nash welfare solve (22 x 45)", welfare)
    show_dialogs(args.dialogs)


if __name__ == "__main__":
    main()
