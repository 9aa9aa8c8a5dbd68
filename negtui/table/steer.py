"""The trainer at a table: a request (start, pause, resume, end, keep a seat for someone, say something)
on a connection of its own, and the table's answer.  The table tells a watcher everything, so the
answer is looked for among the lines that arrive until it comes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from negtui.table.client import TableClient, TableGone
from negtui.table.wire import WireError


def steer(path: Path, request: dict[str, Any], timeout: float = 5.0) -> None:
    """Ask the table listening at `path`; TableGone with the table's reason when it cannot be done."""
    client = TableClient(path, timeout)
    try:
        client.send({"type": "join", "watch": True})
        welcome = client.receive(timeout)
        if welcome is None or welcome.get("type") != "welcome":
            raise TableGone(str(welcome.get("why")) if welcome else "the table did not answer")
        client.send(request)
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            line = client.receive(left)
            if line is None:
                raise TableGone("the table did not answer")
            kind = line.get("type")
            if kind == "refused":
                raise TableGone(str(line.get("why") or "refused"))
            if kind == "done" or (kind == "said" and request.get("type") == "say"):
                return
        raise TableGone("the table did not answer in time")
    except WireError as err:
        raise TableGone(f"the table's answer was not understood: {err}") from None
    finally:
        client.close()
