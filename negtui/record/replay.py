"""Replaying a record: states at every turn, the forecasts shown, and verification of bot decisions.

`Replay` rebuilds the game from the header alone and plays every recorded decision through the turn
driver, which checks it against the rules; every state is checked against its digest.  `verify`
plays the record out again with every seat answering as recorded, each lens bot asked first: the
first decision a bot makes differently is the divergence.  The bots come from a seating the caller
supplies (agents.Seating), so records do not depend on how agents are built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Protocol

import numpy as np

from negtui.engine.game import GameError
from negtui.engine.negotiation import IllegalMove, Negotiation, State, shown_turn
from negtui.engine.offers import Offer
from negtui.engine.turns import Agent, TurnDriver, TurnEvent
from negtui.engine.valuation import Valuation
from negtui.engine.vocabulary import CLOSED_FORM_LENSES
from negtui.record.digest import state_digest
from negtui.record.format import TurnLine
from negtui.record.reader import Record, RecordError, line_of
from negtui.scenario.untrusted import one_line
from negtui.seats import Seat


@dataclass(frozen=True)
class Divergence:
    t: int
    what: str
    recorded: str
    recomputed: str

    def describe(self) -> str:
        return f"turn {shown_turn(self.t)}: {self.what} — recorded {self.recorded}, re-run gives {self.recomputed}"


class Seating(Protocol):
    """The agents of a game's seats (agents.Seating): built from seats, replaceable seat by seat, and
    closed when the block that holds it ends."""

    agents: list[Agent | None]

    def set(self, i: int, seat: Seat) -> Agent | None: ...

    def __enter__(self) -> Seating: ...

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None: ...


SeatingFactory = Callable[[Negotiation, list[Seat]], Seating]


class Replay:
    def __init__(self, record: Record):
        self.record = record
        h = record.header
        try:
            self.neg = Negotiation.from_scenario(record.scenario, h.rules, budget=h.budget)
            self.valuation = Valuation(self.neg)  # forecasts a record does not hold
            game = self.neg.game
            self.start = State(h.start_turn, game.bits_of(h.start_commitments))
        except (GameError, ValueError) as err:
            raise RecordError(record.source, 1, [("$", str(err))]) from None
        for cells in game.groups:
            if sum(self.start.bits >> int(c) & 1 for c in cells) > 1:
                raise RecordError(record.source, 1, [("$.start_commitments", "two commitments of one exclusive set")])
        self.states: list[State] = [self.start]
        self.events: list[TurnEvent] = []
        driver = TurnDriver(self.neg, [None] * game.n, self.start)
        for k, line in enumerate(record.turns):
            self.events.append(self._play(driver, line, line_of(record, "turn", k)))
            self.states.append(driver.state)
        if record.result is not None:
            self._check_result(line_of(record, "result", 0))

    def _check_result(self, lineno: int) -> None:
        """A result line must close a finished game and match the replayed final state."""
        neg, game, res, final = self.neg, self.neg.game, self.record.result, self.states[-1]
        assert res is not None
        problems = []
        if not neg.is_terminal(final) and res.ended is None:  # a game the clock ended stands where it was
            problems.append(("$", f"result line after turn {shown_turn(final.t - 1)} of {game.T}: turns are missing"))
        try:
            made = game.bits_of(res.commitments)
        except GameError as err:
            made = None
            problems.append(("$.commitments", str(err)))
        if made is not None and made != final.bits:
            problems.append(("$.commitments", "do not match the commitments the turns add up to"))
        pay = neg.returns(final)
        if len(res.payoffs) != game.n or any(abs(a - b) > 1e-6 for a, b in zip(res.payoffs, pay)):
            problems.append(("$.payoffs", "do not match the payoffs of the replayed final state"))
        if problems:
            raise RecordError(self.record.source, lineno, problems)

    def _play(self, driver: TurnDriver, line: TurnLine, lineno: int) -> TurnEvent:
        """Play one recorded turn: the proposer's offer, then (if it needs one) the partner's answer."""
        if line.offers is not None:
            return self._play_offers(driver, line, lineno)
        neg, game, src = self.neg, self.neg.game, self.record.source
        s = driver.state
        assert line.proposer is not None and line.partner is not None and line.offer is not None \
            and line.accepted is not None and line.decided_by is not None  # the format's one-offer form
        try:
            p, q = game.index_of(line.proposer), game.index_of(line.partner)
            if p != neg.proposer(s):
                raise IllegalMove(f"{line.proposer} proposes, but the schedule gives turn {shown_turn(s.t)} to "
                                  f"{game.player_ids[neg.proposer(s)]}")
            ev = driver.submit(driver.propose(Offer(p, q, game.bits_of(line.offer))))
            if ev is None:
                ev = driver.submit(driver.answer(line.accepted))
        except (IllegalMove, GameError) as err:
            raise RecordError(src, lineno, [("$.offer", str(err))]) from None
        assert ev is not None  # an answer ends the turn
        if ev.accepted != line.accepted:
            what = "an empty offer" if ev.offer.is_noop else "a unilateral commitment"
            raise RecordError(src, lineno, [("$.accepted", f"{what} is {'a deal' if ev.accepted else 'no deal'} "
                                                          f"under {neg.rules.name} rules")])
        if state_digest(ev.after.t, ev.after.bits) != line.digest:
            raise RecordError(src, lineno, [("$.digest", "the state after this turn does not match its digest "
                                                        "(the record was edited or is damaged)")])
        # a record is a file anyone may have written: who decided is shown as words, never as a terminal's commands
        return TurnEvent(ev.t, ev.proposer, ev.partner, ev.offer, ev.accepted, one_line(line.decided_by, 200),
                         ev.before, ev.after, ev.payoffs, line.fault)

    def _play_offers(self, driver: TurnDriver, line: TurnLine, lineno: int) -> TurnEvent:
        """Play one recorded simultaneous turn: every proposer's offer, then every answer, then check what
        the rules made of each against what the record says."""
        neg, game, src = self.neg, self.neg.game, self.record.source
        assert line.offers is not None
        s = driver.state
        where = "$.offers"
        ev = None
        try:
            proposers = list(game.proposers(s.t)) if not neg.is_terminal(s) else []
            named = [game.index_of(o.proposer) for o in line.offers]
            if named != proposers:
                listed = ", ".join(o.proposer for o in line.offers)
                due = ", ".join(game.player_ids[p] for p in proposers)
                raise IllegalMove(f"the record lists the offers of {listed}; turn {shown_turn(s.t)}'s proposers are "
                                  f"{due}")
            offers = [Offer(p, game.index_of(o.partner), game.bits_of(o.offer)) for p, o in zip(named, line.offers)]
            for k, offer in enumerate(offers):
                where = f"$.offers[{k}].offer"
                ev = driver.submit(driver.propose(offer))
            for k, (offer, o) in enumerate(zip(offers, line.offers)):
                where = f"$.offers[{k}].answer"
                asked = not offer.is_noop and not offer.is_unilateral
                if asked != (o.answer is not None):
                    raise IllegalMove("an offer to a partner has its answer, and a pass or a commitment made alone "
                                      "none")
                if asked:
                    ev = driver.submit(driver.answer(bool(o.answer), offer))
        except (IllegalMove, GameError) as err:
            raise RecordError(src, lineno, [(where, str(err))]) from None
        assert ev is not None  # the last move ends the turn
        problems = []
        for k, (out, o) in enumerate(zip(ev.outcomes, line.offers)):
            if (out.status, out.void) != (o.result, o.void):
                said = out.status + (f" ({out.reason})" if out.void else "")
                problems.append((f"$.offers[{k}].result", f"recorded {o.result}, but these rules make it {said}"))
        if problems:
            raise RecordError(src, lineno, problems)
        if state_digest(ev.after.t, ev.after.bits) != line.digest:
            raise RecordError(src, lineno, [("$.digest", "the state after this turn does not match its digest "
                                                        "(the record was edited or is damaged)")])
        outcomes = tuple(replace(out, decided_by=one_line(o.decided_by, 200), fault=o.fault)
                         for out, o in zip(ev.outcomes, line.offers))
        first = outcomes[0]
        return replace(ev, decided_by=first.decided_by, fault=first.fault, outcomes=outcomes)

    # --- navigation -----------------------------------------------------------------------------------
    @property
    def first_turn(self) -> int:
        return self.start.t

    @property
    def last_turn(self) -> int:
        return self.start.t + len(self.record.turns)

    def state_at(self, t: int) -> State:
        """The state before turn t (t = last_turn: after the final recorded turn)."""
        if not self.first_turn <= t <= self.last_turn:
            raise IndexError(f"turn {t} is outside this record ({self.first_turn}..{self.last_turn})")
        return self.states[t - self.first_turn]

    @property
    def final(self) -> State:
        return self.states[-1]

    def forecasts_at(self, t: int) -> dict[str, np.ndarray]:
        """The closed-form lens forecasts before turn t: as the record wrote them when it has them."""
        s = self.state_at(t)
        k = t - self.first_turn
        shown = self.record.turns[k - 1].forecasts if k > 0 else {}
        n = self.neg.game.n
        return {lens: np.asarray(shown[lens], dtype=float) if len(shown.get(lens, ())) == n
                else self.valuation.forecast(s, lens) for lens in CLOSED_FORM_LENSES}

    def seats_at(self, t: int | None = None) -> dict[str, Seat]:
        """The seats in force before turn t (default: after the last turn): the header's, updated by
        every switch recorded before t."""
        seats = dict(self.record.header.seats)
        for line in self.record.turns:
            if t is not None and line.t >= t:
                break
            seats.update(line.seats or {})
        return seats

    def seat_list(self, t: int | None = None) -> list[Seat]:
        seats = self.seats_at(t)
        return [seats.get(pid) or Seat.human() for pid in self.neg.game.player_ids]


class Diverged(Exception):
    def __init__(self, divergence: Divergence):
        super().__init__(divergence.describe())
        self.divergence = divergence


def _bots_only(seat: Seat) -> Seat:
    return seat if seat.is_lens else Seat.human()


class _AsRecorded:
    """A seat that decides as the record says, after asking the seat's lens bot (when it has one and
    the record marks no fault there) and stopping the game where the bot would decide otherwise."""

    label = "recorded"

    def __init__(self, replay: Replay, seating: Seating, i: int):
        self.replay, self.seating, self.i = replay, seating, i
        self._partner: int | None = None  # a partner the bot chose, for its offer

    def _recorded(self, s: State, proposer: int) -> tuple[Offer, bool, str | None]:
        """The offer `proposer` made at turn s.t, whether it was accepted (as the rules count it) and the
        agent failure recorded for it: the turn's one offer, or under simultaneous rules that proposer's."""
        k = s.t - self.replay.first_turn
        line, event = self.replay.record.turns[k], self.replay.events[k]
        if line.offers is None:
            return event.offer, event.accepted, line.fault
        out = event.outcomes[self.replay.neg.slot(s, proposer)]
        return out.offer, out.accepted, out.fault

    def _bot(self, fault: str | None) -> Agent | None:
        return None if fault else self.seating.agents[self.i]

    def binds_offers(self, s: State) -> bool:
        """The seat's offers bound its partner when its seat in force at turn s said so."""
        return self.replay.seat_list(s.t + 1)[self.i].binds_offers

    def _differs(self, s: State, what: str, recorded: str, recomputed: str) -> Diverged:
        return Diverged(Divergence(s.t, what, recorded, recomputed))

    def choose_partner(self, s: State) -> int:
        recorded, _, fault = self._recorded(s, self.i)
        bot, names = self._bot(fault), self.replay.neg.game.player_ids
        if bot is not None:
            q = bot.choose_partner(s)
            if q != recorded.partner:
                raise self._differs(s, f"{names[self.i]}'s choice of partner", names[recorded.partner], names[q])
        return recorded.partner

    def make_offer(self, s: State, partner: int) -> Offer:
        recorded, _, fault = self._recorded(s, self.i)
        bot, game = self._bot(fault), self.replay.neg.game
        if bot is not None:
            offer = bot.make_offer(s, partner)
            if offer.bits != recorded.bits:
                show = lambda b: ", ".join(game.cell_name(c) for c in game.cells_of(b)) or "nothing"  # noqa: E731
                raise self._differs(s, f"{game.player_ids[self.i]}'s offer to {game.player_ids[partner]}",
                                    show(recorded.bits), show(offer.bits))
        return recorded

    def observe(self, ev: TurnEvent) -> None:
        """The seat's bot sees every turn as it did in the game (under private information it learns)."""
        hook = getattr(self.seating.agents[self.i], "observe", None)
        if hook is not None:
            hook(ev)

    def respond(self, s: State) -> bool:
        assert s.pending is not None
        _, accepted, fault = self._recorded(s, s.pending.proposer)
        bot = self._bot(fault)
        if bot is not None:
            accept = bot.respond(s)
            if accept != accepted:
                word = {True: "accept", False: "reject"}
                raise self._differs(s, f"{self.replay.neg.game.player_ids[self.i]}'s answer", word[accepted],
                                    word[accept])
        return accepted


def verify(replay: Replay, seating: SeatingFactory) -> Divergence | None:
    """Re-run every bot decision from the header alone; the first difference, or None.

    Seats that are not lens bots (people, outside programs, language models) are followed as
    recorded; so is any decision the record marks as a fault."""
    neg, game, turns = replay.neg, replay.neg.game, replay.record.turns

    def switch(bots: Seating, line: TurnLine) -> None:  # seats that changed hands before this turn
        for pid, seat in (line.seats or {}).items():
            bots.set(game.index_of(pid), _bots_only(seat))

    with seating(neg, [_bots_only(s) for s in replay.seat_list(replay.first_turn)]) as bots:
        seats: list[Agent | None] = [_AsRecorded(replay, bots, i) for i in range(game.n)]
        driver = TurnDriver(neg, seats, replay.start)
        if turns:
            switch(bots, turns[0])

        def next_turn(ev: TurnEvent) -> None:
            k = ev.t + 1 - replay.first_turn
            if k < len(turns):
                switch(bots, turns[k])

        try:
            driver.play_out(until=replay.last_turn, on_turn=next_turn)
        except Diverged as err:
            return err.divergence
    return None
