"""Where negtui keeps what it writes for a user: records/ and generated scenarios/ in the user data
directory (or the one `--data-dir` names).  Small and free of the game, so the command line can find
it without importing what plays games."""

from __future__ import annotations

import datetime as _dt
import os
import secrets
from pathlib import Path


def user_data_dir() -> Path:
    """The user's negtui data directory (platformdirs): records/ and generated scenarios/ live there."""
    from platformdirs import user_data_dir as _dir

    return Path(_dir("negtui"))


def private_folder(folder: Path) -> Path:
    """`folder`, made if need be and entered by its owner only (mode 0700, whatever it had): the tables'
    sockets live there, and whoever can reach a table's socket can sit at it or watch it as its trainer."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    return folder


def recent_records(folder: Path) -> list[Path]:
    """The records under `folder` (trainees' subfolders too), newest first; none if it does not exist."""
    if not folder.is_dir():
        return []
    return sorted(folder.rglob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)


def default_record_path(scenario_name: str, directory: str | os.PathLike[str] | None = None) -> Path:
    """A new record file name for a scenario, in `directory` (default: the data directory's records/)."""
    if directory is None:
        directory = user_data_dir() / "records"
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in scenario_name)[:60]
    # process id and a random tag: games started in the same second never share a name (the writer
    # creates the file exclusively in any case)
    return Path(directory) / f"{stamp}-{safe}-{os.getpid()}-{secrets.token_hex(2)}.jsonl"
