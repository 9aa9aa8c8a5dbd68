"""A trainee's app asking the training server for what only the server does (opening a table): one JSON line
over the server's own socket, answered with one line (negtui.serve.tables answers)."""

from __future__ import annotations

import json
import socket
from typing import Any

REQUEST_BYTES = 4096  # a request's line at most, and an answer's


def ask(path: str, request: dict[str, Any], timeout: float = 90.0) -> dict[str, Any]:
    """A trainee's app asking the server (blocking: call it from a worker thread)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(path)
            sock.sendall((json.dumps(request) + "\n").encode())
            data = sock.makefile("rb").readline(REQUEST_BYTES)
        except OSError as err:
            return {"ok": False, "why": f"the training server did not answer: {err.strerror or err}"}
    try:
        answer = json.loads(data)
    except ValueError:
        return {"ok": False, "why": "the training server's answer was not understood"}
    return answer if isinstance(answer, dict) else {"ok": False, "why": "the training server's answer was empty"}
