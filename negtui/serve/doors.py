"""What a door (SSH, the browser) needs of the server, and what the server needs of a door's session.

The doors and the server that owns them are read apart: a door names the hub through `DoorHub`, never the
`Hub` class, so neither module reads the other's internals and each can be tested with its own stand-in."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from negtui.classroom.db import ResultsDB
from negtui.serve.pty_child import PtyChild, in_background

T = TypeVar("T")
IDLE_SAID = "session ended: idle too long (your games are kept)"


@dataclass(frozen=True)
class ServeOptions:
    data_dir: Path
    course: Path
    host: str = "127.0.0.1"
    port: int = 2222
    max_sessions: int = 50
    idle_timeout: float = 1800.0
    child_memory: int | None = 4 * 2**30  # bytes of address space per child
    fork_server: bool = True  # fork each app from a process that has imported everything (zygote.py)
    web: tuple[str, int] | None = None  # the browser door's address (web.py), if it has one
    web_url: str | None = None  # where browsers reach the door, when a reverse proxy stands before it


class AppSession(Protocol):
    """A connection's app, SSH's (ssh_door._Session) or a browser's (web.WebSession)."""

    name: str

    @property
    def child(self) -> PtyChild | None: ...

    async def end_for(self, said: str, reason: str) -> None: ...

    async def _end(self, reason: str) -> None: ...


class DoorHub(Protocol):
    """The server as a door sees it (server.Hub): its options, the live sessions, the database, an app's start."""

    options: ServeOptions
    sessions: set[AppSession]
    not_logged_in: dict[str, int]
    zygote_path: str | None

    async def db_call(self, query: Callable[[ResultsDB], T]) -> T: ...

    def db_later(self, write: Callable[[ResultsDB], object]) -> None: ...

    def refused(self, host: str) -> None: ...

    async def take_over(self, session: AppSession) -> None: ...

    def app_args(self, name: str, session_id: int, *, trainer: bool = False, web: bool = False) -> list[str]: ...

    def app_env(self, cols: int | None = None, rows: int | None = None) -> dict[str, str]: ...


class IdleClock:
    """A session's idle time-out, the same at either door: each key press starts it again, and when it runs out
    the session ends with a word on the trainee's screen."""

    def __init__(self, seconds: float, end_for: Callable[[str, str], Coroutine[Any, Any, None]]) -> None:
        self.seconds, self.end_for = seconds, end_for
        self.timer: asyncio.TimerHandle | None = None

    def touch(self) -> None:
        self.stop()
        self.timer = asyncio.get_running_loop().call_later(self.seconds, self._out)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()

    def _out(self) -> None:
        in_background(self.end_for(IDLE_SAID, "idle"))
