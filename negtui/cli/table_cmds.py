"""A table several people share: `negtui table open` runs one in this terminal, `negtui table join`
takes a seat at it from another (the training server opens tables for its courses itself)."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Annotated, Literal

import typer

from negtui.cli.common import (
    DataDirOpt,
    InformationOpt,
    RulesOpt,
    SeatOpt,
    information_of,
    load,
    negotiation,
    regime_bots,
)
from negtui.cli.errors import EXIT_INTERRUPTED, fail, user_errors
from negtui.cli.root import app

table_app = typer.Typer(help="A game several people play together, each from their own terminal.",
                        no_args_is_help=True)
app.add_typer(table_app, name="table")
SOCKET_PATH_MAX = 100  # bytes: a Unix socket's path is at most 107 on Linux


@table_app.command("open")
def open_table(
    scenario: Annotated[Path, typer.Argument(help="Scenario file or bundled scenario name.")],
    seat: SeatOpt = None,
    socket: Annotated[Path | None, typer.Option("--socket", help="Where the table listens (default: in the data "
                                                                 "directory's tables/ folder).")] = None,
    rules: RulesOpt = "paper",
    title: Annotated[str, typer.Option(help="What people see as the table's name.")] = "",
    decision_time: Annotated[float | None, typer.Option("--decision-time", help="Seconds a person has per decision "
                                                        "(then a pass, or a rejection).")] = None,
    grace: Annotated[float, typer.Option(help="Seconds a person who drops keeps the seat.")] = 120.0,
    on_drop: Annotated[str, typer.Option("--on-drop", help="After the grace: 'bot' takes the seat over, or the "
                                                           "table 'wait's.")] = "bot",
    start_after: Annotated[float | None, typer.Option("--start-after", help="Seconds to wait for people; then "
                                                      "bots take the empty seats.")] = None,
    record: Annotated[bool, typer.Option("--record/--no-record", help="Record the game (default: on).")] = True,
    information: InformationOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Open a table in this terminal: people's seats are `--seat X=human`; bots play the others."""
    from pydantic import ValidationError

    from negtui.datadir import default_record_path, private_folder, user_data_dir
    from negtui.engine.portable import PortableGame
    from negtui.seats import Seat, SeatError, default_seats, parse_seats
    from negtui.table.host import TableHost
    from negtui.table.spec import TableSpec

    with user_errors():
        sc = load(scenario)
        neg = negotiation(sc, rules)
        try:
            lens, why = regime_bots(sc)  # the bots' lens wherever none is named, as in `play` and `autoplay`
            given = parse_seats(seat or [], sc, Seat())
            seats = {**default_seats(sc.player_ids, Seat(), lens), **given}
        except SeatError as err:
            fail(f"error: --seat: {err}")
        if not any(s.is_human for s in seats.values()):
            fail("error: a table needs at least one person's seat: --seat PLAYER=human")
        if on_drop not in ("bot", "wait"):
            fail(f"error: --on-drop is 'bot' or 'wait', not {on_drop!r}")
        shown = information_of(information)
        folder = data_dir or user_data_dir()
        try:  # the tables' folder is its owner's alone: a table's socket lets anyone who reaches it watch and steer
            path = socket or private_folder(folder / "tables") / f"{sc.name[:40]}-{_stamp()}.sock"
        except OSError as err:
            fail(f"error: {folder / 'tables'}: {err.strerror or err}")
        if len(str(path).encode()) > SOCKET_PATH_MAX:
            fail(f"error: {path}: a socket's path must be under {SOCKET_PATH_MAX} bytes; choose a shorter --socket")
        if path.exists():
            fail(f"error: {path} exists: another table may be listening there; choose another --socket")
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        record_path = key_file = None
        if record:
            from negtui.record.signing import KEY_FILE, data_dir_key

            (folder / "records").mkdir(parents=True, exist_ok=True)
            record_path, key_file = default_record_path(f"table-{sc.name}", folder / "records"), folder / KEY_FILE
            data_dir_key(folder)
        drop: Literal["bot", "wait"] = "bot" if on_drop == "bot" else "wait"
        try:
            spec = TableSpec(title=title or sc.name, game=PortableGame.of(neg.game, neg.rules).as_dict(),
                             seats=dict(seats), record=str(record_path) if record_path else None,
                             key_file=str(key_file) if key_file else None, grace=grace, on_drop=drop,
                             decision_time=decision_time, start_after=start_after,
                             information=shown, trainer=False)
        except ValidationError as err:  # the spec's own words, without the validator's wrapping
            fail("error: " + "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in err.errors()))
        except ValueError as err:
            fail(f"error: {err}")
        people = ", ".join(spec.people)
        typer.echo(f"table {spec.title!r} open for {people} at {path}")
        if any(pid not in given for pid in sc.player_ids):
            typer.echo(why)
        typer.echo(f"join with: negtui table join {path} --name NAME [--as PLAYER]")
        if record_path:
            typer.echo(f"recording to {record_path}")
        host = TableHost(spec, path, log=lambda line: typer.echo(line))
        code = _run(host)
    raise typer.Exit(code)


def _run(host: object) -> int:
    from negtui.table.host import TableHost

    assert isinstance(host, TableHost)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(sig, host.end, "the table's terminal closed it")
        await host.run()

    asyncio.run(main())
    return EXIT_INTERRUPTED if host.ended and host.ended.startswith("the table's terminal") else 0


def _stamp() -> str:
    import datetime as dt
    import os

    return dt.datetime.now().strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"


@table_app.command("join")
def join_table(
    socket: Annotated[Path, typer.Argument(help="The table's socket (as `negtui table open` printed it), or its "
                                                "file name in the data directory's tables/ folder.")],
    name: Annotated[str, typer.Option("--name", help="Your name, as the others see it.")],
    player: Annotated[str | None, typer.Option(
        "--as", help="The player you want to be, by id or by the name shown (default: the first free person's "
                     "seat).")] = None,
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Where a SOCKET given by its file name alone is looked for: the tables/ folder of this data "
                           "directory, where `negtui table open --data-dir` puts it (default: the user data "
                           "directory). Joining writes nothing there: the table keeps the record.")] = None,
) -> None:
    """Take a seat at a table: the app, with the game decided at the table."""
    from negtui.table.client import TableGone
    from negtui.table.source import sit

    with user_errors():
        name = name.strip()
        if not name or len(name) > 64:
            fail("error: --name is 1 to 64 characters")
        path = _table_socket(socket, data_dir)
        try:
            source = sit(path, name, player)
        except TableGone as err:
            fail(f"error: {path}: {err}")
        from negtui.tui.table_app import run_table_app

        code = run_table_app(source)
    raise typer.Exit(code)


def _table_socket(socket: Path, data_dir: Path | None) -> Path:
    """The socket to join: the path given, or, for a file name alone that is not in this folder, the one of
    that name (with or without .sock) in the data directory's tables/ folder."""
    from negtui.datadir import user_data_dir

    if socket.exists() or len(socket.parts) != 1:
        return socket
    folder = (data_dir or user_data_dir()) / "tables"
    for found in (folder / socket.name, folder / f"{socket.name}.sock"):
        if found.exists():
            return found
    fail(f"error: {socket}: no table of this name here or in {folder}")
