"""`negtui serve`: an SSH server whose only service is the training app.

Public-key authentication only (a trainee is a name and keys in the results database; a trainer's
one-time enrolment code binds the key presented at first login).  Each connection that asks for a
terminal gets its own child process running the app (pty_child.py); everything else a client may ask
for (a command, a shell without a terminal, SFTP or another subsystem, port, agent or X11 forwarding)
is refused with a message.  Sessions are counted against `max_sessions`, ended after `idle_timeout`
seconds without a key press, and recorded in the database."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

import asyncssh

from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import DBError
from negtui.serve.lock import FOLDER_PREFIX
from negtui.serve.pty_child import PtyChild, clamp, in_background
from negtui.serve.tables import TableKeeper

if TYPE_CHECKING:  # loaded by whoever starts the server: the server itself runs no game
    from negtui.classroom.course import LoadedCourse
    from negtui.serve.web import WebDoor


class AppSession(Protocol):
    """A connection's app, SSH's (_Session) or a browser's (web.WebSession)."""

    name: str

    @property
    def child(self) -> PtyChild | None: ...

    async def end_for(self, said: str, reason: str) -> None: ...

    async def _end(self, reason: str) -> None: ...

T = TypeVar("T")
HOST_KEY = "ssh_host_ed25519_key"
SWEEP_EVERY = 60.0  # seconds between looks for assessments left past the idle timeout
HUB_SOCKET = "hub.sock"  # trainees' apps ask the server for tables here
TERM_NAME = re.compile(r"[A-Za-z0-9._+-]{1,64}")  # what a terminal type looks like (xterm-256color, screen.xterm)
# connections not yet logged in: held at once in all and from one address, and seconds each may take;
# 1,100 silent connections used every file descriptor and kept a trainee out for a minute
PREAUTH_MAX = 128
PREAUTH_PER_ADDRESS = 32
LOGIN_TIMEOUT = 20
REFUSALS_SHOWN_EVERY = 60.0  # seconds between lines about connections refused before login
OUTPUT_BUFFERED = 256 * 1024  # bytes of a client's screen held while it does not read; then its app waits
ONLY_THE_APP = ("negtui serve runs the training app only: connect with a terminal and no command "
                "(ssh -p PORT NAME@HOST)")


@dataclass(frozen=True)
class ServeOptions:
    data_dir: Path
    course: Path
    host: str = "127.0.0.1"
    port: int = 2222
    max_sessions: int = 50
    idle_timeout: float = 1800.0
    child_memory: int | None = 4 * 2**30  # bytes of address space per child
    fork_server: bool = True  # fork each app from a process that has imported everything (zygote.py)
    web: tuple[str, int] | None = None  # the browser door's address (web.py), if it has one
    web_url: str | None = None  # where browsers reach the door, when a reverse proxy stands before it


def host_key(data_dir: Path) -> asyncssh.SSHKey:
    """The server's ed25519 host key, made on first start (readable by its owner only) and kept."""
    path = data_dir / HOST_KEY
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        key = asyncssh.generate_private_key("ssh-ed25519", comment="negtui serve")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(key.export_private_key())
    return asyncssh.read_private_key(str(path))


class _Connection(asyncssh.SSHServer):
    """One client connection: who it is (after public-key authentication) and what it may open."""

    def __init__(self, hub: Hub):
        self.hub = hub
        self.peer = ""
        self.fingerprint = ""
        self.enrol_key: str | None = None  # an unknown key presented by a trainee holding an invite
        self.host = ""
        self.counted = False  # among the connections not yet logged in (hub.not_logged_in)

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        host, port = conn.get_extra_info("peername")[:2]
        self.peer, self.host = f"{host}:{port}", host
        waiting = self.hub.not_logged_in
        if sum(waiting.values()) >= PREAUTH_MAX or waiting.get(host, 0) >= PREAUTH_PER_ADDRESS:
            self.hub.refused(host)
            conn.abort()
            return
        waiting[host] = waiting.get(host, 0) + 1
        self.counted = True

    def _logged_in_or_gone(self) -> None:
        if self.counted:
            self.counted = False
            waiting = self.hub.not_logged_in
            waiting[self.host] -= 1
            if not waiting[self.host]:
                del waiting[self.host]

    def auth_completed(self) -> None:
        self._logged_in_or_gone()

    def connection_lost(self, exc: Exception | None) -> None:
        self._logged_in_or_gone()

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def host_based_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        def check(db: ResultsDB) -> str | None:
            if db.key_matches(username, key):
                return "trainee"
            if db.has_invite(username) and not db.key_owner(key):
                return "invited"
            return None

        try:
            found = await self.hub.db_call(check)
        except Exception:  # a name that is not a trainee name, a database hiccup: refuse
            return False
        if found is None:
            return False
        self.fingerprint = key.get_fingerprint("sha256")
        self.enrol_key = key.export_public_key().decode().strip() if found == "invited" else None
        return True

    # nothing but the app: no forwarding of any kind
    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        return False

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        return False

    def unix_connection_requested(self, dest_path: str) -> bool:
        return False

    def unix_server_requested(self, listen_path: str) -> bool:
        return False

    def session_requested(self) -> asyncssh.SSHServerSession:
        return _Session(self.hub, self)


class _Session(asyncssh.SSHServerSession):
    """One session channel: a terminal and the app in it, or a refusal with a message."""

    def __init__(self, hub: Hub, conn: _Connection):
        self.hub, self.conn = hub, conn
        self.chan: asyncssh.SSHServerChannel | None = None
        self.term: str | None = None
        self.cols, self.rows = 80, 24
        self.refusal: str | None = None
        self.child: PtyChild | None = None
        self.name = ""  # the trainee, once authenticated
        self.session_id: int | None = None
        self.idle: asyncio.TimerHandle | None = None

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan
        chan.set_write_buffer_limits(high=OUTPUT_BUFFERED)

    def pause_writing(self) -> None:
        """The client is not reading (paused, or slow): stop taking the app's output until it catches up."""
        if self.child is not None:
            self.child.pause_reading()

    def resume_writing(self) -> None:
        if self.child is not None:
            self.child.resume_reading()

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int],
                      term_modes: Mapping[int, int]) -> bool:
        self.term = term_type if TERM_NAME.fullmatch(term_type or "") else "xterm-256color"  # never a NUL or escape
        self.cols, self.rows = term_size[0] or 80, term_size[1] or 24
        return True

    def shell_requested(self) -> bool:
        if self.term is None:
            self.refusal = "negtui serve needs a terminal: connect with ssh -t"
        return True

    def exec_requested(self, command: str) -> bool:
        self.refusal = f"{ONLY_THE_APP}; commands such as {command[:60]!r} are refused"
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False  # the client says "subsystem request failed" (an SFTP client cannot show our text)

    def session_started(self) -> None:
        if self.refusal is None and len(self.hub.sessions) >= self.hub.options.max_sessions:
            self.refusal = f"the training server is full ({self.hub.options.max_sessions} sessions); try again later"
        assert self.chan is not None  # asyncssh opens the channel (connection_made) before starting it
        if self.refusal is not None:
            self.chan.write_stderr(f"{self.refusal}\r\n".encode())
            self.chan.exit(1)
            return
        self.hub.sessions.add(self)  # counted now: logins at the same moment must not all pass the check above
        in_background(self._start())

    async def _start(self) -> None:
        hub, conn = self.hub, self.conn
        if self.chan is None:  # the client left before the app could start
            hub.sessions.discard(self)
            return
        assert self.term is not None  # shell_requested refuses a session without a terminal
        name = self.name = self.chan.get_extra_info("username")
        hub.take_over(self)
        self.session_id = await hub.db_call(lambda db: db.session_started(name, conn.peer, conn.fingerprint))
        trainer = await hub.db_call(lambda db: db.classroom.is_trainer(name))
        if self.chan is None:  # gone while the database answered
            self._close("disconnected", 0)
            return
        args = hub.app_args(name, self.session_id, trainer=trainer)
        if conn.enrol_key:
            args += ["--enrol-key", conn.enrol_key]
        env = {**hub.app_env(), "TERM": self.term}
        self.child = PtyChild(args, env, self.cols, self.rows, hub.options.child_memory, self._output, self._exited,
                              zygote=hub.zygote_path)
        try:
            await self.child.start()
        except OSError as err:
            if self.chan is not None:
                self.chan.write_stderr(f"the training app could not start: {err}\r\n".encode())
            self._close("could not start", 1)
            return
        self._touch()

    def _output(self, data: bytes) -> None:
        if self.chan is not None:
            self.chan.write(data)

    def _exited(self, code: int) -> None:
        self._close("app exited" if code == 0 else f"app exited with status {code}", 0 if code == 0 else 1)

    def _close(self, reason: str, status: int) -> None:
        if self.session_id is not None:
            session_id, self.session_id = self.session_id, None
            self.hub.db_later(lambda db: db.session_ended(session_id, reason))
        self.hub.sessions.discard(self)
        if self.idle is not None:
            self.idle.cancel()
        if self.chan is not None:
            try:
                self.chan.exit(status)
            except OSError:
                pass

    def _touch(self) -> None:
        if self.idle is not None:
            self.idle.cancel()
        self.idle = asyncio.get_running_loop().call_later(self.hub.options.idle_timeout, self._idle_out)

    def _idle_out(self) -> None:
        in_background(self.end_for("session ended: idle too long (your games are kept)", "idle"))

    async def end_for(self, said: str, reason: str) -> None:
        """End the session with a word on the client's terminal (idle, or the trainee's newer session)."""
        if self.chan is not None:
            self.chan.write_stderr(f"\r\n{said}\r\n".encode())
        await self._end(reason)

    async def _end(self, reason: str) -> None:
        if self.child is not None:
            await self.child.stop()
        self._close(reason, 0)

    def data_received(self, data: bytes, datatype: object) -> None:
        if self.child is not None:
            self.child.write(data)
            self._touch()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.cols, self.rows = width, height
        if self.child is not None:
            self.child.resize(width, height)

    def connection_lost(self, exc: Exception | None) -> None:
        self.chan = None
        if self.child is not None:
            in_background(self._end("disconnected"))
        elif self.session_id is not None:
            self._close("disconnected", 0)
        # else: the app is still to start, and `_start` sees the channel gone


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
            print(f"refused connections waiting to log in (over {PREAUTH_PER_ADDRESS} from one address or "
                  f"{PREAUTH_MAX} in all): {said}", file=sys.stderr)
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

    def take_over(self, session: AppSession) -> None:
        """A trainee has one app at a time, whichever door: a new session ends their others (a second tab, an
        SSH login beside a browser), as a second login to a website signs out the first."""
        for other in list(self.sessions):
            if other is not session and other.name == session.name:
                self.sessions.discard(other)
                in_background(other.end_for("session ended: you opened negtui again elsewhere (your games are "
                                            "kept)", "opened again elsewhere"))

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
            from negtui.serve.web import WebDoor

            self.web = WebDoor(self, *self.options.web, public_url=self.options.web_url)
            self.web_port = await self.web.start(self.course_title)
        return await asyncssh.create_server(
            lambda: _Connection(self), self.options.host, self.options.port, server_host_keys=[key],
            encoding=None, line_editor=False, agent_forwarding=False, x11_forwarding=False, allow_scp=False,
            sftp_factory=None, login_timeout=LOGIN_TIMEOUT, keepalive_interval=60, keepalive_count_max=3)

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
