"""Trainees of `negtui serve` (add, set, import, list, remove, invite) and their results."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.common import DataDirOpt, JsonOpt, emit_json, progress
from negtui.cli.errors import fail, user_errors
from negtui.cli.resultsdb import db_errors, opened
from negtui.cli.root import app

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
        with opened(data_dir, read=True) as db:
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
    with user_errors(), opened(data_dir, read=True) as db:
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
    with user_errors(), opened(data_dir, read=True) as db:
        games = next((t.games for t in db.trainees() if t.name == name), 0)
        if games and not force:
            fail(f"error: trainee {name!r} has played {games} game(s); give --force to delete them too")
        n = db.remove_trainee(name, force=force)
    typer.echo(f"removed {name}" + (f" and {n} game(s)" if n else ""))


@trainees_app.command("invite")
def invite(
    name: Annotated[str | None, typer.Argument(help="Trainee to invite (created if new).")] = None,
    roster: Annotated[Path | None, typer.Option("--roster", help=(
        "A CSV file whose header names a trainee column (a class list, a seating roster): a code for each "
        "trainee named, the new ones created."))] = None,
    hours: Annotated[float, typer.Option("--hours", help="How long the code stays valid.")] = 24.0,
    base_url: Annotated[str | None, typer.Option("--base-url", help=(
        "The address trainees reach the server at (https://class.example.org, or http://HOST:PORT of "
        "negtui serve --web): the web link is built on it, the ssh command uses its host."))] = None,
    as_csv: Annotated[bool, typer.Option("--csv", help=(
        "Print CSV for a mail merge: trainee, code, expires, ssh (the command to type), web (the link)."))] = False,
    data_dir: DataDirOpt = None,
) -> None:
    """One-time codes with which trainees enrol: over SSH the key they connect with, from a browser (the
    web link) that browser."""
    from negtui.classroom.classlist import ClassListError, read_trainees
    from negtui.classroom.identity import check_name
    from negtui.datadir import user_data_dir
    from negtui.serve.address import last_address
    from negtui.serve.links import BadURL, check_base_url

    with user_errors():
        if (name is None) == (roster is None):
            fail("error: give a trainee's NAME or --roster FILE (one of them)")
        if not 0 < hours <= MAX_INVITE_HOURS:
            fail(f"error: --hours must be above 0 and at most {MAX_INVITE_HOURS} (a year), not {hours:g}")
        base = None
        if base_url is not None:
            try:
                base = check_base_url(base_url)
            except BadURL as err:
                fail(f"error: --base-url {base_url[:80]!r} {err}")
        elif roster is not None or as_csv:
            fail("error: give --base-url URL, the address trainees reach the server at (https://class.example.org, "
                 "or http://HOST:PORT of negtui serve --web): the links and ssh commands are built on it")
        if name is not None:
            with db_errors():
                check_name(name)
            names = [name]
        else:
            assert roster is not None
            try:
                names = read_trainees(roster)
            except ClassListError as err:
                fail(err.render())
        where = last_address(data_dir or user_data_dir())
        with opened(data_dir) as db, progress(len(names), "making codes", enabled=len(names) > 20) as bar:
            task = bar.add_task("codes", total=len(names))
            issued = db.invites.issue(names, hours * 3600, lambda k: bar.update(task, completed=k))
    port = where[1] if where else DEFAULT_SSH_PORT
    if as_csv or roster is not None:
        _invites_out(issued, base, port, as_csv)
        return
    typer.echo(f"invite code for {name}: {issued[0].code}  (valid {hours:g} hours, once; shown only now)")
    typer.echo(f"{name} connects with `ssh -p {where[1] if where else 'PORT'} {name}@HOST` and types the code when "
               "asked; the key they connect with is then theirs."
               + ("" if where else f" (PORT: the one negtui serve listens on, {DEFAULT_SSH_PORT} unless --port says "
                                   "otherwise)"))
    if base is not None:
        from negtui.serve.links import join_link

        typer.echo(f"or opens {join_link(base, issued[0].trainee, issued[0].code)} in a browser")


MAX_INVITE_HOURS = 24 * 366
DEFAULT_SSH_PORT = 2222
INVITE_COLUMNS = ("trainee", "code", "expires", "ssh", "web")


def _invites_out(issued: list, base: str | None, port: int, as_csv: bool) -> None:
    """The codes as CSV (a mail merge's data) or one line per trainee; what was made on stderr."""
    import sys

    from negtui.serve.links import join_link, ssh_command

    assert base is not None  # asked for with --roster and --csv
    rows = [{"trainee": i.trainee, "code": i.code, "expires": i.expires, "ssh": ssh_command(base, i.trainee, port),
             "web": join_link(base, i.trainee, i.code)} for i in issued]
    if as_csv:
        from negtui.csvcells import write_rows

        write_rows(sys.stdout, INVITE_COLUMNS, rows)
    else:
        for r in rows:
            typer.echo(f"{r['trainee']:<24} {r['code']}  {r['ssh']}  {r['web']}")
    created = [i.trainee for i in issued if i.created]
    typer.echo(f"{len(issued)} invite code(s), valid until {issued[0].expires} (UTC), once each, shown only now"
               + (f"; {len(created)} new trainee(s)" if created else ""), err=True)
