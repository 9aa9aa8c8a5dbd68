"""One writer per file: an exclusive lock taken without waiting, for record files and sweep results."""

from __future__ import annotations

import errno
import fcntl
import os


class Busy(OSError):
    """Another process holds the lock."""


def lock_or_close(fd: int) -> None:
    """Hold an exclusive lock on an open file for as long as it stays open; if that fails, the file is
    closed and Busy (another writer has it) or OSError (the lock itself failed) raised."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        os.close(fd)
        if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise Busy(err.errno, "locked by another process") from None
        raise
