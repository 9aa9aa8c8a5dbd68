"""One connection to a table, as the table's process holds it: who it is (a person in a seat, or the
trainer watching), the lines waiting to go out to it (bounded: a client that stops reading is let go
rather than let its backlog grow), and the lines it sends, decoded."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from negtui.table.wire import FROM_CLIENT, WireError, decode, encode

OUTBOX = 2_000  # lines queued for one client before it counts as gone


@dataclass
class Person:
    name: str
    player: str
    online: bool = False
    left_at: float | None = None  # when they dropped (monotonic seconds)
    replaced: bool = False  # a bot holds their seat meanwhile
    kept: bool = False  # the trainer kept this seat for them: theirs, whether they sit in it or not

    @property
    def joined(self) -> bool:
        """Sat down (and maybe left since): not only a seat the trainer kept for them."""
        return self.online or self.left_at is not None


@dataclass(eq=False)
class Client:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    person: Person | None = None
    watcher: bool = False  # the trainer's view: sees everything, may steer the table
    outbox: asyncio.Queue[bytes | None] = field(default_factory=lambda: asyncio.Queue(OUTBOX))

    @property
    def player(self) -> str | None:
        return None if self.person is None else self.person.player

    def send(self, message: dict[str, Any]) -> None:
        try:
            self.outbox.put_nowait(encode(message))
        except asyncio.QueueFull:  # not reading: gone, as far as the table is concerned
            self.writer.transport.abort()

    def finish(self) -> None:
        """Nothing more to send: the lines queued go out, then the pump stops (a full queue: let go now)."""
        try:
            self.outbox.put_nowait(None)
        except asyncio.QueueFull:
            self.writer.transport.abort()

    async def pump(self) -> None:
        """Write the queued lines out, as fast as the client reads them, until `finish`."""
        with contextlib.suppress(ConnectionError):
            while (data := await self.outbox.get()) is not None:
                self.writer.write(data)
                await self.writer.drain()

    async def messages(self) -> AsyncIterator[dict[str, Any]]:
        """Every line the client sends, decoded, until it closes; a line that is not this protocol's is
        refused and skipped, one over the size limit refused and the connection ended."""
        while True:
            try:
                line = await self.reader.readuntil(b"\n")
            except asyncio.LimitOverrunError:
                self.send({"type": "refused", "why": f"a line of over {FROM_CLIENT} bytes"})
                return
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            try:
                yield decode(line, FROM_CLIENT)
            except WireError as err:
                self.send({"type": "refused", "why": str(err)})
