"""`negtui serve`: the hub every door's sessions share (its options, the results database, the live
sessions, the tables, the fork server), and the doors it opens: SSH always (ssh_door.py), a browser's when
asked (web.py)."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

import asyncssh

from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import DBError
from negtui.serve import ssh_door
from negtui.serve.doors import AppSession, ServeOptions
from negtui.serve.lock import FOLDER_PREFIX
from negtui.serve.pty_child import clamp
from negtui.serve.tables import TableKeeper

if TYPE_CHECKING:  # loaded by whoever starts the server: the server itself runs no game
    from negtui.classroom.course import LoadedCourse
    from negtui.serve.web import WebDoor


T = TypeVar("T")
SWEEP_EVERY = 60.0  # seconds between looks for assessments left past the idle timeout
HUB_SOCKET = "hub.sock"  # trainees' apps ask the server for tables here
TAKE_OVER_WAIT = 15.0  # seconds a new session waits for the trainee's older ones to end
REFUSALS_SHOWN_EVERY = 60.0  # seconds between lines about connections refused before login


class Hub:
    """What every connection shares: options, the results database, the live sessions, the tables."""

    def __init__(self, options: ServeOptions, db: ResultsDB, course: LoadedCourse | None = None):
        self.options, self.db = options, db
        self.sessions: set[AppSession] = set()  # over SSH and from browsers, counted together
        self.not_logged_in: dict[str, int] = {}  # connections waiting to log in, by address
        self._refusals: dict[str, int] = {}  # refused before login since the last line about it
        self._refusals_shown = -REFUSALS_SHOWN_EVERY  # the first refusal is said, however long the machine has been up
        self.folder: str | None = None  # the server's private folder: its sockets (Unix paths are short)
        self.tables: TableKeeper | None = None
        self.graded: tuple[str, list[str]] | None = None  # the course's assessments, swept for games left idle
        if course is not None and course.course.graded:
            self.graded = (course.course.name, course.course.graded)
        self._sweeper: asyncio.Task | None = None
        self._requests: asyncio.Task | None = None  # opening the tables the trainer asks for
        if course is not None and any(ex.is_table for ex in course.course.exercises):
            self.tables = TableKeeper(options.data_dir, options.course, course, self.db_call, self._trainee_of,
                                      max_tables=options.max_sessions, memory=options.child_memory)
        self.zygote: asyncio.subprocess.Process | None = None
        self.zygote_path: str | None = None
        self.web: WebDoor | None = None
        self.web_port: int | None = None  # the browser door's port, once it listens
        self.course_title = course.course.title if course is not None else ""
        # the database is shared with every app, each writing its results; waiting for its lock in the
        # event loop would freeze every trainee's screen, so the server's queries run on one thread of
        # their own, in order
        self._db_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="results-db")
        self._db_writes: set[asyncio.Future] = set()

    def refused(self, host: str) -> None:
        """A connection refused before login: said on the server's stderr at most once a minute."""
        self._refusals[host] = self._refusals.get(host, 0) + 1
        now = time.monotonic()
        if now - self._refusals_shown >= REFUSALS_SHOWN_EVERY:
            self._refusals_shown = now
            said = ", ".join(f"{n} from {h}" for h, n in sorted(self._refusals.items(), key=lambda x: -x[1])[:5])
            # the door's limits as it applies them now (read from it, not copied at import)
            print(f"refused connections waiting to log in (over {ssh_door.PREAUTH_PER_ADDRESS} from one address or "
                  f"{ssh_door.PREAUTH_MAX} in all): {said}", file=sys.stderr)
            self._refusals.clear()

    async def db_call(self, query: Callable[[ResultsDB], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._db_thread, query, self.db)

    def db_later(self, write: Callable[[ResultsDB], object]) -> None:
        """A write nobody waits for (a session's end); `stop` waits for it."""
        future = asyncio.ensure_future(self.db_call(write))
        self._db_writes.add(future)
        future.add_done_callback(self._db_writes.discard)

    def _folder(self) -> str:
        if self.folder is None:
            self.folder = tempfile.mkdtemp(prefix=FOLDER_PREFIX)  # a short path: Unix socket paths are limited
        return self.folder

    async def take_over(self, session: AppSession) -> None:
        """A trainee has one app at a time, whichever door: a new session ends their others (a second tab, an
        SSH login beside a browser), as a second login to a website signs out the first.  The new app starts
        once the others have ended and their ends are filed, so a game one of them held is free to resume at
        once (else 'open in another session' until the old app had gone)."""
        others = [other for other in list(self.sessions) if other is not session and other.name == session.name]
        for other in others:
            self.sessions.discard(other)
        if not others:
            return
        ending = asyncio.gather(*(other.end_for("session ended: you opened negtui again elsewhere (your games are "
                                                "kept)", "opened again elsewhere") for other in others),
                                return_exceptions=True)
        try:
            await asyncio.wait_for(asyncio.shield(ending), TAKE_OVER_WAIT)
            if self._db_writes:
                await asyncio.wait_for(asyncio.gather(*self._db_writes, return_exceptions=True), TAKE_OVER_WAIT)
        except TimeoutError:
            pass  # the old app goes on ending in the background; the new one starts (its resume may wait)

    def app_args(self, name: str, session_id: int, *, trainer: bool = False, web: bool = False) -> list[str]:
        """The arguments of a connection's app (negtui.serve.child), whichever door it came through."""
        o = self.options
        args = ["--data-dir", str(o.data_dir), "--course", str(o.course), "--trainee", name,
                "--session", str(session_id), "--idle-timeout", str(o.idle_timeout)]
        args += ["--trainer"] if trainer else []
        args += ["--web"] if web else []
        if self.tables is not None and self.folder is not None:
            args += ["--hub", os.path.join(self.folder, HUB_SOCKET)]
        return args

    @staticmethod
    def app_env(cols: int | None = None, rows: int | None = None) -> dict[str, str]:
        """A connection's app's environment: colours SSH does not forward; a browser's first size (the web
        driver reads it there, then from the protocol's resizes; a terminal's comes from its pty, and
        COLUMNS/LINES would freeze it)."""
        env = {"TERM": "xterm-256color", "COLORTERM": "truecolor", "LANG": os.environ.get("LANG", "C.UTF-8"),
               "HOME": os.environ.get("HOME", "/"), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        if cols is not None and rows is not None:
            cols, rows = clamp(cols, rows)
            env |= {"COLUMNS": str(cols), "ROWS": str(rows)}
        return env

    def _trainee_of(self, pid: int) -> str | None:
        """The trainee whose app runs as process `pid`."""
        return next((s.name for s in self.sessions if s.child is not None and s.child.pid == pid), None)

    async def start_fork_server(self) -> None:
        """The fork server, ready before the first connection (apps start as new interpreters without it)."""
        path = os.path.join(self._folder(), "zygote.sock")
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}  # they would freeze sizes
        self.zygote = await asyncio.create_subprocess_exec(
            sys.executable, "-I", "-m", "negtui.serve.zygote", path, str(self.options.course),
            stdout=asyncio.subprocess.PIPE, env=env)
        assert self.zygote.stdout is not None  # stdout=PIPE
        try:
            line = await asyncio.wait_for(self.zygote.stdout.readline(), 60)
        except TimeoutError:
            line = b""
        if line.strip() == b"ready":
            self.zygote_path = path

    async def listen(self, key: asyncssh.SSHKey) -> asyncssh.SSHAcceptor:
        await self.db_call(lambda db: db.classroom.close_left_over("the training server stopped"))
        if self.tables is not None:
            left = await self.db_call(lambda db: db.tables.close_left_over("the training server stopped"))
            if left:
                print(f"{left} table{'s' * (left != 1)} left open by a stopped server: closed", file=sys.stderr)
            await self.tables.listen(os.path.join(self._folder(), HUB_SOCKET))
            if self._requests is None:
                self._requests = asyncio.ensure_future(self.tables.serve_requests())
        if self.options.fork_server and self.zygote is None:
            await self.start_fork_server()
        if self.graded is not None and self._sweeper is None:
            self._sweeper = asyncio.ensure_future(self._sweep_left_games(*self.graded))
        if self.options.web is not None and self.web is None:
            from negtui.serve.web import WebDoor  # aiohttp is loaded only for a server with a browser door

            self.web = WebDoor(self, *self.options.web, public_url=self.options.web_url)
            self.web_port = await self.web.start(self.course_title)
        return await ssh_door.listen_ssh(self, key)

    async def _sweep_left_games(self, course: str, graded: list[str]) -> None:
        """Assessments left past the idle timeout are filed as abandoned, whether or not the trainee
        comes back: the console and the results say so."""
        every = min(SWEEP_EVERY, self.options.idle_timeout)
        while True:
            try:
                await self.db_call(lambda db: db.grades.abandon_left(course, graded, self.options.idle_timeout))
            except DBError:
                pass  # the next sweep tries again
            await asyncio.sleep(every)

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._requests is not None:
            self._requests.cancel()
        await asyncio.gather(*(session.end_for("the training server stopped (your games are kept)", "server stopped")
                               for session in list(self.sessions)))
        if self.web is not None:
            await self.web.stop()
        if self.tables is not None:
            await self.tables.stop()
        if self.zygote is not None and self.zygote.returncode is None:
            self.zygote.terminate()
            await self.zygote.wait()
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)
        if self._db_writes:
            await asyncio.gather(*self._db_writes, return_exceptions=True)
        self._db_thread.shutdown(wait=True)
