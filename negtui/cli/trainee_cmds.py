"""Trainees of `negtui serve` (add, set, import, list, remove, invite) and their results."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from negtui.cli.common import DataDirOpt, JsonOpt, emit_json
from negtui.cli.errors import fail, user_errors
from negtui.cli.resultsdb import db_errors, opened
from negtui.cli.root import app

if TYPE_CHECKING:

    pass

trainees_app = typer.Typer(no_args_is_help=True,
                           help="Trainees of negtui serve: who may connect over SSH, with which keys.")
app.add_typer(trainees_app, name="trainees")

StudentIdOpt = Annotated[str | None, typer.Option("--student-id", help=(
    "The registrar's id for the trainee, the key of the wide gradebook (results --gradebook --wide)."))]

def read_keys(keyfile: Path) -> list[str]:
    """Every key line of the file, each checked before anything is added, so that one bad line leaves the
    database untouched and the message names the file and line."""
    from negtui.classroom.dbtypes import DBError
    from negtui.classroom.identity import parse_public_key

    try:
        text = keyfile.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        fail(f"error: cannot read {keyfile}: {getattr(err, 'strerror', None) or err}")
    keys: list[str] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            fp = parse_public_key(line).get_fingerprint("sha256")
        except DBError as err:
            fail(f"error: {keyfile}:{lineno}: {err}")
        if fp in seen:
            fail(f"error: {keyfile}:{lineno}: the same key as line {seen[fp]}")
        seen[fp] = lineno
        keys.append(line.strip())
    if not keys:
        fail(f"error: {keyfile}: no public key in it (one 'ssh-ed25519 AAAA… comment' line per key)")
    return keys


@trainees_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="Trainee name, also their SSH user name.")],
    keyfile: Annotated[Path, typer.Argument(help="OpenSSH public key file (one key per line, e.g. id_ed25519.pub).")],
    trainer: Annotated[bool, typer.Option("--trainer", help=(
        "A trainer's account: logging in over SSH opens the trainer's console (negtui class), not the lobby"))] = False,
    student_id: StudentIdOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Add a trainee (or more keys to one) from a public key file; every key or none is added."""
    from negtui.classroom.identity import check_name, check_student_id

    with user_errors():
        with db_errors():
            check_name(name)
            if student_id is not None:
                check_student_id(student_id)  # before any key is added: all of it or nothing
        lines = read_keys(keyfile)
        with opened(data_dir) as db:
            if student_id is not None:
                holder = next((t.name for t in db.trainees() if t.student_id == student_id.strip()), None)
                if holder not in (None, name):
                    fail(f"error: student id {student_id.strip()!r} is {holder}'s already")
            keys = db.add_keys(name, lines, create=True)
            if trainer:
                db.classroom.set_trainer(name)
            if student_id is not None:
                db.students.set(name, student_id)
    for k in keys:
        typer.echo(f"added key {k.fingerprint} {k.comment}".rstrip() + f" for {name}")
    if trainer:
        typer.echo(f"{name} is a trainer: logging in opens the trainer's console")
    if student_id is not None:
        typer.echo(f"{name}'s student id is {student_id.strip()}")


@trainees_app.command("set")
def set_(
    name: Annotated[str, typer.Argument(help="Trainee to change.")],
    student_id: StudentIdOpt = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Set what the trainer knows of a trainee: their student id (--student-id '' takes it away)."""
    with user_errors():
        if student_id is None:
            fail("error: nothing to set: give --student-id ID (or --student-id '' to take it away)")
        with opened(data_dir) as db:
            db.students.set(name, student_id)
    typer.echo(f"{name}'s student id is {student_id.strip()}" if student_id.strip()
               else f"{name} has no student id now")


@trainees_app.command("import")
def import_(
    class_list: Annotated[Path, typer.Argument(help=(
        "A CSV file whose header names the columns trainee and student_id (any others are left alone)."))],
    create: Annotated[bool, typer.Option("--create", help=(
        "Add the trainees the list names that are not known yet (without a key: invite them then)."))] = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Set trainees' student ids from a class list (the registrar's): every row or none."""
    from negtui.classroom.classlist import ClassListError, read_class_list
    from negtui.classroom.dbtypes import DBError

    with user_errors():
        try:
            given = read_class_list(class_list)
        except ClassListError as err:
            fail(err.render())
        with opened(data_dir) as db:
            try:
                filed = db.students.set_all(given, create=create)
            except DBError as err:
                fail(f"error: {class_list}: {err}")
    if filed.created:
        typer.echo(f"added {len(filed.created)} trainee(s) without a key: {', '.join(filed.created)} "
                   "(negtui trainees invite NAME gives each a code to enrol their key)")
    typer.echo(f"student ids of {len(given)} trainee(s): {len(filed.changed) + len(filed.created)} set, "
               f"{len(filed.same)} as they were")


@trainees_app.command("list")
def list_(data_dir: DataDirOpt = None, as_json: JsonOpt = False) -> None:
    """List trainees: their keys, a pending invite, how many games they played."""
    with user_errors(), opened(data_dir) as db:
        trainees = db.trainees()
    if as_json:
        emit_json([dataclasses.asdict(t) for t in trainees])
        return
    if not trainees:
        typer.echo("no trainees yet (negtui trainees add NAME KEYFILE, or negtui trainees invite NAME)", err=True)
    for t in trainees:
        invite = "  invite pending" if t.invite_pending else ""
        role = "  trainer (logs in to the console)" if t.trainer else ""
        sid = f"  student id {t.student_id}" if t.student_id else ""
        typer.echo(f"{t.name:<24} {len(t.keys)} key(s) {t.games:>4} game(s)  since {t.created}{sid}{role}{invite}")
        for k in t.keys:
            typer.echo(f"    {k.fingerprint} {k.comment}".rstrip())


@trainees_app.command("remove")
def remove(
    name: Annotated[str, typer.Argument(help="Trainee to remove.")],
    force: Annotated[bool, typer.Option("--force", help="Also delete the trainee's games and decisions.")] = False,
    data_dir: DataDirOpt = None,
) -> None:
    """Remove a trainee with their keys and invites; one who has played games needs --force."""
    with user_errors(), opened(data_dir) as db:
        games = next((t.games for t in db.trainees() if t.name == name), 0)
        if games and not force:
            fail(f"error: trainee {name!r} has played {games} game(s); give --force to delete them too")
        n = db.remove_trainee(name, force=force)
    typer.echo(f"removed {name}" + (f" and {n} game(s)" if n else ""))


@trainees_app.command("invite")
def invite(
    name: Annotated[str, typer.Argument(help="Trainee to invite (created if new).")],
    hours: Annotated[float, typer.Option("--hours", help="How long the code stays valid.")] = 24.0,
    data_dir: DataDirOpt = None,
) -> None:
    """Make a one-time code with which a trainee enrols their own SSH key on first connection."""
    from negtui.classroom.identity import check_name
    from negtui.datadir import user_data_dir
    from negtui.serve.address import last_address

    with user_errors():
        with db_errors():
            check_name(name)
        if not hours > 0:
            fail(f"error: --hours must be positive, not {hours}")
        with opened(data_dir) as db:
            if not any(t.name == name for t in db.trainees()):
                db.add_trainee(name)
            code = db.invite(name, ttl=hours * 3600)
    typer.echo(f"invite code for {name}: {code}  (valid {hours:g} hours, once; shown only now)")
    where = last_address(data_dir or user_data_dir())
    port = where[1] if where else "PORT"
    typer.echo(f"{name} connects with `ssh -p {port} {name}@HOST` and types the code when asked; "
               "the key they connect with is then theirs."
               + ("" if where else " (PORT: the one negtui serve listens on, 2222 unless --port says otherwise)"))
