"""`negtui class`: the trainer's console for a course served by `negtui serve`, or (`--export`) the class
debrief as a page to project."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.common import DataDirOpt, course_and_results
from negtui.cli.errors import fail, user_errors
from negtui.cli.root import app


@app.command("class")
def class_(
    course: Annotated[Path, typer.Option("--course", help="The course file the server serves.")],
    export: Annotated[Path | None, typer.Option("--export", help=(
        "Write the class debrief into this folder instead of opening the console: index.html (opens in any "
        "browser, no server), every figure as SVG and PNG, and the CSV behind each."))] = None,
    tables: Annotated[int, typer.Option("--tables", min=1, max=200, help=(
        "With --export: at most this many tables (and games played alone) per exercise, the newest; the page "
        "says how many were left out."))] = 40,  # debrief.TABLES_SHOWN, the console's too; export.MAX_TABLES
    data_dir: DataDirOpt = None,
) -> None:
    """The trainer's console: who is online and where, every table (start, pause, end, seats, messages,
    watch it live), and the class debrief; or, with --export, the class debrief as a page to project."""
    with user_errors():
        loaded, data, db = course_and_results(course, data_dir)
    if export is not None:
        from negtui.classroom.dbtypes import DBError
        from negtui.classroom.export import export_class

        with user_errors(), db:
            try:
                done = export_class(db, loaded, export, tables=tables)
            except (DBError, OSError) as err:
                fail(f"error: cannot export the class debrief to {export}: {err}")
        typer.echo(f"wrote {done.index} ({len(done.files)} figure and data files beside it)")
        return
    from negtui.console.app import ClassApp

    with db:
        console = ClassApp(loaded, db, data_dir=data)
        console.run(headless=bool(os.environ.get("NEGTUI_HEADLESS")))
    raise typer.Exit(console.return_code or 0)
