"""The one turn driver: asks whoever sits in a seat for each decision and applies it.

Every way a game moves runs on `TurnDriver`: autoplay from the command line, the app's game (where
people decide some moves), record verification and forks; `play_out` is the one loop that plays a
game on to its end.  A seat holds an `Agent` (a lens bot, an
outside program, a language model) or None, meaning its decisions arrive from outside (a person at
the app).  An agent that fails to decide (crashes, times out, answers nonsense or offers an illegal
deal) does not stop the game: its turn is played as a pass, or its answer as a rejection, and the
event says why.

Under simultaneous rules (simultaneous.py) a turn is every proposer's offer, then every partner's answer
to each offer addressed to it; the driver asks them in that order (the app and tables may submit them in
any order: `Negotiation.waiting`), and the turn's event lists every offer's outcome.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from negtui.engine.negotiation import IllegalMove, Negotiation, Phase, State
from negtui.engine.offers import Offer
from negtui.engine.simultaneous import Outcome, Settlement
from negtui.scenario.untrusted import one_line


class Agent(Protocol):
    """Anything that can sit in a seat, bound to its game when it is built (as OpenSpiel's bots are).
    `s.pending` holds the offer `respond` answers.  An agent may also have `observe(event)`, called
    with every finished turn, `game_over(s)`, called once with the final state, `close()`, and
    `binds_offers(s)`: true when its offers bind the partner without an answer (the reference's language-model
    baseline, whose offers its runner applies unchecked)."""

    @property
    def label(self) -> str:
        """How it decides, for logs and records: 'upper', 'upper/lower', 'cmd: …'."""

    def choose_partner(self, s: State) -> int: ...

    def make_offer(self, s: State, partner: int) -> Offer: ...

    def respond(self, s: State) -> bool: ...


FAULT_CHARS = 300  # of why an agent could not decide, as records, logs and screens repeat it


class AgentFault(Exception):
    """An agent could not decide (crashed, timed out, answered nonsense); the game goes on without it.

    Its words often quote what an outside program or model server answered, so they are made printable
    on one line here, once for every place that repeats them: a terminal must never act on them."""

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message, FAULT_CHARS))


@dataclass(frozen=True)
class Move:
    """One decision at one decision point: the proposer's offer, or the partner's answer."""

    t: int
    player: int
    phase: Phase
    offer: Offer | None = None  # propose phase; respond phase: the offer answered (None: the one pending)
    accept: bool | None = None  # respond phase
    fault: str | None = None  # why the seat's own decision was replaced by a pass or a rejection
    bound: bool = False  # respond phase: not asked, the proposer's offers bind (`Agent.binds_offers`)


@dataclass(frozen=True)
class TurnEvent:
    """A finished turn.  Under simultaneous rules `outcomes` holds every proposer's offer and what became
    of it, and the single-offer fields describe the turn's first offer (the whole turn when it had one
    proposer, as a sequential turn)."""

    t: int
    proposer: int
    partner: int
    offer: Offer
    accepted: bool
    decided_by: str  # who decided the outcome: 'P3 (upper)'
    before: State
    after: State
    payoffs: np.ndarray  # R(P) after the turn (realised only at the end)
    fault: str | None = None  # an agent's failure that this turn played around
    outcomes: tuple[Outcome, ...] = ()  # simultaneous rules: every offer of the turn, in proposer order

    @property
    def simultaneous(self) -> bool:
        """A turn of several offers (a simultaneous turn with one proposer reads as a sequential one)."""
        return len(self.outcomes) > 1

    @property
    def deal(self) -> bool:
        """Whether commitments were made (a no-op deal under reference rules makes none)."""
        return self.accepted and not self.offer.is_noop

    @property
    def passed(self) -> bool:
        return self.offer.is_noop

    @property
    def players(self) -> frozenset[int]:
        """Who took part: the proposer, and the partner unless nothing was offered to it (a pass names the
        partner a search settled on, who never heard of it; an empty deal the rules count has both).  A
        simultaneous turn: everyone who took part in one of its offers (the turn log filtered to a player)."""
        if self.simultaneous:
            return frozenset().union(*(taking_part(o.offer, o.accepted) for o in self.outcomes))
        return taking_part(self.offer, self.accepted)


def taking_part(offer: Offer, accepted: bool) -> frozenset[int]:
    """Who took part in an offer: its proposer, and its partner unless nothing was offered to it."""
    if offer.is_noop and not (accepted and offer.partner != offer.proposer):
        return frozenset((offer.proposer,))
    return frozenset((offer.proposer, offer.partner))


@dataclass
class TurnDriver:
    neg: Negotiation
    seats: list[Agent | None]
    state: State = field(default_factory=State)
    events: list[TurnEvent] = field(default_factory=list)
    on_fault: Callable[[Move], None] | None = None  # told of every move that replaces a failed decision
    _propose_move: Move | None = field(default=None, init=False, repr=False)
    _moves: dict[tuple[Phase, int], Move] = field(default_factory=dict, init=False, repr=False)  # this turn's, by slot

    def __post_init__(self) -> None:
        self.seats = list(self.seats)
        if len(self.seats) != self.neg.game.n:
            raise ValueError(f"{len(self.seats)} seats for {self.neg.game.n} players")
        if self.state.pending is not None or self.state.flight is not None:
            raise ValueError("a turn driver starts at the beginning of a turn")

    # --- where the game stands --------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.neg.is_terminal(self.state)

    @property
    def phase(self) -> Phase:
        return self.neg.phase(self.state)

    @property
    def player(self) -> int:
        """Who decides next (TERMINAL_PLAYER when the game is over)."""
        return self.neg.current_player(self.state)

    def decided_outside(self, i: int | None = None, state: State | None = None) -> bool:
        """Whether a seat's decisions arrive from outside (default: the seat deciding next); never the
        answer to an offer that binds (`binds`), which the driver gives itself."""
        s = self.state if state is None else state
        i = self.neg.current_player(s) if i is None else i
        if s.pending is not None and i == s.pending.partner and self.binds(s):
            return False
        return self.seats[i] is None

    def binds(self, s: State) -> bool:
        """Whether the offer waiting at s binds its partner without an answer."""
        if s.pending is None:
            return False
        hook = getattr(self.seats[s.pending.proposer], "binds_offers", None)
        return hook is not None and bool(hook(s))

    def label(self, i: int) -> str:
        agent = self.seats[i]
        return "human" if agent is None else agent.label

    def describe(self, i: int) -> str:
        return f"{self.neg.game.player_ids[i]} ({self.label(i)})"

    # --- decisions ----------------------------------------------------------------------------------------
    def ask(self, state: State | None = None) -> Move:
        """The seated agent's decision at the current decision point (or at `state`, e.g. the answer to
        an offer not yet submitted).  Reads the state only, so it may run in a worker thread while the
        caller keeps the driver; `submit` applies it."""
        neg = self.neg
        s = self.state if state is None else state
        i = neg.current_player(s)
        if neg.is_terminal(s):
            raise IllegalMove("the game is over", "terminal")
        if self.binds(s):
            return Move(s.t, i, Phase.RESPOND, accept=True, bound=True)
        agent = self.seats[i]
        if agent is None:
            raise IllegalMove(f"{neg.game.player_ids[i]}'s decisions are made at the app", "seat")
        if s.pending is None:
            try:
                q = agent.choose_partner(s)
                offer = agent.make_offer(s, q)
                if not isinstance(offer, Offer):
                    raise AgentFault(f"answered {offer!r}, not an offer")
                if offer.proposer != i:
                    raise AgentFault(f"offered on behalf of {neg.game.player_ids[offer.proposer]}")
                neg.check_offer(s, offer)  # here, so that an agent's illegal offer is played as a pass
            except IllegalMove as err:
                fault = one_line(f"offered an illegal deal: {err}", FAULT_CHARS)
                return Move(s.t, i, Phase.PROPOSE, neg.pass_offer(s), fault=fault)
            except AgentFault as err:
                return Move(s.t, i, Phase.PROPOSE, neg.pass_offer(s), fault=str(err))
            return Move(s.t, i, Phase.PROPOSE, offer)
        try:
            accept = agent.respond(s)
            if not isinstance(accept, (bool, np.bool_)):
                raise AgentFault(f"answered {accept!r}, not accept or reject")
        except AgentFault as err:
            return Move(s.t, i, Phase.RESPOND, accept=False, fault=str(err))
        return Move(s.t, i, Phase.RESPOND, accept=bool(accept))

    def propose(self, offer: Offer) -> Move:
        """A proposer's offer decided outside; `submit` checks it (by `apply`)."""
        return Move(self.state.t, offer.proposer, Phase.PROPOSE, offer)

    def answer(self, accept: bool, offer: Offer | None = None) -> Move:
        """A partner's answer decided outside (to `offer`, under simultaneous rules; default the one pending)."""
        if self.phase is not Phase.RESPOND:
            raise IllegalMove("no offer is waiting for an answer", "phase")
        if offer is None:
            return Move(self.state.t, self.player, Phase.RESPOND, accept=bool(accept))
        return Move(self.state.t, offer.partner, Phase.RESPOND, offer, accept=bool(accept))

    def submit(self, move: Move) -> TurnEvent | None:
        """Apply a decision; the finished turn's event once the turn is over, else None."""
        if self.neg.game.simultaneous:
            return self._submit_simultaneous(move)
        s = self.state
        if move.t != s.t or move.phase is not self.phase:
            raise IllegalMove("this decision belongs to another moment of the game", "phase")
        if move.phase is Phase.RESPOND and move.player != self.player:
            raise IllegalMove(f"the answer is {self.neg.game.player_ids[self.player]}'s to give", "partner")
        if move.fault is not None and self.on_fault is not None:
            self.on_fault(move)
        if move.phase is Phase.PROPOSE:
            if move.offer is None:
                raise IllegalMove("the proposer moves with an offer (an empty one passes)", "phase")
            after = self.neg.apply(s, move.offer)
            self.state = after
            if after.pending is not None:  # waits for the partner's answer
                self._propose_move = move
                return None
            accepted = self.neg.rules.noop_is_deal if move.offer.is_noop else True  # a unilateral commitment
            return self._finish(s, move.offer, accepted, move.player, move.fault)
        offer = s.pending
        if offer is None or move.accept is None:
            raise IllegalMove("the partner answers an offer with accept (true) or reject (false)", "phase")
        if self.binds(s) and not (move.bound and move.accept):
            raise IllegalMove(f"{self.describe(offer.proposer)}'s offers bind: the partner is not asked", "phase")
        if move.bound and not self.binds(s):
            raise IllegalMove("this offer needs the partner's answer", "phase")
        self.state = self.neg.apply(s, move.accept)
        before = State(s.t, s.bits)
        fault = move.fault or (self._propose_move.fault if self._propose_move else None)
        self._propose_move = None
        return self._finish(before, offer, bool(move.accept), offer.proposer if move.bound else move.player, fault)

    def _submit_simultaneous(self, move: Move) -> TurnEvent | None:
        """A decision of a simultaneous turn, whoever's it is among those still open."""
        s, neg = self.state, self.neg
        if move.t != s.t or move.phase is not self.phase:
            raise IllegalMove("this decision belongs to another moment of the game", "phase")
        if move.phase is Phase.PROPOSE:
            if move.offer is None:
                raise IllegalMove("the proposer moves with an offer (an empty one passes)", "phase")
            if move.offer.proposer != move.player:
                raise IllegalMove(f"{self.describe(move.player)} cannot offer for another player", "proposer")
            focused = neg.focus(s, move.offer.proposer)
            action: Offer | bool = move.offer
        else:
            offer = move.offer if move.offer is not None else s.pending
            if offer is None or move.accept is None:
                raise IllegalMove("the partner answers an offer with accept (true) or reject (false)", "phase")
            focused = neg.focus(s, offer.proposer)
            if focused.pending != offer:
                raise IllegalMove("that offer is not waiting for an answer", "phase")
            if move.player != offer.partner:
                raise IllegalMove(f"the answer is {neg.game.player_ids[offer.partner]}'s to give", "partner")
            if self.binds(focused) and not (move.bound and move.accept):
                raise IllegalMove(f"{self.describe(offer.proposer)}'s offers bind: the partner is not asked", "phase")
            if move.bound and not self.binds(focused):
                raise IllegalMove("this offer needs the partner's answer", "phase")
            action = bool(move.accept)
        after, done = neg.apply_settled(focused, action)  # checks the move before anything is kept
        if move.fault is not None and self.on_fault is not None:
            self.on_fault(move)
        proposer = move.offer.proposer if move.phase is Phase.PROPOSE else focused.pending.proposer  # type: ignore[union-attr]
        self._moves[(move.phase, neg.slot(s, proposer))] = move
        self.state = after
        if done is None:
            return None
        moves, self._moves = self._moves, {}
        return self._finish_simultaneous(State(s.t, s.bits), done, moves)

    def _finish_simultaneous(self, before: State, done: Settlement, moves: dict[tuple[Phase, int], Move],
                             ) -> TurnEvent:
        outcomes = []
        for k, out in enumerate(done.outcomes):
            offer = out.offer
            proposed, answered = moves.get((Phase.PROPOSE, k)), moves.get((Phase.RESPOND, k))
            decider = offer.partner if answered is not None and not answered.bound else offer.proposer
            fault = (answered.fault if answered is not None else None) or (proposed.fault if proposed else None)
            outcomes.append(replace(out, decided_by=self.describe(decider), fault=fault))
        first = outcomes[0]
        return self._finish(before, first.offer, first.accepted, -1, first.fault, tuple(outcomes), first.decided_by)

    def _finish(self, before: State, offer: Offer, accepted: bool, decider: int, fault: str | None,
                outcomes: tuple[Outcome, ...] = (), decided_by: str = "") -> TurnEvent:
        after = self.state
        ev = TurnEvent(before.t, offer.proposer, offer.partner, offer, accepted, decided_by or self.describe(decider),
                       before, after, self.neg.returns(after), fault, outcomes)
        self.events.append(ev)
        for agent in self.seats:  # what every seat saw: under private information, bots learn from it
            hook = getattr(agent, "observe", None)
            if hook is not None:
                hook(ev)
        if self.over:
            for agent in self.seats:
                hook = getattr(agent, "game_over", None)
                if hook is not None:
                    hook(after)
        return ev

    # --- running ------------------------------------------------------------------------------------------
    def step(self) -> TurnEvent:
        """Ask the seats and apply their decisions until a turn is over (every seat involved must
        hold an agent)."""
        while True:
            ev = self.submit(self.ask())
            if ev is not None:
                return ev

    def play_out(self, *, until: int | None = None, on_turn: Callable[[TurnEvent], None] | None = None,
                 cancelled: Callable[[], bool] | None = None) -> State:
        """Play on to the end of the game (or to turn `until`, or until `cancelled()` says so), telling
        `on_turn` of every finished turn; the state reached."""
        end = self.neg.game.T if until is None else min(until, self.neg.game.T)
        while self.state.t < end and not (cancelled is not None and cancelled()):
            ev = self.step()
            if on_turn is not None:
                on_turn(ev)
        return self.state

    def play(self) -> np.ndarray:
        """Play to the end; the final payoffs."""
        return self.neg.returns(self.play_out())
