"""`negtui class`: the trainer's console for a course served by `negtui serve`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.common import DataDirOpt, course_and_results
from negtui.cli.errors import user_errors
from negtui.cli.root import app


@app.command("class")
def class_(
    course: Annotated[Path, typer.Option("--course", help="The course file the server serves.")],
    data_dir: DataDirOpt = None,
) -> None:
    """The trainer's console: who is online and where, every table (start, pause, end, seats, messages,
    watch it live), and the class debrief."""
    with user_errors():
        loaded, data, db = course_and_results(course, data_dir)
    from negtui.console.app import ClassApp

    with db:
        console = ClassApp(loaded, db, data_dir=data)
        console.run(headless=bool(os.environ.get("NEGTUI_HEADLESS")))
    raise typer.Exit(console.return_code or 0)
