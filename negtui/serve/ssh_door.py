"""The SSH door of `negtui serve`: a server whose only service is the training app.

Public-key authentication only (a trainee is a name and keys in the results database; a trainer's
one-time enrolment code binds the key presented at first login).  Each connection that asks for a
terminal gets its own child process running the app (pty_child.py); everything else a client may ask
for (a command, a shell without a terminal, SFTP or another subsystem, port, agent or X11 forwarding)
is refused with a message.  Sessions are counted against `max_sessions` (shared with the browser door),
ended after `idle_timeout` seconds without a key press, and recorded in the database."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

import asyncssh

from negtui.classroom.db import ResultsDB
from negtui.serve.doors import DoorHub, IdleClock
from negtui.serve.pty_child import PtyChild, in_background

HOST_KEY = "ssh_host_ed25519_key"
TERM_NAME = re.compile(r"[A-Za-z0-9._+-]{1,64}")  # what a terminal type looks like (xterm-256color, screen.xterm)
# connections not yet logged in: held at once in all and from one address, and seconds each may take;
# 1,100 silent connections used every file descriptor and kept a trainee out for a minute
PREAUTH_MAX = 128
PREAUTH_PER_ADDRESS = 32
LOGIN_TIMEOUT = 20
OUTPUT_BUFFERED = 256 * 1024  # bytes of a client's screen held while it does not read; then its app waits
ONLY_THE_APP = ("negtui serve runs the training app only: connect with a terminal and no command "
                "(ssh -p PORT NAME@HOST)")


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

    def __init__(self, hub: DoorHub):
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

    def __init__(self, hub: DoorHub, conn: _Connection):
        self.hub, self.conn = hub, conn
        self.chan: asyncssh.SSHServerChannel | None = None
        self.term: str | None = None
        self.cols, self.rows = 80, 24
        self.refusal: str | None = None
        self.child: PtyChild | None = None
        self.name = ""  # the trainee, once authenticated
        self.session_id: int | None = None
        self.idle = IdleClock(hub.options.idle_timeout, self.end_for)

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
        await hub.take_over(self)
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
        self.idle.touch()

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
        self.idle.stop()
        if self.chan is not None:
            try:
                self.chan.exit(status)
            except OSError:
                pass

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
            self.idle.touch()

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


async def listen_ssh(hub: DoorHub, key: asyncssh.SSHKey) -> asyncssh.SSHAcceptor:
    """The SSH door open on the hub's host and port: every request but a terminal for the app is refused."""
    return await asyncssh.create_server(
        lambda: _Connection(hub), hub.options.host, hub.options.port, server_host_keys=[key],
        encoding=None, line_editor=False, agent_forwarding=False, x11_forwarding=False, allow_scp=False,
        sftp_factory=None, login_timeout=LOGIN_TIMEOUT, keepalive_interval=60, keepalive_count_max=3)
