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
def opened(data_dir: Path | None) -> Iterator[ResultsDB]:
    from negtui.classroom.db import ResultsDB
    from negtui.datadir import user_data_dir

    with db_errors(), ResultsDB.open(data_dir or user_data_dir()) as db:
        yield db
