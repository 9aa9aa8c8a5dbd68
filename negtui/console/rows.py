"""The console's lists as text: a person (online or not, and where), a table (its state, seats and how
everyone stands so far against the baseline).  Pure: the screen only puts them in its tables."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.text import Text

from negtui.classroom.classbook import Present
from negtui.classroom.dbtypes import TableRow, Trainee
from negtui.table.endings import ENDED_SHORT
from negtui.table.views import Occupant
from negtui.tui import palette
from negtui.tui.labels import clock_words

ONLINE, AWAY = "●", "○"
IDLE_WARN, IDLE_ALARM = 60.0, 180.0  # seconds a person has kept their table waiting: worth a look, then a word


def to_move_of(t: TableRow, names: dict[str, str] | None = None, now: datetime | None = None) -> Text:
    """Whose decision the table's game waits for, and for how long: a person by name (their seat when nobody
    holds it), a bot by its player; a person's wait turns orange after a minute and red after three."""
    idle = t.idle(now)
    if idle is None or t.deciding is None:
        return Text("")
    seat = next((s for s in t.people if s.player == t.deciding), None)
    player = (names or {}).get(t.deciding, t.deciding)
    if seat is None or not seat.is_person:
        return Text(f"{player} (bot)", style="dim")
    style = palette.NEGATIVE if idle >= IDLE_ALARM else palette.ORANGE if idle >= IDLE_WARN else ""
    out = Text(seat.name or player, style=f"bold {style}".strip())
    out.append(f" {clock_words(idle)}", style=style or "dim")
    if not seat.online:
        out.append(f" {AWAY} away", style=palette.NEGATIVE)
    return out


def absent_of(t: TableRow) -> Text:
    """The people a table is missing: away from their seat, or not come to the seat kept for them."""
    out = Text()
    if not t.live:
        return out
    for s in t.people:
        if s.name is None or not s.person_seat or s.online:
            continue
        if out:
            out.append(", ")
        away = s.is_person and t.status == "playing"  # left their seat; else not come to the seat kept for them
        out.append(f"{s.name} {AWAY}", style=palette.NEGATIVE if away else palette.ORANGE)
        out.append(" away" if away else " not here yet", style="dim")
    return out


def longest_idle(tables: list[TableRow], now: datetime | None = None) -> tuple[str, TableRow, float] | None:
    """The person who has kept a table waiting longest now: (name, table, seconds), or None."""
    waits = []
    for t in tables:
        idle = t.idle(now)
        seat = next((s for s in t.people if s.player == t.deciding), None)
        if idle is not None and seat is not None and seat.is_person and seat.name:
            waits.append((idle, seat.name, t))
    if not waits:
        return None
    idle, name, t = max(waits, key=lambda w: w[0])
    return name, t, idle


def person_row(trainee: Trainee, present: list[Present], tables: list[TableRow],
               labels: Callable[[str], dict[str, str]] | None = None) -> tuple[Text, ...]:
    """(who, online, since, where) of one trainee; `labels(exercise)`: its seats' names by player id."""
    who = Text(trainee.name, style="bold")
    if trainee.trainer:
        who.append(" (trainer)", style="dim")
    if present:
        online = Text(f"{ONLINE} online" + (f" ×{len(present)}" if len(present) > 1 else ""), style=palette.POSITIVE)
        where = Text(present[-1].place or "starting", style="")
        since = Text(present[0].since[11:16] + " UTC", style="dim")
    else:
        online, where, since = Text(f"{AWAY} offline", style="dim"), Text(""), Text("")
        kept = next(((t, s) for t in tables if t.live for s in t.people if s.name == trainee.name), None)
        if kept is not None:
            seat = (labels(kept[0].exercise) if labels else {}).get(kept[1].player, kept[1].player)
            where = Text(f"a seat kept at {kept[0].called} as {seat}", style="dim")
    return who, online, since, where


def state_of(t: TableRow, room: int) -> Text:
    if t.status == "forming":
        seated = sum(1 for s in t.people if s.name is not None and s.online)
        return Text(f"forming: {seated} of {room} seated", style=palette.ORANGE)
    if t.status == "playing":
        out = Text("paused", style=f"bold {palette.NEGATIVE}") if t.paused else Text("playing", style=palette.POSITIVE)
        left = t.time_left()
        if left is not None:  # the round's time, as the table's seats see it
            out.append(f" · {clock_words(left)} left", style=palette.NEGATIVE if left < 60 else "")
            if t.round_ends is None and not t.paused:  # waiting for someone away: the round's clock stands still
                out.append(" (stopped)", style="dim")
        return out
    if t.status == "over":
        by = ENDED_SHORT.get(t.ending or "")
        return Text(f"over, ended {by}", style=palette.ORANGE) if by else Text("over")
    return Text("closed", style="dim")  # why: in the table's detail


def turn_of(t: TableRow) -> str:
    """The turn under way (over: the last; ended before it by the clock or the trainer, the one it ended at)."""
    if t.turns is None:
        return ""
    if t.status == "over" and t.ending not in ENDED_SHORT:
        return f"{t.turns}/{t.turns}"
    return f"{min(t.turn + 1, t.turns)}/{t.turns}"


def seats_of(t: TableRow, names: dict[str, str] | None = None) -> Text:
    """Every seat: its player (`names`: each player's name by id, names.player_names) and who holds it."""
    out = Text()
    for k, s in enumerate(t.people):
        if k:
            out.append("  ")
        out.append(f"{(names or {}).get(s.player, s.player)} ", style="bold")
        if s.is_person and s.name:
            out.append(s.name, style=palette.POSITIVE if s.online else "dim")
            out.append(ONLINE if s.online else AWAY, style=palette.POSITIVE if s.online else "dim")
        elif s.name and s.person_seat:  # kept for someone, or theirs while a bot stands in
            out.append(f"{s.name}{AWAY}", style="dim")
            if s.seat != "human":
                out.append(f" ({s.seat} meanwhile)", style="dim")
        elif s.person_seat:
            out.append("free" if t.status == "forming" else "nobody" if s.seat == "human" else f"{s.seat} bot",
                       style="dim")
        else:
            out.append(f"{s.seat} bot", style="dim")
    return out


def standing_of(t: TableRow, names: dict[str, str] | None = None) -> Text:
    """Each player's payoff so far, and its difference from the No-Negotiation baseline; a person's seat
    by the person's name, the way the trainer knows the class, a bot's by its player's (`names`)."""
    out = Text()
    if not t.payoffs:
        return out
    people = {**(names or {}), **{s.player: s.name for s in t.people if s.person_seat and s.name}}
    for k, (pid, v) in enumerate(t.payoffs.items()):
        if k:
            out.append("  ")
        out.append(f"{people.get(pid, pid)} {v:z.2f}")
        base = (t.baseline or {}).get(pid)
        if base is not None:
            d = v - base
            out.append(f" ({d:+z.2f})", style=palette.POSITIVE if d > 0 else palette.NEGATIVE if d < 0 else "dim")
    return out


def bot_seats(t: TableRow) -> list[Occupant]:
    """The seats for people a bot plays at a table under way with nobody holding them: a latecomer may be
    given one (the trainer keeps it for them, or they pick it)."""
    if t.status != "playing":
        return []
    return [s for s in t.people if s.person_seat and not s.is_person and s.name is None]
