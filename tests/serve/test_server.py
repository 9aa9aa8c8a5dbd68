"""`negtui serve` with a real SSH client (asyncssh's): who gets in, what is refused, one app per
connection on its own terminal, resizes, disconnects that end the app and keep the record, reconnecting
to resume, and the server's own start-up errors."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest
import pytest_asyncio

from negtui.classroom.db import ResultsDB
from negtui.record import Replay, load_record
from negtui.serve.doors import ServeOptions
from negtui.serve.server import Hub
from negtui.serve.ssh_door import host_key
from tests.paths import INTRO_COURSE
from tests.waiting import wait_for_async, within

# what a terminal acts on rather than shows: control sequences, operating system commands, charset picks
CONTROL = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|.)")

pytestmark = pytest.mark.asyncio


class Terminal(asyncssh.SSHClientSession):
    """A client terminal that keeps everything the app drew."""

    def __init__(self) -> None:
        self.output = ""
        self.closed = asyncio.Event()
        self.status: int | None = None

    def data_received(self, data: str, datatype) -> None:
        self.output += data

    def exit_status_received(self, status: int) -> None:
        self.status = status

    def connection_lost(self, exc) -> None:
        self.closed.set()

    def shown(self) -> str:
        """What was drawn, as words: control sequences dropped, runs of blanks made one space."""
        return " ".join(CONTROL.sub(" ", self.output).split())

    async def wait_for(self, text: str, timeout: float = 30, words: bool = False) -> None:
        """Until `text` is in what the app sent (`words`: in what it drew, as `shown` gives it)."""
        deadline = time.monotonic() + timeout
        while text not in (self.shown() if words else self.output):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {text!r}; the screen showed: {self.output[-2000:]!r}")
            await asyncio.sleep(0.05)


@pytest_asyncio.fixture(params=[True, False], ids=["forked", "exec"])
async def server(tmp_path, request):
    """A server on a free port with one trainee (alice) and her key, its apps forked from the fork server
    or started as new interpreters; yields (hub, port, alice's key)."""
    data = tmp_path / "data"
    alice = asyncssh.generate_private_key("ssh-ed25519")
    with ResultsDB.open(data) as db:
        db.add_keys("alice", [alice.export_public_key().decode()], create=True)
    db = ResultsDB.open(data)
    hub = Hub(ServeOptions(data, INTRO_COURSE, port=0, max_sessions=3, idle_timeout=600,
                           fork_server=request.param), db)
    acceptor = await hub.listen(host_key(data))
    port = acceptor.sockets[0].getsockname()[1]
    yield hub, port, alice
    acceptor.close()
    await hub.stop()
    db.close()


def classmates(hub: Hub, n: int) -> list[tuple[str, asyncssh.SSHKey]]:
    """`n` more trainees (t0, t1, …), each with a key: a trainee has one app at a time, so sessions counted
    together are different trainees'."""
    out = []
    with ResultsDB.open(hub.options.data_dir) as db:
        for k in range(n):
            key = asyncssh.generate_private_key("ssh-ed25519")
            db.add_keys(f"t{k}", [key.export_public_key().decode()], create=True)
            out.append((f"t{k}", key))
    return out


def connect(port: int, key=None, username: str = "alice", **kw):
    return asyncssh.connect("127.0.0.1", port, username=username, client_keys=[key] if key else None,
                            known_hosts=None, agent_path=None, **kw)


async def open_terminal(conn, cols: int = 100, rows: int = 30) -> tuple[asyncssh.SSHClientChannel, Terminal]:
    chan, term = await conn.create_session(Terminal, term_type="xterm-256color", term_size=(cols, rows))
    return chan, term


# --- who gets in -------------------------------------------------------------------------------------------

async def test_a_trainees_key_opens_the_lobby_of_the_course(server):
    hub, port, alice = server
    async with connect(port, alice) as conn:
        chan, term = await open_terminal(conn)
        await term.wait_for("Introduction to multi-party negotiation")
        await term.wait_for("The poison pill")
        child = next(iter(hub.sessions)).child
        assert (child.zygote is not None) == hub.options.fork_server
        if not hub.options.fork_server:  # an exec'd child's environment is readable from outside
            env = Path(f"/proc/{child.pid}/environ").read_bytes().split(b"\0")
            assert b"TERM=xterm-256color" in env and b"COLORTERM=truecolor" in env
            assert not any(v.startswith((b"COLUMNS=", b"LINES=")) for v in env)
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)
    with ResultsDB.open(hub.options.data_dir) as db:
        assert db.trainees()[0].name == "alice"


@pytest.mark.stress
async def test_logins_at_the_same_moment_get_no_more_apps_than_max_sessions(server):
    """Eight trainees' terminals opened at once against a limit of three: three apps, five told the server
    is full (the count is taken as a session starts, not once the database has answered). A race:
    test_the_session_limit_refuses_with_a_message checks the same count in a fixed order."""
    hub, port, _alice = server
    conns = [await connect(port, key, name).__aenter__() for name, key in classmates(hub, 8)]
    try:
        opened = await asyncio.gather(*(open_terminal(c) for c in conns))
        terms = [term for _chan, term in opened]
        for k, term in enumerate(terms):  # each either gets the lobby or is told why not
            await wait_for_async(lambda t=term: "The poison pill" in t.output or "server is full" in t.output,
                              f"terminal {k}'s lobby or refusal", seen=lambda t=term: t.output[-500:])
        assert len(hub.sessions) == 3
        full = [t for t in terms if "the training server is full (3 sessions)" in t.output]
        assert len(full) == 5
        assert len([t for t in terms if "The poison pill" in t.output]) == 3
    finally:
        for conn in conns:
            conn.close()
    await wait_for_async(lambda: not hub.sessions, "every session to end with its connection",
                         seen=lambda: hub.sessions)


@pytest.fixture(name="planted")
def planted_fixture(tmp_path, monkeypatch):
    """The server started from a folder holding a package named `negtui`: the trainer's parent folder of a
    checkout, or a planted one."""
    folder = tmp_path / "cwd"
    (folder / "negtui").mkdir(parents=True)
    marker = tmp_path / "ran"
    (folder / "negtui" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    monkeypatch.chdir(folder)
    return marker


async def test_apps_never_import_from_the_folder_the_server_was_started_in(planted, server):
    _hub, port, alice = server
    async with connect(port, alice) as conn:
        chan, term = await open_terminal(conn)
        await term.wait_for("The poison pill")
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)
    assert not planted.exists()


def _pty_size(session) -> tuple[int, int]:
    import fcntl
    import struct
    import termios

    rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(session.child.master, termios.TIOCGWINSZ, b"\0" * 8))
    return cols, rows


async def test_terminal_sizes_are_held_to_what_an_app_can_draw(server):
    """A 1x1 terminal crashed the app; a 10000x10000 one cost a gigabyte, a core and 200 MB sent."""
    from negtui.serve.pty_child import MAX_SIZE, MIN_SIZE

    hub, port, alice = server
    async with connect(port, alice) as conn:
        chan, term = await open_terminal(conn, cols=1, rows=1)
        await term.wait_for("needs at least 60×18")  # drawn at the smallest size: the app says it is too small
        session = next(iter(hub.sessions))
        assert _pty_size(session) == MIN_SIZE
        chan.change_terminal_size(10_000, 10_000)
        await wait_for_async(lambda: _pty_size(session) != MIN_SIZE, "the resize to reach the app's terminal")
        assert _pty_size(session) == MAX_SIZE
        term.output = ""
        chan.change_terminal_size(100, 30)
        await term.wait_for("The poison pill")  # redrawn whole at a size in range
        assert _pty_size(session) == (100, 30)
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)


async def _answers_again(chan, term, session) -> None:
    """The client reads again: the server takes the app's output again, and the app answers a key (its
    briefing, never drawn before, so not a screen still on its way from before)."""
    chan.resume_reading()
    await wait_for_async(lambda: not session.child._paused, "the server to read the app again",
                      seen=lambda: session.chan.get_write_buffer_size())
    term.output = ""
    chan.change_terminal_size(100, 30)
    chan.write("\r")
    await term.wait_for("Start (ctrl+s)")


async def test_a_client_that_stops_reading_holds_the_servers_memory_flat(server):
    """A paused client at the largest size, its app made to redraw until the server stops reading it:
    the server holds at most its buffer of the client's screen (before: everything drawn, 100 MB a
    minute) and the app waits, redraw after redraw; once the client reads again, the app answers."""
    from negtui.serve.ssh_door import OUTPUT_BUFFERED

    hub, port, alice = server
    async with connect(port, alice) as conn:
        chan, term = await open_terminal(conn, cols=500, rows=200)
        await term.wait_for("The poison pill")
        session = next(iter(hub.sessions))
        chan.pause_reading()
        peak, resizes = 0, 0

        def redraw() -> None:  # every resize a whole new screen of up to 100,000 cells
            nonlocal peak, resizes
            chan.change_terminal_size(500 - resizes % 2, 200)
            resizes += 1
            peak = max(peak, session.chan.get_write_buffer_size())

        def paused() -> bool:
            if not session.child._paused:
                redraw()
            return session.child._paused

        await wait_for_async(paused, "the server to stop reading the app of a client that does not read",
                          seen=lambda: f"{resizes} resizes, {session.chan.get_write_buffer_size()} bytes held")
        for _ in range(5):  # the app is asked to redraw again: it waits, and nothing more is held
            redraw()
            await asyncio.sleep(0.05)
        peak = max(peak, session.chan.get_write_buffer_size())
        assert session.child._paused
        assert peak <= OUTPUT_BUFFERED + 65536
        await _answers_again(chan, term, session)


@pytest.mark.stress
async def test_a_client_that_stops_reading_holds_the_servers_memory_flat_under_a_flood(server):
    """The load version of the test above: sixty redraws at the largest size, one every 50 ms, whatever
    the server does meanwhile; what it holds never grows past its buffer."""
    from negtui.serve.ssh_door import OUTPUT_BUFFERED

    hub, port, alice = server
    async with connect(port, alice) as conn:
        chan, term = await open_terminal(conn, cols=500, rows=200)
        await term.wait_for("The poison pill")
        session = next(iter(hub.sessions))
        chan.pause_reading()
        peak = 0
        for i in range(60):  # every resize a whole new screen of up to 100,000 cells
            chan.change_terminal_size(500 - i % 2, 200)
            await asyncio.sleep(0.05)
            peak = max(peak, session.chan.get_write_buffer_size())
        await wait_for_async(lambda: session.child._paused, "the server to stop reading the app",
                          seen=lambda: session.chan.get_write_buffer_size())
        peak = max(peak, session.chan.get_write_buffer_size())
        assert peak <= OUTPUT_BUFFERED + 65536
        await _answers_again(chan, term, session)


@pytest.mark.parametrize("term", ["xterm\0evil", "\x1b[2J", "x" * 300])
async def test_a_strange_terminal_type_gets_the_app_not_a_traceback(server, term):
    hub, port, alice = server
    async with connect(port, alice) as conn:
        chan, out = await conn.create_session(Terminal, term_type=term, term_size=(100, 30))
        await out.wait_for("The poison pill")
        assert "Traceback" not in out.output
        assert next(iter(hub.sessions)).term == "xterm-256color"
        chan.write("q")
        await asyncio.wait_for(out.closed.wait(), 20)


async def test_silent_connections_before_login_are_limited_per_address_and_a_trainee_still_gets_in(
        server, monkeypatch, capfd):
    """Connections that never log in: at most PREAUTH_PER_ADDRESS from one address are kept waiting, the
    rest closed at once with one line on the server's stderr (no traceback); once they go, a trainee
    logs in."""
    import socket

    from negtui.serve import ssh_door as served

    monkeypatch.setattr(served, "PREAUTH_PER_ADDRESS", 4)
    hub, port, alice = server
    silent = []
    for _ in range(7):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setblocking(False)
        silent.append(sock)

    def closed(sock: socket.socket) -> bool:
        try:
            while sock.recv(4096):  # the server's banner, then the end if it hung up
                pass
            return True
        except BlockingIOError:
            return False
        except ConnectionResetError:
            return True

    def counts() -> tuple[int, int]:
        return sum(closed(s) for s in silent), sum(hub.not_logged_in.values())

    await wait_for_async(lambda: sum(counts()) == 7, "the server to keep or close each of the 7 connections",
                      seen=lambda: f"closed, kept: {counts()}")
    assert counts() == (3, 4)
    err = capfd.readouterr().err
    assert "refused connections waiting to log in (over 4 from one address" in err and "Traceback" not in err
    for sock in silent:
        sock.close()
    await wait_for_async(lambda: not hub.not_logged_in, "the server to see the kept connections go",
                      seen=lambda: hub.not_logged_in)
    async with connect(port, alice) as conn:
        chan, term = await open_terminal(conn)
        await term.wait_for("The poison pill")
        assert not hub.not_logged_in  # logged in: no longer counted
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)


async def test_passwords_unknown_keys_and_unknown_names_are_refused(server):
    _hub, port, alice = server
    with pytest.raises(asyncssh.PermissionDenied):
        async with connect(port, None, password="hunter2", preferred_auth="password"):
            pass
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    with pytest.raises(asyncssh.PermissionDenied):
        async with connect(port, stranger):
            pass
    with pytest.raises(asyncssh.PermissionDenied):
        async with connect(port, alice, username="mallory"):
            pass


async def test_an_invited_trainee_enrols_the_key_of_the_first_login(server):
    hub, port, _ = server
    hub.db.add_trainee("bob")
    code = hub.db.invite("bob")
    bob = asyncssh.generate_private_key("ssh-ed25519")
    async with connect(port, bob, username="bob") as conn:
        chan, term = await open_terminal(conn)
        await term.wait_for("enrolment code")
        chan.write("0000-0000\r")
        await term.wait_for("that code is wrong")
        chan.write(code + "\r")
        await term.wait_for("The poison pill")
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)
    assert hub.db.key_matches("bob", bob)
    async with connect(port, bob, username="bob") as conn:  # the key alone now
        chan, term = await open_terminal(conn)
        await term.wait_for("The poison pill")
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)


# --- only the app ----------------------------------------------------------------------------------------------

async def test_commands_subsystems_and_forwarding_are_refused(server):
    hub, port, alice = server
    async with connect(port, alice) as conn:
        res = await conn.run("cat /etc/passwd")
        assert res.exit_status == 1 and "runs the training app only" in res.stderr and not res.stdout
        res = await conn.run()  # a shell without a terminal
        assert res.exit_status == 1 and "needs a terminal" in res.stderr
        with pytest.raises((asyncssh.SFTPError, asyncssh.ChannelOpenError)):
            await conn.start_sftp_client()
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", port)
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
    assert not hub.sessions


async def test_the_session_limit_refuses_with_a_message(server):
    """Three sessions of three, then a fourth: refused with the reason. The three are counted as they
    start, while the database has not yet answered for any of them (held here), so logins at the same
    moment cannot all pass the check; and once their apps run, a fourth is refused all the same."""
    hub, port, _alice = server
    others = classmates(hub, 4)
    conns = [await connect(port, key, name) for name, key in others]  # logged in: the database answered for the keys
    held = asyncio.Event()
    db_call = hub.db_call

    async def held_db_call(query):
        await held.wait()
        return await db_call(query)

    hub.db_call = held_db_call
    try:
        terms = [(await open_terminal(conn))[1] for conn in conns[:3]]
        await wait_for_async(lambda: len(hub.sessions) == 3, "three sessions counted", seen=lambda: len(hub.sessions))
        assert all(s.child is None for s in hub.sessions)  # no app started: each waits for the database

        async def refused(extra) -> None:
            _chan, term = await open_terminal(extra)
            await asyncio.wait_for(term.closed.wait(), 20)
            assert term.status == 1
            assert "the training server is full (3 sessions)" in term.output

        await refused(conns[3])
        held.set()
        for term in terms:
            await term.wait_for("The poison pill")
        async with connect(port, others[3][1], others[3][0]) as extra:
            await refused(extra)
    finally:
        held.set()
        for conn in conns:
            conn.close()


async def test_a_second_login_of_a_trainee_ends_the_first(server):
    """One app per trainee: a second login (another laptop, a forgotten window) takes over, the first is told
    why; the games are the trainee's either way."""
    hub, port, alice = server
    async with connect(port, alice) as first, connect(port, alice) as second:
        _chan, one = await open_terminal(first)
        await one.wait_for("The poison pill")
        _chan, two = await open_terminal(second)
        await two.wait_for("The poison pill")
        await asyncio.wait_for(one.closed.wait(), 30)
        assert "session ended: you opened negtui again elsewhere (your games are kept)" in one.output
        assert [s.name for s in hub.sessions] == ["alice"] and not two.closed.is_set()


# --- one app per connection, on its own terminal -------------------------------------------------------------

async def test_a_resize_reaches_the_app_and_it_redraws_at_the_new_size(server):
    _hub, port, alice = server
    async with connect(port, alice) as conn:
        chan, term = await open_terminal(conn, 80, 24)
        await term.wait_for("The poison pill")
        assert "\x1b[40;" not in term.output
        chan.change_terminal_size(140, 40)
        await term.wait_for("\x1b[40;")  # the app now draws on row 40
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return False
    return state != "Z"


async def test_a_disconnect_ends_the_app_keeps_the_record_and_reconnecting_resumes(cli, server):
    hub, port, alice = server
    conn = await connect(port, alice)
    chan, term = await open_terminal(conn)
    await term.wait_for("The poison pill")
    chan.write("\r")  # the first exercise
    await term.wait_for("Start (ctrl+s)")
    chan.write("\x13")  # ctrl+s
    await term.wait_for("A offers B a deal")
    chan.write("x")  # reject the bundle: turn 0 is played and recorded
    await term.wait_for("B, choose a partner")
    session = next(iter(hub.sessions))
    pid = session.child.pid
    conn.abort()  # the network goes away
    await wait_for_async(lambda: not _alive(pid), "the app to end with its connection (it outlived it)")
    if not hub.options.fork_server:  # reaped by the server (its watcher a moment after the exit): no zombie left
        await wait_for_async(lambda: not Path(f"/proc/{pid}").exists(), "the server to reap the app")
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    game = hub.db.unfinished_games("alice")[0]
    rp = Replay(load_record(game.record_path))
    assert rp.last_turn == 1 and not rp.record.complete
    assert cli("replay", game.record_path, "--verify", "--key",
               str(hub.options.data_dir / "record.key")).exit_code == 0
    async with connect(port, alice) as conn:
        chan, term = await open_terminal(conn)
        await term.wait_for("resume")
        chan.write("\r")  # the game to resume is listed first
        await term.wait_for("B, choose a partner")  # where it stopped: B's turn
        term.output = ""
        chan.write("\x1b")  # close the partner dialog: the game's own keys are drawn again
        await term.wait_for("p partner x pass h hint w welfare", words=True)
        term.output = ""
        chan.write("q")  # out of the game: asked first, then back to the lobby, the game kept to resume
        await term.wait_for("Leave the game?")
        term.output = ""
        chan.write("y")
        await term.wait_for("resume")
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)
    (resumed,) = hub.db.unfinished_games("alice")  # resumed: the same game, now in its continuation's record
    assert resumed.id == game.id and resumed.record_path != game.record_path
    assert Replay(load_record(resumed.record_path)).record.header.parent.turn == 1


# --- the server's own errors -------------------------------------------------------------------------------------

async def test_a_bad_course_or_key_file_is_a_clear_error_and_no_server_starts(cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\ntitle = "X"\n[[exercises]]\nid = "a"\ntitle = "A"\nscenario = "no-such-thing"\n'
                   'seat = "A"\n')
    res = cli("serve", "--course", str(bad), "--data-dir", str(tmp_path / "d"), "--port", "2222")
    assert res.exit_code == 2 and str(bad) in res.stderr and "$.exercises[0].scenario" in res.stderr
    assert not (tmp_path / "d").exists()  # nothing half-configured
    key = tmp_path / "k.pub"
    key.write_text("ssh-ed25519 not-base64 someone\n")
    res = cli("trainees", "add", "bob", str(key), "--data-dir", str(tmp_path / "d"))
    assert res.exit_code == 2 and f"{key}:1: not an OpenSSH public key" in res.stderr


async def test_the_host_key_is_made_once_kept_private_and_its_fingerprint_printed(tmp_path):
    first = host_key(tmp_path)
    assert oct((tmp_path / "ssh_host_ed25519_key").stat().st_mode & 0o777) == "0o600"
    assert host_key(tmp_path).get_fingerprint() == first.get_fingerprint()
    assert sys.executable  # the server starts children with this interpreter


# --- nothing outlives the server ---------------------------------------------------------------------------------

def _descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


async def test_sigterm_stops_the_server_ends_every_app_and_keeps_the_games(tmp_path):
    data = tmp_path / "data"
    alice = asyncssh.generate_private_key("ssh-ed25519")
    with ResultsDB.open(data) as db:
        db.add_keys("alice", [alice.export_public_key().decode()], create=True)
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "negtui.cli", "serve", "--course", str(INTRO_COURSE), "--data-dir", str(data),
        "--port", str(port), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        assert b"negtui serve: course" in await asyncio.wait_for(proc.stdout.readline(), 60)
        async with connect(port, alice) as conn:
            chan, term = await open_terminal(conn)
            await term.wait_for("The poison pill")
            chan.write("\r")
            await term.wait_for("Start (ctrl+s)")
            chan.write("\x13")
            await term.wait_for("A offers B a deal")
            chan.write("x")  # turn 0 played (a game left before its first turn keeps no record)
            await term.wait_for("B, choose a partner")
            family = _descendants(proc.pid)
            assert len(family) >= 2  # the fork server and the app
            proc.send_signal(15)
            assert await asyncio.wait_for(proc.wait(), 20) == 128 + 15
            await asyncio.wait_for(term.closed.wait(), 10)
        assert "negtui serve stopped" in (await proc.stderr.read()).decode()
        assert not [pid for pid in family if _alive(pid)], "a process outlived the server"
        with ResultsDB.open(data) as db:
            (game,) = db.unfinished_games("alice")
        assert Replay(load_record(game.record_path)).record.header is not None  # the game is kept to resume
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


@pytest.mark.slow
async def test_the_fork_server_kills_an_app_that_ignores_the_hang_up(tmp_path):
    """An app that does not exit when told (here: stopped) is killed after the grace period, and the
    fork server reports it and exits: nothing it forked survives it."""
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_keys("alice", [asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode()],
                    create=True)
    from negtui.serve import zygote
    from negtui.serve.pty_child import PtyChild

    db = ResultsDB.open(data)
    hub = Hub(ServeOptions(data, INTRO_COURSE, port=0), db)
    await hub.start_fork_server()
    exits: list[int] = []
    screen = bytearray()
    child = PtyChild(["--data-dir", str(data), "--course", str(INTRO_COURSE), "--trainee", "alice"],
                     {"TERM": "xterm-256color", "PATH": os.environ["PATH"]}, 100, 30, None, screen.extend,
                     exits.append, zygote=hub.zygote_path)
    try:
        await child.start()
        await wait_for_async(lambda: b"poison" in screen, "the app's lobby", seen=lambda: bytes(screen[-500:]))
        os.kill(child.pid, 19)  # SIGSTOP: a hang-up stays pending
        started = time.monotonic()
        hub.zygote.terminate()
        await within(hub.zygote.wait(), "the fork server to exit after the grace", zygote.GRACE + 60)
        assert time.monotonic() - started >= zygote.GRACE - 0.5  # it was given its grace
        await wait_for_async(lambda: exits, "the app's exit to be reported")
        assert exits == [-9] and not _alive(child.pid)
    finally:
        if child.pid and _alive(child.pid):
            os.kill(child.pid, 9)
        await hub.stop()
        db.close()


async def test_a_training_game_left_before_its_first_turn_is_not_offered_to_resume(tmp_path, wait_until):
    """The trainee starts an exercise and leaves at once: the empty record is removed, and the next
    lobby files the game as abandoned instead of offering a resume that has nothing in it."""
    from textual.widgets import OptionList

    from negtui.classroom.course_loading import load_course
    from negtui.trainee.briefing import BriefingScreen
    from negtui.trainee.lobby import LobbyScreen
    from negtui.trainee.training import TrainingApp

    def lobby(app) -> bool:  # the lobby lists every entry at once as it mounts
        return isinstance(app.screen, LobbyScreen) and app.screen.query_one(OptionList).option_count > 0

    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_keys("alice", [asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode()],
                    create=True)
        app = TrainingApp(load_course(INTRO_COURSE), db, "alice", data_dir=data)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: lobby(app), "the lobby")
            await pilot.press("enter")  # the first exercise's briefing
            await wait_until(pilot, lambda: isinstance(app.screen, BriefingScreen), "the briefing")
            await pilot.press("ctrl+s")  # start
            await wait_until(pilot, lambda: app.game is not None, "the game to start")
            record = app.game.record_path
            await pilot.press("ctrl+q")
        assert not record.exists()
        (game,) = db.unfinished_games("alice")
        app = TrainingApp(load_course(INTRO_COURSE), db, "alice", data_dir=data)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: lobby(app), "the next lobby")
            first = app.screen.query_one("OptionList").get_option_at_index(0).prompt
            assert "resume" not in str(first)  # the exercises come first: no game to resume
        assert db.game(game.id).status == "abandoned"


SESSION_IMPORTS = """
import asyncio, sys, tempfile, time
from pathlib import Path
import negtui.trainee.training
from negtui.serve import zygote
zygote.preload()
before = set(sys.modules)
from negtui.trainee.briefing import BriefingScreen
from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.trainee.lobby import LobbyScreen
from negtui.trainee.training import TrainingApp
from negtui.tui.screens.debrief import DebriefScreen

async def until(pilot, cond, what, step=None, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}; the screen is {pilot.app.screen}"
        if step is not None:
            await step()
        await pilot.pause(0.05)

async def main():
    data = Path(tempfile.mkdtemp())
    with ResultsDB.open(data) as db:
        app = TrainingApp(load_course(Path(sys.argv[1])), db, "alice", data_dir=data)
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                        and app.screen.query_one("OptionList").option_count, "the lobby")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, BriefingScreen), "the briefing")
            await pilot.press("ctrl+s")

            async def decide():  # reject every bundle, pass every turn: the game runs to its debrief
                if type(app.screen).__name__ in ("RespondScreen", "PartnerScreen"):
                    await pilot.press("x")  # rejects an offer, passes a turn

            await until(pilot, lambda: isinstance(app.screen, DebriefScreen), "the debrief", decide)
            # the debrief's numbers worked out and shown, the game filed: all a session does at its end
            await until(pilot, lambda: not app.screen._pending, "the debrief's numbers")
            await app.workers.wait_for_complete()
            await pilot.pause()

asyncio.run(main())
print("\\n".join(sorted(m for m in set(sys.modules) - before
                        if m.split(".")[0] in ("negtui", "textual", "numpy", "rich", "pydantic"))))
"""


async def test_the_fork_server_has_imported_everything_a_session_imports() -> None:
    """A child forked from the fork server imports nothing more through a whole game (its driver,
    layouts, the bots' random numbers): each such import would cost every session's CPU again."""
    out = await asyncio.to_thread(subprocess.run, [sys.executable, "-c", SESSION_IMPORTS, str(INTRO_COURSE)],
                                  capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    new = [m for m in out.stdout.split() if m not in ("textual.pilot", "textual.drivers.headless_driver")]
    assert new == []


async def test_one_server_per_data_directory_and_a_killed_ones_leftovers_cleaned(tmp_path):
    """A second server on the same data directory is refused (exit 2, naming the first); after a
    `kill -9`, the next start removes the killed server's temporary folder and ends its open sessions."""
    import socket

    data = tmp_path / "data"
    alice = asyncssh.generate_private_key("ssh-ed25519")
    with ResultsDB.open(data) as db:
        db.add_keys("alice", [alice.export_public_key().decode()], create=True)

    def free_port() -> int:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return probe.getsockname()[1]

    async def serve(port: int) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "negtui.cli", "serve", "--course", str(INTRO_COURSE), "--data-dir", str(data),
            "--port", str(port), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)

    first_port = free_port()
    first = await serve(first_port)
    second = third = None
    try:
        assert b"negtui serve: course" in await asyncio.wait_for(first.stdout.readline(), 60)
        second = await serve(free_port())
        assert await asyncio.wait_for(second.wait(), 60) == 2
        err = (await second.stderr.read()).decode()
        assert f"another negtui serve (pid {first.pid}) is using {data}" in err and "Traceback" not in err
        folder = json.loads((data / "serve.lock").read_text())["folder"]
        assert Path(folder).is_dir()
        async with connect(first_port, alice) as conn:
            _chan, term = await open_terminal(conn)
            await term.wait_for("The poison pill")
            first.kill()
            await first.wait()
        third = await serve(free_port())
        assert b"negtui serve: course" in await asyncio.wait_for(third.stdout.readline(), 60)
        assert not Path(folder).exists()
        with ResultsDB.open(data) as db:
            rows = db._conn.execute("SELECT end_reason FROM sessions").fetchall()
        assert [tuple(r) for r in rows] == [("server killed",)]
        third.send_signal(15)
        assert await asyncio.wait_for(third.wait(), 20) == 128 + 15
        err = (await third.stderr.read()).decode()
        assert f"removed {folder}" in err and "1 session left open" in err
    finally:
        for proc in (first, second, third):
            if proc is not None and proc.returncode is None:
                proc.kill()
                await proc.wait()


async def test_a_new_session_starts_once_the_trainees_older_one_has_ended_and_its_end_is_filed(tmp_path):
    """Take-over waits for the older session: a game it held is free by the time the new app starts (it had
    been 'open in another session' while the old app was still going, however briefly)."""
    with ResultsDB.open(tmp_path) as db:
        hub = Hub(ServeOptions(data_dir=tmp_path, course=INTRO_COURSE), db)
        filed: list[str] = []

        class Session:
            child = None

            def __init__(self, name: str, slow: float = 0.0) -> None:
                self.name, self.slow, self.said = name, slow, ""

            async def end_for(self, said: str, reason: str) -> None:
                await asyncio.sleep(self.slow)  # an app that takes its time to stop
                self.said = said
                hub.db_later(lambda _db: filed.append(f"{self.name} ended: {reason}"))

            async def _end(self, reason: str) -> None:
                await self.end_for("", reason)

        old, other, new = Session("alice", slow=0.3), Session("bob", slow=0.3), Session("alice")
        hub.sessions |= {old, other, new}
        await hub.take_over(new)
        assert filed == ["alice ended: opened again elsewhere"] and "opened negtui again elsewhere" in old.said
        assert hub.sessions == {other, new} and other.said == ""
        await hub.stop()
