"""Where a play screen's game comes from: decisions go in, snapshots come out.

`GameSource` is all a screen may assume of a game: its rules API and a `Snapshot` of it now.  A live
game adds decisions: a person's offer (built cell by cell, previewed under every lens), a pass, an
answer, and the agents' decisions, thought out in a worker thread and applied on the interface's
thread.  `LiveSource` serves a game played in this process (`LiveGame`); a game played elsewhere (a
table several people share) serves the same calls.  `ReplaySource` serves a record, turn by turn.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from negtui.coach.assess import Assessment
from negtui.coach.closing import Closing
from negtui.engine.negotiation import IllegalMove, Negotiation, Phase, State
from negtui.engine.offers import Offer
from negtui.engine.turns import Move, TurnEvent
from negtui.engine.vocabulary import CLOSED_FORM_LENSES
from negtui.names import action_names
from negtui.play.live import LiveGame
from negtui.play.simultaneous import awaited, seen_by, turn_started
from negtui.play.starts import GameStart, from_record
from negtui.play.views import Earlier, PartnerOption, Preview, Snapshot
from negtui.record import Replay, load_record, parent_at
from negtui.record.reader import RecordError
from negtui.seats import Seat


class GameSource(Protocol):
    mode: str  # "play" | "replay"

    @property
    def neg(self) -> Negotiation: ...

    def snapshot(self) -> Snapshot: ...


@dataclass(frozen=True)
class Ending:
    """A finished game as its end screens show it: the summary, and a debrief per person's seat."""

    game: LiveGame
    people: list[int]  # the seats people played
    first_forecasts: dict[str, np.ndarray]  # what each lens forecast at the start
    information: str = "public"  # what the seats knew as they played (private: their own values only)
    # the debrief's slow numbers as the game's owner (a table) sends them, filled in as they arrive;
    # None: the debrief works them out itself
    closing: Closing | None = None


class LiveSource:
    """A game played in this process: people's decisions at this app, agents' in their seats."""

    mode = "play"

    def __init__(self, game: LiveGame, earlier: Earlier | None = None) -> None:
        self.game = game
        self.partner: int | None = None  # the offer a person is building: its partner, its cells
        self.cells: frozenset[int] = frozenset()
        # a fork: the turns of the game it continues and their payoffs, shown in the log and the trends
        self.earlier = earlier or Earlier()
        self._preview: tuple[tuple[object, ...], Preview] | None = None

    @property
    def neg(self) -> Negotiation:
        return self.game.neg

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def state(self) -> State:
        return self.game.state

    @property
    def proposer(self) -> int:
        """Who proposes on the turn under way (the game must not be over)."""
        return self.game.proposer

    @property
    def pending(self) -> Offer | None:
        """The offer waiting for its answer, if one is."""
        return self.game.pending

    @property
    def phase(self) -> Phase:
        return self.game.driver.phase

    @property
    def seats(self) -> dict[str, Seat]:
        return self.game.seats

    @property
    def lenses(self) -> tuple[str, ...]:
        """The lenses forecasts and previews show (exact once it is solved)."""
        return self.game.lenses

    @property
    def hints(self) -> bool:
        return self.game.hints

    @property
    def guided(self) -> bool:
        """Guidance while playing (False: an assessment)."""
        return self.game.guided

    @property
    def coach_pane_first(self) -> bool:
        return self.game.coach_pane_first

    @property
    def exact_to_solve(self) -> bool:
        """The exact solution is wanted (it fits the app's forecasts, or a seat plays the exact lens) and is
        not solved yet (`solve_exact` in a worker)."""
        ses = self.game
        return (ses.exact_available or bool(ses.exact_seats)) and not ses.valuation.exact_solved

    def waits_for_exact(self) -> bool:
        """The agent to decide now plays the exact lens, whose solution is not solved yet."""
        return not self.over and self.game.waits_for_exact(self.game.deciding)

    # --- what the screen shows -------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        ses, g, s = self.game, self.neg.game, self.game.state
        # the closed-form forecasts were computed when the turn ended
        forecasts = {lens: ses.history[lens][-1] if lens in ses.history else ses.forecast(lens) for lens in ses.lenses}
        cells, partner = self.cells, self.partner
        person = self.person_to_move()
        in_flight: tuple[Offer, ...] = ()
        if g.simultaneous:  # the offers of the turn the people here may see, marked on the matrix with the draft's
            in_flight = seen_by(self.neg, s, self.own_seats())
            if s.pending is not None and person:  # an offer to a person waits for its answer
                partner = s.pending.partner
            if not (person and s.pending is None and self.partner is not None):  # not while an offer is built
                cells = cells.union(*(o.cells for o in in_flight))
        elif s.pending is not None:  # an offer waits for its answer: show it on the matrix
            cells, partner = frozenset(s.pending.cells), s.pending.partner
        events, history = list(ses.events), list(ses.payoff_history)
        if self.earlier.events:
            events, history = [*self.earlier.events, *events], [*self.earlier.payoffs, *history]
        if g.simultaneous:  # the draft, or the offer in focus a person answers, under every lens
            shown = frozenset(s.pending.cells) if s.pending is not None else self.cells
            preview = self.preview(partner, shown) if partner is not None and person else None
        else:
            preview = self.preview(partner, cells) if partner is not None and (s.pending is None or person) else None
        withheld = frozenset() if ses.guided else frozenset(range(g.n)) - self.own_seats()
        return Snapshot(g, self.neg.rules.name, s, events, [seat.label for seat in ses.seating.seats], forecasts,
                        history, self.neg.blocked(s), cells, partner, self.mode, person, preview, known=ses.known,
                        guided=ses.guided, withheld=withheld, yours=self.own_seats(),
                        focus=self.proposer if g.simultaneous and person else None, in_flight=in_flight,
                        awaited=awaited(self.neg, s, self.own_seats()), ended=ses.ended is not None)

    def own_seats(self) -> frozenset[int]:
        """The seats people play at this app."""
        return frozenset(i for i in range(self.neg.game.n) if self.game.is_human(i))

    def preview(self, partner: int, cells: frozenset[int]) -> Preview:
        """The offer under every lens, worked out once per state, offer and lenses."""
        key = (self.game.state, partner, cells, self.game.lenses)
        if self._preview is None or self._preview[0] != key:
            self._preview = (key, self.game.preview(partner, sorted(cells)))
        return self._preview[1]

    # --- whose move ------------------------------------------------------------------------------------
    def person_to_move(self, phase: Phase | None = None) -> bool:
        return self.game.waiting_for_person() and (phase is None or self.game.driver.phase is phase)

    @property
    def person_proposing(self) -> bool:
        return self.person_to_move(Phase.PROPOSE)

    @property
    def simultaneous(self) -> bool:
        """Several proposers a turn (play/simultaneous.py)."""
        return self.neg.game.simultaneous

    @property
    def turn_started(self) -> bool:
        """A decision of the simultaneous turn under way is made: the agents' follow without a key press."""
        return turn_started(self.neg, self.state)

    # --- the offer a person builds -----------------------------------------------------------------------
    def draft(self, partner: int, cells: tuple[int, ...] = ()) -> None:
        self.partner, self.cells = partner, frozenset(cells)

    def clear_draft(self) -> None:
        self.partner, self.cells = None, frozenset()

    def toggle(self, cell: int) -> str | None:
        """Add or remove a cell; a message when it cannot be part of this offer."""
        g = self.neg.game
        if self.partner is None:
            return "pick a partner first (p)"
        owner = int(g.owner[cell])
        if owner not in (self.game.proposer, self.partner):
            sides = {self.game.proposer, self.partner}
            who = " and ".join(g.scenario.players[i].display for i in sorted(sides))
            action = action_names(g.scenario)[owner][cell - int(g.offset[owner])]
            return (f"{g.scenario.players[owner].display}'s “{action}” belongs to neither side of this offer "
                    f"({who}): only their own actions go in it")
        self.cells = self.cells ^ {cell}
        return None

    # --- decisions ----------------------------------------------------------------------------------------
    def propose(self) -> TurnEvent | None:
        """The offer being built; raises IllegalMove (and keeps it) when the rules refuse it."""
        if self.partner is None:
            raise IllegalMove("pick a partner first (p)", "partner")
        return self._decide(self.game.propose(self.partner, sorted(self.cells)))

    def pass_turn(self) -> TurnEvent | None:
        return self._decide(self.game.propose(self.game.proposer, []))

    def answer(self, accept: bool) -> TurnEvent | None:
        return self._decide(self.game.answer(accept))

    def _decide(self, move: Move) -> TurnEvent | None:
        ev = self.game.submit(move)
        if move.phase is Phase.PROPOSE:
            self.clear_draft()
        return ev

    def think(self) -> list[Move]:
        """The agents' next decisions (slow: call it from a worker thread; it changes nothing)."""
        return self.game.think()

    def commit(self, moves: list[Move]) -> list[TurnEvent]:
        """Apply agents' decisions, as long as the game is still where they were decided (a seat handed to
        a person meanwhile decides for itself)."""
        events = []
        for move in moves:
            ses = self.game
            if not ses.still_open(move):
                break
            ev = ses.submit(move)
            if ev is not None:
                events.append(ev)
        return events

    # --- help with a decision --------------------------------------------------------------------------
    def partner_options(self) -> list[PartnerOption]:
        return self.game.partner_options()

    def hint(self) -> Assessment | None:
        return self.game.hint()

    @property
    def has_unassessed(self) -> bool:
        """A person's decisions wait to be assessed (`assess`, in a worker)."""
        return self.game.has_unassessed

    def assess(self) -> list[Assessment]:
        return self.game.assess_pending()

    def solve_exact(self, progress: Callable[[int, int], None]) -> None:
        self.game.valuation.solve_exact(progress)

    # --- seats and the end ------------------------------------------------------------------------------
    def set_seats(self, seats: dict[str, Seat]) -> list[str]:
        """Hand seats to others; the problems of those that could not change hands."""
        problems = []
        for pid, seat in seats.items():
            if seat != self.game.seats[pid]:
                try:
                    self.game.set_seat(pid, seat)
                except (IllegalMove, ValueError) as err:
                    problems.append(str(err))
        return problems

    def ending(self) -> Ending:
        ses = self.game
        people = [i for i in range(self.neg.game.n) if ses.is_human(i)]
        return Ending(ses, people, {lens: ses.history[lens][0] for lens in CLOSED_FORM_LENSES})

    def retry_from(self, t: int) -> GameStart:
        """This game again from before turn t, with the same seats (a fork of its record)."""
        ses = self.game
        k = t - ses.start.t
        parent = parent_at(Replay(load_record(ses.record_path)), t) if ses.record_path else None
        g = self.neg.game
        budget = g.budget if g.budget != g.scenario.protocol.budget else None
        prior = self.earlier  # the log and trends keep the turns before
        earlier = Earlier((*prior.events, *ses.events[:k]), (*prior.payoffs, *ses.payoff_history[:k]))
        return GameStart(g.scenario, self.neg.rules, ses.seats, start=ses.events[k].before, parent=parent,
                         budget=budget, earlier=earlier, guided=ses.guided)

    def close(self) -> None:
        self.game.close()


class ReplaySource:
    """A record, shown turn by turn; `follow` keeps reading a record that is still being written."""

    mode = "replay"

    def __init__(self, replay: Replay, follow: Path | None = None) -> None:
        self.replay = replay
        self.follow = follow
        self.pos = replay.last_turn if follow is not None else replay.first_turn  # following: the game as it is now
        self._payoffs = [replay.neg.returns(s) for s in replay.states]

    @property
    def neg(self) -> Negotiation:
        return self.replay.neg

    @property
    def state(self) -> State:
        return self.replay.state_at(self.pos)

    @property
    def at_end(self) -> bool:
        return self.pos >= self.replay.last_turn

    def snapshot(self) -> Snapshot:
        """No partner is marked: the matrix's ▶, as the top bar's, is who proposes next, and a ◆ beside it would
        pair it with the previous turn's partner; the turn just played is read in the log and its new cells."""
        rp, s = self.replay, self.state
        k = self.pos - rp.first_turn
        seats = rp.seats_at(self.pos)
        labels = [seats[pid].label if pid in seats else "human" for pid in self.neg.game.player_ids]
        forecasts: dict[str, np.ndarray] = rp.forecasts_at(self.pos)
        result = rp.record.result  # a game the clock or the trainer ended before its last turn: over at its end
        ended = self.at_end and result is not None and result.ended is not None
        return Snapshot(self.neg.game, self.neg.rules.name, s, rp.events[:k], labels, forecasts,
                        self._payoffs[:k + 1], self.neg.blocked(s), mode=self.mode,
                        position=(rp.first_turn, self.pos, rp.last_turn), ended=ended)

    def last_turn_shown(self) -> TurnEvent | None:
        k = self.pos - self.replay.first_turn
        return self.replay.events[k - 1] if k > 0 else None

    def forward(self) -> TurnEvent | None:
        if self.at_end:
            return None
        self.pos += 1
        return self.replay.events[self.pos - self.replay.first_turn - 1]

    def back(self) -> bool:
        if self.pos <= self.replay.first_turn:
            return False
        self.pos -= 1
        return True

    def jump(self, t: int) -> None:
        self.replay.state_at(t)  # raises IndexError outside the record
        self.pos = t

    def reload(self) -> bool:
        """Read the followed record again; True when it grew.  Someone at the last turn stays at the
        last turn."""
        if self.follow is None:
            return False
        try:
            replay = Replay(load_record(self.follow))
        except RecordError:
            return False  # caught mid-write: the next read will do
        if replay.last_turn == self.replay.last_turn and replay.record.complete == self.replay.record.complete:
            return False
        at_end = self.at_end
        self.replay = replay
        self._payoffs = [replay.neg.returns(s) for s in replay.states]
        if at_end:
            self.pos = replay.last_turn
        return True

    def take_over(self, seats: dict[str, Seat]) -> GameStart:
        """The game shown, continued from this turn with these seats (a fork of the record)."""
        return from_record(self.replay, self.pos, seats)

    def close(self) -> None:
        """Nothing to stop: a record is only read."""
