"""How a table's game ended, in the words every screen, the console, the class export and a replay use: played
to its last turn, or ended before it as it stood, by the round's clock or by the trainer calling time.  The
results database keeps it per table (`tables.ending`), a record in its result line (`ended`)."""

from __future__ import annotations

from typing import Literal

HowEnded = Literal["turns", "clock", "trainer"]
ENDINGS: tuple[HowEnded, ...] = ("turns", "clock", "trainer")
# a game ended before its last turn: why, as a sentence's subject
ENDED_BY: dict[str, str] = {"clock": "the round's time ran out", "trainer": "the trainer called time"}
# the same, after "ended": for a list of tables
ENDED_SHORT: dict[str, str] = {"clock": "by the clock", "trainer": "by the trainer"}


def ended_words(ended: str | None, played: int, turns: int) -> str:
    """'the round's time ran out after 3 of 12 turns: the game ended as it stood' (played: the turns decided);
    empty for a game played to its end."""
    why = ENDED_BY.get(ended or "")
    if why is None:
        return ""
    return f"{why} after {played} of {turns} turn{'s' * (turns != 1)}: the game ended as it stood"


def ending_of(ended: str | None) -> HowEnded:
    """A game's ending as the results database files it: the game's `ended`, or played to its last turn."""
    return "clock" if ended == "clock" else "trainer" if ended == "trainer" else "turns"


def how_ended(ending: str | None, played: int, turns: int | None) -> str:
    """A finished table in a list: 'all 12 turns', 'by the clock after 3 of 12 turns', 'by the trainer after 3 of 12
    turns'; empty when not known (a game played alone, a table filed before negtui kept it)."""
    if ending == "turns":
        return f"all {turns} turns" if turns else "every turn"
    by = ENDED_SHORT.get(ending or "")
    if by is None:
        return ""
    return f"{by} after {played} of {turns} turns" if turns else f"{by} after {played} turns"
