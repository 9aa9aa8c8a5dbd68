"""Training over SSH: `negtui serve` and `negtui watch` (trainees and results: trainee_cmds.py)."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from negtui.cli.common import DataDirOpt, course_and_results, open_app
from negtui.cli.errors import EXIT_INTERRUPTED, fail, user_errors
from negtui.cli.root import app

if TYPE_CHECKING:
    import asyncssh

    from negtui.classroom.course import LoadedCourse
    from negtui.classroom.db import ResultsDB
    from negtui.serve.doors import ServeOptions
    from negtui.serve.lock import DataDirLock
    from negtui.serve.server import Hub

EXIT_TERMINATED = 128 + signal.SIGTERM

@app.command()
def serve(
    course: Annotated[Path, typer.Option("--course", help="The course file (TOML or JSON) trainees play.")],
    host: Annotated[str,
                    typer.Option(help="Address to listen on; another than 127.0.0.1 only when asked.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 2222,
    data_dir: DataDirOpt = None,
    max_sessions: Annotated[int, typer.Option("--max-sessions", help="Connections at once.")] = 50,
    idle_timeout: Annotated[float, typer.Option("--idle-timeout", help="Minutes without a key press before a "
                                                                      "session ends (its games are kept).")] = 30.0,
    child_memory: Annotated[int, typer.Option("--child-memory", help="MiB of address space each connection's "
                                                                     "app may use.")] = 4096,
    web: Annotated[str | None, typer.Option("--web", metavar="HOST:PORT", help=(
        "Also serve the app to browsers here (127.0.0.1:8080; put it behind a TLS reverse proxy to reach it "
        "from other machines): trainees join with their invite's web link."))] = None,
    web_url: Annotated[str | None, typer.Option("--web-url", help=(
        "Where browsers reach the --web door, when a reverse proxy stands before it (https://class.example.org): "
        "pages of that address alone may open the app."))] = None,
) -> None:
    """Serve a course over SSH (and with --web to browsers): trainees log in with their keys (or their
    invite's web link) and play its exercises, coached."""
    from negtui.serve.doors import ServeOptions
    from negtui.serve.lock import DataDirLock

    with user_errors():
        if not 1 <= port <= 65535:
            fail(f"error: --port must be between 1 and 65535, not {port}")
        if max_sessions < 1 or not idle_timeout > 0 or child_memory < 256:
            fail("error: --max-sessions ≥ 1, --idle-timeout > 0 and --child-memory ≥ 256 are needed")
        door = _web_address(web, web_url)
        loaded, data, db = course_and_results(course, data_dir)
        lock = DataDirLock(data)
        try:  # the database and the lock are let go however the server ends, or fails to start
            _serve(loaded, data, db, lock, ServeOptions(data, course.resolve(), host, port, max_sessions,
                                                        idle_timeout * 60, child_memory * 2**20, web=door,
                                                        web_url=web_url and web_url.strip().rstrip("/")))
        finally:
            db.close()
            lock.release()


def _web_address(web: str | None, web_url: str | None) -> tuple[str, int] | None:
    """--web's HOST:PORT (a bare PORT: on 127.0.0.1), checked with --web-url before anything starts."""
    from negtui.serve.links import BadURL, check_base_url

    if web_url is not None:
        if web is None:
            fail("error: --web-url needs --web HOST:PORT (the door it names)")
        try:
            check_base_url(web_url)
        except BadURL as err:
            fail(f"error: --web-url {web_url[:80]!r} {err}")
    if web is None:
        return None
    host, _, port_text = web.strip().rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535 or len(host) > 253:
        fail(f"error: --web must be HOST:PORT (127.0.0.1:8080) or a PORT, not {web[:80]!r}")
    return host, int(port_text)


def _serve(loaded: LoadedCourse, data: Path, db: ResultsDB, lock: DataDirLock, options: ServeOptions) -> None:
    from negtui.serve.lock import Held
    from negtui.serve.server import Hub
    from negtui.serve.ssh_door import host_key

    try:
        lock.acquire()
    except Held as err:
        fail(f"error: {err}")
    except OSError as err:
        fail(f"error: cannot lock {lock.path}: {err.strerror or err}")
    if (swept := lock.sweep()) is not None:
        typer.echo(f"removed {swept}, left by a server that did not stop cleanly", err=True)
    if ended := db.sessions_left_open("server killed"):
        typer.echo(f"{ended} session{'s' * (ended != 1)} left open by a server that did not stop cleanly: "
                   "marked ended", err=True)
    key = host_key(data)
    hub = Hub(options, db, loaded)
    try:
        asyncio.run(_run(hub, key, loaded, len(db.trainees()), lock))
    except OSError as err:
        where = f"{options.host}:{options.port}" + (f" or {options.web[0]}:{options.web[1]}" if options.web else "")
        fail(f"error: cannot listen on {where}: {err.strerror or err}")
    except KeyboardInterrupt:
        typer.echo("negtui serve stopped", err=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except Stopped:
        typer.echo("negtui serve stopped (SIGTERM)", err=True)
        raise typer.Exit(EXIT_TERMINATED) from None


class Stopped(Exception):
    """SIGTERM: every session ended, games kept, the server closed."""


async def _run(hub: Hub, key: asyncssh.SSHKey, loaded: LoadedCourse, trainees: int, lock: DataDirLock) -> None:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # as many connections as the system allows us
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    stop = asyncio.Event()  # SIGTERM handled before the server says it is up
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    server = await hub.listen(key)
    lock.note(hub.folder)
    o = hub.options
    from negtui.serve.address import keep_address

    web = None
    if o.web is not None:
        host = f"[{o.web[0]}]" if ":" in o.web[0] else o.web[0]
        web = o.web_url or f"http://{host}:{hub.web_port or o.web[1]}"
    keep_address(o.data_dir, o.host, server.get_port() or o.port, web)
    typer.echo(f"negtui serve: course {loaded.course.name} ({len(loaded.course.exercises)} exercises) "
               f"on {o.host}:{o.port}" + (f", browsers at {web}" if web else ""))
    typer.echo(f"host key {key.get_fingerprint('sha256')} (trainees can check it when ssh asks)")
    typer.echo(f"{trainees} trainee{'s' * (trainees != 1)}; add one with: negtui trainees add NAME KEYFILE"
               f" --data-dir {o.data_dir}")
    typer.echo(f"trainees connect with: ssh -p {o.port} NAME@{o.host}"
               + (f", or open their invite's web link (negtui trainees invite --roster FILE --base-url {web} --csv)"
                  if web else "") + "; Ctrl-C stops the server")
    sys.stdout.flush()
    try:
        await stop.wait()
    finally:
        server.close()
        await hub.stop()
    raise Stopped


@app.command()
def watch(
    record: Annotated[Path | None, typer.Argument(help="A record being written (omit to list the live games).")] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Follow a live game read-only as its record grows; without a record, list the games being played."""
    from negtui.classroom.db import ResultsDB
    from negtui.datadir import user_data_dir

    with user_errors():
        if record is None:
            with ResultsDB.open(data_dir or user_data_dir()) as db:
                rows = db.classroom.live_games()
            if not rows:
                typer.echo("no game is being played")
            for r in rows:
                at = f" at table {r['table']}" if r["table"] is not None else ""
                typer.echo(f"{r['started'][:19].replace('T', ' ')}  {r['trainee']:<16} {r['course']}/{r['exercise']}"
                           f" as {r['seat']}{at}  {r['record_path']}")
            return
        from negtui.record import load_record

        load_record(record)  # a broken file is refused before the app starts
        raise typer.Exit(open_app(replay=record, follow=True))
