"""Where the training server last listened, kept in its data directory (`serve.json`, written by the
server alone, replaced whole): so that an invite tells a trainee the port to use."""

from __future__ import annotations

import json
import os
from pathlib import Path

ADDRESS_FILE = "serve.json"


def keep_address(data_dir: Path, host: str, port: int) -> None:
    tmp = data_dir / f".{ADDRESS_FILE}.{os.getpid()}"
    tmp.write_text(json.dumps({"host": host, "port": port}), encoding="utf-8")
    os.replace(tmp, data_dir / ADDRESS_FILE)


def last_address(data_dir: Path) -> tuple[str, int] | None:
    try:
        data = json.loads((data_dir / ADDRESS_FILE).read_text(encoding="utf-8")[:1000])
        return str(data["host"]), int(data["port"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
