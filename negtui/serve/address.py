"""Where the training server last listened, kept in its data directory (`serve.json`, written by the
server alone, replaced whole): so that an invite tells a trainee the port to use."""

from __future__ import annotations

import json
import os
from pathlib import Path

ADDRESS_FILE = "serve.json"


def keep_address(data_dir: Path, host: str, port: int, web: str | None = None) -> None:
    """`web`: the browser door's address (http://HOST:PORT), when the server has one."""
    tmp = data_dir / f".{ADDRESS_FILE}.{os.getpid()}"
    tmp.write_text(json.dumps({"host": host, "port": port, "web": web}), encoding="utf-8")
    os.replace(tmp, data_dir / ADDRESS_FILE)


def _read(data_dir: Path) -> dict:
    try:
        data = json.loads((data_dir / ADDRESS_FILE).read_text(encoding="utf-8")[:1000])
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def last_address(data_dir: Path) -> tuple[str, int] | None:
    data = _read(data_dir)
    try:
        return str(data["host"]), int(data["port"])
    except (KeyError, TypeError, ValueError):
        return None


def last_web(data_dir: Path) -> str | None:
    web = _read(data_dir).get("web")
    return web if isinstance(web, str) else None
