"""The training server's tables: it opens one process per table when a trainee asks (table_child.py),
keeps count of them, and stops them when it stops.

Trainees' apps ask over the server's own socket (mode 0600, in the server's private folder), one JSON
line per request.  The server answers only the apps it started: the asking process's id, read from
the socket (SO_PEERCRED), must be a session's app, and the trainee is that session's.  A trainee
opens at most one table nobody else has joined yet, and the server at most `max_tables` at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import struct
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from negtui.classroom.dbtypes import DBError, TableRow
from negtui.datadir import private_folder
from negtui.trainee.hub import REQUEST_BYTES

if TYPE_CHECKING:  # the server runs no game: the course is loaded by whoever starts it
    from negtui.classroom.course import LoadedCourse
    from negtui.classroom.db import ResultsDB

READY = "ready"  # what a table's process prints once its socket is open
SOCKET_PATH_MAX = 100  # bytes: a Unix socket's path is at most 107 on Linux
STARTUP = 60.0  # seconds a table's process has to open its socket
STOP_GRACE = 5.0  # seconds a table has to close its record when the server stops
REQUESTS_EVERY = 1.0  # seconds between looks for the tables the trainer asked for


@dataclass
class OpenTable:
    id: int
    exercise: str
    opener: str
    socket: Path
    process: asyncio.subprocess.Process
    done: asyncio.Task[None] | None = field(default=None, repr=False)


class TableKeeper:
    """`who(pid)` names the trainee whose app has that process id (None: not an app of this server)."""

    def __init__(self, data_dir: Path, course_path: Path, course: LoadedCourse,
                 db_call: Callable[[Callable[[ResultsDB], Any]], Awaitable[Any]], who: Callable[[int], str | None], *,
                 max_tables: int = 50, memory: int | None = None, log: Callable[[str], None] | None = None) -> None:
        self.data_dir, self.course_path, self.course = data_dir, course_path, course
        self.db_call, self.who = db_call, who
        self.max_tables, self.memory = max_tables, memory
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.open: dict[int, OpenTable] = {}
        self.folder = data_dir / "tables"
        self._server: asyncio.AbstractServer | None = None
        self._lock = asyncio.Lock()  # one table opened at a time: the limits are checked against the truth

    # --- the apps' requests ----------------------------------------------------------------------------
    async def listen(self, path: str) -> None:
        old = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(self._request, path=path, limit=REQUEST_BYTES)
        finally:
            os.umask(old)

    async def _request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10.0)
            trainee = self.who(_peer_pid(writer))
            answer = await self.answer(trainee, json.loads(line)) if trainee else {
                "ok": False, "why": "only a trainee's app may ask for a table"}
        except (ValueError, TimeoutError, asyncio.LimitOverrunError, OSError):
            answer = {"ok": False, "why": "not a request"}
        with contextlib.suppress(OSError):
            writer.write((json.dumps(answer) + "\n").encode())
            await writer.drain()
            writer.close()

    async def answer(self, trainee: str, request: object) -> dict[str, Any]:
        if not isinstance(request, dict) or request.get("op") != "open":
            return {"ok": False, "why": "the server opens tables, nothing else"}
        exercise = str(request.get("exercise") or "")
        try:
            ex = self.course.exercise(exercise)
        except KeyError as err:
            return {"ok": False, "why": str(err.args[0])}
        if not ex.is_table:
            return {"ok": False, "why": f"{ex.title!r} is played alone, not at a table"}
        async with self._lock:
            for t in [t for t in self.open.values() if t.opener == trainee]:
                row = await self.db_call(partial(_table, table_id=t.id))
                if row is None or row.status != "forming" or any(s.name not in (None, trainee) for s in row.people):
                    continue  # someone else sat down, or it started: no longer an empty table of theirs
                if t.exercise == exercise:
                    return {"ok": True, "table": t.id, "socket": str(t.socket)}  # theirs, still empty
                title = self.course.exercise(t.exercise).title
                return {"ok": False, "why": f"your table of {title!r} (table {t.id}) waits for people: sit at it, "
                                            "or leave it to close (an empty table closes within a minute)"}
            if len(self.open) >= self.max_tables:
                return {"ok": False, "why": f"the server runs {self.max_tables} tables already; join one of them"}
            try:
                t = await self._open(exercise, trainee)
            except (OSError, DBError, TimeoutError) as err:
                return {"ok": False, "why": f"the table could not open: {err}"}
        return {"ok": True, "table": t.id, "socket": str(t.socket)}

    # --- the tables' processes -------------------------------------------------------------------------
    def _socket_path(self, table_id: int) -> Path:
        path = self.folder / f"{table_id}.sock"
        if len(str(path).encode()) > SOCKET_PATH_MAX:
            raise OSError(f"{path}: a socket's path must be under {SOCKET_PATH_MAX} bytes; use a shorter --data-dir")
        return path

    async def serve_requests(self, every: float = REQUESTS_EVERY) -> None:
        """Open the tables the trainer asks for (the console writes its requests into the results database, whose
        file is the trainer's as the server's), each with the seats kept for the trainees named."""
        course = self.course.course.name
        while True:
            try:
                waiting = await self.db_call(lambda db: db.tables.waiting_requests(course))
            except DBError:
                waiting = []
            for r in waiting:
                table_id, why = await self.open_for(r.exercise, f"trainer {r.by}", r.reserved, r.name)
                with contextlib.suppress(DBError):
                    await self.db_call(partial(_answer, request_id=r.id, table_id=table_id, why=why))
            await asyncio.sleep(every)

    async def open_for(self, exercise: str, opener: str, reserved: dict[str, str],
                       name: str | None = None) -> tuple[int | None, str | None]:
        """A table the trainer asked for (called `name`, if given): (its id, None), or (None, why not)."""
        try:
            ex = self.course.exercise(exercise)
        except KeyError as err:
            return None, str(err.args[0])
        if not ex.is_table:
            return None, f"{ex.title!r} is played alone, not at a table"
        people = ex.people_seats(self.course.scenarios[ex.id].player_ids)
        wrong = [pid for pid in reserved if pid not in people]
        if wrong:
            return None, f"{', '.join(wrong)}: not a seat for a person at {ex.title!r}"
        async with self._lock:
            if len(self.open) >= self.max_tables:
                return None, f"the server runs {self.max_tables} tables already"
            try:
                t = await self._open(exercise, opener, reserved, name)
            except (OSError, DBError, TimeoutError) as err:
                return None, f"the table could not open: {err}"
        return t.id, None

    async def _open(self, exercise: str, opener: str, reserved: dict[str, str] | None = None,
                    name: str | None = None) -> OpenTable:
        """The table's process, started; `reserved` (seats kept, maybe none) for a table the trainer asked for."""
        private_folder(self.folder)
        table_id = await self.db_call(lambda db: db.tables.opened(self.course.course.name, exercise, "-", name))
        path = self._socket_path(table_id)
        await self.db_call(lambda db: db.tables.set_socket(table_id, str(path)))
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a socket a killed table left behind
        log = open(self.folder / f"{table_id}.log", "ab")  # noqa: SIM115 (the child holds it)
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-I", "-m", "negtui.serve.table_child", "--data-dir", str(self.data_dir),
                "--course", str(self.course_path), "--exercise", exercise, "--table", str(table_id),
                "--socket", str(path), "--reserve", json.dumps(reserved or {}),
                *(["--by-trainer"] if reserved is not None else []),  # a trainer's table waits for people
                stdout=asyncio.subprocess.PIPE, stderr=log, stdin=asyncio.subprocess.DEVNULL,
                cwd=str(self.data_dir), start_new_session=True)
        finally:
            log.close()
        if self.memory:
            with contextlib.suppress(OSError):
                resource.prlimit(proc.pid, resource.RLIMIT_AS, (self.memory, self.memory))
        assert proc.stdout is not None  # stdout=PIPE
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), STARTUP)
        except TimeoutError:
            line = b""
        if line.strip() != READY.encode():
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            await self.db_call(lambda db: db.tables.closed(table_id, "its process did not start"))
            raise OSError(f"table {table_id}'s process did not start (see {self.folder / f'{table_id}.log'})")
        t = OpenTable(table_id, exercise, opener, path, proc)
        self.open[table_id] = t
        t.done = asyncio.get_running_loop().create_task(self._reap(t))
        self.log(f"table {table_id}{f' ({name})' if name else ''} ({exercise}) opened by {opener}")
        return t

    async def _reap(self, t: OpenTable) -> None:
        code = await t.process.wait()
        self.open.pop(t.id, None)
        with contextlib.suppress(FileNotFoundError):
            t.socket.unlink()
        with contextlib.suppress(DBError):
            await self.db_call(lambda db: db.tables.closed(t.id, f"its process ended (status {code})"))
        self.log(f"table {t.id} closed (status {code})")

    async def stop(self) -> None:
        """Every table closes (its record stays as far as it got), then the server's socket."""
        if self._server is not None:
            self._server.close()
        for t in list(self.open.values()):
            with contextlib.suppress(ProcessLookupError):
                t.process.send_signal(signal.SIGTERM)
        waiting = [t.done for t in self.open.values() if t.done is not None]
        if waiting:
            _, late = await asyncio.wait(waiting, timeout=STOP_GRACE)
            for t in list(self.open.values()):
                with contextlib.suppress(ProcessLookupError):
                    t.process.kill()
            if late:
                await asyncio.wait(late, timeout=STOP_GRACE)


def _answer(db: ResultsDB, request_id: int, table_id: int | None, why: str | None) -> None:
    db.tables.answered(request_id, table_id, why)


def _table(db: ResultsDB, table_id: int) -> TableRow | None:
    return db.tables.get(table_id)


def _peer_pid(writer: asyncio.StreamWriter) -> int:
    sock = writer.get_extra_info("socket")
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[0])
