#!/usr/bin/env python3
"""A timed confidential role-play over SSH, with the system's OpenSSH client in tmux: alice and bob log in to
`negtui serve`, sit down at a table of the private car sale (each sees only their own limit) whose round lasts
20 seconds, and nobody moves.  When the round's time runs out the game ends as it stands on both screens: the
table reveals everyone's values and each gets the debrief, which says the clock ended the game.  The results
then hold a finished game for each, the table's row says the clock ended it, and its record verifies.

    python scripts/tmux_timed_private_table.py            # exit status 0 when everything was seen
    python scripts/tmux_timed_private_table.py --keep     # keep the data directory and print where it is
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tmux_full_game import EXIT_MARK, Failure, Tmux, negtui_command, show
from tmux_serve_game import enrol, script_main, ssh_command, start_server, stop

COURSE = """\
name = "timed"
title = "A timed role-play"

[[exercises]]
id = "car"
title = "A car sale, each side with a secret limit"
scenario = "private-car-sale"
humans = ["B", "S"]
information = "private"
game_time = 20
"""
PEOPLE = ("alice", "bob")
ENDED = r"the round's time ran out after \d+ of 6 turns: the game ended as it stood"


def run(data: Path) -> None:
    negtui = negtui_command()
    server_dir = data / "server"
    (data / "course.toml").write_text(COURSE)
    for name in PEOPLE:
        enrol(name, data)
    server, port = start_server(data / "course.toml", "timed", data)
    panes: dict[str, Tmux] = {}
    try:
        for k, name in enumerate(PEOPLE):
            t = panes[name] = Tmux(name, ssh_command(name, port, data), 120, 40)
            t.wait_for("A timed role-play", "A car sale, each side", step=f"{name}'s lobby")
            t.keys("Enter")
            t.wait_for(r"Sit down \(ctrl\+s\)", step=f"{name}'s table picker")
            if k:
                t.wait_for("free", step=f"{name} sees the open table")
            t.keys("C-s")
        show("alice: the game under way, her values only", panes["alice"].wait_for(
            r"turn 1/6", r"⏱ 0:\d\d left", "private roles", step="alice at the table, the round's clock running"))
        for name, t in panes.items():  # nobody moves: the round's 20 seconds run out
            show(f"{name}'s debrief", t.wait_for("Game over", ENDED, "your game as", timeout=90,
                                                 step=f"{name}: the clock's end, the reveal and the debrief"))
        for name, t in panes.items():  # the welfare optimum needs every value: shown only once they are revealed
            t.wait_for(r"utilitarian optimum 6\.00", "every player's values are shown now",
                       step=f"{name}'s debrief on everyone's values")
        for name, t in panes.items():
            t.keys("Escape")
            t.wait_for("A timed role-play", step=f"{name} back in the lobby")
            t.keys("q")
            t.wait_for(EXIT_MARK + "0", step=f"{name}'s ssh ended")
        res = subprocess.run([*negtui, "results", "--json", "--data-dir", str(server_dir)], check=True,
                             capture_output=True, text=True)
        finished = [r for r in json.loads(res.stdout) if r["status"] == "finished"]
        if sorted(r["trainee"] for r in finished) != sorted(PEOPLE) or len({r["table"] for r in finished}) != 1:
            raise Failure(f"the results do not hold the table's game for each: {finished}")
        with sqlite3.connect(f"file:{server_dir / 'results.sqlite3'}?mode=ro", uri=True) as db:
            ending = db.execute("SELECT ending FROM tables WHERE id = ?", (finished[0]["table"],)).fetchone()
        if ending is None or ending[0] != "clock":
            raise Failure(f"the table's row does not say the clock ended it: {ending}")
        record = finished[0]["record_path"]
        verify = subprocess.run([*negtui, "replay", record, "--verify", "--key", str(server_dir / "record.key")],
                                capture_output=True, text=True)
        if verify.returncode != 0 or "the round's time ran out after" not in verify.stdout:
            raise Failure(f"the record does not verify, or does not say the clock ended it: {verify.stdout}"
                          f"{verify.stderr}")
        print(f"record verified: {Path(record).name}; table ended by the {ending[0]}")
        print("OK: a timed private round over ssh ended, revealed and debriefed on both screens")
    finally:
        for t in panes.values():
            t.close()
        stop(server)


def main() -> int:
    return script_main(lambda data, _options: run(data), __doc__.splitlines()[0], "negtui-timed-")


if __name__ == "__main__":
    sys.exit(main())
