"""A simultaneous turn at a table (docs/simultaneous.md): every open decision of the turn is asked at once,
each person on a clock of their own while the bots decide theirs; a decision in flight goes only to those who
may see it, and the whole turn to everyone once it settles.

A mixin of `TableHost`: the host owns the game and the loop that plays it, this part a turn played at once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from negtui.engine.turns import Move
from negtui.play.live import LiveGame
from negtui.table.clock import DecisionClock, expired_all, open_decisions
from negtui.table.connection import Client
from negtui.table.sitting import Sitting
from negtui.table.spec import TableSpec


class SimultaneousTurns:
    spec: TableSpec
    clock: Callable[[], float]
    sitting: Sitting
    clients: set[Client]
    game: LiveGame | None
    moves: list[dict[str, Any]]
    paused: bool
    thinking: bool
    _held: tuple[int, str] | None
    # the moves made so far in the turn (each with the players who may see it), each person's clock, and what
    # each person and everyone were last told
    _flight: list[tuple[dict[str, Any], frozenset[int]]]
    _clocks: dict[int, DecisionClock]
    _asked: dict[int, dict[str, Any]]
    _awaiting: dict[str, Any]

    if TYPE_CHECKING:  # the host's
        def _apply(self, m: Move) -> None: ...
        async def _sleep(self, timeout: float | None = None) -> bool: ...
        def _broadcast(self, message: dict[str, Any]) -> None: ...

    def _in_flight(self, m: Move, wire: dict[str, Any], settled: bool) -> None:
        """A decision of a simultaneous turn: told to those who may see it (the offer's proposer and partner, and
        the trainer) while the turn is under way, and with the whole turn to everyone once it settles."""
        offer = m.offer
        seers = frozenset({m.player} if offer is None else {offer.proposer, offer.partner})
        self._flight.append((wire, seers))
        if not settled:
            line = {"type": "flight", "move": wire}
            for client in self.clients:
                if self._sees(client, seers):
                    client.send(line)
            return
        moves = [w for w, _ in self._flight]
        self._flight, self._asked = [], {}
        self.moves += moves
        self._broadcast({"type": "turn", "moves": moves})

    def _sees(self, client: Client, seers: frozenset[int]) -> bool:
        assert self.game is not None
        return client.watcher or (client.player is not None and self.game.neg.game.index_of(client.player) in seers)

    def _flight_for(self, client: Client) -> list[dict[str, Any]]:
        """The decisions of the simultaneous turn under way this client may see."""
        return [wire for wire, seers in self._flight if self._sees(client, seers)]

    def _asked_line(self, i: int) -> dict[str, Any]:
        """What person i is asked now in the simultaneous turn under way: their offer, or their answers to the
        offers made to them (each named by its proposer), or nothing."""
        game = self.game
        assert game is not None
        if game.over:
            return {"type": "asked", "phase": None}
        g, ws = game.neg.game, open_decisions(game, i)
        if not ws or not game.is_human(i):
            return {"type": "asked", "t": game.state.t, "phase": None}
        if ws[0].pending is None:
            return {"type": "asked", "t": game.state.t, "phase": "propose"}
        return {"type": "asked", "t": game.state.t, "phase": "respond",
                "offers": [{"proposer": g.player_ids[w.pending.proposer], "partner": g.player_ids[i],
                            "cells": g.pairs_of(w.pending.bits)} for w in ws if w.pending is not None]}

    def _tell(self, player: str, line: dict[str, Any]) -> None:
        for client in self.clients:
            if client.player == player:
                client.send(line)

    def _ask_people(self) -> None:
        """Tell every person what the turn asks of them now, and everyone what the turn waits for, when it
        changed (who is still to offer, and how many answers are still to come: not who offered to whom)."""
        game = self.game
        assert game is not None
        waiting = game.neg.waiting(game.state)
        ids = game.neg.game.player_ids
        awaiting = {"type": "awaiting", "t": game.state.t, "phase": game.neg.phase(game.state).value,
                    "offers_from": [ids[game.neg.proposer(w)]
                                    for w in waiting if w.pending is None],
                    "answers": sum(w.pending is not None for w in waiting)}
        if awaiting != self._awaiting:
            self._awaiting = awaiting
            self._broadcast(awaiting)
        for i, pid in enumerate(game.neg.game.player_ids):
            if pid not in self.spec.seats or not self.spec.seats[pid].is_human:
                continue
            line = self._asked_line(i)
            if self._asked.get(i) != line:
                self._asked[i] = line
                self._tell(pid, line)

    async def _simultaneous_step(self) -> None:
        """Every open decision of the turn's phase at once: the people are asked (each on their own clock), the
        bots decide theirs in the worker meanwhile; then the table waits for the people."""
        game = self.game
        assert game is not None
        self._ask_people()
        if any(not game.driver.decided_outside(state=w) for w in game.neg.waiting(game.state)):
            self.thinking = True
            try:  # people's decisions are taken meanwhile (serving._decision): the bots' are checked when applied
                moves = await asyncio.get_running_loop().run_in_executor(None, game.think)
            finally:
                self.thinking = False
            for m in moves:
                if not game.over and game.still_open(m):
                    self._apply(m)
            return
        await self._wait_for_people()

    async def _wait_for_people(self) -> None:
        """The people's open decisions of a simultaneous turn, each person on a clock of their own (held while
        they are away); at its end the decisions still open are a pass and rejections."""
        game = self.game
        assert game is not None
        ids = game.neg.game.player_ids
        deciding = sorted({game.neg.current_player(w) for w in game.neg.waiting(game.state)})
        lefts: list[float] = []
        for i in deciding:
            clock = self._clocks.setdefault(i, DecisionClock(self.spec.decision_time, self.clock))
            person = self.sitting.people.get(ids[i])
            if person is not None and not person.online:  # no time runs against them until they are back
                if clock.deadline is not None or clock.decision(game) != self._held:
                    clock.restart()
                    clock.deadline = None
                    self._held = clock.decision(game)
                    for client in self.clients:
                        if client.watcher:
                            client.send({"type": "clock", "seconds": None, "held": ids[i]})
                continue
            if clock.start(game):
                self._tell(ids[i], clock.line(game, i))
            left = clock.left()
            if left is not None:
                lefts.append(left)
        decision = DecisionClock.decision(game)
        woken = await self._sleep(min(lefts) if lefts else None)
        if woken or self.paused or game.over or DecisionClock.decision(game) != decision:
            return
        for i in deciding:
            clock = self._clocks[i]
            if clock.deadline is not None and clock.left() == 0:
                for m in expired_all(game, i):
                    self._apply(m)
