"""A class on `negtui serve`: trainees negotiating with each other at tables, each table a process of its
own and every trainee's app its client: key-to-screen latency, CPU and memory, and that every game's
results, record and messages are there.

    .venv/bin/python bench/bench_class.py [--tables 8] [--people 5] [--think 2] [--ramp 40] [--keep]
                                          [--information private] [--game-time S] [--web N]

Starts `negtui serve` on a free loopback port with a one-exercise course: the six-party generated game
(`generated-N6-J10-cooperative-positive-seed7`, 24 turns) played by `--people` trainees at a table, a
bot (upper, greedy partner) in any seat left; a table still short of people after 180 s starts with
bots. `--tables` times `--people` trainees log in with asyncssh's client over `--ramp` seconds; one in
each group opens a table (ctrl+n), the others sit down at the first table with a free seat. At the table each
trainee, before every key, reads the screen for `--think` seconds on average (0.5 to 1.5 times it, the
same draws every run): on their first turn to propose they close the partner dialog, say hello to the
table (`m`), reopen it (`p`) and pass (`x`); later they pass, and they answer the bot's offers,
accepting every other one. At the end they read the debrief and quit.

With `--information private` every seat knows only its own values (confidential roles) and the end reveals
them; with `--game-time S` each table's round ends by its clock after S seconds (paused time not counted),
as it stands, if its turns have not run out first: a timed confidential role-play, the standard exercise.
Every trainee must see the end (the debrief) either way.

With `--web N`, N of the trainees (every other one, so the tables mix both) come in through the browser door
(`negtui serve --web`) instead: each follows its invite link (the join form, its cookie) and speaks the
websocket protocol textual-serve's browser client speaks; no browser is needed for the load.  Latency and the
CPU of the trainees' apps are then reported for each door side by side.

Key-to-screen latency is the time from a key leaving the client to the first screen update coming back.
Memory is the proportional set size of the server and everything it started (fork server, apps, table
processes, bots), at its peak, per trainee; CPU is every process's user and system time, summed."""

from __future__ import annotations

import argparse
import asyncio
import codecs
import collections
import contextlib
import json
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import asyncssh
from bench_serve import Sampler, Terminal, free_port, start_class  # one server set-up, client and sampler for all

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = "generated-N6-J10-cooperative-positive-seed7"
COURSE = """\
name = "bench-class"
title = "A class at tables"

[[exercises]]
id = "six"
title = "Six parties"
scenario = "{scenario}"
humans = {people}
bots = "upper"
partner = "greedy"
wait = 180
information = "{information}"
{game_time}"""
T = TypeVar("T")
TURN = re.compile(r"turn (\d+)/\d+")  # the headline's turn counter
ESCAPE_GAP = 0.3  # seconds after an escape before the next key (a person never types faster)
# what a trainee's screen shows when it is their move, and at the end
PROPOSE, ANSWER, OVER = "choose a partner", "Accept (a)", "your game as"


async def drawn_until(term: Terminal, find: Callable[[str], T | None], what: str, timeout: float) -> T:
    """What `find` makes of the screen drawn since the last mark, once it makes something of it."""
    deadline = time.monotonic() + timeout
    while True:
        got = find("".join(term.chunks))
        if got is not None:
            return got
        if term.closed.is_set() or time.monotonic() > deadline:
            raise TimeoutError(f"{what} did not appear")
        term.received.clear()
        try:
            await asyncio.wait_for(term.received.wait(), max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            pass


async def look(term: Terminal, texts: tuple[str, ...], timeout: float) -> str:
    """The first of `texts` drawn since the last mark."""
    def first(drawn: str) -> str | None:
        found = [(drawn.find(t), t) for t in texts if t in drawn]
        return min(found)[1] if found else None

    return await drawn_until(term, first, f"none of {texts}", timeout)


async def turn_after(term: Terminal, turn: int, timeout: float = 120) -> int | None:
    """The first headline of a turn after `turn` drawn since the last mark, what was drawn before it
    forgotten; None when the game's end came first."""
    def later(drawn: str) -> tuple[int | None] | None:
        at = drawn.find(OVER)
        m = next((m for m in TURN.finditer(drawn) if int(m.group(1)) > turn and (at < 0 or m.start() < at)), None)
        if m is not None:
            term.chunks = [drawn[m.start():]]
            return (int(m.group(1)),)
        return (None,) if at >= 0 else None

    return (await drawn_until(term, later, f"a turn after {turn}", timeout))[0]


class WebTerminal(Terminal):
    """A trainee in a browser, as textual-serve's client speaks to the browser door (no browser: its websocket
    frames): the screen comes as binary frames, keys go as `["stdin", KEYS]`."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        super().__init__()
        self.ws = ws
        self.decode = codecs.getincrementaldecoder("utf-8")("replace").decode
        self.reader = asyncio.ensure_future(self._read())
        self.sending: set[asyncio.Future] = set()

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.data_received(self.decode(message.data), None)
        self.connection_lost(None)

    def write(self, keys: str) -> None:
        self.sending.add(task := asyncio.ensure_future(self.ws.send_str(json.dumps(["stdin", keys]))))
        task.add_done_callback(self.sending.discard)


@contextlib.asynccontextmanager
async def connected(k: int, port: int, key: asyncssh.SSHKey, web: str | None) -> AsyncIterator[tuple[Any, Terminal]]:
    """Trainee k's screen and what their keys are written to: over SSH, or (`web`: the door's address) a
    browser's websocket, signed in with the trainee's invite link as a browser would be."""
    if web is None:
        async with asyncssh.connect("127.0.0.1", port, username=f"t{k}", client_keys=[key], known_hosts=None,
                                    agent_path=None) as conn:
            yield await conn.create_session(Terminal, term_type="xterm-256color", term_size=(120, 36))
        return
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.post(f"{web}/join/t{k}/{CODES[k]}", headers={"Origin": web}, allow_redirects=False) as res:
            if res.status != 303:
                raise RuntimeError(f"t{k}'s invite link: {res.status}")
        async with http.ws_connect(f"{web.replace('http:', 'ws:')}/ws?width=120&height=36",
                                   headers={"Origin": web}) as ws:
            term = WebTerminal(ws)
            yield term, term


CODES: dict[int, str] = {}  # the web trainees' invite codes


async def trainee(k: int, port: int, key: asyncssh.SSHKey, delay: float, opener: bool, think: float,
                  out: dict, web: str | None = None) -> None:
    rng = random.Random(k)
    await asyncio.sleep(delay)
    door = "web" if web else "ssh"
    async with connected(k, port, key, web) as (chan, term):
        await term.wait_for("Six parties")

        async def press(keys: str, expect: str | None = None, what: str = "", *, at_once: bool = False,
                        playing: bool = True) -> None:
            await asyncio.sleep(0.1 if at_once or not think else rng.uniform(0.5, 1.5) * think)
            if playing and OVER in "".join(term.chunks):  # the round's clock ended the game as they read
                raise RoundOver
            term.mark()
            term.received.clear()
            sent = time.monotonic()
            chan.write(keys)
            await asyncio.wait_for(term.received.wait(), 120)
            lag = time.monotonic() - sent
            out["latency"].append(lag)
            out["door_latency"][door].append(lag)
            out["by_key"].setdefault(what or expect or repr(keys), []).append(lag)
            if expect is not None and await look(term, (expect, OVER) if playing else (expect,), 180) == OVER:
                raise RoundOver  # the round's clock (or the trainer) ended the game under this key
            if keys == "\x1b":  # an escape the app reads together with the next key is one alt+key to it
                await asyncio.sleep(ESCAPE_GAP)

        for _ in range(20):  # a seat another trainee took a moment before is refused: look again
            await press("\r", "Sit down (ctrl+s)", "the table picker")
            if opener:  # ctrl+n: a new table, whatever the list holds
                await press("\x0e", None, "sit down")
            else:  # a table with a seat for me, taken before someone else does
                await term.wait_for("free", timeout=300)
                await press("\x13", None, "sit down", at_once=True)
            seated = await look(term, ("waiting for every", "could not sit down", "turn 1/"), 120)
            if "could not" not in seated:
                break
            await asyncio.sleep(rng.uniform(0.5, 2.0))
        else:
            raise RuntimeError(f"t{k} found no seat")
        try:
            await play_on(press, term, k, chan, out["sent"])
        except RoundOver:
            pass
        await term.wait_for("upper bot in your seat", timeout=300)
        out["saw_end"] += 1
        await press("\x1b", "Six parties", "close the debrief", playing=False)
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 60)
        out["done"] += 1


def quantile(values: list[float], q: float) -> float:
    """The q-quantile of sorted seconds, in milliseconds."""
    return values[min(len(values) - 1, int(q * len(values)))] * 1000 if values else float("nan")


class RoundOver(Exception):
    """The game ended while a trainee was in the middle of something (a timed round runs out at any key)."""


async def play_on(press: Callable, term: Terminal, k: int, chan: asyncssh.SSHClientChannel,
                  sent: list[int]) -> None:
    """A trainee's moves until the game is over: pass, answer every other offer with yes, say hello once (and
    note it in `sent`: a round's clock may end the game first)."""
    said = answered = 0
    turn = 1  # the turn the headline last showed
    while True:  # each key marks the screen before it goes: what is looked at next came after it
        seen = await look(term, (PROPOSE, ANSWER, OVER), 900)
        if seen == OVER:
            break
        if seen == ANSWER:
            turn = max([int(n) for n in TURN.findall("".join(term.chunks))] + [turn])
            await press("a" if answered % 2 == 0 else "x", None, "answer an offer")
            answered += 1
            # an answer ends the turn; the dialog may be drawn once more as it goes, so read on only from
            # a later turn's headline (or the end)
            later = await turn_after(term, turn)
            if later is None:
                break
            turn = later
            continue
        if not said:
            await press("\x1b", None, "close the partner dialog")
            await press("m", "enter sends it", "open the message dialog")
            chan.write(f"hello from t{k}")
            await press("\r", None, "send a message")  # the records say whether it arrived
            said = 1
            sent.append(k)
            await press("p", PROPOSE, "reopen the partner dialog")
        await press("x", None, "pass the turn")


async def main_async(args) -> int:
    from negtui.classroom.db import ResultsDB
    from negtui.record import Replay, load_record

    data = Path(tempfile.mkdtemp(prefix="negtui-bench-class-"))
    course = data / "course.toml"
    course.write_text(COURSE.format(scenario=SCENARIO, people=args.people, information=args.information,
                                    game_time=f"game_time = {args.game_time:g}\n" if args.game_time else ""))
    n = args.tables * args.people
    web_port = free_port() if args.web else None
    server, port, keys = start_class(course, data, n, web_port)
    on_web = set(range(0, n, 2)[:args.web]) | set(range(1, n, 2)[:max(0, args.web - (n + 1) // 2)])
    if on_web:  # every other trainee (so every table has both), their invites made as a trainer makes them
        with ResultsDB.open(data) as db:
            CODES.update((int(i.trainee[1:]), i.code) for i in db.invites.issue([f"t{k}" for k in sorted(on_web)],
                                                                                 3600))
    web = f"http://127.0.0.1:{web_port}"
    out: dict = {"latency": [], "by_key": {}, "done": 0, "saw_end": 0, "sent": [],
                 "door_latency": {"ssh": [], "web": []}}
    sampler = Sampler(server.pid)
    started = time.monotonic()
    # the groups spread over the ramp, each opener a few seconds before the others, who sit at the first
    # table with a free seat
    gap = args.ramp / max(1, args.tables)
    starts = [(gap * (k // args.people) + (0 if k % args.people == 0 else 3 + 2 * args.think + 0.3 * (k % args.people)),
               k % args.people == 0) for k in range(n)]
    results = await asyncio.gather(*(trainee(k, port, keys[k], starts[k][0], starts[k][1], args.think, out,
                                             web if k in on_web else None) for k in range(n)), return_exceptions=True)
    wall = time.monotonic() - started
    peak, cpu = sampler.stop()
    server.terminate()
    server.wait(timeout=60)
    failures = [r for r in results if isinstance(r, BaseException)]
    with ResultsDB.open(data) as db:
        rows = [r for r in db.results() if r["status"] == "finished"]
        tables = [t for t in db.tables.recent("bench-class")]
    records = {t.record_path for t in tables if t.record_path}
    complete = said = 0
    for path in records:
        rec = load_record(path)
        complete += Replay(rec).record.complete
        said += len(rec.messages)
    lat = sorted(out["latency"])
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000 if lat else float("nan")  # noqa: E731
    timed = f", {args.game_time:g} s a round" if args.game_time else ""
    print(f"negtui serve, a class of {n}: {args.tables} tables of {args.people} people ({SCENARIO}, 24 turns, "
          f"{args.information} information{timed}), logins over {args.ramp:g} s, {args.think:g} s to read each "
          f"screen (0.5-1.5x), {os.cpu_count()} cores")
    print(f"  trainees completed     {out['done']}/{n} in {wall:.1f} s" + (f"; failures: {failures[:3]}" if failures
                                                                         else ""))
    print(f"  saw the end            {out['saw_end']}/{n} (the debrief on their screen)")
    print(f"  key-to-screen          median {p(0.5):.0f} ms, p99 {p(0.99):.0f} ms, max {lat[-1] * 1000:.0f} ms "
          f"over {len(lat)} keys" if lat else "  no keys measured")
    for what, values in out["by_key"].items():
        values.sort()
        print(f"    {what:<28} median {statistics.median(values) * 1000:5.0f} ms, max {values[-1] * 1000:5.0f} ms "
              f"({len(values)})")
    print(f"  memory per trainee     {peak / max(1, n) / 2**20:.0f} MiB (peak {peak / 2**30:.2f} GiB for all)")
    print(f"  CPU per trainee        {cpu / max(1, n):.2f} s (server, apps, tables and bots, sampled every 0.25 s; "
          f"{cpu:.0f} s in all over {wall:.0f} s of {os.cpu_count()} cores)")
    doors = {"ssh": n - len(on_web), "web": len(on_web)}
    for door, count in doors.items():
        if not count:
            continue
        lags = sorted(out["door_latency"][door])
        apps = sampler.apps[door]
        spread = f" (sd {statistics.stdev(apps):.2f} s over {len(apps)} apps)" if len(apps) > 1 else ""
        print(f"  {door} trainees {count:>3}        key-to-screen median {quantile(lags, 0.5):.0f} ms, p99 "
              f"{quantile(lags, 0.99):.0f} ms over {len(lags)} keys; their app's CPU "
              f"{sampler.by_door.get(door, 0.0) / count:.2f} s each{spread}")
    if all(doors.values()):
        each = {door: sampler.by_door.get(door, 0.0) / count for door, count in doors.items()}
        ratio = each["web"] / max(1e-9, each["ssh"])
        print(f"  a web trainee's app costs {ratio:.2f}x an SSH trainee's (the server's own CPU, "
              f"{sampler.by_door.get('server', 0.0):.0f} s with tables and bots, serves both doors)")
    ended = collections.Counter(t.ending or "not over" for t in tables)
    endings = ", ".join(f"{k} {v}" for k, v in sorted(ended.items()))
    print(f"  results rows finished  {len(rows)}; tables {len(tables)}, complete records {complete}, "
          f"messages kept {said} of {len(out['sent'])} sent; games ended by {endings}")
    ok = (out["done"] == out["saw_end"] == n and len(rows) == n
          and complete == args.tables == len(records) == len(tables) and said == len(out["sent"])
          and (args.game_time is not None or said == n))
    print("nothing lost" if ok else "SOMETHING IS MISSING")
    if args.keep:
        print(f"data kept in {data}")
    else:
        shutil.rmtree(data, ignore_errors=True)
    json.dump({"trainees": n, "web": len(on_web), "cpu_by_door": sampler.by_door,
               "p99_ms_by_door": {d: quantile(sorted(v), 0.99) for d, v in out["door_latency"].items()},
               "think": args.think, "information": args.information, "game_time": args.game_time,
               "saw_end": out["saw_end"], "wall": wall, "median_ms": p(0.5), "p99_ms": p(0.99),
               "mib_per_trainee": peak / max(1, n) / 2**20, "cpu_per_trainee": cpu / max(1, n), "ok": ok},
              sys.stderr)
    sys.stderr.write("\n")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--people", type=int, default=5, help="trainees per table (at most 6)")
    parser.add_argument("--think", type=float, default=2.0, help="mean seconds a trainee reads before a key")
    parser.add_argument("--ramp", type=float, default=40.0, help="seconds over which the class logs in")
    parser.add_argument("--keep", action="store_true", help="keep the data directory")
    parser.add_argument("--information", choices=("public", "private"), default="public",
                        help="private: confidential roles, each seat knows its own values only")
    parser.add_argument("--web", type=int, default=0, metavar="N",
                        help="N of the trainees come through the browser door's websocket (every other one)")
    parser.add_argument("--game-time", type=float, default=None, metavar="S",
                        help="seconds a table's round lasts before its clock ends it (default: no clock)")
    args = parser.parse_args()
    if not 1 <= args.people <= 6 or args.tables < 1:
        parser.error("--people 1..6 and --tables ≥ 1")
    if not 0 <= args.web <= args.tables * args.people:
        parser.error("--web is at most the number of trainees (--tables × --people)")
    if args.game_time is not None and args.game_time <= 0:
        parser.error("--game-time is a number of seconds above 0")
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
