"""What the console's screens ask of the app they run in (ClassApp): the course, the results database, and
watching a table.  Its own module, so that the screen and its mixins name it without importing each other."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from negtui.classroom.course import LoadedCourse
    from negtui.classroom.db import ResultsDB
    from negtui.classroom.dbtypes import TableRow


class ConsoleHost(Protocol):
    course: LoadedCourse
    db: ResultsDB

    def watch_table(self, t: TableRow) -> None: ...
