"""A table in this process (its own event loop in a thread) and people at it as plain socket clients, so
the table's rules are tested without an app; tests/tui/test_table_screen.py puts the app at one. Every wait
here is for a state (a socket listening, a line from the table, the table's thread ended) and fails naming
it after a generous deadline."""

from __future__ import annotations

import asyncio
import queue
import socket
import threading
import time
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

from negtui.engine import compile_game, get_rules
from negtui.engine.portable import PortableGame
from negtui.record.signing import KEY_FILE, data_dir_key
from negtui.scenario import load_scenario
from negtui.seats import Seat
from negtui.table.client import TableClient
from negtui.table.host import TableHost
from negtui.table.spec import TableSpec
from tests.paths import COALITION_TRAP


def listening(path: Path) -> bool:
    """Whether a table accepts connections at `path` (its socket file appears as it is bound, a moment
    before it listens)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True


class Running:
    """A table served in a thread until the test ends."""

    def __init__(self, host: TableHost, path: Path) -> None:
        self.host, self.path = host, path
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not listening(path):
            assert time.monotonic() < deadline, f"the table never listened at {path}"
            time.sleep(0.01)

    def _run(self) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            await self.host.run()

        asyncio.run(main())

    def call(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run `fn` on the table's loop (the trainer's steering)."""
        assert self.loop is not None
        self.loop.call_soon_threadsafe(fn, *args)

    def stop(self) -> None:
        """End the table (if it has not ended) and wait for its thread: its record is then complete."""
        if self.thread.is_alive():
            try:
                self.call(self.host.end, "the test is over")
            except RuntimeError:  # the table ended meanwhile and its loop has closed: only the thread is left
                pass
            self.thread.join(60)
            assert not self.thread.is_alive(), "the table did not close within 60 s of being ended"


class FakeClock:
    """A table's clock the test moves on: an hour passes in a call, and nothing else moves it."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Person:
    """A client that collects everything the table says, in a queue read by `expect`."""

    def __init__(self, path: Path, name: str | None, seat: str | None = None, watch: bool = False) -> None:
        self.client = TableClient(path)
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        self.client.send({"type": "join", "watch": True} if watch else {"type": "join", "name": name, "seat": seat})
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                line = self.client.receive()
            except OSError:
                line = None
            self.lines.put(line)
            if line is None:
                return

    def expect(self, kind: str, where: Callable[[dict[str, Any]], bool] = lambda m: True,
               timeout: float = 30.0) -> dict[str, Any]:
        """The next line of this type that passes `where` (the lines before it are kept in `seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind!r} line within {timeout} s; saw {[m['type'] for m in self.seen[-12:]]}"
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            assert line is not None or kind == "eof", f"the table closed the connection waiting for {kind!r}"
            if line is None:
                return {"type": "eof"}
            self.seen.append(line)
            if line["type"] == kind and where(line):
                return line

    def send(self, message: dict[str, Any]) -> None:
        self.client.send(message)

    def close(self) -> None:
        self.client.close()


def table_spec(tmp: Path, people: tuple[str, ...] = ("A", "B"), scenario: Path = COALITION_TRAP,
               **policy: Any) -> TableSpec:
    sc = load_scenario(scenario)
    rules = get_rules("paper")
    game = compile_game(sc, rules)
    seats = {pid: Seat.human() if pid in people else Seat.lens("upper", seed=i)
             for i, pid in enumerate(sc.player_ids)}
    data_dir_key(tmp)
    return TableSpec(title="test table", game=PortableGame.of(game, rules).as_dict(), seats=seats,
                     record=str(tmp / "table.jsonl"), key_file=str(tmp / KEY_FILE), **policy)


@pytest.fixture
def open_table(tmp_path: Path) -> Generator[Callable[..., Running]]:
    """open_table(spec=None, clock=time.monotonic, **policy): a running table; people join it with
    `Person(table.path, name)`; `clock` is the table's (a `FakeClock` moves it on at once)."""
    running: list[Running] = []

    def start(spec: TableSpec | None = None, clock: Callable[[], float] = time.monotonic, **policy: Any) -> Running:
        path = tmp_path / f"t{len(running)}.sock"
        table = Running(TableHost(spec or table_spec(tmp_path, **policy), path, clock=clock), path)
        running.append(table)
        return table

    yield start
    for table in running:
        table.stop()


@pytest.fixture
def person() -> Generator[Callable[..., Person]]:
    made: list[Person] = []

    def join(path: Path, name: str | None, seat: str | None = None, watch: bool = False) -> Person:
        p = Person(path, name, seat, watch)
        made.append(p)
        return p

    yield join
    for p in made:
        p.close()
