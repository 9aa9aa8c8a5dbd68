"""An OpenAI-compatible chat-completions server of the tests' own, on loopback: each request answered by
a policy, with hostile answers on request (raw bytes, a dripping body, a flood, headers a byte at a time).
No test needs the network."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Policy = Callable[[dict], object]  # request body -> answer (dict: JSON content; str: raw content; tuple: special)


class FakeChat:
    """A chat-completions endpoint: each request is answered by `policy(body)`; every request is kept."""

    def __init__(self, policy: Policy):
        self.policy = policy
        self.requests: list[dict] = []
        self.closed = threading.Event()  # a handler still sending stops
        chat = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                chat.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                answer = chat.policy(body)
                if isinstance(answer, tuple) and answer[0] in ("raw", "drip", "flood"):
                    self._hostile(answer)
                    return
                if isinstance(answer, tuple) and answer[0] == "trickle":
                    self._trickle(answer[1], answer[2])
                    return
                status, content = 200, answer
                if isinstance(answer, tuple) and answer[0] == "sleep":
                    time.sleep(answer[1])
                    content = answer[2]
                elif isinstance(answer, tuple) and answer[0] == "status":
                    status, content = answer[1], answer[2]
                if status != 200:
                    payload = json.dumps({"error": {"message": content}}).encode()
                else:
                    text = content if isinstance(content, str) else json.dumps(content)
                    payload = json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "model": body["model"],
                                          "choices": [{"index": 0, "finish_reason": "stop",
                                                       "message": {"role": "assistant", "content": text}}]}).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting

            def _hostile(self, answer: tuple) -> None:
                """("raw", status, bytes): exactly those bytes; ("drip", seconds, bytes): a byte at a time;
                ("flood",): a body without end, until the client hangs up."""
                try:
                    self.send_response(answer[1] if answer[0] == "raw" else 200)
                    self.send_header("Content-Type", "application/json")
                    if answer[0] != "flood":
                        self.send_header("Content-Length", str(len(answer[2])))
                    self.end_headers()
                    if answer[0] == "raw":
                        self.wfile.write(answer[2])
                    elif answer[0] == "drip":
                        for byte in answer[2]:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(answer[1])
                    else:
                        chunk = b"[" * 65536
                        for _ in range(16384):  # a gigabyte at most
                            self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _trickle(self, seconds: float, count: int) -> None:
                """("trickle", seconds, count): the status line, then `count` bytes of one header a byte at a
                time; the answer's body never comes (until the client hangs up or the server closes)."""
                try:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                    self.wfile.flush()
                    for _ in range(count):
                        if chat.closed.wait(seconds):
                            return
                        self.wfile.write(b"a")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()  # close() at once

    def close(self) -> None:
        self.closed.set()
        self.server.shutdown()
        self.server.server_close()

    def kinds(self) -> list[str]:
        return ["propose" if "partner" in r["body"]["response_format"]["json_schema"]["schema"]["properties"]
                else "respond" for r in self.requests]
