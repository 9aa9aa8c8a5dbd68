"""What a table tells whoever keeps its results beside the record (the training server's table
process, which files them in the results database): by default nobody.  The table calls these on its
event loop; what is slow (a database) belongs in a thread."""

from __future__ import annotations

from typing import Any

from negtui.coach.closing import Closing
from negtui.play.live import LiveGame


class TableEvents:
    def listening(self) -> None:
        """The socket is open: people may join."""

    async def admit(self, name: str, player: str) -> str | None:
        """Whether `name` may take `player`'s seat (sitting down, or coming back to it): None, or why not,
        told to them before they are shown anything of the seat.  A course's table checks its exercise's rules
        here, where the seat is taken (attempts, confidential roles, seats kept)."""
        return None

    def gave_up(self, name: str, player: str) -> None:
        """`name` left `player`'s seat before the start: they play nothing there."""

    async def may_keep(self, name: str, player: str) -> str | None:
        """Whether the trainer may keep `player`'s seat for `name`: None, or why not (told to the trainer)."""
        return None

    def people(self, people: list[dict[str, Any]]) -> None:
        """Who sits where changed (the list the table sends its clients)."""

    def started(self, game: LiveGame) -> None:
        """The game starts with these seats."""

    def moved(self, game: LiveGame) -> None:
        """A move was applied."""

    def paused(self, paused: bool) -> None:
        """The trainer paused the table, or let it go on."""

    def round(self, left: float | None, running: bool) -> None:
        """The round's clock changed (the start, a pause, the trainer's setting): `left` seconds left now,
        running down or not."""

    async def over(self, game: LiveGame, closing: Closing) -> None:
        """The game ended and the debriefs' numbers are worked out (`closing`); the table stays open until
        this returns (or its clients have gone)."""

    def closed(self, why: str) -> None:
        """The table closed before the game was over."""
