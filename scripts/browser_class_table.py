#!/usr/bin/env python3
"""A class enrolled from one roster, half of it in a browser: the trainer invites everyone with one command
(`negtui trainees invite --roster … --csv`), serves the course with the browser door (`--web`), and each
table of the poison pill seats one trainee who comes in over SSH (OpenSSH's client in tmux, typing the
invite code at the enrolment screen to enrol their new key) and one who follows the invite's web link in
Debian's headless chromium (driven over the DevTools protocol: the join button clicked, keys typed into the
terminal).  Both play to the debrief; the results and the gradebook then list every trainee, each table's
game filed for both of its people.

    python scripts/browser_class_table.py              # one table: exit status 0 when everything was seen
    python scripts/browser_class_table.py --pairs 2    # two mixed tables (four trainees)
    python scripts/browser_class_table.py --keep       # keep the data directory (and the screenshots in it)
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cdp import Browser, Page
from tmux_full_game import Failure, Tmux, negtui_command, show
from tmux_serve_game import SSH_TOOLS, free_port, script_main, stop

COURSE = """\
name = "door"
title = "A class at the door"

[[exercises]]
id = "pill"
title = "The poison pill, in pairs"
scenario = "poison-pill"
humans = ["A", "B"]
"""
OVER = "your game as"


class Person:
    """A trainee's screen, over SSH (tmux) or in the browser (a page), read and typed into alike."""

    def __init__(self, name: str, tmux: Tmux | None = None, page: Page | None = None) -> None:
        self.name, self.tmux, self.page = name, tmux, page

    def shown(self) -> str:
        return self.tmux.capture() if self.tmux is not None else self.page.text()  # type: ignore[union-attr]

    async def keys(self, *keys: str) -> None:
        if self.tmux is not None:
            self.tmux.keys(*keys)
        else:
            assert self.page is not None
            await self.page.keys(*keys)

    async def wait_for(self, *patterns: str, timeout: float = 60, step: str = "") -> str:
        deadline = time.monotonic() + timeout
        while True:
            shown = self.shown()
            if all(re.search(p, shown) for p in patterns):
                return shown
            if time.monotonic() > deadline:
                raise Failure(f"{step or patterns}: not on {self.name}'s screen in {timeout:g} s:\n{shown}")
            await asyncio.sleep(0.2)


def ssh_login(name: str, key: Path, port: int, data: Path) -> Tmux:
    return Tmux(name, ["ssh", "-tt", "-p", str(port), "-i", str(key), "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
                       "-o", "StrictHostKeyChecking=no", "-o", f"UserKnownHostsFile={data / 'known_hosts'}",
                       "-o", "LogLevel=ERROR", f"{name}@127.0.0.1"], 120, 40)


async def play_until_over(people: list[Person], deadline: float) -> None:
    """Each person passes when asked to propose and refuses any offer, until every screen shows the debrief."""
    while time.monotonic() < deadline:
        screens = {p.name: p.shown() for p in people}
        if all(OVER in s for s in screens.values()):
            return
        acted = False
        for p in people:
            s = screens[p.name]
            if OVER in s:
                continue
            if re.search(r", choose a partner", s) or "Accept (a)" in s:
                await p.keys("x")
                gone = r", choose a partner" if "choose a partner" in s else r"Accept \(a\)"
                end = time.monotonic() + 20
                while re.search(gone, p.shown()) and OVER not in p.shown() and time.monotonic() < end:
                    await asyncio.sleep(0.1)
                acted = True
        if not acted:
            await asyncio.sleep(0.2)
    raise Failure("the game did not end in time: " + "; ".join(f"{p.name}: {p.shown()[-300:]}" for p in people))


async def run(data: Path, pairs: int) -> None:
    negtui = negtui_command()
    server_dir, course = data / "server", data / "course.toml"
    course.write_text(COURSE)
    ssh_port, web_port = free_port(), free_port()
    base = f"http://127.0.0.1:{web_port}"
    names = [(f"s{k}", f"w{k}") for k in range(1, pairs + 1)]
    roster = data / "roster.csv"
    roster.write_text("trainee,exercise,table,seat\n" + "".join(
        f"{s},pill,t{k},A\n{w},pill,t{k},B\n" for k, (s, w) in enumerate(names, 1)))
    res = subprocess.run([*negtui, "trainees", "invite", "--roster", str(roster), "--base-url", base, "--csv",
                          "--data-dir", str(server_dir)], capture_output=True, text=True, check=True)
    invites = {row["trainee"]: row for row in csv.DictReader(io.StringIO(res.stdout))}
    print(f"one roster, one command: {len(invites)} invites; {res.stderr.strip()}")
    print(res.stdout.rstrip())
    server = subprocess.Popen([*negtui, "serve", "--course", str(course), "--data-dir", str(server_dir), "--port",
                               str(ssh_port), "--web", f"127.0.0.1:{web_port}"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    assert server.stdout is not None
    banner = server.stdout.readline()
    if f"browsers at {base}" not in banner:
        stop(server)
        raise Failure(f"the server did not start with its web door: {banner}{server.stdout.read()}")
    print(banner.rstrip())
    panes: list[Tmux] = []
    browser = None
    try:
        browser = await Browser.start()
        people: dict[str, Person] = {}
        for s, w in names:
            key = data / s
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", f"{s}@test", "-f", str(key)],
                           check=True)
            pane = ssh_login(s, key, ssh_port, data)
            panes.append(pane)
            people[s] = p = Person(s, tmux=pane)
            await p.wait_for(f"Welcome, {s}", step=f"{s}'s enrolment screen over ssh")
            await p.keys(invites[s]["code"], "Enter")
            show(f"{s} enrolled over ssh", await p.wait_for("A class at the door", "The poison pill, in pairs",
                                                            step=f"{s}'s lobby"))
            page = await browser.page()
            await page.go(invites[w]["web"])
            if "Join as" not in (await page.evaluate("document.body.innerText") or ""):
                raise Failure(f"{w}'s invite page: {await page.evaluate('document.body.innerText')}")
            await page.click("#join")
            await asyncio.wait_for(page.loaded.wait(), 60)
            people[w] = p = Person(w, page=page)
            show(f"{w} in chromium", await p.wait_for(f"A class at the door · {w}", "The poison pill, in pairs",
                                                      step=f"{w}'s lobby in the browser"))
        for k, (s, w) in enumerate(names, 1):
            host, guest = people[s], people[w]
            await host.keys("Enter")
            await host.wait_for(r"Sit down \(ctrl\+s\)", step=f"{s}'s table picker")
            await host.keys("C-n")
            await host.wait_for("waiting for every", step=f"{s} opens table {k}")
            await guest.keys("Enter")
            await guest.wait_for(r"Sit down \(ctrl\+s\)", "free", step=f"{w}'s table picker, {s}'s table free")
            await guest.keys("C-s")
            show(f"{w} sits down: the game starts", await guest.wait_for(r"turn \d+/\d+", s, step=f"{w} seated"))
        await play_until_over(list(people.values()), time.monotonic() + 240)
        for _, w in names:
            show(f"{w}'s debrief in the browser", people[w].shown())
            shot = data / f"{w}-debrief.png"
            assert people[w].page is not None
            await people[w].page.screenshot(shot)
            print(f"screenshot: {shot} ({shot.stat().st_size} bytes)")
        for p in people.values():
            await p.keys("Escape")
            await p.wait_for("A class at the door", r"1 play", step=f"{p.name} back in the lobby")
            await p.keys("q")
        for p in people.values():
            if p.page is not None:
                await asyncio.wait_for(p.page.closed.wait(), 30)
        res = subprocess.run([*negtui, "results", "--json", "--data-dir", str(server_dir)], check=True,
                             capture_output=True, text=True)
        finished = [r for r in json.loads(res.stdout) if r["status"] == "finished"]
        tables = {r["table"]: sorted(x["trainee"] for x in finished if x["table"] == r["table"]) for r in finished}
        wanted = sorted(sorted(pair) for pair in names)
        if sorted(tables.values()) != wanted:
            raise Failure(f"each table's game is not filed for both its people: {tables}")
        res = subprocess.run([*negtui, "results", "--gradebook", "--course", str(course), "--csv", "--data-dir",
                              str(server_dir)], check=True, capture_output=True, text=True)
        graded = sorted(row["trainee"] for row in csv.DictReader(io.StringIO(res.stdout)))
        if graded != sorted(invites):
            raise Failure(f"the gradebook lists {graded}, not the class {sorted(invites)}")
        print(f"tables: {sorted(tables.values())}; gradebook rows: {graded}")
        print(f"OK: {pairs} mixed table(s), ssh and chromium, played to their debriefs, every trainee graded")
    finally:
        if browser is not None:
            await browser.close()
        for pane in panes:
            pane.close()
        stop(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1, help="mixed tables: one ssh and one browser trainee each")
    return script_main(lambda data, options: asyncio.run(run(data, options.pairs)), parser.description or "",
                       "negtui-door-", SSH_TOOLS + ("chromium",), parser)


if __name__ == "__main__":
    sys.exit(main())
