"""Who holds which person's seat at a table: seats taken by name (the same name again is the same
person) or kept for someone by the trainer, given up by leaving before the start (a kept seat stays kept
for its person), kept through a drop after it until the grace runs out, and the list of seats every client
is sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from negtui.seats import Seat
from negtui.table.connection import Person
from negtui.table.spec import TableSpec


class Sitting:
    def __init__(self, spec: TableSpec) -> None:
        self.spec = spec
        self.people: dict[str, Person] = {}  # by player id

    @property
    def full(self) -> bool:
        """Everyone the table seats has sat down (a seat kept for someone who has not come does not count)."""
        return sum(p.joined for p in self.people.values()) >= self.spec.room

    @property
    def anyone_joined(self) -> bool:
        """Someone has sat down (a seat the trainer kept for someone who has not come does not count)."""
        return any(p.joined for p in self.people.values())

    def nobody_yet(self) -> str:
        """Why a table nobody has sat down at does not start, naming whom its kept seats wait for."""
        kept = [f"{p.player} for {p.name}" for p in self.people.values() if not p.joined]
        return "nobody has sat down at this table yet" + (f" (kept: {', '.join(kept)})" if kept else "")

    def holding(self, name: str) -> Person | None:
        return next((p for p in self.people.values() if p.name == name), None)

    def seat_to_give(self, name: str, wanted: object, bot_holds: Callable[[str], bool] | None) -> str | None:
        """The seat `name` would get (see `seat_for`), taking nothing."""
        if not name:
            return None
        held = self.holding(name)
        if held is not None:
            return held.player
        if len(self.people) >= self.spec.room:
            return None
        free = [pid for pid in self.spec.people if pid not in self.people and (bot_holds is None or bot_holds(pid))]
        if not free:
            return None
        return wanted if isinstance(wanted, str) and wanted in free else free[0]

    def seat_for(self, name: str, wanted: object, bot_holds: Callable[[str], bool] | None) -> Person | None:
        """The person's seat: the one they hold (or the trainer kept for them), else the one asked for if
        free, else the first free.  After the start (`bot_holds` given) a person's seat is free while a bot
        holds it."""
        pid = self.seat_to_give(name, wanted, bot_holds)
        if pid is None:
            return None
        held = self.holding(name)
        if held is not None:
            return held
        person = Person(name, pid, replaced=bot_holds is not None)
        self.people[pid] = person
        return person

    def assign(self, name: str, pid: str, bot_holds: Callable[[str], bool] | None = None) -> str | None:
        """Keep a person's seat for `name` (the trainer's seating); why not, when not.  Before the start
        someone the seat was kept for and who has not come yet may be given another; a person who sat
        down keeps their seat.  After it (`bot_holds` given) a latecomer may be given a seat a bot plays
        that nobody holds, the bot playing on until they sit down."""
        if pid not in self.spec.people:
            return f"{pid} is not a seat for a person"
        if bot_holds is not None:
            return self._give_latecomer(name, pid, bot_holds)
        holder = self.people.get(pid)
        if holder is not None and holder.name == name:
            return None
        if holder is not None and holder.joined:
            return f"{holder.name} sits in {pid}"
        mine = next((p for p in self.people.values() if p.name == name), None)
        if mine is not None and mine.joined:
            return f"{name} sits in {mine.player} already"
        if mine is not None:
            del self.people[mine.player]
        if holder is None and len(self.people) >= self.spec.room:
            return f"the table seats {self.spec.room} people"
        self.people[pid] = Person(name, pid, kept=True)
        return None

    def _give_latecomer(self, name: str, pid: str, bot_holds: Callable[[str], bool]) -> str | None:
        held = self.holding(name)
        if held is not None:
            return f"{name} holds {held.player} at this table already"
        holder = self.people.get(pid)
        if holder is not None:
            return f"{pid} is {holder.name}'s seat"
        if not bot_holds(pid):
            return f"a person plays {pid}"
        if len(self.people) >= self.spec.room:
            return f"the table seats {self.spec.room} people"
        self.people[pid] = Person(name, pid, kept=True, replaced=True)  # the bot plays on until they sit down
        return None

    def left(self, person: Person, now: float, started: bool) -> None:
        """Before the start, leaving gives the seat up; a seat the trainer kept is theirs still, as if they
        had not come yet (nobody else takes it)."""
        person.online, person.left_at = False, now
        if started:
            return
        if person.kept:
            person.left_at = None
        else:
            del self.people[person.player]

    def due_for_bots(self, now: float) -> dict[str, Seat]:
        """The seats of people away past the grace, with the bot that takes each (when the table says so)."""
        out: dict[str, Seat] = {}
        if self.spec.on_drop != "bot":
            return out
        for person in self.people.values():
            if (not person.online and not person.replaced and person.left_at is not None
                    and now - person.left_at >= self.spec.grace):
                person.replaced = True
                out[person.player] = self.spec.bot_for(person.player)
        return out

    def seats_at_start(self) -> dict[str, Seat]:
        """Every seat as the game starts: the people who have joined in theirs, bots in the others'."""
        out: dict[str, Seat] = {}
        for pid, seat in self.spec.seats.items():
            if not seat.is_human:
                out[pid] = seat
            elif pid in self.people and self.people[pid].joined:
                out[pid] = Seat.human(self.people[pid].name)
            else:
                out[pid] = self.spec.bot_for(pid)
                if pid in self.people:  # kept for someone not here yet: theirs when they come
                    self.people[pid].replaced = True
        return out

    def listing(self, seats: dict[str, Any]) -> list[dict[str, Any]]:
        """The seats as clients are told them (`seats`: each player's seat as JSON)."""
        out = []
        for pid in self.spec.seats:
            person = self.people.get(pid)
            out.append({"player": pid, "seat": seats[pid], "name": person.name if person else None,
                        "online": bool(person and person.online), "person_seat": pid in self.spec.people})
        return out
