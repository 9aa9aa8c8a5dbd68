"""Where the play screen's game comes from: a live session, or a record being replayed.

Both give the screen the same `Snapshot` to draw; each holds what only its mode has: the live source
the offer a person is building, the replay source the turn shown.  The screen asks `source.live` or
`source.replay` for the mode's operations."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from negtui.engine.negotiation import IllegalMove, Negotiation, Phase, State
from negtui.engine.turns import Move, TurnEvent
from negtui.record import Replay
from negtui.session import Session
from negtui.tui.snapshot import Snapshot


@dataclass(frozen=True)
class Earlier:
    """The turns before a fork's first: events, and the payoffs before each of them."""

    events: tuple[TurnEvent, ...] = ()
    payoffs: tuple[np.ndarray, ...] = ()

    @classmethod
    def of(cls, replay: Replay, t: int) -> Earlier:
        k = t - replay.first_turn
        return cls(tuple(replay.events[:k]), tuple(replay.neg.returns(s) for s in replay.states[:k]))


class LiveSource:
    mode = "play"

    def __init__(self, session: Session, earlier: Earlier | None = None) -> None:
        self.session = session
        self.offer_partner: int | None = None  # the offer a person is building
        self.offer_cells: set[int] = set()
        # a fork: the turns of the game it continues and their payoffs, shown in the log and the trends
        self.earlier = earlier or Earlier()

    @property
    def neg(self) -> Negotiation:
        return self.session.neg

    @property
    def state(self) -> State:
        return self.session.state

    def snapshot(self) -> Snapshot:
        ses, g, s = self.session, self.neg.game, self.session.state
        # the closed-form forecasts were computed when the turn ended
        forecasts = {lens: ses.history[lens][-1] if lens in ses.history else ses.forecast(lens) for lens in ses.lenses}
        seats = [seat.label for seat in ses.table.seats]
        cells, partner = frozenset(self.offer_cells), self.offer_partner
        if s.pending is not None:  # an offer waits for its answer: show it on the matrix
            cells, partner = frozenset(s.pending.cells), s.pending.partner
        events, history = ses.events, ses.payoff_history
        if self.earlier.events:
            events, history = [*self.earlier.events, *events], [*self.earlier.payoffs, *history]
        return Snapshot(g, self.neg.rules.name, s, events, seats, forecasts, history,
                        self.neg.blocked(s), cells, partner, self.mode)

    # --- whose move ------------------------------------------------------------------------------------
    def person_to_move(self, phase: Phase | None = None) -> bool:
        ses = self.session
        return ses.waiting_for_person() and (phase is None or ses.driver.phase is phase)

    @property
    def person_proposing(self) -> bool:
        return self.person_to_move(Phase.PROPOSE)

    # --- the offer a person builds -----------------------------------------------------------------------
    def start_offer(self, partner: int) -> None:
        self.offer_partner, self.offer_cells = partner, set()

    def clear_offer(self) -> None:
        self.offer_partner, self.offer_cells = None, set()

    def toggle(self, cell: int) -> str | None:
        """Add or remove a cell; a message when it cannot be part of this offer."""
        g = self.neg.game
        owner = int(g.owner[cell])
        if owner not in (self.session.proposer, self.offer_partner):
            return f"{g.cell_name(cell)} belongs to neither side of this offer"
        self.offer_cells ^= {cell}
        return None

    def offer_move(self) -> Move:
        """The offer being built, as a move (raises IllegalMove when the rules refuse it)."""
        if self.offer_partner is None:
            raise IllegalMove("pick a partner first (p)", "partner")
        return self.session.propose(self.offer_partner, sorted(self.offer_cells))

    def pass_move(self) -> Move:
        return self.session.propose(self.session.proposer, [])

    def submit(self, move: Move) -> TurnEvent | None:
        ev = self.session.submit(move)
        if move.phase is Phase.PROPOSE:
            self.clear_offer()
        return ev


class ReplaySource:
    mode = "replay"

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.pos = replay.first_turn
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
        rp, s = self.replay, self.state
        k = self.pos - rp.first_turn
        seats = rp.seats_at(self.pos)
        labels = [seats[pid].label if pid in seats else "human" for pid in self.neg.game.player_ids]
        forecasts: dict[str, np.ndarray] = rp.forecasts_at(self.pos)
        return Snapshot(self.neg.game, self.neg.rules.name, s, rp.events[:k], labels, forecasts,
                        self._payoffs[:k + 1], self.neg.blocked(s), mode=self.mode)

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

    def reload(self, path) -> bool:
        """Read a record that is being written again; True when it grew.  Someone at the last turn stays
        at the last turn."""
        from negtui.record import load_record
        from negtui.record.reader import RecordError

        try:
            replay = Replay(load_record(path))
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

    def jump(self, t: int) -> None:
        self.replay.state_at(t)  # raises IndexError outside the record
        self.pos = t
