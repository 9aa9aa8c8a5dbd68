"""A course's table keeper running as the training server runs it, for the tests of the server, the trainee's
app and the trainer's console (waiting for a state is tests/waiting.py's)."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.serve.tables import TableKeeper

COURSE = """\
name = "tables"
title = "Tables"

[[exercises]]
id = "pill"
title = "The poison pill, in pairs"
scenario = "poison-pill"
humans = ["A", "B"]

[[exercises]]
id = "trap"
title = "The coalition trap, any two"
scenario = "coalition-trap"
humans = 2

[[exercises]]
id = "alone"
title = "Alone"
scenario = "poison-pill"
seat = "B"
"""

# the same course with a table of three, and a class of six to seat at it
TRIO = COURSE + """
[[exercises]]
id = "trio"
title = "The coalition trap, three people"
scenario = "coalition-trap"
humans = 3
game_time = 3600
information = "private"
"""
CLASS = ("alice", "bob", "carol", "dave", "erin", "frank")


class Server:
    """A table keeper on an event loop of its own, as the SSH server runs it; `apps` maps the process
    ids it treats as trainees' apps to their names (this test process is alice's unless told)."""

    def __init__(self, data: Path, course: Path) -> None:
        self.data = data
        self.db = ResultsDB.open(data)
        for name in ("alice", "bob", "carol"):
            self.db.add_trainee(name)
        self.apps: dict[int, str] = {os.getpid(): "alice"}
        self.pool = ThreadPoolExecutor(1)
        self.loop = asyncio.new_event_loop()
        self.keeper = TableKeeper(data, course, load_course(course), self._db_call, self.apps.get, max_tables=3)
        self.path = str(data / "hub.sock")
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.run(self.keeper.listen(self.path))

    async def _db_call(self, query: Callable[[ResultsDB], Any]) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.pool, query, self.db)

    def run(self, coro: Any, timeout: float = 90) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def open(self, exercise: str, trainee: str = "alice") -> dict[str, Any]:
        return self.run(self.keeper.answer(trainee, {"op": "open", "exercise": exercise}))

    def stop(self) -> None:
        self.run(self.keeper.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.pool.shutdown()
        self.db.close()
