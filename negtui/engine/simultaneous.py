"""Simultaneous turns: several proposers in one turn, their offers settled together (docs/simultaneous.md).

Under `+simultaneous` rules a turn has K proposers, taken in order from the sequential game's schedule
(`game.turn_starts`).  Each proposes to a partner of its choice against the commitments at the start of the
turn, without seeing the others' offers; each partner then answers every offer addressed to it, seeing only
those.
The accepted offers are applied one by one in the turn's proposer order; an accepted offer that conflicts
with those applied before it is void (`settle`), for one of three reasons:

- *committed*: it names a commitment an earlier offer of the turn has made;
- *exclusive*: a commitment of it shares an exclusive set with one made earlier (in this turn or before);
- *budget*: a player would make more than `budget` new commitments in this turn, all offers together.

A turn under way is a `Flight`: the offers made so far and the answers given, with the decision asked now
(`focus`).  The rules of the game (negotiation.py) move a flight on; this module holds what the rules say
about a turn's shape and its settlement, and nothing that values a move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from negtui.engine.offers import Offer

if TYPE_CHECKING:
    from negtui.engine.game import Game

Status = Literal["applied", "void", "rejected", "passed"]
VoidReason = Literal["committed", "exclusive", "budget"]


@dataclass(frozen=True, slots=True)
class Flight:
    """A simultaneous turn under way.  `offers[k]` is the k-th proposer's offer (None: not yet made),
    `answers[k]` its partner's answer (None: not yet given, or none needed: a pass or a unilateral
    commitment), `focus` the proposer whose decision, or whose offer's answer, is asked now."""

    offers: tuple[Offer | None, ...]
    answers: tuple[bool | None, ...]
    focus: int = 0

    @classmethod
    def start(cls, k: int) -> Flight:
        return cls((None,) * k, (None,) * k, 0)

    @property
    def proposing(self) -> bool:
        return any(o is None for o in self.offers)

    def open_proposals(self) -> list[int]:
        """Slots whose proposer has not yet offered, in order."""
        return [k for k, o in enumerate(self.offers) if o is None]

    def open_answers(self) -> list[int]:
        """Slots whose offer still waits for its partner's answer, in order."""
        return [k for k, o in enumerate(self.offers) if o is not None and needs_answer(o) and self.answers[k] is None]

    def with_offer(self, slot: int, offer: Offer) -> Flight:
        offers = list(self.offers)
        offers[slot] = offer
        return replace(self, offers=tuple(offers))

    def with_answer(self, slot: int, accept: bool) -> Flight:
        answers = list(self.answers)
        answers[slot] = accept
        return replace(self, answers=tuple(answers))

    def focused(self, slot: int) -> Flight:
        return replace(self, focus=slot)


def needs_answer(offer: Offer) -> bool:
    """An offer its partner answers: not a pass, not a commitment the proposer makes alone."""
    return not offer.is_noop and not offer.is_unilateral


@dataclass(frozen=True)
class Outcome:
    """What became of one proposer's offer in a turn: `accepted` as the rules count it (a pass counts as
    a deal only where an empty offer does; a unilateral commitment needs no answer), `status` what it made
    of the commitments, `void` why an accepted offer was not applied.  `decided_by` and `fault` are the
    turn driver's: who decided the outcome, and an agent failure played around."""

    offer: Offer
    answer: bool | None  # the partner's answer; None where none was asked
    accepted: bool
    status: Status
    void: VoidReason | None = None
    reason: str = ""  # the void offer's conflict in words, naming cells and players by id (records, JSON, agents)
    decided_by: str = ""
    fault: str | None = None
    # the void offer's conflict as numbers, for words that name them as people read them (narrate.void_words):
    # committed (the cell), exclusive (the offer's cell, the one committed earlier), budget (player, new commitments)
    conflict: tuple[int, ...] = ()

    @property
    def applied(self) -> bool:
        return self.status == "applied"


@dataclass(frozen=True)
class Settlement:
    bits: int  # the commitments after the turn
    outcomes: tuple[Outcome, ...]  # one per proposer, in the turn's order

    @property
    def void(self) -> int:
        return void_count(self.outcomes)


def accepted_of(offer: Offer, answer: bool | None, noop_is_deal: bool) -> bool:
    if offer.is_noop:
        return noop_is_deal
    return True if offer.is_unilateral else bool(answer)


def settle(game: Game, bits: int, offers: Sequence[Offer], answers: Sequence[bool | None], noop_is_deal: bool,
           ) -> Settlement:
    """Apply a turn's accepted offers in order from commitments `bits`; an offer that conflicts with what is
    committed by then (the turn's earlier offers included) is void.  Every offer was legal on its own
    against `bits`, so a conflict can only come from an earlier offer of the same turn."""
    now = bits
    used = [0] * game.n
    outcomes = []
    for offer, answer in zip(offers, answers, strict=True):
        accepted = accepted_of(offer, answer, noop_is_deal)
        if offer.is_noop:
            outcomes.append(Outcome(offer, answer, accepted, "passed"))
            continue
        if not accepted:
            outcomes.append(Outcome(offer, answer, False, "rejected"))
            continue
        conflict = conflict_of(game, now, used, offer)
        if conflict is not None:
            outcomes.append(Outcome(offer, answer, True, "void", conflict[0], conflict[1], conflict=conflict[2]))
            continue
        now |= offer.bits
        for i in {offer.proposer, offer.partner}:
            used[i] += own_cells(game, offer.bits, i)
        outcomes.append(Outcome(offer, answer, True, "applied"))
    return Settlement(now, tuple(outcomes))


def conflict_of(game: Game, now: int, used: Sequence[int], offer: Offer,
                ) -> tuple[VoidReason, str, tuple[int, ...]] | None:
    """Why `offer` cannot be applied on top of `now` (the commitments so far, with `used[i]` new commitments
    of player i made earlier in this turn): the reason, in words, and its numbers (`Outcome.conflict`); or None."""
    taken = offer.bits & now
    if taken:
        c = int(game.cells_of(taken)[0])
        return "committed", f"{game.cell_name(c)} was committed earlier in this turn", (c,)
    for group in game.groups:
        mine = [int(c) for c in group if offer.bits >> int(c) & 1]
        theirs = [int(c) for c in group if now >> int(c) & 1]
        if mine and theirs:
            return "exclusive", (f"{game.cell_name(mine[0])} shares an exclusive set with {game.cell_name(theirs[0])}, "
                                 "committed earlier in this turn"), (mine[0], theirs[0])
    for i in sorted({offer.proposer, offer.partner}):
        k = own_cells(game, offer.bits, i)
        if k and used[i] + k > game.budget:
            return "budget", (f"{game.player_ids[i]} would make {used[i] + k} new commitments in this turn; "
                              f"the budget is {game.budget}"), (i, used[i] + k)
    return None


def own_cells(game: Game, bits: int, i: int) -> int:
    """How many of the cells in `bits` are player i's."""
    return ((bits >> int(game.offset[i])) & ((1 << int(game.m[i])) - 1)).bit_count()


def void_count(outcomes: Sequence[Outcome]) -> int:
    """Accepted offers of a turn that were not applied."""
    return sum(o.status == "void" for o in outcomes)
