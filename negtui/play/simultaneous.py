"""A simultaneous turn as people at the app meet it (docs/simultaneous.md): which open decision the app asks
next, what they may see of the offers in flight, and what the turn still waits for.

The engine takes a turn's decisions in any order (`Negotiation.waiting`, `focus`); the app takes them one at a
time, so that its one offer builder and its one answer dialog serve every decision.  The game's state is kept
focused on the decision asked now (`next_focus`): a person's before the agents', so a person is prompted at
once and the bots' decisions then follow in a worker without a key press.  What a person sees of the other
offers is what the rules let the seat see: the offers it made and those made to it; the rest are shown when
the turn settles (the turn log then has every offer).  No UI code here: the app and tests share it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from negtui.engine.negotiation import IllegalMove, Negotiation, Phase, State
from negtui.engine.offers import Offer
from negtui.engine.simultaneous import Flight
from negtui.engine.turns import Move
from negtui.names import player_names


def start_of_turn(neg: Negotiation, s: State, proposer: int) -> State:
    """The turn under way as `proposer` meets it when offering: the commitments at the start of the turn and
    nobody's offer yet.  Every offer of a simultaneous turn is built, checked and valued against this (the plain
    reading), whatever the others have offered meanwhile; in a sequential game it is the turn's start."""
    if not neg.game.simultaneous:
        return State(s.t, s.bits)
    k = len(neg.game.proposers(s.t))
    return State(s.t, s.bits, None, Flight.start(k).focused(neg.slot(s, proposer)))


def next_focus(neg: Negotiation, s: State, outside: Callable[[State], bool]) -> State:
    """The state asking the decision the app takes next: the first open decision decided outside (a person's,
    in the turn's order), else the agents' first.  A finished game, or a sequential one, stays as it is."""
    if not neg.game.simultaneous or neg.is_terminal(s):
        return s
    open_now = neg.waiting(s)
    people = [w for w in open_now if outside(w)]
    return (people or open_now)[0]


def turn_started(neg: Negotiation, s: State) -> bool:
    """Some decision of the simultaneous turn under way has been made (an offer is in): the rest follows
    without a key press, as a partner's answer follows an offer in a sequential turn."""
    return neg.game.simultaneous and s.flight is not None and any(o is not None for o in s.flight.offers)


def offers_in_flight(neg: Negotiation, s: State) -> list[Offer]:
    """The offers of the turn under way made so far, in the turn's order (none in a sequential game)."""
    if not neg.game.simultaneous or neg.is_terminal(s) or s.flight is None:
        return []
    return [o for o in s.flight.offers if o is not None]


def seen_by(neg: Negotiation, s: State, people: Collection[int]) -> tuple[Offer, ...]:
    """The offers in flight that `people` may see: those one of them made, and those made to one of them."""
    return tuple(o for o in offers_in_flight(neg, s) if o.proposer in people or o.partner in people)


def offers_to_answer(s: State, player: int) -> tuple[int, int]:
    """(which, of how many): the offer in focus among the offers of this turn that `player` answers (1-based),
    counting those answered already; (0, 0) when none is in focus."""
    if s.pending is None or s.flight is None:
        return 0, 0
    mine = [k for k, o in enumerate(s.flight.offers)
            if o is not None and o.partner == player and not o.is_noop and not o.is_unilateral]
    return (mine.index(s.flight.focus) + 1 if s.flight.focus in mine else 0), len(mine)


def awaited(neg: Negotiation, s: State, people: Collection[int] = ()) -> str:
    """What the simultaneous turn under way still waits for, in words: 'awaiting offers from A, B', 'awaiting
    answers: D to B, 1 more'; '' in a sequential game or a finished one.  An answer to an offer `people` may not
    see is counted, not named (who offered to whom is known when the turn settles); with nobody at the app
    (bots only) every answer is named."""
    if not neg.game.simultaneous or neg.is_terminal(s):
        return ""
    ids = player_names(neg.game.scenario)
    open_now = neg.waiting(s)
    if neg.phase(s) is Phase.PROPOSE:
        return "awaiting offers from " + ", ".join(ids[neg.proposer(w)] for w in open_now)
    offers = [w.pending for w in open_now if w.pending is not None]
    named = [o for o in offers if not people or o.proposer in people or o.partner in people]
    hidden = len(offers) - len(named)
    if not named:
        return f"awaiting {hidden} answer{'s' * (hidden > 1)} (to offers shown when the turn settles)"
    return "awaiting answers: " + ", ".join([f"{ids[o.partner]} to {ids[o.proposer]}" for o in named]
                                           + ([f"{hidden} more"] if hidden else []))


def still_open(neg: Negotiation, s: State, move: Move) -> bool:
    """Whether an agent's decision, thought out in a worker, still has its place in the turn under way: its
    proposer has not offered yet, or the offer it answers still waits for that answer."""
    if move.t != s.t or neg.is_terminal(s):
        return False
    try:
        if move.phase is Phase.PROPOSE:
            return move.offer is not None and neg.phase(s) is Phase.PROPOSE and \
                neg.flight(s).offers[neg.slot(s, move.offer.proposer)] is None
        return move.offer is not None and neg.focus(s, move.offer.proposer).pending == move.offer
    except IllegalMove:
        return False
