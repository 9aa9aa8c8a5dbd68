"""What a table is started with: the game, who plays which seat (people's seats, and the bots that
take them when nobody does), where its record goes, and the course's rules for waiting, dropping out
and deciding in time.  Written as a file by whoever opens the table, read by the table's process."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from negtui.engine.exact import NOT_SIMULTANEOUS
from negtui.engine.knowledge import seat_scenario
from negtui.engine.vocabulary import split_anticipation
from negtui.names import player_labels, players_named
from negtui.scenario.io import parse_scenario
from negtui.scenario.untrusted import one_line
from negtui.seats import Seat

ANTICIPATE_PRIVATE = ("anticipate: lenses predict the other proposers' deals from everyone's values, which private "
                      "information hides; play them under public information")


def seat_refusal(seat: Seat, simultaneous: bool, information: str) -> str | None:
    """Why a bot cannot take this seat under simultaneous rules (docs/simultaneous.md), or None: the exact
    solver does not solve such games, and an anticipating lens needs every value."""
    if not simultaneous:
        return None
    if seat.uses_exact:
        return NOT_SIMULTANEOUS
    if information == "private" and any(split_anticipation(x)[0] for x in seat.lenses or ()):
        return ANTICIPATE_PRIVATE
    return None


class TableSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    title: str = Field(default="", max_length=200)
    game: dict[str, Any]  # PortableGame.as_dict()
    seats: dict[str, Seat]  # every player's seat; people's are human
    places: int | None = Field(default=None, ge=1)  # people at the table (None: one per person's seat)
    bots: dict[str, Seat] = Field(default_factory=dict)  # who plays a person's seat nobody holds (default upper)
    record: str | None = None  # the record's path (a new file)
    key_file: str | None = None  # the record's signing key (never the key itself: specs are files)
    grace: float = Field(default=120.0, ge=0.0, le=86_400.0)  # seconds a dropped person keeps the seat
    on_drop: Literal["bot", "wait"] = "bot"  # after the grace: a bot takes the seat, or the table waits
    decision_time: float | None = Field(default=None, gt=0.0, le=86_400.0)  # seconds per decision of a person
    game_time: float | None = Field(default=None, gt=0.0, le=7 * 86_400.0)  # seconds of play (paused not counted)
    # seats kept by the trainer from the moment the table opens: player id -> the trainee's name
    reserved: dict[str, str] = Field(default_factory=dict)
    start_after: float | None = Field(default=None, ge=0.0, le=86_400.0)  # then start with bots in empty seats
    hints: bool = True
    # a course's table, which its trainer steers (starts, pauses, speaks at); False: `negtui table open`'s, which
    # its own terminal opens and ends, with nobody to steer it
    trainer: bool = True
    guided: bool = True  # False: an assessment (no guidance while playing; coaching in the debrief)
    information: Literal["public", "private"] = "public"  # private: each person sees their own values only
    roles: dict[str, str] = Field(default_factory=dict)  # a confidential briefing per player id
    abandon_after: float = Field(default=3_600.0, gt=0.0, le=7 * 86_400.0)  # seconds with nobody connected
    # the trainer opened it for trainees to pick: it waits for its first person as long (not a minute, as an empty
    # table a trainee opened and left does)
    opened_by_trainer: bool = False
    linger: float = Field(default=60.0, ge=0.0, le=3_600.0)  # seconds a finished table stays for its clients

    @model_validator(mode="after")
    def _people(self) -> TableSpec:
        if not any(seat.is_human for seat in self.seats.values()):
            raise ValueError("a table seats at least one person")
        rules = self.game.get("rules")
        simultaneous = isinstance(rules, dict) and bool(rules.get("simultaneous"))
        for where, seats in (("seats", self.seats), ("bots", self.bots)):
            for pid, seat in seats.items():
                if (why := seat_refusal(seat, simultaneous, self.information)) is not None:
                    raise ValueError(f"{where}.{pid}: {why}")
        if self.places is not None and self.places > len(self.people):
            raise ValueError(f"places: {self.places} people, but {len(self.people)} seats for people")
        for pid, bot in self.bots.items():
            if pid not in self.seats or bot.is_human:
                raise ValueError(f"bots.{pid}: a bot for a person's seat")
        for pid in self.roles:
            if pid not in self.seats:
                raise ValueError(f"roles.{pid}: no such player at this table")
        for pid in self.reserved:
            if pid not in self.people:
                raise ValueError(f"reserved.{pid}: not a seat for a person at this table")
        return self

    @property
    def people(self) -> list[str]:
        """The players people sit in, in the scenario's order."""
        return [pid for pid, seat in self.seats.items() if seat.is_human]

    @property
    def room(self) -> int:
        """How many people the table seats: `places` of its people's seats (the rest get bots)."""
        return len(self.people) if self.places is None else self.places

    def seat_named(self, text: str) -> tuple[str | None, str | None]:
        """The person's seat `text` asks for, by id or by the name shown ("Upstream State", "alice"); else why
        not: a seat nobody may take must be refused, not swapped for the first free one in silence."""
        sc = parse_scenario(self.game["scenario"])
        labels = player_labels(sc)
        people = ", ".join(labels[pid] for pid in self.people)
        found = players_named(sc, text)
        if not found:
            return None, f"no player {one_line(text, 40)!r} at this table; the seats for people: {people}"
        if len(found) > 1:
            return None, f"{one_line(text, 40)!r} names {' and '.join(found)}: ask for one by its id"
        if found[0] not in self.people:
            return None, f"{labels[found[0]]} is played by a bot at this table; the seats for people: {people}"
        return found[0], None

    def bot_for(self, pid: str) -> Seat:
        return self.bots.get(pid) or Seat.lens("upper", seed=list(self.seats).index(pid))

    def seen_by(self, player: str | None, over: bool) -> str:
        """The information a client plays under: private for a person before the end, when the table is;
        a watcher (the trainer) and everyone after the end see every value."""
        return "private" if self.information == "private" and player is not None and not over else "public"

    def game_for(self, player: str | None, over: bool) -> dict[str, Any]:
        """The game as a client may know it (engine.knowledge): under private information a person's
        copy holds their own values and the others' published estimates."""
        if self.seen_by(player, over) == "public":
            return self.game
        picture = seat_scenario(parse_scenario(self.game["scenario"]), str(player))
        return {**self.game, "scenario": picture.model_dump(mode="json")}

    def write(self, path: Path) -> None:
        path.write_text(self.model_dump_json(by_alias=True), encoding="utf-8")
