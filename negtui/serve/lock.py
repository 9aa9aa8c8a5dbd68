"""One training server per data directory, and what a killed one left behind.

Two servers on one data directory would both write its results, records and tables; the second is
refused while the first holds `serve.lock` (an advisory lock the kernel drops when the process dies,
however it dies).  The lock file also names the server's temporary folder (sockets), so the next start
after a `kill -9` removes it, and ends the sessions the killed server left open in the database."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO

from negtui.locks import Busy, lock_or_close

LOCK_FILE = "serve.lock"
FOLDER_PREFIX = "negtui-serve-"  # the server's temporary folder: removed at the next start if left behind


class Held(Exception):
    """Another server holds the data directory."""


class DataDirLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_FILE
        self._file: IO[str] | None = None
        self.left_behind: dict = {}  # what the last server wrote, if it did not stop cleanly

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            lock_or_close(fd)
        except Busy:
            with open(self.path, encoding="utf-8") as held:
                pid = _read(held.read(1000)).get("pid", "?")
            raise Held(f"another negtui serve (pid {pid}) is using {self.path.parent}; stop it first") from None
        file = os.fdopen(fd, "r+", encoding="utf-8")  # held for the server's life
        self.left_behind = _read(file.read(1000))
        self._file = file
        self.note(None)

    def note(self, folder: str | None) -> None:
        """Record this server (and its temporary folder, once made) in the lock file."""
        assert self._file is not None
        self._file.seek(0)
        self._file.truncate()
        self._file.write(json.dumps({"pid": os.getpid(), "folder": folder}))
        self._file.flush()

    def sweep(self) -> str | None:
        """Remove the temporary folder a killed server left, if it is one of ours; its path, if removed."""
        folder = self.left_behind.get("folder")
        if not isinstance(folder, str):
            return None
        path = Path(folder)
        if path.parent != Path(tempfile.gettempdir()) or not path.name.startswith(FOLDER_PREFIX) or not path.is_dir():
            return None
        shutil.rmtree(path, ignore_errors=True)
        return folder

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.seek(0)
                self._file.truncate()
            self._file.close()  # closing drops the lock
            self._file = None


def _read(text: str) -> dict:
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
