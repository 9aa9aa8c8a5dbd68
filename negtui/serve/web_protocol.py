"""Textual's web protocol, both halves, as the browser door speaks them.

Between the door and the app (Textual's web driver, on the app's stdin and stdout): packets of one type
byte, a 4-byte big-endian length and the payload; `D` is terminal data (the keys typed; the screen drawn),
`M` a JSON object (`resize`, `focus`, `blur`, `quit` to the app; `exit`, `open_url`, … from it), `P` an
encoded structure (a file being delivered: refused by the confined app, skipped here).  The app writes
`__GANGLION__` and a line break before its first packet.

Between the browser and the door (textual-serve's client, `textual.js`): a text frame is a JSON array,
`["stdin", TEXT]`, `["resize", {"width": W, "height": H}]`, `["ping", X]` (answered `["pong", X]`),
`["focus"]`, `["blur"]`; a binary frame is screen data.

Both are read from outside the door, so both are bounded: a packet from the app over `MAX_PACKET` ends
the app, a browser's frame that is not one of the above is ignored, a size is clamped as a terminal's is."""

from __future__ import annotations

import json
from dataclasses import dataclass

from negtui.serve.pty_child import clamp

PRELUDE = b"__GANGLION__\n"
MAX_PACKET = 32 * 2**20  # bytes: a 500x200 screen in full colour is a few MiB
MAX_TYPED = 64 * 1024  # characters of one stdin frame (a paste)


def packet(kind: bytes, payload: bytes) -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


def meta(data: dict[str, object]) -> bytes:
    return packet(b"M", json.dumps(data).encode())


def resize(cols: int, rows: int) -> bytes:
    cols, rows = clamp(cols, rows)
    return meta({"type": "resize", "width": cols, "height": rows})


class TooLarge(ValueError):
    pass


@dataclass
class Packets:
    """The app's output, fed as it comes, given back as whole packets (type, payload)."""

    buffer: bytearray
    started: bool = False

    @classmethod
    def new(cls) -> Packets:
        return cls(bytearray())

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        self.buffer += data
        if not self.started:
            at = self.buffer.find(PRELUDE)
            if at < 0:
                if len(self.buffer) > 4096:  # whatever the app printed before it started: not a screen
                    del self.buffer[:-len(PRELUDE)]
                return []
            del self.buffer[:at + len(PRELUDE)]
            self.started = True
        out: list[tuple[bytes, bytes]] = []
        while len(self.buffer) >= 5:
            size = int.from_bytes(self.buffer[1:5], "big")
            if size > MAX_PACKET:
                raise TooLarge(f"a packet of {size:,} bytes from the app")
            if len(self.buffer) < 5 + size:
                break
            out.append((bytes(self.buffer[:1]), bytes(self.buffer[5:5 + size])))
            del self.buffer[:5 + size]
        return out


def from_browser(text: str) -> tuple[str, bytes | str | None]:
    """What a browser's text frame asks: ("stdin", packet), ("resize", packet), ("meta", packet) for focus and
    blur, ("pong", reply) for a ping, ("", None) for anything else."""
    try:
        frame = json.loads(text)
    except ValueError:
        return "", None
    if not isinstance(frame, list) or not frame or not isinstance(frame[0], str):
        return "", None
    kind, arg = frame[0], frame[1] if len(frame) > 1 else None
    if kind == "stdin" and isinstance(arg, str) and len(arg) <= MAX_TYPED:
        return "stdin", packet(b"D", arg.encode("utf-8", "replace"))
    if kind == "resize" and isinstance(arg, dict):
        w, h = arg.get("width"), arg.get("height")
        if isinstance(w, int) and isinstance(h, int) and not isinstance(w, bool) and not isinstance(h, bool):
            return "resize", resize(w, h)
    if kind == "ping" and isinstance(arg, str) and len(arg) <= 64:
        return "pong", json.dumps(["pong", arg])
    if kind in ("focus", "blur"):
        return "meta", meta({"type": kind})
    return "", None
