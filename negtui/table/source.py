"""A table's game as a person's app sees it: a game source whose decisions go to the table's process
and whose state is a copy of the table's game, moved by the moves the table announces.

The copy is an ordinary `LiveGame` whose other seats are stand-ins (they decide nothing here): the
panes, the previews, the hint and the coach work on it exactly as on a game played in the app, and
only this person's decisions are coached.  Who sits where, who is online, what was said and the clock
of the decision under way arrive beside the moves and are kept in a `TableView`.

Under simultaneous rules the copy is moved a whole turn at a time, when the table settles it (a `turn` line).
While a turn is under way the copy's state is this seat's picture of it (`_picture`): the offers it made and
those made to it (`flight` lines), the decision the table asks of it (`asked`), and in place of every offer it
may not see, a pass; the app's offer builder and answer dialog work on that picture as on a game of its own."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from negtui.agents.options import AgentOptions
from negtui.coach.closing import Closing
from negtui.engine.negotiation import IllegalMove, Phase, State
from negtui.engine.offers import Offer
from negtui.engine.portable import PortableGame
from negtui.engine.rules import rules_from
from negtui.engine.simultaneous import Flight
from negtui.engine.turns import Move, TurnEvent
from negtui.names import player_names
from negtui.play.live import LiveGame
from negtui.play.simultaneous import start_of_turn
from negtui.play.sources import Ending, LiveSource
from negtui.play.views import Snapshot
from negtui.scenario.io import parse_scenario
from negtui.seats import Seat
from negtui.table.client import TableClient, TableGone
from negtui.table.moves import move_from_wire, move_to_wire
from negtui.table.talk import MAX_CHARS, Said, clean
from negtui.table.views import Occupant, TableView
from negtui.table.wire import WireError


class TableSource(LiveSource):
    def __init__(self, client: TableClient, welcome: dict[str, Any]) -> None:
        you = welcome.get("you")
        private = welcome.get("information") == "private"
        game = _copy(welcome["game"], welcome["seats"], you if private else None, bool(welcome.get("guided", True)))
        super().__init__(game)
        self.client = client
        self.me: int | None = None if you is None else game.neg.game.index_of(str(you))
        self._hints = bool(welcome.get("hints", True))
        self._coaching(game)
        # the decision sent and not yet announced back (a simultaneous turn's: with its proposer)
        self._sent: tuple[int, Phase] | tuple[int, Phase, int] | None = None
        self._moves: list[tuple[dict[str, Any], Seat]] = []  # every move, with the seat that made it
        # a simultaneous turn under way: the decisions of it this seat may see, and what the table asks of it
        self._flight: list[dict[str, Any]] = []
        self._asked: dict[str, Any] = {}
        self._awaiting: dict[str, Any] = {}  # what the turn waits for, as the table tells everyone
        self._settled = game.state  # the copy's state at the start of the turn under way
        self.view = TableView(title=str(welcome.get("title") or game.neg.game.scenario.name), you=you,
                              role=str(welcome.get("role") or ""), private=private,
                              trainer=welcome.get("trainer") is not False,
                              starts_anyway=welcome.get("starts_anyway") is True)
        self._occupants(welcome["people"])
        self.view = self.view.but(started=bool(welcome["started"]), paused=bool(welcome["paused"]),
                                  said=tuple(Said.from_dict(s) for s in welcome["said"]))
        self._clock(welcome["clock"])
        self._round(welcome.get("round"))
        for notice in welcome.get("notices") or ():
            self._notice(notice)
        for wire in welcome["moves"]:
            self._move(wire)
        self._settled = game.state
        self._flight = list(welcome.get("flight") or [])
        self._asked = dict(welcome.get("asked") or {})
        self._awaiting = dict(welcome.get("awaiting") or {})
        self._picture()
        self.closing = Closing()  # the debrief's slow numbers: the table works them out and sends them
        if isinstance(welcome.get("debrief"), dict):
            self.closing.take(welcome["debrief"])

    def _coaching(self, game: LiveGame) -> None:
        game.coached = set() if self.me is None else {self.me}
        game.hints = self._hints
        game.coach_pane_first = True

    @property
    def over(self) -> bool:
        """Over once the table has said so, and under private information once everyone's values are
        in (`reveal`): the end screens show them."""
        return self.game.over and self.game.known is None

    @property
    def to_reveal(self) -> bool:
        return self.game.over and self.game.known is not None

    # --- what the table says ------------------------------------------------------------------------------
    def receive(self, message: dict[str, Any]) -> list[TurnEvent]:
        """Take in one line from the table; the turns it finished."""
        kind, view = message.get("type"), self.view
        if kind == "move":
            ev = self._move(message["move"])
            return [ev] if ev is not None else []
        if kind == "turn":
            return self._turn(message["moves"])
        if kind == "flight":
            self._flight.append(message["move"])
            self._picture()
        elif kind == "asked":
            self._asked = dict(message)
            self._sent = None
            self._picture()
        elif kind == "awaiting":
            self._awaiting = dict(message)
        if kind == "refused":
            self._sent = None  # the decision is this person's to make again
        elif kind == "people":
            self._occupants(message["people"])
        elif kind == "started":
            self._seat(message["seats"])
            self.view = self.view.but(started=True)
        elif kind == "paused":
            self.view = view.but(paused=bool(message["paused"]))
        elif kind == "said":
            self.view = view.but(said=(*view.said, Said.from_dict(message["said"]))[-view.KEPT:])
        elif kind == "clock":
            self._clock(message)
        elif kind == "round":
            self._round(message)
        elif kind == "notice":
            self._notice(message)
        elif kind == "over" and message.get("ended"):  # the round's time ran out: over as it stands
            self.game.end_now(str(message["ended"]))
            self.view = self.view.but(clock=None, round=None)
        elif kind == "closed":
            self.view = view.but(closed=str(message.get("why") or ""))
        elif kind == "debrief":
            self.closing.take(message)
        return []

    def _move(self, wire: dict[str, Any]) -> TurnEvent | None:
        game = self.game
        move = move_from_wire(game.neg, game.state, wire)
        if move.phase is Phase.PROPOSE and move.player == self.me:
            self.clear_draft()
        self._moves.append((wire, game.seating.seats[move.player]))
        return game.submit(move)

    def _turn(self, wires: list[dict[str, Any]]) -> list[TurnEvent]:
        """A simultaneous turn as the table settled it: every decision of it, applied to the copy from the turn's
        start, in the table's order."""
        self.game.driver.state = self._settled
        events = [ev for wire in wires if (ev := self._move(wire)) is not None]
        self._settled = self.game.state
        self._flight, self._asked, self._sent = [], {}, None
        return events

    def _picture(self) -> None:
        """The simultaneous turn under way as this seat knows it, in the copy's state (see the module's words)."""
        game, neg = self.game, self.game.neg
        g, base = neg.game, self._settled
        if not g.simultaneous or game.over or neg.is_terminal(base):
            return
        proposers = g.proposers(base.t)
        offers: list[Offer | None] = [None] * len(proposers)
        answers: list[bool | None] = [None] * len(proposers)
        start = State(base.t, base.bits)

        def offer_of(proposer: str, partner: str, cells: list[list[str]]) -> Offer:
            at = start_of_turn(neg, start, g.index_of(proposer))
            return neg.offer(at, g.index_of(partner), [g.cell_index[(a, b)] for a, b in cells]) if cells \
                else neg.pass_offer(at)

        try:
            for wire in self._flight:
                if wire.get("t") != base.t:
                    continue
                if wire["phase"] == Phase.PROPOSE.value:
                    offers[neg.slot(start, g.index_of(wire["player"]))] = offer_of(wire["player"], wire["partner"],
                                                                                   wire.get("cells") or [])
                elif wire.get("proposer") is not None:
                    answers[neg.slot(start, g.index_of(wire["proposer"]))] = bool(wire["accept"])
            asked = self._asked if self._asked.get("t") == base.t else {}
            mine = self.me is not None and self.me in proposers
            if asked.get("phase") == Phase.PROPOSE.value and mine:
                focus = proposers.index(self.me)
                game.driver.state = State(base.t, base.bits, None, Flight(tuple(offers), tuple(answers), focus))
                return
            if asked.get("phase") == Phase.RESPOND.value and asked.get("offers"):
                to_me = [offer_of(o["proposer"], o["partner"], o["cells"]) for o in asked["offers"]]
                for o in to_me:
                    offers[neg.slot(start, o.proposer)] = o
                done = [o or neg.pass_offer(start_of_turn(neg, start, p)) for o, p in zip(offers, proposers)]
                focus = neg.slot(start, to_me[0].proposer)
                game.driver.state = State(base.t, base.bits, done[focus], Flight(tuple(done), tuple(answers), focus))
                return
        except (KeyError, ValueError, IllegalMove):
            return  # a line this copy cannot place: it keeps the turn's start, and the settled turn puts it right
        # nothing asked of this seat now: the offers it may see, focused on another proposer's decision
        others = [k for k, p in enumerate(proposers) if p != self.me and offers[k] is None]
        focus = others[0] if others else next((k for k, p in enumerate(proposers) if p != self.me), 0)
        game.driver.state = State(base.t, base.bits, None, Flight(tuple(offers), tuple(answers), focus))

    def reveal(self, true_game: dict[str, Any]) -> LiveGame:
        """The game played again on everyone's values, as the table sent them at the end, with this
        person's decisions to assess (slow on large games: a worker's job); `revealed` puts it in place."""
        old = self.game
        game = _copy(true_game, {pid: seat.model_dump(mode="json") for pid, seat in old.seats.items()}, None)
        self._coaching(game)
        ids = game.neg.game.player_ids
        for wire, seat in self._moves:
            move = move_from_wire(game.neg, game.state, wire)
            if game.seating.seats[move.player] != seat:
                game.set_seat(ids[move.player], seat)
            game.submit(move)
        for pid, seat in old.seats.items():
            if game.seats[pid] != seat:
                game.set_seat(pid, seat)
        if old.ended is not None:  # the clock or the trainer ended it before its last turn: over as it stood
            game.end_now(old.ended)
        game.assess_pending()
        return game

    def revealed(self, game: LiveGame) -> None:
        old, self.game = self.game, game
        old.close()

    def _seat(self, seats: dict[str, Any]) -> None:
        """The table's seats, as they are now (a bot in a dropped person's seat, the person back)."""
        game = self.game
        for pid, data in seats.items():
            seat = Seat.model_validate(data)
            i = game.neg.game.index_of(pid)
            if game.seating.seats[i] != seat:
                game.driver.seats[i] = game.seating.set(i, seat)

    def _occupants(self, people: list[dict[str, Any]]) -> None:
        self._seat({p["player"]: p["seat"] for p in people})
        occupants = who_sits(people)
        self.view = self.view.but(occupants=occupants)

    def _clock(self, message: dict[str, Any]) -> None:
        seconds = message.get("seconds")
        self.view = self.view.but(clock=None if seconds is None else
                                  (str(message["player"]), float(seconds), time.monotonic()))

    def _round(self, message: dict[str, Any] | None) -> None:
        message = message or {}
        seconds, waits = message.get("seconds"), message.get("waiting")
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            self.view = self.view.but(round=None, round_waits=None)
            return
        self.view = self.view.but(round=(float(seconds), time.monotonic(), bool(message.get("running"))),
                                  round_waits=str(waits) if waits else None)

    def _notice(self, message: dict[str, Any]) -> None:
        text = clean(str(message.get("text") or ""))
        if text:
            self.view = self.view.but(notices=(*self.view.notices, text)[-self.view.KEPT:])

    def own_seats(self) -> frozenset[int]:
        return frozenset() if self.me is None else frozenset({self.me})

    def snapshot(self) -> Snapshot:
        """The game as the screen shows it; a simultaneous turn's headline says what the table waits for (this
        copy holds only what its seat may see of the turn)."""
        snap = super().snapshot()
        words = self._awaited_words()
        return snap if words is None else replace(snap, awaited=words, waiting_on=self._waiting_on())

    def _waiting_on(self) -> frozenset[int]:
        """The seats the table named as still to offer; while answers are awaited it says how many, not whose, so
        this seat only, when one of them is its own."""
        g = self.game.neg.game
        told = self._awaiting.get("offers_from")
        if told:
            return frozenset(g.index_of(str(p)) for p in told)
        return frozenset({self.me}) if self.me is not None and self.person_to_move() else frozenset()

    def _awaited_words(self) -> str | None:
        told = self._awaiting
        if not self.game.neg.game.simultaneous or self.game.over or told.get("t") != self._settled.t:
            return None
        names = player_names(self.game.neg.game.scenario)
        g = self.game.neg.game
        if told.get("offers_from"):
            return "awaiting offers from " + ", ".join(names[g.index_of(str(p))] for p in told["offers_from"])
        n = int(told.get("answers") or 0)
        return f"awaiting {n} answer{'s' * (n > 1)}" if n else ""

    # --- whose move -------------------------------------------------------------------------------------
    def person_to_move(self, phase: Phase | None = None) -> bool:
        game, view = self.game, self.view
        if game.neg.game.simultaneous:  # what the table asked of this seat, not yet sent
            asked = self._asked.get("phase") if self._asked.get("t") == self._settled.t else None
            return (self.me is not None and view.started and not view.paused and not view.closed and not game.over
                    and asked is not None and game.is_human(self.me) and game.deciding == self.me
                    and self._sent != self._decision_now()
                    and (phase is None or phase.value == asked))
        return (self.me is not None and view.started and not view.paused and not view.closed and not game.over
                and game.deciding == self.me and game.is_human(self.me)
                and self._sent != (game.state.t, game.driver.phase)
                and (phase is None or game.driver.phase is phase))

    def _decision_now(self) -> tuple[int, Phase, int]:
        """The decision of the simultaneous turn this seat's picture asks: its turn, phase and the proposer."""
        game = self.game
        return game.state.t, game.driver.phase, game.proposer

    @property
    def deciding(self) -> str | None:
        """Who the table waits for, if the game is on (under simultaneous rules: this seat, when the table asks it
        a decision; the others' are named by the awaited line)."""
        game = self.game
        if game.over or not self.view.started:
            return None
        if game.neg.game.simultaneous:
            return None if self.me is None or not self.person_to_move() else game.neg.game.player_ids[self.me]
        return game.neg.game.player_ids[game.deciding]

    # --- decisions: to the table ----------------------------------------------------------------------------
    def _decide(self, move: Move) -> TurnEvent | None:
        """Sent to the table, which applies it (or refuses it, and says why); the move comes back as
        the table's announcement, like every other."""
        if move.phase is Phase.PROPOSE and move.offer is None:
            raise IllegalMove("the proposer moves with an offer (an empty one passes)", "phase")
        if self.neg.game.simultaneous:
            if move.phase is Phase.RESPOND and move.offer is None:
                move = replace(move, offer=self.game.state.pending)  # which of the turn's offers it answers
            self._sent = self._decision_now()
        else:
            self._sent = (move.t, move.phase)
        wire = {"type": "move", **move_to_wire(self.neg, move)}  # the table puts in whose move it is
        self.client.send(wire)
        return None

    def think(self) -> list[Move]:
        return []  # the table's bots decide at the table

    def commit(self, moves: list[Move]) -> list[TurnEvent]:
        return []

    def say(self, text: str, to: str | None = None) -> str | None:
        """A message to everyone (or to one player); a reason when there is nothing to send."""
        text = clean(text)
        if not text:
            return "nothing to send"
        self.client.send({"type": "say", "to": to, "text": text[:MAX_CHARS]})
        return None

    # --- the end ---------------------------------------------------------------------------------------------
    def ending(self) -> Ending:
        base = super().ending()
        return Ending(base.game, [] if self.me is None else [self.me], base.first_forecasts,
                      "private" if self.view.private else "public", closing=self.closing)

    def close(self) -> None:
        self.client.close()
        self.game.close()


def _copy(portable_game: dict[str, Any], seats: dict[str, Any], you: str | None, guided: bool = True) -> LiveGame:
    """A copy of the table's game whose seats decide nothing here; `you`: the values shown are only
    this player's (the game holds its picture, engine.knowledge); `guided` False: an assessment."""
    portable = PortableGame.from_dict(portable_game)
    rules = rules_from(portable.rules)  # the game is compiled once, by the LiveGame
    scenario = parse_scenario(portable.scenario)
    known = None if you is None else frozenset({scenario.player_ids.index(you)})
    return LiveGame(scenario, rules, {pid: Seat.model_validate(seat) for pid, seat in seats.items()},
                    budget=portable.budget, options=AgentOptions(elsewhere=True), known=known, guided=guided)


def who_sits(people: list[dict[str, Any]]) -> tuple[Occupant, ...]:
    """The table's `people` line, seat by seat."""
    return tuple(Occupant(str(p["player"]), Seat.model_validate(p["seat"]).label, p.get("name"),
                          bool(p.get("online")), bool(p.get("person_seat"))) for p in people)


def sit(path: Path, name: str, seat: str | None = None, timeout: float = 10.0) -> TableSource:
    """Take a seat at the table listening at `path` (the one asked for, or the first free); TableGone
    when the table cannot be reached or does not seat this person, with the table's reason."""
    return _join(path, {"type": "join", "name": name, "seat": seat}, timeout)


def watch(path: Path, timeout: float = 10.0) -> TableSource:
    """Follow the table listening at `path` as its trainer: every value, every message, no seat."""
    return _join(path, {"type": "join", "watch": True}, timeout)


def _join(path: Path, join: dict[str, Any], timeout: float) -> TableSource:
    client = TableClient(path)
    try:
        client.send(join)
        welcome = client.receive(timeout)
        if welcome is None or welcome.get("type") != "welcome":
            raise TableGone(f"the table did not let you in: {welcome.get('why') if welcome else 'no answer'}")
        return TableSource(client, welcome)
    except (TableGone, WireError, ValueError, KeyError) as err:
        client.close()
        raise TableGone(str(err) if isinstance(err, TableGone) else f"the table's welcome was not understood: {err}"
                        ) from None
