"""The results database as the commands open it: its expected failures a message and status 2."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from negtui.cli.errors import fail

if TYPE_CHECKING:
    from negtui.classroom.db import ResultsDB


@contextmanager
def db_errors() -> Iterator[None]:
    """Expected failures of the results database become a message and status 2 (inside `user_errors()`)."""
    from negtui.classroom.db import DBError

    try:
        yield
    except DBError as err:
        fail(f"error: {err}")


@contextmanager
def opened(data_dir: Path | None, read: bool = False) -> Iterator[ResultsDB]:
    """The results database of `data_dir`; `read`: a command that only reads it refuses a folder without one
    rather than make it (a mistyped --data-dir would leave an empty database and read as "no results")."""
    from negtui.classroom.db import DB_NAME, ResultsDB
    from negtui.datadir import user_data_dir

    where = data_dir or user_data_dir()
    if read and not (where / DB_NAME).is_file():
        fail(f"error: no results database in {where} (no {DB_NAME}): no trainee or game has been recorded there "
             f"(check --data-dir; `negtui trainees add` and `negtui serve --data-dir {where}` make one)")
    with db_errors(), ResultsDB.open(where) as db:
        yield db
