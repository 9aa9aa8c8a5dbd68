"""The table's side of its socket: who joins and as what, what they send (decisions, messages, the
trainer's steering) and what each is told (the welcome, every change, the debrief's numbers).

A mixin of `TableHost`: the host owns the game and its clocks, this part its conversations."""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from negtui.coach.closing import Closing
from negtui.engine.negotiation import IllegalMove
from negtui.engine.turns import Move
from negtui.play.live import LiveGame
from negtui.scenario.untrusted import one_line
from negtui.seats import Seat
from negtui.table.clock import DecisionClock, RoundClock, open_decisions
from negtui.table.connection import Client
from negtui.table.events import TableEvents
from negtui.table.moves import decision_from_client
from negtui.table.sitting import Sitting
from negtui.table.spec import TableSpec
from negtui.table.talk import TRAINER, RateLimit, Said, clean

NAME_CHARS = 64
STEERING = ("start", "pause", "resume", "end", "assign", "time")  # what the trainer (a watcher) may ask


def person_name(raw: object) -> str:
    """A name as the table keeps it: it is shown on every seat's screen, the host's terminal and the
    trainer's console, and kept in the record, so nothing a terminal would act on survives."""
    return one_line(str(raw or ""), NAME_CHARS)


class Serving:
    spec: TableSpec
    clock: Callable[[], float]
    log: Callable[[str], None]
    events: TableEvents
    sitting: Sitting
    clients: set[Client]
    game: LiveGame | None
    moves: list[dict[str, Any]]
    said: deque[Said]
    _unwritten: list[Said]
    rate: RateLimit
    paused: bool
    thinking: bool
    closing: Closing
    decision_clock: DecisionClock
    round_clock: RoundClock
    _wake: asyncio.Event
    _done: asyncio.Event
    _seat_changes: dict[str, Seat]
    _handlers: set[asyncio.Task[object]]
    _record_failure_logged: bool
    _joining: asyncio.Lock  # joins (and the trainer's keeping of seats) one at a time

    if TYPE_CHECKING:  # the host's (the last four, of its simultaneous turns: negtui/table/simultaneous.py)
        async def start(self) -> str | None: ...
        async def _steer(self, kind: str, m: dict[str, Any]) -> str | None: ...
        def _apply(self, m: Move) -> None: ...
        def _spawn(self, coro: Coroutine[Any, Any, object]) -> None: ...
        def _flight_for(self, client: Client) -> list[dict[str, Any]]: ...
        def _asked_line(self, i: int) -> dict[str, Any]: ...
        def _round_line(self) -> dict[str, Any]: ...
        notices: list[dict[str, Any]]
        _clocks: dict[int, DecisionClock]
        _awaiting: dict[str, Any]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        client = Client(reader, writer)
        this = asyncio.current_task()
        if this is not None:
            self._handlers.add(this)
            this.add_done_callback(self._handlers.discard)
        pump = asyncio.get_running_loop().create_task(client.pump())
        try:
            async for message in client.messages():
                if self._done.is_set():
                    break
                try:
                    await self._handle(client, message)
                except Exception as err:  # a bug: the client hears of it, the table goes on
                    client.send({"type": "refused", "why": f"the table could not do that: {err}"})
        finally:
            self._left(client)
            client.finish()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pump, 1.0)
            writer.close()

    async def _handle(self, client: Client, m: dict[str, Any]) -> None:
        kind = m["type"]
        if kind == "join":
            await self._join(client, m)
        elif client.person is None and not client.watcher:
            client.send({"type": "refused", "why": "join a seat first"})
        elif kind == "move":
            self._decision(client, m)
        elif kind == "say":
            self._say(client, m)
        elif kind in STEERING and client.watcher:
            why = await self._steer(kind, m)
            client.send({"type": "refused", "why": why} if why else {"type": "done", "op": kind})
        else:
            client.send({"type": "refused", "why": f"{kind!r} is not something a seat can ask"})

    async def _join(self, client: Client, m: dict[str, Any]) -> None:
        if client.person is not None or client.watcher:
            client.send({"type": "refused", "why": "already joined"})
            return
        if m.get("watch"):
            client.watcher = True
            self._welcome_in(client)
            return
        async with self._joining:  # one join at a time: the seat admitted is the seat taken
            if await self._sit(client, m):
                self._welcome_in(client)

    async def _sit(self, client: Client, m: dict[str, Any]) -> bool:
        """Seat the person, once whoever keeps the table's results admits them to the seat (nothing of it
        is sent before); False, the client told why and let go, when they are not seated."""
        name = person_name(m.get("name"))
        if not name:
            return self._turn_away(client, "a name is needed to sit down")
        wanted = m.get("seat")
        if wanted is not None:
            if not isinstance(wanted, str):
                return self._turn_away(client, "the seat asked for is a player's id or name")
            wanted, why = self.spec.seat_named(wanted)
            if why is not None:
                return self._turn_away(client, why)
        pid = self.sitting.seat_to_give(name, wanted, self._bot_holds())
        if pid is None:
            return self._turn_away(client, "every seat for a person at this table is taken")
        why = await self.events.admit(name, pid)
        if why is not None:
            return self._turn_away(client, why)
        person = self.sitting.seat_for(name, wanted, self._bot_holds())
        if person is None or person.player != pid:  # the table started, or its seats changed, meanwhile
            if self.game is None:
                self.events.gave_up(name, pid)
            return self._turn_away(client, "the seats changed as you sat down: try again")
        for other in self.clients:  # the same person again (a new login): the old connection goes
            if other.person is person:
                other.send({"type": "closed", "why": "you joined this table from another connection"})
                other.finish()
                other.person = None
        client.person, person.online, person.left_at = person, True, None
        self.log(f"{person.name} sits in {person.player}")
        if person.replaced and self.game is not None:  # back: the seat is theirs again
            person.replaced = False
            self._seat_changes[person.player] = Seat.human(person.name)
            self._wake.set()
        return True

    async def _keep(self, name: str, pid: str) -> str | None:
        """The trainer keeps a seat for `name`, if it may be theirs; why not, when not.  Once the game is under
        way, only a person's seat a bot plays and nobody holds: a latecomer's, the bot playing on until they
        sit down."""
        if not name:
            return "a seat is kept for a name"
        started = self.game is not None
        async with self._joining:  # no one sits down between the check and the keeping
            why = await self.events.may_keep(name, pid) if pid in self.spec.people else None
            if (self.game is not None) != started:
                return "the game started meanwhile: ask again"
            why = why or self.sitting.assign(name, pid, self._bot_holds())
        if why is None:
            self._people_changed()
        return why

    def _bot_holds(self) -> Callable[[str], bool] | None:
        """Before the start None; after it, whether a bot holds a seat (a person's seat is free while it does)."""
        game = self.game
        return None if game is None else (lambda pid: not game.is_human(game.neg.game.index_of(pid)))

    @staticmethod
    def _turn_away(client: Client, why: str) -> bool:
        client.send({"type": "refused", "why": why, "final": True})
        client.finish()
        return False

    def _welcome_in(self, client: Client) -> None:
        self.clients.add(client)
        client.send(self._welcome(client))
        self._people_changed()
        if self.game is None and self.sitting.full:
            self._spawn(self.start())

    def _left(self, client: Client) -> None:
        self.clients.discard(client)
        person = client.person
        if person is not None and not any(c.person is person for c in self.clients):
            started = self.game is not None
            self.sitting.left(person, self.clock(), started=started)
            self.log(f"{person.name} left {person.player}")
            if not started:
                self.events.gave_up(person.name, person.player)
            self._people_changed()

    def _decision(self, client: Client, m: dict[str, Any]) -> None:
        game, person = self.game, client.person
        why = ("the game has not started" if game is None else "the game is over" if game.over
               else "the table is paused" if self.paused else None)
        if person is None:
            why = "a watcher does not decide"
        if why is None and game is not None and person is not None:
            i = game.neg.game.index_of(person.player)
            if game.neg.game.simultaneous:  # any decision of theirs still open, bots thinking or not
                yours = game.is_human(i) and bool(open_decisions(game, i))
            else:
                yours = game.deciding == i and game.is_human(i) and not self.thinking
            if not yours:
                why = "it is not your move"
            else:
                try:
                    self._apply(decision_from_client(game.neg, game.state, person.player, m))
                    return
                except IllegalMove as err:
                    why = str(err)
        client.send({"type": "refused", "why": why})

    def _say(self, client: Client, m: dict[str, Any]) -> None:
        sender = client.player or TRAINER
        to = m.get("to")
        text = clean(str(m.get("text") or ""))
        if to is not None and to not in self.spec.seats:
            client.send({"type": "refused", "why": f"no player {str(to)[:NAME_CHARS]!r} at this table"})
            return
        if not text:
            return
        if not self.rate.allow(sender, self.clock()):
            client.send({"type": "refused", "why": "too many messages: wait a few seconds"})
            return
        said = Said(self.game.state.t if self.game is not None else 0, sender, to, text)
        self.said.append(said)
        if self.game is not None:
            self.game.keep_message(said.sender, said.to, said.text)
            self.note_recording()
        else:
            self._unwritten.append(said)
        for c in self.clients:
            if said.reaches(c.player):
                c.send({"type": "said", "said": said.as_dict()})

    # --- what clients are told ----------------------------------------------------------------------------
    def _broadcast(self, message: dict[str, Any]) -> None:
        for client in self.clients:
            client.send(message)

    def _people_changed(self) -> None:
        people = self._people()
        self._broadcast({"type": "people", "people": people})
        self.events.people(people)
        self._wake.set()  # a person away or back: whose decision's clock runs may change

    def _seats(self) -> dict[str, Any]:
        """Every seat as it is now (before the start: as the spec has it)."""
        seats = self.spec.seats if self.game is None else self.game.seats
        return {pid: seat.model_dump(mode="json") for pid, seat in seats.items()}

    def _people(self) -> list[dict[str, Any]]:
        return self.sitting.listing(self._seats())

    def _welcome(self, client: Client) -> dict[str, Any]:
        over = self.game is not None and self.game.over
        return {"type": "welcome", "you": client.player, "title": self.spec.title,
                "game": self.spec.game_for(client.player, over), "information": self.spec.seen_by(client.player, over),
                "role": self.spec.roles.get(client.player or "", ""),
                "started": self.game is not None, "paused": self.paused, "hints": self.spec.hints,
                "trainer": self.spec.trainer, "starts_anyway": self.spec.start_after is not None,
                "guided": self.spec.guided or client.player is None,
                "seats": self._seats(), "people": self._people(), "moves": list(self.moves),
                "said": [s.as_dict() for s in self.said if s.reaches(client.player)],
                "clock": self._clock_for(client), "round": self._round_line(), "notices": list(self.notices),
                **self._turn_for(client), **({"debrief": self._closing_for(client)} if over else {})}

    def _clock_for(self, client: Client) -> dict[str, Any]:
        game = self.game
        if game is None or not game.neg.game.simultaneous:
            return self.decision_clock.line(game)
        i = None if client.player is None else game.neg.game.index_of(client.player)
        clock = self._clocks.get(i) if i is not None else None
        return {"type": "clock", "seconds": None} if clock is None or i is None else clock.line(game, i)

    def _turn_for(self, client: Client) -> dict[str, Any]:
        """A simultaneous turn under way, as this client may know it: the decisions it may see, and what it is
        asked (a person coming back mid-turn)."""
        game = self.game
        if game is None or not game.neg.game.simultaneous:
            return {}
        out: dict[str, Any] = {"flight": self._flight_for(client), "awaiting": self._awaiting}
        if client.player is not None:
            out["asked"] = self._asked_line(game.neg.game.index_of(client.player))
        return out



    def _tell_closing(self) -> None:
        for client in self.clients:
            if client.watcher or client.player is not None:
                client.send(self._closing_for(client))

    def _closing_for(self, client: Client) -> dict[str, Any]:
        """A person is told their own seat's games; the trainer's view every seat's."""
        return self.closing.line_for(None if client.watcher else client.player or "")

    def note_recording(self) -> None:
        """Tell the log, once, that the record could not be written on (a full disk)."""
        game = self.game
        if game is not None and game.record_failed and not self._record_failure_logged:
            self._record_failure_logged = True
            self.log(f"recording stopped: {game.record_failed}; the game goes on")
