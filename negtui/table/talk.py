"""What people say at a table: messages to everyone or to one party, cleaned of anything a terminal
would act on, bounded in length and in rate, and kept in the record with the turn they were said in."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass

from negtui.scenario.untrusted import one_line

MAX_CHARS = 500  # one message: a few sentences
RATE = (5, 10.0)  # at most 5 messages in any 10 seconds per sender
KEPT = 2_000  # messages a table keeps for late joiners (the record keeps them all)
TRAINER = "trainer"
EVERYONE = None


@dataclass(frozen=True)
class Said:
    t: int  # the turn under way when it was said
    sender: str  # a player id, or TRAINER
    to: str | None  # a player id; None: everyone
    text: str

    def as_dict(self) -> dict[str, object]:
        return {"t": self.t, "sender": self.sender, "to": self.to, "text": self.text}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Said:
        to, t = data.get("to"), data["t"]
        if not isinstance(t, int):
            raise ValueError(f"a message's turn is a number, not {t!r}")
        return cls(t, str(data["sender"]), None if to is None else str(to), clean(str(data["text"])))

    def reaches(self, player: str | None) -> bool:
        """Whether the player sees it: everyone's, their own and those addressed to them (None: the trainer
        and watchers, who see everything)."""
        return player is None or self.to is None or player in (self.to, self.sender)


def clean(text: str) -> str:
    """A message as shown: printable, on one line, at most MAX_CHARS characters."""
    return one_line(text, MAX_CHARS)


class RateLimit:
    """At most `count` messages per `window` seconds per sender."""

    def __init__(self, count: int = RATE[0], window: float = RATE[1]) -> None:
        self.count, self.window = count, window
        self._sent: dict[str, deque[float]] = {}

    def allow(self, sender: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        sent = self._sent.setdefault(sender, deque())
        while sent and now - sent[0] >= self.window:
            sent.popleft()
        if len(sent) >= self.count:
            return False
        sent.append(now)
        return True
