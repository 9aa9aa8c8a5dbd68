"""What a trainee's app hears of the class around it, read from the results database on the app's class tick:
the trainer's messages to the class (kept, to be read again in the lobby and at a table), and what of the
tables and the trainer's releases the lobby shows, so the lobby lists its entries again only when that
changes (listing them reads every exercise's results)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text

from negtui.classroom.dbtypes import TableRow, now_iso
from negtui.tui import palette

if TYPE_CHECKING:
    from negtui.classroom.course import LoadedCourse

RECENT = 3 * 3600.0  # seconds: the messages sent this long before a login are shown to a latecomer too
KEPT = 50  # messages an app keeps to show again (the newest)


@dataclass(frozen=True)
class Message:
    """One message of the trainer's to the whole class."""

    id: int
    sent: str  # UTC, ISO (now_iso's spelling)
    text: str

    @property
    def at(self) -> str:
        """When it was sent, as a clock on the wall of the room reads it (the server's local time)."""
        try:
            return datetime.fromisoformat(self.sent.replace("Z", "+00:00")).astimezone().strftime("%H:%M")
        except ValueError:
            return ""


def since_login() -> str:
    """The earliest a message may have been sent to be shown to a trainee logging in now."""
    return now_iso(-RECENT)


def messages_text(messages: Iterable[Message], title: str = "from the trainer") -> Text:
    """The trainer's messages, newest first, each with its time (empty: nothing sent)."""
    shown = list(messages)[::-1]
    out = Text()
    if not shown:
        return out
    out.append(title, style=f"bold {palette.ORANGE}")
    for m in shown:
        out.append(f"\n{m.at} ", style="dim")
        out.append(m.text)
    return out


@dataclass(frozen=True)
class LobbyState:
    """What the lobby shows of the class: the tables holding a seat of the trainee's and how (kept, theirs,
    a bot in it meanwhile), the tables of each exercise a newcomer may sit at (waiting for people, or under way
    with a seat a bot plays), and the exercises whose results the trainer has released."""

    seats: frozenset[tuple[int, str, str, bool, str]]
    open: frozenset[tuple[str, int, str]]
    released: frozenset[str]

    def waiting(self, exercise: str) -> tuple[int, int]:
        """(tables waiting for people, tables under way with a seat open) of the exercise."""
        mine = [status for ex, _, status in self.open if ex == exercise]
        return mine.count("forming"), mine.count("playing")


def table_rooms(course: LoadedCourse) -> dict[str, int]:
    """How many people a table of each table exercise of the course seats."""
    return {ex.id: ex.room(course.scenarios[ex.id].player_ids) for ex in course.course.exercises if ex.is_table}


def lobby_state(tables: list[TableRow], released: set[str], trainee: str, rooms: dict[str, int]) -> LobbyState:
    """`rooms`: how many people a table of each exercise seats."""
    seats = frozenset((t.id, t.status, held.player, held.online, held.seat) for t in tables
                      if (held := t.holds(trainee)) is not None)
    return LobbyState(seats, frozenset((t.exercise, t.id, t.status) for t in tables
                                       if t.free_seats(rooms.get(t.exercise, 0))),
                      frozenset(released))
