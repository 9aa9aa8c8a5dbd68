"""A table's process: the one owner of a game several people share, and the only writer of its record.

Every person's app is a client over a local socket (mode 0600).  A client joins a seat, receives the
game and every move so far, and from then on every applied move, who is online, what is said and the
clock of the decision under way.  A person's decision is applied by the engine's `apply` here, and
nowhere else; bots decide in a worker thread between people's decisions.  A person who drops keeps
the seat for the spec's grace period; then a bot takes it over (a seat change, marked in the record)
or the table waits; reconnecting retakes it.  A client that stops reading is dropped rather than let
its backlog grow.

Under simultaneous rules (docs/simultaneous.md) every open decision of a turn is asked at once: each person
with one (an offer, or answers to the offers made to them) is told so (`asked`) and runs down a clock of
their own, while the bots decide theirs in the worker.  A decision in flight goes only to those who may see
it (its proposer and partner, and the trainer); once the turn settles every move of it goes to everyone in
one `turn` line, in the order applied, and the copies of the game at the apps settle it as the table did
(negtui/table/simultaneous.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections import deque
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from negtui.agents.options import AgentOptions
from negtui.coach.closing import Closing, welfare_optimum
from negtui.coach.debrief import counterfactuals
from negtui.engine.portable import PortableGame
from negtui.engine.turns import Move
from negtui.play.live import LiveGame
from negtui.record.signing import read_key
from negtui.scenario.io import parse_scenario
from negtui.seats import Seat
from negtui.table.clock import DecisionClock, RoundClock, expired
from negtui.table.connection import Client
from negtui.table.events import TableEvents
from negtui.table.moves import move_to_wire
from negtui.table.rounds import RoundTime
from negtui.table.serving import Serving, person_name
from negtui.table.simultaneous import SimultaneousTurns
from negtui.table.sitting import Sitting
from negtui.table.spec import TableSpec
from negtui.table.talk import KEPT, RateLimit, Said
from negtui.table.wire import FROM_CLIENT

EMPTY_FOR = 60.0  # seconds a table nobody has sat down at stays open (one the trainer opened: `abandon_after`)
MAX_ROUND = 7 * 86_400.0  # seconds a trainer may give a round


class TableHost(Serving, SimultaneousTurns, RoundTime):
    def __init__(self, spec: TableSpec, socket_path: Path, *, clock: Callable[[], float] = time.monotonic,
                 log: Callable[[str], None] | None = None, events: TableEvents | None = None) -> None:
        """`log` hears of the table's life (joins, drops, the start, the end) in a line each; `events`
        of the same, as data."""
        self.spec, self.socket_path, self.clock = spec, socket_path, clock
        self.log = log or (lambda line: None)
        self.events = events or TableEvents()
        portable = PortableGame.from_dict(spec.game)
        self.portable = portable
        self.scenario = parse_scenario(portable.scenario)
        _, self.rules = portable.game()
        self.sitting = Sitting(spec)
        self.clients: set[Client] = set()
        self.game: LiveGame | None = None
        self.moves: list[dict[str, Any]] = []  # every applied move, as sent
        self.said: deque[Said] = deque(maxlen=KEPT)
        self._unwritten: list[Said] = []  # said before the record existed
        self.rate = RateLimit()
        self.paused = False
        self.ended: str | None = None  # why the table closed early
        self.thinking = False
        self._record_failure_logged = False
        self.settled = False  # the game is over and its results are kept: the table may close
        self.closing = Closing()  # the debriefs' numbers, worked out once the game is over
        self._wake = asyncio.Event()
        self._done = asyncio.Event()
        self._seat_changes: dict[str, Seat] = {}
        self.decision_clock = DecisionClock(spec.decision_time, clock)
        self.round_clock = RoundClock(spec.game_time, clock)
        self._round_waits: str | None = None
        self._notices_due: list[float] = []
        self.notices: list[dict[str, Any]] = []
        self._held: tuple[int, str] | None = None  # the decision whose clock is held for an absent person
        # a simultaneous turn: the moves made so far (each with the players who may see it), each person's clock,
        # and what each person was last told they are asked
        self._flight: list[tuple[dict[str, Any], frozenset[int]]] = []
        self._clocks: dict[int, DecisionClock] = {}
        self._asked: dict[int, dict[str, Any]] = {}
        self._awaiting: dict[str, Any] = {}
        for pid, name in spec.reserved.items():  # seats the trainer kept from the opening
            self.sitting.assign(person_name(name), pid)
        self._last_client = clock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._starting = False
        self._handlers: set[asyncio.Task[object]] = set()  # one per connection
        self._joining = asyncio.Lock()

    # --- running --------------------------------------------------------------------------------------
    async def run(self) -> None:
        """Serve until the game is over and its clients have gone (or the linger ran out), or the
        table is ended or abandoned."""
        old = os.umask(0o177)  # the socket is its owner's only, from the moment it exists
        try:
            server = await asyncio.start_unix_server(self._serve, path=str(self.socket_path), limit=FROM_CLIENT)
        finally:
            os.umask(old)
        self._spawn(self._watch_time())
        self.events.listening()
        self._people_changed()  # every seat, free or kept, in the table's row: the pickers list it from there
        try:
            async with server:
                await self._done.wait()
        finally:
            for client in list(self.clients):
                client.finish()
            await asyncio.sleep(0.1)  # the last lines out
            handlers = list(self._handlers)
            for client in list(self.clients):
                client.writer.transport.abort()  # each handler ends on its closed connection
            if handlers:
                await asyncio.wait(handlers, timeout=2.0)
            if self.game is not None:
                self.game.close()
            with contextlib.suppress(FileNotFoundError):
                self.socket_path.unlink()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _watch_time(self) -> None:
        """The clocks that are not a decision's: the wait before a start, the grace of a dropped person,
        a table nobody is at, a finished table's linger."""
        opened = self.clock()
        over_at: float | None = None
        while not self._done.is_set():
            await asyncio.sleep(0.2)
            now = self.clock()
            if self.game is None:
                if self.spec.start_after is not None and now - opened >= self.spec.start_after:
                    await self.start()
            elif due := self.sitting.due_for_bots(now):
                self._seat_changes.update(due)
                self._wake.set()
            if self.game is not None and not self.game.over and self.round_clock.due():
                self.time_up()
            self._give_notices()
            if self.clients:
                self._last_client = now
            elif now - self._last_client >= (self.spec.abandon_after if self.sitting.people or self.game is not None
                                             or self.spec.opened_by_trainer
                                             else min(self.spec.abandon_after, EMPTY_FOR)):
                self.end("nobody was at the table")
            if self.game is not None and self.game.over and self.settled:
                over_at = over_at or now
                if not self.clients or now - over_at >= self.spec.linger:
                    self._done.set()

    # --- the game ---------------------------------------------------------------------------------------
    async def start(self) -> str | None:
        """Seat everyone and play: the people who have joined in theirs, bots in the others' (a seat kept for
        someone not here yet is theirs when they come, and their game from then).  A table nobody has sat down
        at does not start (bots playing every seat teach nobody): why not, then."""
        if self.game is not None or self.ended or self._starting:
            return None
        if not self.sitting.anyone_joined:
            return self.sitting.nobody_yet()
        self._starting = True  # the game is made in a worker: a join meanwhile must not start a second one
        seats = self.sitting.seats_at_start()
        key = read_key(self.spec.key_file) if self.spec.key_file else None
        loop = asyncio.get_running_loop()
        options = AgentOptions(information=self.spec.information)  # the bots decide on what their seats know
        try:
            self.game = await loop.run_in_executor(None, lambda: LiveGame(
                self.scenario, self.rules, seats, budget=self.portable.budget, record=self.spec.record,
                record_key=key, options=options))
        except (OSError, ValueError) as err:  # its record cannot be made, a seat cannot play: the table says why
            self.end(f"the game could not start: {err}")
            return None
        for said in self._unwritten:
            self.game.keep_message(said.sender, said.to, said.text)
        self._unwritten = []
        self._broadcast({"type": "started", "seats": self._seats()})
        self._arm_notices()
        if not self._sync_round():
            self._round_changed()
        self._people_changed()  # the seats nobody took are bots' now
        self.events.started(self.game)
        self.log("the game starts: " + ", ".join(f"{pid} {seat.person or seat.label}" for pid, seat in seats.items()))
        self._spawn(self._play())
        return None

    async def _play(self) -> None:
        try:
            await self._play_on()
        except Exception as err:  # a bug or a broken record file: the table says so and closes
            self.end(f"the game stopped: {err}")

    async def _play_on(self) -> None:
        game = self.game
        assert game is not None
        loop = asyncio.get_running_loop()
        while not game.over and not self.ended:
            self._change_seats()
            self._sync_round()  # a person away or back: whether the round's clock runs
            if self.paused:
                await self._sleep()
                continue
            if game.neg.game.simultaneous:
                await self._simultaneous_step()
                continue
            if game.waiting_for_person():
                await self._wait_for_person()
                continue
            self.thinking = True
            try:
                moves = await loop.run_in_executor(None, game.think)
            finally:
                self.thinking = False
            for m in moves:
                if m.t != game.state.t or m.player != game.deciding or game.is_human(m.player):
                    break  # a seat changed hands meanwhile: it decides for itself
                self._apply(m)
        if game.over:
            payoffs = [float(v) for v in game.neg.returns(game.state)]
            over: dict[str, Any] = {"type": "over", "payoffs": payoffs}
            if game.ended:
                over["ended"] = game.ended  # the clock ran out, or the trainer called time: over as it stood
            if self.spec.information == "private":
                over["game"] = self.spec.game  # the end reveals everyone's values
            self._broadcast(over)
            self.log("the game is over: " + ", ".join(f"{pid} {v:g}" for pid, v in zip(game.neg.game.player_ids,
                                                                                     payoffs)))
            await self._close_out(game)
            await self.events.over(game, self.closing)
            self.settled = True

    async def _close_out(self, game: LiveGame) -> None:
        """The debriefs' slow numbers, once for the whole table: the welfare optimum, then each person's
        seat's counterfactual games, each sent to that seat's app (and the watchers) as soon as known."""
        loop = asyncio.get_running_loop()
        closing = self.closing
        closing.welfare = await loop.run_in_executor(None, welfare_optimum, game.neg)
        closing.welfare_done = True
        self._tell_closing()
        for pid in [pid for pid in self.spec.seats if pid in self.sitting.people]:
            if self.ended:
                return
            closing.counterfactual[pid] = await loop.run_in_executor(
                None, partial(counterfactuals, game.neg, game.seating.seats, game.neg.game.index_of(pid), game.start,
                              cancelled=lambda: bool(self.ended), information=self.spec.information))
            self._tell_closing()

    async def _sleep(self, timeout: float | None = None) -> bool:
        """Wait for something to happen at the table; False when the timeout came first."""
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def _wait_for_person(self) -> None:
        game, clock = self.game, self.decision_clock
        assert game is not None
        deciding = self.sitting.people.get(game.neg.game.player_ids[game.deciding])
        if deciding is not None and not deciding.online:  # away: no time runs against them until they are back
            if self._held != clock.decision(game):
                self._held = clock.decision(game)
                clock.restart()
                self._broadcast({"type": "clock", "seconds": None, "held": deciding.player})
            await self._sleep()
            return
        self._held = None
        if clock.start(game):
            self._broadcast(clock.line(game))
        left = clock.left()
        if left is None:
            await self._sleep()
            return
        decision = clock.decision(game)
        woken = await self._sleep(left)
        if not woken and clock.decision(game) == decision and not self.paused:
            self._apply(expired(game))  # their turn is a pass, their answer a rejection

    def _apply(self, m: Move) -> None:
        game = self.game
        assert game is not None
        if game.over:  # a bot's move decided while the round's time ran out: the game is over as it stood
            return
        ev = game.submit(m)  # IllegalMove leaves the game as it was
        self.note_recording()
        wire = move_to_wire(game.neg, m)
        if game.neg.game.simultaneous:
            self._in_flight(m, wire, settled=ev is not None)
        else:
            self.moves.append(wire)
            self._broadcast({"type": "move", "move": wire})
        self.events.moved(game)
        self._wake.set()

    def _change_seats(self) -> None:
        game = self.game
        if game is None or not self._seat_changes:
            return
        changes, self._seat_changes = self._seat_changes, {}
        for pid, seat in changes.items():
            game.set_seat(pid, seat)
        self._people_changed()

    # --- steering (the trainer) -----------------------------------------------------------------------------
    def pause(self, paused: bool) -> None:
        """Every clock stops while the table is paused: the decision under way gets its whole time again after,
        the round keeps what it had left."""
        if self.paused != paused:
            self.paused = paused
            self.decision_clock.restart()
            for clock in self._clocks.values():
                clock.restart()
            self._broadcast({"type": "paused", "paused": paused})
            if paused:
                self._broadcast({"type": "clock", "seconds": None})  # no countdown on any screen while paused
            if not self._sync_round():
                self._round_changed()
            self.events.paused(paused)
            self._wake.set()

    async def _steer(self, kind: str, m: dict[str, Any]) -> str | None:
        """The trainer's request; why it cannot be done, if it cannot."""
        if self.ended:
            return "the table has closed"
        if kind == "start":
            if self.game is not None:
                return "the game has started already"
            return await self.start()
        elif kind == "end":  # call time: a game under way ends as it stands; a table nobody played at closes
            if self.game is None:
                self.end("the trainer closed the table before its game started")
            else:
                self.call_time()  # a game over already stays as it ended
        elif kind == "assign":
            return await self._keep(person_name(m.get("name")), str(m.get("seat") or ""))
        elif kind == "time":
            seconds = m.get("seconds")
            if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds <= MAX_ROUND:
                return f"a round's time is a number of seconds above 0 and at most {MAX_ROUND:g}"
            if self.game is not None and self.game.over:
                return "the game is over"
            self.set_time(float(seconds), bool(m.get("extend")))
        elif self.game is not None and self.game.over:
            return "the game is over"
        else:
            self.pause(kind == "pause")
        return None

    def end(self, why: str) -> None:
        """Close the table before the game is over (its record stays as far as it got)."""
        if self._done.is_set():
            return
        self.ended = why
        self.log(f"the table closes: {why}")
        self._broadcast({"type": "closed", "why": why})
        self.events.closed(why)
        self._wake.set()
        self._done.set()

def serve(spec: TableSpec, socket_path: Path) -> str | None:
    """Run a table to its end; why it closed early, if it did."""
    host = TableHost(spec, socket_path)
    asyncio.run(host.run())
    return host.ended
