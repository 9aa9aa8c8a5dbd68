#!/usr/bin/env python3
"""Training over SSH end to end, with the system's OpenSSH client in tmux: a trainee logs in to
`negtui serve`, meets the course lobby, plays the poison pill as B (refuses the bundle, then offers the
bait alone), reads the coaching and the debrief, goes back to the lobby and quits; the results database
then holds the finished game with its payoff and coached decisions.

    python scripts/tmux_serve_game.py            # exit status 0 when everything was seen
    python scripts/tmux_serve_game.py --keep     # keep the data directory and print where it is
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tmux_full_game import EXIT_MARK, ROOT, Failure, Tmux, negtui_command, show

COURSE = ROOT / "courses" / "intro.toml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def enrol(name: str, data: Path) -> None:
    """A key pair for `name` in `data` (data/NAME, data/NAME.pub), and `name` a trainee of the server
    whose data directory is data/server."""
    key = data / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{name}@test", "-f", str(key)], check=True)
    subprocess.run([*negtui_command(), "trainees", "add", name, f"{key}.pub", "--data-dir", str(data / "server")],
                   check=True, capture_output=True)


def start_server(course: Path, name: str, data: Path) -> tuple[subprocess.Popen, int]:
    """`negtui serve` of `course` (named `name`) on a free port with data/server, once it listens; its
    banner printed."""
    port = free_port()
    server = subprocess.Popen([*negtui_command(), "serve", "--course", str(course), "--data-dir",
                               str(data / "server"), "--port", str(port)], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    assert server.stdout is not None
    banner = server.stdout.readline() + server.stdout.readline()
    if f"negtui serve: course {name} " not in banner:
        stop(server)
        raise Failure(f"the server did not start: {banner}{server.stdout.read()}")
    print(banner.rstrip())
    return server, port


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()


def ssh_command(name: str, port: int, data: Path) -> list[str]:
    """OpenSSH logging in as `name` with the key `enrol` made, never asking anything."""
    return ["ssh", "-tt", "-p", str(port), "-i", str(data / name), "-o", "IdentitiesOnly=yes", "-o",
            "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={data / 'known_hosts'}",
            "-o", "LogLevel=ERROR", f"{name}@127.0.0.1"]


def run(data: Path) -> None:
    negtui = negtui_command()
    enrol("alice", data)
    server, port = start_server(COURSE, "intro", data)
    t = None
    try:
        t = Tmux("serve", ssh_command("alice", port, data), 120, 40)
        screen = t.wait_for("Introduction to multi-party negotiation · alice", r"1\. The poison pill",
                            step="the course lobby")
        show("the lobby", screen)
        t.keys("Enter")
        show("the briefing", t.wait_for("Start \\(ctrl\\+s\\)", "you play B", step="the briefing"))
        t.keys("C-s")
        show("A's offer", t.wait_for("A offers B a deal", "poison", step="A's offer to B"))
        t.keys("x")
        screen = t.wait_for("B, choose a partner", step="B's turn")
        screen = t.wait_for("coach, turn 1", step="coaching of the refusal")
        show("coached", screen)
        t.keys("Enter")  # A, the first partner
        # the key bar lists "o offer" once the partner dialog is gone and the offer builder has the keys
        t.wait_for("offer to A", " o offer ", step="partner A chosen")
        t.keys("Enter", "Up", "Up", "Enter")  # B.bait (the cursor starts on your own row), then A.bait above it
        t.wait_for("offer to A: B commits bait; A commits", step="the bait alone")
        t.keys("o")
        screen = t.wait_for("your game as B", "upper bot in your seat +30\\.00", step="the debrief", timeout=90)
        show("the debrief", screen)
        t.keys("Escape")
        screen = t.wait_for(r"1 play of 3 · best 30\.0", step="back in the lobby")
        show("the lobby again", screen)
        t.keys("q")
        t.wait_for(EXIT_MARK + "0", step="ssh ended")
        res = subprocess.run([*negtui, "results", "--json", "--data-dir", str(data / "server")], check=True,
                             capture_output=True, text=True)
        rows = json.loads(res.stdout)
        finished = [r for r in rows if r["status"] == "finished"]
        if len(finished) != 1 or finished[0]["payoff"] != 30.0 or finished[0]["decisions"] != 2:
            raise Failure(f"the results do not hold the game: {rows}")
        print(f"results row: {finished[0]['trainee']} {finished[0]['exercise']} payoff {finished[0]['payoff']} "
              f"decisions {finished[0]['decisions']} efficiency {finished[0]['efficiency']}")
        print("OK: logged in over ssh, played, coached, debriefed, results kept")
    finally:
        if t is not None:
            t.close()
        stop(server)


SSH_TOOLS = ("tmux", "ssh", "ssh-keygen")


def script_main(run: Callable[[Path, argparse.Namespace], None], description: str, prefix: str,
                tools: tuple[str, ...] = SSH_TOOLS, parser: argparse.ArgumentParser | None = None) -> int:
    """What an SSH script's `main` does: check the tools, run in a fresh data directory (`--keep` keeps
    it), print the failure or the time taken; the exit status.  A script with options of its own passes its
    `parser` (`--keep` is added to it); `run` gets the data directory and the options."""
    parser = parser or argparse.ArgumentParser(description=description)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    for tool in tools:
        if shutil.which(tool) is None:
            print(f"{tool} is not installed", file=sys.stderr)
            return 2
    data = Path(tempfile.mkdtemp(prefix=prefix))
    started = time.monotonic()
    try:
        run(data, args)
    except (Failure, TimeoutError) as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"data kept in {data}")
        else:
            shutil.rmtree(data, ignore_errors=True)
    print(f"done in {time.monotonic() - started:.1f} s")
    return 0


def main() -> int:
    return script_main(lambda data, _options: run(data), __doc__.splitlines()[0], "negtui-serve-")


if __name__ == "__main__":
    sys.exit(main())
