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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tmux_full_game import EXIT_MARK, ROOT, Failure, Tmux, negtui_command, show

COURSE = ROOT / "courses" / "intro.toml"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(data: Path) -> None:
    negtui = negtui_command()
    key = data / "alice"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice@test", "-f", str(key)], check=True)
    subprocess.run([*negtui, "trainees", "add", "alice", f"{key}.pub", "--data-dir", str(data / "server")],
                   check=True, capture_output=True)
    port = free_port()
    server = subprocess.Popen([*negtui, "serve", "--course", str(COURSE), "--data-dir", str(data / "server"),
                               "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    t = None
    try:
        banner = server.stdout.readline() + server.stdout.readline()
        if "negtui serve: course intro" not in banner:
            raise Failure(f"the server did not start: {banner}{server.stdout.read() if server.poll() else ''}")
        print(banner.rstrip())
        ssh = ["ssh", "-tt", "-p", str(port), "-i", str(key), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
               "-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={data / 'known_hosts'}",
               "-o", "LogLevel=ERROR", "alice@127.0.0.1"]
        t = Tmux("serve", ssh, 120, 40)
        screen = t.wait_for("Introduction to multi-party negotiation · alice", r"1\. The poison pill",
                            step="the course lobby")
        show("the lobby", screen)
        t.keys("Enter")
        show("the briefing", t.wait_for("Start \\(ctrl\\+s\\)", "you play B", step="the briefing"))
        t.keys("C-s")
        show("A's offer", t.wait_for("A offers B a deal", "poison", step="A's offer to B"))
        t.keys("r")
        screen = t.wait_for("B, choose a partner", step="B's turn")
        screen = t.wait_for("coach, turn 1", step="coaching of the refusal")
        show("coached", screen)
        t.keys("Enter")  # A, the first partner
        # the key bar lists "o offer" once the partner dialog is gone and the offer builder has the keys
        t.wait_for("offer to A", " o offer ", step="partner A chosen")
        t.keys("Enter", "Down", "Down", "Enter")  # A.bait, then B.bait two lines below it
        t.wait_for("offer B → A: B commits bait; A commits", step="the bait alone")
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
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    for tool in ("tmux", "ssh", "ssh-keygen"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed", file=sys.stderr)
            return 2
    data = Path(tempfile.mkdtemp(prefix="negtui-serve-"))
    started = time.monotonic()
    try:
        run(data)
    except Failure as err:
        print(f"FAILED: {err}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"data kept in {data}")
        else:
            shutil.rmtree(data, ignore_errors=True)
    print(f"done in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
