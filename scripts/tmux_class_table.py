#!/usr/bin/env python3
"""A class at one table over SSH, with the system's OpenSSH client in tmux: alice, bob and carol log in
to `negtui serve` (one tmux session each), sit down at a table of the coalition trap from the lobby,
alice says hello to the table, the game starts when the third sits down, carol's connection drops
mid-game at a decision of hers and stays away longer than a decision's time (the table waits for people
who drop: no clock runs against her), the trainer's message to the class stays on alice's table pane, she
comes back through the lobby to the same seat, and all three play to the debrief (the lobby keeping the
message).  The
table's record then verifies with the server's key and holds the message; the results hold a finished
game for each of them.

    python scripts/tmux_class_table.py            # exit status 0 when everything was seen
    python scripts/tmux_class_table.py --keep     # keep the data directory and print where it is
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tmux_full_game import EXIT_MARK, Failure, Tmux, negtui_command, show
from tmux_serve_game import enrol, script_main, ssh_command, start_server, stop

COURSE = """\
name = "class3"
title = "A class of three"

[[exercises]]
id = "trap"
title = "The coalition trap, three of you"
scenario = "coalition-trap"
humans = 3
grace = 300
on_drop = "wait"
decision_time = 10
"""
AWAY = 12  # seconds carol stays away at her own decision: longer than her decision's time
PEOPLE = ("alice", "bob", "carol")


def login(name: str, port: int, data: Path, tag: str = "") -> Tmux:
    return Tmux(name + tag, ssh_command(name, port, data), 120, 40)


def sit(t: Tmux, name: str, first: bool) -> None:
    t.wait_for("A class of three", r"The coalition trap, three of you", step=f"{name}'s lobby")
    t.keys("Enter")
    t.wait_for(r"Sit down \(ctrl\+s\)", step=f"{name}'s table picker")
    if not first:
        t.wait_for("free", step=f"{name} sees the open table")
    t.keys("C-s")


def _turns(screen: str) -> int:
    """The last turn the screen's turn log shows (0 before the first)."""
    return max([0, *(int(n) for n in re.findall(r"\bt\s+(\d+) r\d", screen))])


def _asked(screen: str) -> bool:
    return bool(re.search(r", choose a partner", screen)) or "Accept (a)" in screen


def play_until_over(panes: dict[str, Tmux], deadline: float, stop_after_turn: int | None = None,
                    stop_when_asked: str | None = None) -> int:
    """Each person decides when their screen asks them (passing, refusing offers), one decision at a time:
    after each, the turn it ends is waited for on the deciding person's screen before anyone else is asked,
    so a slow terminal never lets the game run past `stop_after_turn`.  The turns played."""
    played = 0
    while time.monotonic() < deadline:
        screens = {name: t.capture() for name, t in panes.items()}
        played = max([played, *(_turns(screen) for screen in screens.values())])
        if stop_after_turn is not None and played >= stop_after_turn:
            return played
        if stop_when_asked is not None and _asked(screens[stop_when_asked]):
            return played
        if all("your game as" in screen for screen in screens.values()):
            return played
        for name, screen in screens.items():
            t = panes[name]
            if "your game as" in screen:
                continue
            if re.search(r", choose a partner", screen):
                t.keys("x")
                t.wait_gone(r", choose a partner", timeout=20, step=f"{name} passed")
            elif "Accept (a)" in screen:
                t.keys("x")
                t.wait_gone(r"Accept \(a\)", timeout=20, step=f"{name} refused")
            else:
                continue
            wait_until(lambda t=t, before=played: _turns(t.capture()) > before or "your game as" in t.capture(), 30,
                       f"{name}'s decision ending turn {played + 1} on their screen")
            break
        else:
            time.sleep(0.2)
    raise Failure(f"the game did not end in time (turn {played})")


def wait_until(cond, seconds: float, what: str) -> None:
    end = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > end:
            raise Failure(f"not seen in {seconds:g} s: {what}")
        time.sleep(0.1)


def run(data: Path) -> None:
    negtui = negtui_command()
    server_dir = data / "server"
    (data / "course.toml").write_text(COURSE)
    for name in PEOPLE:
        enrol(name, data)
    server, port = start_server(data / "course.toml", "class3", data)
    panes: dict[str, Tmux] = {}
    try:
        for name in PEOPLE:
            panes[name] = login(name, port, data)
        alice, bob, carol = (panes[n] for n in PEOPLE)
        sit(alice, "alice", first=True)
        show("alice at a new table", alice.wait_for("waiting for every", step="alice seated"))
        sit(bob, "bob", first=False)
        bob.wait_for("waiting for every", "alice", step="bob seated, alice listed")
        alice.keys("m")
        alice.wait_for("enter sends it", step="alice's message dialog")
        alice.keys("hello table, let us talk before we commit", "Enter")
        show("bob reads alice", bob.wait_for("hello table, let us talk", step="bob receives the message"))
        sit(carol, "carol", first=False)
        show("carol sits: the game starts", carol.wait_for("hello table, let us talk", r"turn \d+/\d+",
                                                           step="carol seated, the message in her pane"))
        played = play_until_over(panes, time.monotonic() + 120, stop_when_asked="carol")
        show("carol asked", carol.capture())
        carol.close()  # the connection drops mid-game, at a decision of hers
        del panes["carol"]
        from negtui.classroom.db import ResultsDB

        with ResultsDB.open(server_dir) as db:  # the trainer's console, b: a message to the whole class
            db.classroom.notice("ten minutes left in this round")
        alice.keys("6")  # the table pane: who sits where, who is online, the trainer's messages
        show("carol away", alice.wait_for(r"carol ○ away", "ten minutes left in this round",
                                          step="carol shown away, the trainer's message on the table pane",
                                          timeout=30))
        time.sleep(AWAY)  # her decision's time passes while she is away: the table waits for her, no clock runs
        panes["carol"] = carol = login("carol", port, data, tag="-again")
        carol.wait_for("back to your table", step="carol's lobby offers her seat back")
        carol.keys("Home", "Enter")
        show("carol back", carol.wait_for(r"turn \d+/\d+", "hello table, let us talk", step="carol back at the table"))
        alice.wait_for(r"carol ● online", step="carol shown online again")
        played = play_until_over(panes, time.monotonic() + 240)
        for name, t in panes.items():
            show(f"{name}'s debrief", t.wait_for("your game as", step=f"{name}'s debrief"))
            t.keys("Escape")
            t.wait_for("A class of three", "ten minutes left in this round",
                       step=f"{name} back in the lobby, the trainer's message kept there")
            t.keys("q")
            t.wait_for(EXIT_MARK + "0", step=f"{name}'s ssh ended")
        res = subprocess.run([*negtui, "results", "--json", "--data-dir", str(server_dir)], check=True,
                             capture_output=True, text=True)
        finished = [r for r in json.loads(res.stdout) if r["status"] == "finished"]
        if sorted(r["trainee"] for r in finished) != sorted(PEOPLE) or len({r["table"] for r in finished}) != 1:
            raise Failure(f"the results do not hold the table's game for each: {finished}")
        record = finished[0]["record_path"]
        verify = subprocess.run([*negtui, "replay", record, "--verify", "--key", str(server_dir / "record.key")],
                                capture_output=True, text=True)
        if verify.returncode != 0:
            raise Failure(f"the record does not verify: {verify.stdout}{verify.stderr}")
        from negtui.record import load_record

        rec = load_record(record)
        seat = next(r["seat"] for r in finished if r["trainee"] == "carol")
        timed_out = [t.t + 1 for t in rec.turns if t.fault == "time ran out" and t.decided_by.startswith(f"{seat} ")]
        if timed_out:
            raise Failure(f"carol's decisions timed out (turns {timed_out}) though the table waits for her")
        said = [m.text for m in rec.messages]
        if said != ["hello table, let us talk before we commit"]:
            raise Failure(f"the record's messages: {said}")
        print(f"record verified: {Path(record).name}, {played} turns, messages {said}")
        print("OK: three trainees at one table over ssh, a message, a drop and a return, nothing lost")
    finally:
        for t in panes.values():
            t.close()
        stop(server)


def main() -> int:
    return script_main(lambda data, _options: run(data), __doc__.splitlines()[0], "negtui-class-")


if __name__ == "__main__":
    sys.exit(main())
