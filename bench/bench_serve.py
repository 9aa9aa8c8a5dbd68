"""Many trainees at once on `negtui serve`: connect time, key-to-screen latency, memory per session,
and that every game's result row and record are there.

    .venv/bin/python bench/bench_serve.py [--sessions 50] [--ramp 30] [--think 2] [--keep]

Starts `negtui serve` on a free loopback port with the bundled introductory course and one trainee per
session, then connects every session with asyncssh's client (starts spread over `--ramp` seconds, as a
class logging in), and plays the poison pill as B with scripted keys: open the exercise, start, reject
A's bundle, offer A the bait alone, read the debrief, back to the lobby, quit.  Before each key a
trainee reads the screen for `--think` seconds on average (uniformly 0.5 to 1.5 times it, the same
draws on every run); `--think 0` sends each key the moment the screen it waits for appears, a stress
test in which a session is over in seconds and the machine is saturated throughout.

Key-to-screen latency is the time from a key leaving the client to the first screen update coming
back (the app drawing its answer); keys answered by a bot's move (waiting for a process to think) are
measured the same way, since the app redraws at once.  Memory is the proportional set size of the server
and everything it started (the fork server, each session's app, bot processes, welfare solves) at its
peak, divided by the sessions; CPU is every process's user and system time, summed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncssh

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "courses" / "intro.toml"
SETTLE = 0.1  # seconds before a key with --think 0


class Terminal(asyncssh.SSHClientSession):
    """Keeps what the app drew since the last mark, and wakes whoever waits for a text in it (the client
    must cost little: it shares the machine with the server it measures)."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.received = asyncio.Event()
        self.closed = asyncio.Event()
        self.waiting: tuple[str, asyncio.Event] | None = None
        self.tail = ""

    def data_received(self, data: str, datatype) -> None:
        self.received.set()
        self.chunks.append(data)  # kept even once a wait is over: the next wait may be for text in it
        if self.waiting is not None:
            text, found = self.waiting
            window = self.tail + data
            if text in window:
                found.set()
            self.tail = window[-len(text):]

    def connection_lost(self, exc) -> None:
        self.closed.set()

    def mark(self) -> None:
        """Forget what was drawn so far: the next wait_for looks only at what comes after."""
        self.chunks, self.tail = [], ""

    async def wait_for(self, text: str, timeout: float = 180) -> None:
        drawn = "".join(self.chunks)
        if text in drawn:
            return
        self.chunks = [drawn]
        self.tail = drawn[-len(text):]
        found = asyncio.Event()
        self.waiting = (text, found)
        try:
            await asyncio.wait_for(found.wait(), timeout)
        except TimeoutError:
            if os.environ.get("BENCH_DEBUG"):
                print(repr("".join(self.chunks)[-3000:]), file=sys.stderr)
            raise TimeoutError(f"{text!r} did not appear") from None
        finally:
            self.waiting = None


async def session(k: int, port: int, key: asyncssh.SSHKey, delay: float, think: float, out: dict) -> None:
    rng = random.Random(k)
    await asyncio.sleep(delay)
    t0 = time.monotonic()
    async with asyncssh.connect("127.0.0.1", port, username=f"t{k}", client_keys=[key], known_hosts=None,
                                agent_path=None) as conn:
        chan, term = await conn.create_session(Terminal, term_type="xterm-256color", term_size=(100, 32))
        await term.wait_for("The poison pill")
        out["connect"].append(time.monotonic() - t0)
        out["live"] += 1
        out["most_live"] = max(out["most_live"], out["live"])

        async def key_then(keys: str, expect: str) -> None:
            if think:  # a trainee reads the screen (and the coaching) before the next key
                await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
            else:  # at machine speed still after a closing dialog has gone (its text shows before it goes)
                await asyncio.sleep(SETTLE)
            term.mark()
            term.received.clear()
            sent = time.monotonic()
            chan.write(keys)
            await asyncio.wait_for(term.received.wait(), 120)
            out["latency"].append(time.monotonic() - sent)
            out.setdefault("by_key", {}).setdefault(expect, []).append(time.monotonic() - sent)
            await term.wait_for(expect)

        await key_then("\r", "Start (ctrl+s)")
        await key_then("\x13", "A offers B a deal")
        await key_then("x", "choose a partner")
        await key_then("\r", "offer to A")
        await key_then("\r", "B commits bait")  # the cursor starts on your own row: B's bait
        await key_then("\x1b[D", "A · Alice: ")  # left: the same action of the player above (the matrix lists actions)
        await key_then("\r", "; A commits")  # "offer to A: B commits bait; A commits bait" wraps in 40 columns
        await key_then("o", "your game as B")
        await term.wait_for("upper bot in your seat", timeout=180)
        await asyncio.sleep(0.5)
        await key_then("\x1b", "1 play of 3")
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 60)
        out["live"] -= 1
        out["done"] += 1


def descendants(pid: int) -> list[int]:
    """Every process below `pid`."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(children.get(pid, []))
    while todo:
        p = todo.pop()
        found.append(p)
        todo += children.get(p, [])
    return found


def pss(pid: int) -> int:
    """Proportional set size: a page shared by k processes counts 1/k in each, so the sum over the
    server's processes is the memory they use together (resident sizes would count the code every forked
    app shares with the fork server once per app)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_ticks(pid: int) -> tuple[str, int] | None:
    """(start time, user + system ticks) of a process: the start time tells a reused pid apart."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[19], int(fields[11]) + int(fields[12])


def sample(server: int, stop, out) -> None:
    """Peak memory and CPU time of the server and everything below it, sampled in a process of its own:
    reading /proc for a hundred processes takes long enough that, done in the client's event loop, it
    would hold up the screens it is timing."""
    peak = 0
    ticks: dict[tuple[int, str], int] = {}
    names: dict[tuple[int, str], str] = {}
    doors: dict[tuple[int, str], str] = {}  # a trainee's app: "ssh" (on a terminal) or "web" (on pipes)
    by_process = bool(os.environ.get("BENCH_CPU_BY_PROCESS"))
    while not stop.is_set():
        pids = [server, *descendants(server)]
        peak = max(peak, sum(pss(p) for p in pids))
        for p in pids:
            seen = cpu_ticks(p)
            if seen is not None:
                ticks[(p, seen[0])] = seen[1]
                if (p, seen[0]) not in doors:
                    doors[(p, seen[0])] = door_of(p)
                if by_process and (p, seen[0]) not in names:
                    try:
                        names[(p, seen[0])] = Path(f"/proc/{p}/cmdline").read_text().replace("\0", " ")[:90]
                    except OSError:
                        names[(p, seen[0])] = "?"
        stop.wait(0.25)
    out.put((peak, ticks, names, doors))


def door_of(pid: int) -> str:
    """Whose process this is: a trainee's app over SSH (its stdin a terminal), one in a browser (a pipe; both
    forked from the fork server), or the server's own ("server": the server, the fork server, tables, bots)."""
    try:
        parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
        if "negtui.serve.zygote" not in Path(f"/proc/{parent}/cmdline").read_text():
            return "server"
        stdin = os.readlink(f"/proc/{pid}/fd/0")
    except (OSError, IndexError):
        return "server"
    return "web" if stdin.startswith("pipe:") else "ssh"


class Sampler:
    """`sample` run beside the benchmark from now until `stop`, which prints each process's CPU when
    BENCH_CPU_BY_PROCESS is set and gives the peak memory (bytes) and the CPU seconds of them all."""

    def __init__(self, server: int) -> None:
        self._stop = multiprocessing.Event()
        self._out: multiprocessing.Queue = multiprocessing.Queue()
        self._process = multiprocessing.Process(target=sample, args=(server, self._stop, self._out), daemon=True)
        self._process.start()

    def stop(self) -> tuple[int, float]:
        """Also keeps `by_door`: CPU seconds of the trainees' apps over SSH ("ssh"), in browsers ("web"), and of
        the rest ("server")."""
        self._stop.set()
        peak, ticks, names, doors = self._out.get(timeout=60)
        self._process.join(timeout=10)
        tick = os.sysconf("SC_CLK_TCK")
        for k, name in names.items():
            print(f"    {ticks[k] / tick:6.2f} s  {k[0]} {name}")
        self.by_door: dict[str, float] = {}
        self.apps: dict[str, list[float]] = {"ssh": [], "web": []}  # each app's CPU seconds, by door
        for k, used in ticks.items():
            door = doors.get(k, "server")
            self.by_door[door] = self.by_door.get(door, 0.0) + used / tick
            if door in self.apps:
                self.apps[door].append(used / tick)
        return peak, sum(ticks.values()) / tick


def _ends_with_us() -> None:
    """In the server's process before it runs: SIGTERM when this benchmark ends, however it ends (a smoke
    run killed at its timeout left its server listening)."""
    if sys.platform == "linux":
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_class(course: Path, data: Path, trainees: int,
                web_port: int | None = None) -> tuple[subprocess.Popen, int, list[asyncssh.SSHKey]]:
    """`negtui serve` on a free loopback port with `trainees` trainees t0, t1, … (a key each), once it
    listens: the server, its port and the keys; with `web_port`, its browser door there too."""
    from negtui.classroom.db import ResultsDB

    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(trainees)]
    with ResultsDB.open(data) as db:
        for k, key in enumerate(keys):
            db.add_keys(f"t{k}", [key.export_public_key().decode()], create=True)
    port = free_port()
    negtui = [str(ROOT / ".venv" / "bin" / "negtui")] if (ROOT / ".venv" / "bin" / "negtui").exists() else \
        [sys.executable, "-m", "negtui.cli"]
    server = subprocess.Popen([*negtui, "serve", "--course", str(course), "--data-dir", str(data), "--port", str(port),
                               "--max-sessions", str(trainees + 5),
                               *(["--web", f"127.0.0.1:{web_port}"] if web_port else [])], stdout=subprocess.PIPE,
                              text=True,
                              preexec_fn=_ends_with_us)
    assert server.stdout is not None
    server.stdout.readline()  # the banner: it listens
    return server, port, keys


async def main_async(args) -> int:
    from negtui.classroom.db import ResultsDB

    data = Path(tempfile.mkdtemp(prefix="negtui-bench-serve-"))
    server, port, keys = start_class(COURSE, data, args.sessions)
    out: dict = {"connect": [], "latency": [], "done": 0, "live": 0, "most_live": 0}
    sampler = Sampler(server.pid)
    started = time.monotonic()
    results = await asyncio.gather(*(session(k, port, keys[k], args.ramp * k / max(1, args.sessions), args.think, out)
                                     for k in range(args.sessions)), return_exceptions=True)
    wall = time.monotonic() - started
    peak, cpu = sampler.stop()
    server.terminate()
    server.wait(timeout=30)
    failures = [r for r in results if isinstance(r, BaseException)]
    with ResultsDB.open(data) as db:
        rows = [r for r in db.results() if r["status"] == "finished"]
    records_ok = 0
    from negtui.record import Replay, load_record

    for r in rows:
        rp = Replay(load_record(r["record_path"]))
        records_ok += rp.record.complete
    lat = sorted(out["latency"])
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000 if lat else float("nan")  # noqa: E731
    print(f"negtui serve, {args.sessions} sessions over loopback, starts spread over {args.ramp:g} s, "
          f"{args.think:g} s to read each screen (0.5-1.5x), {os.cpu_count()} cores")
    print(f"  sessions completed     {out['done']}/{args.sessions} in {wall:.1f} s"
          + (f"; failures: {failures[:3]}" if failures else ""))
    print(f"  sessions at once       at most {out['most_live']}")
    print(f"  connect to lobby       median {statistics.median(out['connect']):.2f} s, "
          f"max {max(out['connect']):.2f} s" if out["connect"] else "  connect: none")
    print(f"  key-to-screen          median {p(0.5):.0f} ms, p99 {p(0.99):.0f} ms, max {lat[-1] * 1000:.0f} ms "
          f"over {len(lat)} keys" if lat else "  no keys measured")
    for what, values in out.get("by_key", {}).items():
        values.sort()
        print(f"    until {what!r:<22} median {statistics.median(values) * 1000:5.0f} ms, "
              f"max {values[-1] * 1000:5.0f} ms")
    print(f"  memory per session     {peak / max(1, args.sessions) / 2**20:.0f} MiB (peak {peak / 2**30:.2f} GiB "
          f"for all)")
    print(f"  CPU per session        {cpu / max(1, args.sessions):.2f} s (server, apps, bots and solves, sampled "
          f"every 0.25 s; {cpu:.0f} s in all over {wall:.0f} s of {os.cpu_count()} cores)")
    print(f"  results rows finished  {len(rows)}; complete records {records_ok}")
    ok = out["done"] == args.sessions and len(rows) == args.sessions and records_ok == args.sessions
    print("nothing lost" if ok else "SOMETHING IS MISSING")
    if args.keep:
        print(f"data kept in {data}")
    else:
        shutil.rmtree(data, ignore_errors=True)
    json.dump({"sessions": args.sessions, "think": args.think, "wall": wall, "median_ms": p(0.5), "p99_ms": p(0.99),
               "mib_per_session": peak / max(1, args.sessions) / 2**20, "ok": ok}, sys.stderr)
    sys.stderr.write("\n")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--ramp", type=float, default=30.0, help="seconds over which the sessions start")
    parser.add_argument("--think", type=float, default=2.0,
                        help="mean seconds a trainee reads a screen before the next key (0: keys at machine speed)")
    parser.add_argument("--keep", action="store_true")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
