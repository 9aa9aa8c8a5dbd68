"""How much memory this process may still use: what the machine has free, capped by a cgroup limit
(containers) and by the address-space limit (ulimit -v), whichever is smallest."""

from __future__ import annotations

import os
import resource
from pathlib import Path


def _meminfo_available() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_room() -> int | None:
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = int(Path("/sys/fs/cgroup/memory.current").read_text().strip())
    except (OSError, ValueError):
        return None
    return None if limit == "max" else max(0, int(limit) - used)


def _status(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def rss() -> int:
    """Resident memory of this process now (bytes)."""
    return _status("VmRSS") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def available() -> int:
    """Bytes this process can still allocate (a generous guess where the system does not say)."""
    room = [v for v in (_meminfo_available(), _cgroup_room()) if v is not None]
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        room.append(max(0, soft - (_status("VmSize") or 0)))
    if not room:
        room.append((os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")) if hasattr(os, "sysconf") else 2**34)
    return min(room)
