"""`negtui serve` with a real SSH client (asyncssh's): who gets in, what is refused, one app per
connection on its own terminal, resizes, disconnects that end the app and keep the record, reconnecting
to resume, and the server's own start-up errors."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import asyncssh
import pytest
import pytest_asyncio

from negtui.record import Replay, load_record
from negtui.serve.db import ResultsDB
from negtui.serve.server import Hub, ServeOptions, host_key
from tests.paths import INTRO_COURSE

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

    async def wait_for(self, text: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
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


async def test_logins_at_the_same_moment_get_no_more_apps_than_max_sessions(server):
    """Eight trainees' terminals opened at once against a limit of three: three apps, five told the server
    is full (the count is taken as a session starts, not once the database has answered)."""
    hub, port, alice = server
    conns = [await connect(port, alice).__aenter__() for _ in range(8)]
    try:
        opened = await asyncio.gather(*(open_terminal(c) for c in conns))
        terms = [term for _chan, term in opened]
        await asyncio.sleep(0.5)
        assert len(hub.sessions) == 3
        for term in terms:  # each either gets the lobby or is told why not
            deadline = time.monotonic() + 30
            while "The poison pill" not in term.output and "server is full" not in term.output:
                assert time.monotonic() < deadline, term.output[-500:]
                await asyncio.sleep(0.05)
        full = [t for t in terms if "the training server is full (3 sessions)" in t.output]
        assert len(full) == 5
        assert len([t for t in terms if "The poison pill" in t.output]) == 3
    finally:
        for conn in conns:
            conn.close()
    deadline = time.monotonic() + 20
    while hub.sessions and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert not hub.sessions


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
        await asyncio.sleep(0.3)
        assert _pty_size(session) == MAX_SIZE
        term.output = ""
        chan.change_terminal_size(100, 30)
        await term.wait_for("The poison pill")  # redrawn whole at a size in range
        assert _pty_size(session) == (100, 30)
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)


async def test_a_client_that_stops_reading_holds_the_servers_memory_flat(server):
    """A paused client at the largest size, its app made to redraw again and again: the server holds
    at most its buffer of the client's screen (before: everything drawn, 100 MB a minute) and stops
    reading the app, which waits; once the client reads again, the app answers as before."""
    from negtui.serve.server import OUTPUT_BUFFERED

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
        await asyncio.sleep(1)
        peak = max(peak, session.chan.get_write_buffer_size())
        assert session.child._paused
        assert peak <= OUTPUT_BUFFERED + 65536
        chan.resume_reading()
        chan.change_terminal_size(100, 30)
        term.output = ""
        await term.wait_for("The poison pill")
        assert not session.child._paused
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)


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

    from negtui.serve import server as served

    monkeypatch.setattr(served, "PREAUTH_PER_ADDRESS", 4)
    hub, port, alice = server
    silent = []
    for _ in range(7):
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setblocking(False)
        silent.append(sock)
    await asyncio.sleep(0.5)

    def closed(sock: socket.socket) -> bool:
        try:
            while sock.recv(4096):  # the server's banner, then the end if it hung up
                pass
            return True
        except BlockingIOError:
            return False
        except ConnectionResetError:
            return True

    assert sum(closed(s) for s in silent) == 3
    assert sum(hub.not_logged_in.values()) == 4
    err = capfd.readouterr().err
    assert "refused connections waiting to log in (over 4 from one address" in err and "Traceback" not in err
    for sock in silent:
        sock.close()
    await asyncio.sleep(0.3)
    assert not hub.not_logged_in
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
    _hub, port, alice = server
    conns, terms = [], []
    for _ in range(3):
        conn = await connect(port, alice)
        chan, term = await open_terminal(conn)
        conns.append(conn)
        terms.append((chan, term))
    for _, term in terms:
        await term.wait_for("The poison pill")
    async with connect(port, alice) as extra:
        chan, term = await open_terminal(extra)
        await asyncio.wait_for(term.closed.wait(), 20)
        assert term.status == 1
    for conn in conns:
        conn.close()


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
    deadline = time.monotonic() + 15
    while _alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert not _alive(pid), "the app outlived its connection"
    if not hub.options.fork_server:  # reaped by the server (its watcher a moment after the exit): no zombie left
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
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
        chan.write("\x1b")  # close the partner dialog
        await asyncio.sleep(0.5)
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
        deadline = time.monotonic() + 30
        while b"poison" not in screen and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        os.kill(child.pid, 19)  # SIGSTOP: a hang-up stays pending
        started = time.monotonic()
        hub.zygote.terminate()
        await asyncio.wait_for(hub.zygote.wait(), zygote.GRACE + 10)
        assert time.monotonic() - started >= zygote.GRACE - 0.5  # it was given its grace
        deadline = time.monotonic() + 5
        while not exits and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert exits == [-9] and not _alive(child.pid)
    finally:
        if child.pid and _alive(child.pid):
            os.kill(child.pid, 9)
        await hub.stop()
        db.close()


async def test_a_training_game_left_before_its_first_turn_is_not_offered_to_resume(tmp_path):
    """The trainee starts an exercise and leaves at once: the empty record is removed, and the next
    lobby files the game as abandoned instead of offering a resume that has nothing in it."""
    from negtui.serve.course import load_course
    from negtui.serve.training import TrainingApp

    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_keys("alice", [asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode()],
                    create=True)
        app = TrainingApp(load_course(INTRO_COURSE), db, "alice", data_dir=data)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause(0.5)
            await pilot.press("enter")  # the first exercise's briefing
            await pilot.pause(0.3)
            await pilot.press("ctrl+s")  # start
            for _ in range(100):
                await pilot.pause(0.05)
                if app.game is not None:
                    break
            assert app.game is not None
            record = app.game.record_path
            await pilot.press("ctrl+q")
        assert not record.exists()
        (game,) = db.unfinished_games("alice")
        app = TrainingApp(load_course(INTRO_COURSE), db, "alice", data_dir=data)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause(0.5)
            first = app.screen.query_one("OptionList").get_option_at_index(0).prompt
            assert "resume" not in str(first)  # the exercises come first: no game to resume
        assert db.game(game.id).status == "abandoned"


SESSION_IMPORTS = """
import asyncio, sys, tempfile
from pathlib import Path
import negtui.serve.training
from negtui.serve import zygote
zygote.preload()
before = set(sys.modules)
from negtui.serve.course import load_course
from negtui.serve.db import ResultsDB
from negtui.serve.training import TrainingApp
from negtui.tui.screens.debrief import DebriefScreen

async def main():
    data = Path(tempfile.mkdtemp())
    with ResultsDB.open(data) as db:
        app = TrainingApp(load_course(Path(sys.argv[1])), db, "alice", data_dir=data)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause(0.5)
            await pilot.press("enter")
            await pilot.pause(0.3)
            await pilot.press("ctrl+s")
            for _ in range(400):  # reject every bundle, pass every turn: the game runs to its debrief
                await pilot.pause(0.05)
                if isinstance(app.screen, DebriefScreen):
                    break
                kind = type(app.screen).__name__
                if kind in ("RespondScreen", "PartnerScreen"):
                    await pilot.press("x")  # rejects an offer, passes a turn
            assert isinstance(app.screen, DebriefScreen), app.screen
            await pilot.pause(1.0)

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
