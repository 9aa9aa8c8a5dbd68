"""The game API every agent drives: decision points, legal moves, apply, returns.

Shaped after OpenSpiel's game/state split: a `Negotiation` holds the compiled game and the rules, and
nothing else; a `State` is immutable.  A turn has two decision points: the proposer's (a partner and
an offer, together one `Offer`) and, when the offer needs an answer, the partner's (accept or reject).
`apply` checks every move and says which rule an illegal one breaks; `next_state` is the unchecked
step searches use with offers they built themselves.  What moves are worth under each lens, and the
caches that make searching them cheap, are the valuation's (valuation.py).

Under simultaneous rules (simultaneous.py) a turn has several proposers and then every partner's answers;
the state's `flight` holds what has been decided so far and which decision is asked now.  `waiting` lists a
state per decision still open, `focus` brings one forward (a table asks several people at once), and the
last answer settles the turn (`apply_settled` also says how each offer ended).  With one proposer a turn the
two protocols are the same game.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

import numpy as np

from negtui.engine.game import Game, compile_game
from negtui.engine.offers import Offer, candidates
from negtui.engine.payoff import payoffs, state_info
from negtui.engine.rules import Rules
from negtui.engine.simultaneous import Flight, Settlement, settle
from negtui.scenario.model import Scenario


class IllegalMove(ValueError):
    """A move the rules do not allow; `rule` names the rule broken, for programs that react to it.

    Rules: terminal (the game is over), phase (a move of the other phase), proposer (not this
    player's turn), partner (not a legal partner), unknown_cell, third_party (a cell of neither
    side), committed (already committed), exclusive (ruled out by, or breaking, an exclusive set),
    budget (more new cells for one player than the budget)."""

    def __init__(self, message: str, rule: str = "illegal"):
        super().__init__(message)
        self.rule = rule


class Phase(str, Enum):
    PROPOSE = "propose"
    RESPOND = "respond"
    TERMINAL = "terminal"


TERMINAL_PLAYER = -1  # current_player() of a finished game


def shown_turn(t: int) -> int:
    """The number a turn goes by wherever people read it (header, log, coach, debrief, the command line,
    error messages): turns count from 1.  `State.t` and a record's `t` field count from 0."""
    return t + 1


@dataclass(frozen=True, slots=True)
class State:
    t: int = 0
    bits: int = 0  # the commitments at the start of turn t
    pending: Offer | None = None  # an offer waiting for the partner's answer (respond phase)
    flight: Flight | None = None  # a simultaneous turn under way; None at its start (and in sequential games)


class Negotiation:
    def __init__(self, game: Game, rules: Rules):
        self.game = game
        self.rules = rules
        self.pictures: dict[int, Negotiation] = {}  # the game as each player knows it (engine.knowledge)

    @classmethod
    def from_scenario(cls, sc: Scenario, rules: Rules, budget: int | None = None) -> Negotiation:
        return cls(compile_game(sc, rules, budget=budget), rules)

    # --- decision points ------------------------------------------------------------------------------
    def initial_state(self) -> State:
        return State(0, 0)

    def is_terminal(self, s: State) -> bool:
        return s.t >= self.game.T

    def phase(self, s: State) -> Phase:
        if self.is_terminal(s):
            return Phase.TERMINAL
        if self.game.simultaneous:
            return Phase.PROPOSE if self.flight(s).proposing else Phase.RESPOND
        return Phase.PROPOSE if s.pending is None else Phase.RESPOND

    def current_player(self, s: State) -> int:
        """Who decides next: the proposer, the partner of a pending offer, or TERMINAL_PLAYER (under
        simultaneous rules, whoever's decision the state focuses on: `waiting` lists them all)."""
        if self.is_terminal(s):
            return TERMINAL_PLAYER
        return self.proposer(s) if s.pending is None else s.pending.partner

    def proposer(self, s: State) -> int:
        """The proposer of the turn, or under simultaneous rules the one whose offer is made or answered now."""
        if self.is_terminal(s):
            raise IllegalMove("the game is over", "terminal")
        if self.game.simultaneous:
            return s.pending.proposer if s.pending is not None else self.game.proposers(s.t)[self.flight(s).focus]
        return self.game.proposer(s.t)

    # --- simultaneous turns ---------------------------------------------------------------------------
    def flight(self, s: State) -> Flight:
        """The simultaneous turn under way at s (fresh at the start of a turn)."""
        return s.flight if s.flight is not None else Flight.start(len(self.game.proposers(s.t)))

    def waiting(self, s: State) -> list[State]:
        """One state per decision still open at s, each focused on it (its `current_player` decides it),
        in the order the turn driver asks them: every proposer of the turn, then every answer.  A
        sequential game has one at a time: [s]; a finished game none."""
        if self.is_terminal(s):
            return []
        if not self.game.simultaneous:
            return [s]
        f = self.flight(s)
        if f.proposing:
            return [State(s.t, s.bits, None, f.focused(k)) for k in f.open_proposals()]
        return [State(s.t, s.bits, f.offers[k], f.focused(k)) for k in f.open_answers()]

    def focus(self, s: State, proposer: int) -> State:
        """The state asking for `proposer`'s offer (while the turn's proposers decide), or for the answer to
        its offer (while the partners decide); IllegalMove when that decision is not open."""
        for w in self.waiting(s):
            if self.proposer(w) == proposer:
                return w
        raise IllegalMove(f"no decision of {self._name(proposer)}'s turn is open now", "phase")

    def slot(self, s: State, proposer: int) -> int:
        """`proposer`'s place among the proposers of turn s.t (the order offers are applied in)."""
        try:
            return self.game.proposers(s.t).index(proposer)
        except ValueError:
            names = ", ".join(self.game.player_ids[p] for p in self.game.proposers(s.t))
            raise IllegalMove(f"{self._name(proposer)} does not propose in turn {shown_turn(s.t)}; its proposers are "
                              f"{names}", "proposer") from None

    def legal_partners(self, s: State) -> list[int]:
        p = self.proposer(s)
        return [q for q in range(self.game.n) if q != p or self.game.unilateral]

    def legal_offers(self, s: State, partner: int) -> list[Offer]:
        """Every legal offer of the proposer to `partner`, in enumeration order; the first is the
        empty offer (a pass)."""
        p, g = self.proposer(s), self.game
        if partner == p and not g.unilateral:
            raise IllegalMove("this scenario does not allow unilateral commitments", "partner")
        cand = candidates(g, state_info(g, s.bits), p, partner)
        return [Offer(p, partner, cand.bits(g, o), int(cand.n_cells[o]), o) for o in range(len(cand))]

    def pass_offer(self, s: State) -> Offer:
        """The proposer makes no offer."""
        p = self.proposer(s)
        return Offer(p, p, 0, 0, 0)

    def offer(self, s: State, q: int, cells: Iterable[int]) -> Offer:
        """The proposer's offer of these cells to q, not yet checked: `apply` (or `check_offer`) says
        whether the rules allow it."""
        bits = 0
        for c in cells:
            c = int(c)
            if c < 0:
                raise IllegalMove(f"there is no commitment number {c}", "unknown_cell")
            bits |= 1 << c
        return Offer(self.proposer(s), q, bits, bits.bit_count(), 0 if bits == 0 else -1)

    def is_legal(self, s: State, offer: Offer) -> bool:
        try:
            self.check_offer(s, offer)
        except IllegalMove:
            return False
        return True

    def check_offer(self, s: State, offer: Offer) -> None:
        """Raise IllegalMove if the proposer may not make this offer now."""
        g = self.game
        if self.is_terminal(s):
            raise IllegalMove("the game is over", "terminal")
        if s.pending is not None:
            raise IllegalMove("an offer is waiting for its answer", "phase")
        p, q = self.proposer(s), offer.partner
        if g.simultaneous:  # any proposer of the turn who has not yet offered
            p = offer.proposer
            if self.flight(s).offers[self.slot(s, p)] is not None:
                raise IllegalMove(f"{self._name(p)} has made its offer of turn {shown_turn(s.t)}", "phase")
        elif offer.proposer != p:
            raise IllegalMove(f"turn {shown_turn(s.t)} belongs to {g.player_ids[p]}, not to "
                              f"{self._name(offer.proposer)}", "proposer")
        if not 0 <= q < g.n:
            raise IllegalMove(f"there is no player number {q}", "partner")
        if offer.bits == 0:
            return  # a pass is always legal
        if q == p and not g.unilateral:
            raise IllegalMove("this scenario does not allow unilateral commitments", "partner")
        if offer.bits >> g.n_cells:
            raise IllegalMove(f"the game has {g.n_cells} commitments; the offer names one beyond them",
                              "unknown_cell")
        info = state_info(g, s.bits)
        count: dict[int, int] = {}
        for c in offer.cells:
            owner = int(g.owner[c])
            if owner not in (p, q):
                sides = g.player_ids[p] if p == q else f"neither {g.player_ids[p]} nor {g.player_ids[q]}"
                raise IllegalMove(f"{g.cell_name(c)} belongs to {'someone other than ' * (p == q)}{sides}",
                                  "third_party")
            if s.bits >> c & 1:
                raise IllegalMove(f"{g.cell_name(c)} is already committed", "committed")
            if info.blocked >> c & 1:
                raise IllegalMove(f"{g.cell_name(c)} is ruled out by an exclusive set", "exclusive")
            count[owner] = count.get(owner, 0) + 1
        for i, n in count.items():
            if n > g.budget:
                raise IllegalMove(f"{g.player_ids[i]} would make {n} new commitments; the budget is {g.budget}",
                                  "budget")
        for cells in g.groups:
            hit = [int(c) for c in cells if offer.bits >> int(c) & 1]
            if len(hit) > 1:
                raise IllegalMove(f"{' and '.join(g.cell_name(c) for c in hit)} are in one exclusive set: "
                                  "at most one of them may be committed", "exclusive")

    def _name(self, i: int) -> str:
        return self.game.player_ids[i] if 0 <= i < self.game.n else f"player number {i}"

    # --- moves ----------------------------------------------------------------------------------------
    def apply(self, s: State, action: Offer | bool) -> State:
        """The state after a checked move: an `Offer` from the proposer, or True/False from the partner.

        A pass and a unilateral commitment need no answer and end the turn at once (a pass counts
        as a deal only under rules where an empty offer is one).  Under simultaneous rules an offer may come
        from any proposer still to offer, and the turn ends with its last answer (`apply_settled`)."""
        if self.game.simultaneous:
            return self.apply_settled(s, action)[0]
        if self.is_terminal(s):
            raise IllegalMove("the game is over", "terminal")
        if s.pending is None:
            if not isinstance(action, Offer):
                raise IllegalMove("the proposer moves with an offer (an empty one passes)", "phase")
            self.check_offer(s, action)  # the one check of a move
            if action.is_noop:
                return self.next_state(s, action, self.rules.noop_is_deal)
            if action.is_unilateral:
                return self.next_state(s, action, True)
            return State(s.t, s.bits, action)
        if not isinstance(action, (bool, np.bool_)):
            raise IllegalMove("the partner answers an offer with accept (true) or reject (false)", "phase")
        return self.next_state(s, s.pending, bool(action))

    def apply_settled(self, s: State, action: Offer | bool) -> tuple[State, Settlement | None]:
        """`apply` under simultaneous rules, with the turn's settlement when the move ends the turn: every
        offer's outcome (applied, void and why, rejected, passed)."""
        if self.is_terminal(s):
            raise IllegalMove("the game is over", "terminal")
        if not self.game.simultaneous:
            raise IllegalMove("one proposer a turn: apply settles each move", "phase")
        f = self.flight(s)
        if f.proposing:
            if not isinstance(action, Offer):
                raise IllegalMove("the proposers move with offers (an empty one passes)", "phase")
            self.check_offer(s, action)  # the one check of a move
            f = f.with_offer(self.slot(s, action.proposer), action)
        else:
            if isinstance(action, Offer) or not isinstance(action, (bool, np.bool_)):
                raise IllegalMove("the partner answers an offer with accept (true) or reject (false)", "phase")
            if s.pending is None or f.offers[f.focus] != s.pending or f.focus not in f.open_answers():
                raise IllegalMove("no offer is waiting for this answer", "phase")
            f = f.with_answer(f.focus, bool(action))
        return self._onwards(s, f)

    def _onwards(self, s: State, f: Flight) -> tuple[State, Settlement | None]:
        """The next decision of the turn (the one in focus if still open, else the first open one), or the
        next turn once every offer is made and answered."""
        for open_slots, answering in ((f.open_proposals(), False), (f.open_answers(), True)):
            if open_slots:
                k = f.focus if f.focus in open_slots else open_slots[0]
                return State(s.t, s.bits, f.offers[k] if answering else None, f.focused(k)), None
        offers = [o for o in f.offers if o is not None]
        done = settle(self.game, s.bits, offers, f.answers, self.rules.noop_is_deal)
        return State(s.t + 1, done.bits), done

    @staticmethod
    def next_state(s: State, offer: Offer | None, accepted: bool) -> State:
        """Unchecked: the state after a turn whose offer and answer are known to be legal."""
        bits = s.bits | offer.bits if (accepted and offer is not None) else s.bits
        return State(s.t + 1, bits)

    def returns(self, s: State) -> np.ndarray:
        return payoffs(self.game, s.bits)

    def blocked(self, s: State) -> int:
        """Bitmask of the cells an exclusive set rules out at this state."""
        return state_info(self.game, s.bits).blocked
