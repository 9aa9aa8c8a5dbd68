"""One decision of a person, set beside what each lens bot (and, on small games, the exact solution)
would have done in that seat, every choice valued by the same lenses.

A choice is valued by the state it leads to at the end of the turn, seen by the deciding player under
each lens (`Valuation.forecast`): the proposer's offer with the answer it got (or, for a bot's offer,
the answer it would get), the partner's accept or reject.  The cost of a decision is how much the best
alternative is worth more than it, under the exact solution where the game is small enough, otherwise
under the mean of the three closed-form lenses (none of them alone is the truth).  The learned lens (the
model shipped with negtui) reads beside them, and its bot's choice is one more alternative; it is left out of
the mean, which stays what the hand-written lenses say (docs/learned-lens.md: its values fit exact solutions
best, its play does not beat theirs everywhere)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from negtui.engine.game import Game
from negtui.engine.learned_names import LEARNED
from negtui.engine.negotiation import Negotiation, Phase, State
from negtui.engine.offers import Offer
from negtui.engine.search import greedy_partner
from negtui.engine.valuation import Valuation
from negtui.engine.vocabulary import CLOSED_FORM_LENSES
from negtui.names import player_names
from negtui.narrate import offer_words

YOU = "you"


def coach_lenses(game: Game) -> tuple[str, ...]:
    """The lenses the coach reads a decision with: the hand-written ones and the learned one, except on a case
    of issues, whose options and exits the learned model was not trained to read (it learned from goals)."""
    return CLOSED_FORM_LENSES + (() if game.issues is not None else (LEARNED,))


@dataclass(frozen=True)
class Choice:
    """A decision and the state it leads to."""

    who: str  # YOU, or the lens (or "exact") whose bot would decide so
    phase: Phase
    offer: Offer | None = None  # propose: the offer (its partner included)
    accept: bool | None = None  # respond: the answer; propose: the answer it got or would get
    after: State = field(default_factory=State)
    values: dict[str, float] = field(default_factory=dict)  # deciding player's value of `after`, per lens

    @property
    def whose(self) -> str:
        """Who decided so, in a sentence: `upper's choice`, `the learned bot's choice`."""
        return "the learned bot's" if self.who == LEARNED else f"{self.who}'s"


@dataclass(frozen=True)
class Assessment:
    t: int
    player: int
    phase: Phase
    yours: Choice | None  # None for a hint (before deciding)
    others: tuple[Choice, ...]
    reference: str  # "exact" or "mean"
    # what the values leave out, said with them (a simultaneous turn's offer that was void: valued as the turn's
    # only deal, it reads better than what it brought)
    caveat: str = ""

    def value(self, choice: Choice) -> float:
        if self.reference == "exact":
            return choice.values["exact"]
        return float(np.mean([choice.values[lens] for lens in CLOSED_FORM_LENSES]))

    @property
    def best(self) -> Choice:
        return max(self.others, key=self.value)

    @property
    def cost(self) -> float:
        """How much the best alternative is worth more than the choice made (never negative)."""
        if self.yours is None:
            return 0.0
        return max(0.0, self.value(self.best) - self.value(self.yours))

    def agreeing(self) -> list[str]:
        """The lenses (and exact) whose bots would have decided as the person did."""
        if self.yours is None:
            return []
        return [c.who for c in self.others if _same(c, self.yours)]


def _same(a: Choice, b: Choice) -> bool:
    if a.phase is Phase.RESPOND:
        return a.accept == b.accept
    return a.offer is not None and b.offer is not None and a.offer.bits == b.offer.bits and (
        a.offer.bits == 0 or a.offer.partner == b.offer.partner)


class Coach:
    """Assessments for one game.  `respond_lens(q)` says how seat q answers offers when it is a lens bot
    (agents.Seating.respond_lens); other seats are modelled with the lens being asked about."""

    def __init__(self, valuation: Valuation, respond_lens: Callable[[int], str | None],
                 exact: bool | Callable[[], bool]):
        """`exact`: whether the exact solution takes part; a callable when it is being solved meanwhile
        (the app solves it in the background: coaching includes it from when it is there)."""
        self.valuation = valuation
        self.neg = valuation.neg
        self.respond_lens = respond_lens
        self._exact = exact

    @property
    def lenses(self) -> tuple[str, ...]:
        exact = self._exact() if callable(self._exact) else self._exact
        return coach_lenses(self.neg.game) + (("exact",) if exact else ())

    def _values(self, after: State, player: int) -> dict[str, float]:
        return {lens: float(self.valuation.forecast(after, lens)[player]) for lens in self.lenses}

    # --- proposing --------------------------------------------------------------------------------------
    def proposal(self, s: State, offer: Offer, accepted: bool, after: State) -> Assessment:
        """The proposer's offer (and the answer it got) against each lens's."""
        p = self.neg.proposer(s)
        yours = Choice(YOU, Phase.PROPOSE, offer, accepted, after, self._values(after, p))
        return Assessment(s.t, p, Phase.PROPOSE, yours, self._proposals(s, p), self._reference())

    def proposal_hint(self, s: State) -> Assessment:
        p = self.neg.proposer(s)
        return Assessment(s.t, p, Phase.PROPOSE, None, self._proposals(s, p), self._reference())

    def _proposals(self, s: State, p: int) -> tuple[Choice, ...]:
        val, out = self.valuation, []
        for lens in coach_lenses(self.neg.game):
            lens_of = self._model(lens)
            q = greedy_partner(val, s, lens, lens_of)
            offer = val.best_offer(s, q, lens, lens_of(q))
            accepted = self._answer(s, offer, lens_of(q))
            after = val.neg.next_state(s, offer, accepted)
            out.append(Choice(lens, Phase.PROPOSE, offer, accepted, after, self._values(after, p)))
        if "exact" in self.lenses:
            sol = val.exact
            q = int(sol.partner[s.t][s.bits])
            child = int(sol.child[s.t][s.bits])
            offer = Offer(p, p if q < 0 else q, child & ~s.bits)
            after = State(s.t + 1, child)
            out.append(Choice("exact", Phase.PROPOSE, offer, q >= 0, after, self._values(after, p)))
        return tuple(out)

    def _model(self, lens: str) -> Callable[[int], str]:
        return lambda q: self.respond_lens(q) or lens

    def _answer(self, s: State, offer: Offer, lens: str) -> bool:
        if offer.is_noop:
            return self.neg.rules.noop_is_deal
        if offer.is_unilateral:
            return True
        return self.valuation.accepts(s, offer, lens)

    # --- responding -------------------------------------------------------------------------------------
    def response(self, s: State, accept: bool) -> Assessment:
        """The partner's answer to the pending offer in `s` against each lens's."""
        assert s.pending is not None
        q = s.pending.partner
        after = self.neg.next_state(s, s.pending, accept)
        yours = Choice(YOU, Phase.RESPOND, s.pending, accept, after, self._values(after, q))
        return Assessment(s.t, q, Phase.RESPOND, yours, self._responses(s, q), self._reference())

    def response_hint(self, s: State) -> Assessment:
        assert s.pending is not None
        return Assessment(s.t, s.pending.partner, Phase.RESPOND, None, self._responses(s, s.pending.partner),
                          self._reference())

    def _responses(self, s: State, q: int) -> tuple[Choice, ...]:
        neg, offer, out = self.neg, s.pending, []
        assert offer is not None
        accepted_state = neg.next_state(s, offer, True)
        rejected_state = neg.next_state(s, offer, False)
        values = {True: self._values(accepted_state, q), False: self._values(rejected_state, q)}
        for lens in self.lenses:
            accept = bool(neg.rules.accepts(values[True][lens], values[False][lens]))
            out.append(Choice(lens, Phase.RESPOND, offer, accept, accepted_state if accept else rejected_state,
                              values[accept]))
        return tuple(out)

    def _reference(self) -> str:
        return "exact" if "exact" in self.lenses else "mean"


def describe(neg: Negotiation, a: Assessment) -> dict:
    """The assessment as plain data (results database, records of coaching)."""
    from negtui.narrate import offer_words

    g = neg.game

    def one(c: Choice) -> dict:
        out: dict = {"who": c.who, "values": {k: round(v, 6) for k, v in c.values.items()}}
        if c.phase is Phase.PROPOSE and c.offer is not None:
            out["partner"] = g.player_ids[c.offer.partner]
            out["offer"] = g.pairs_of(c.offer.bits)
            out["words"] = offer_words(g, c.offer.bits, c.offer.proposer, c.offer.partner)
        out["accept"] = c.accept
        return out

    return {"turn": a.t, "player": g.player_ids[a.player], "phase": a.phase.value, "reference": a.reference,
            "cost": round(a.cost, 6), "yours": one(a.yours) if a.yours else None,
            "others": [one(c) for c in a.others], "agreeing": a.agreeing()}


def choice_words(game: Game, c: Choice) -> str:
    if c.phase is Phase.RESPOND:
        return "accept" if c.accept else "reject"
    if c.offer is None or c.offer.is_noop:
        return "no offer"
    words = offer_words(game, c.offer.bits, c.offer.proposer, c.offer.partner)
    to = "alone" if c.offer.is_unilateral else f"to {player_names(game.scenario)[c.offer.partner]}"
    answer = "" if c.offer.is_unilateral else (" (accepted)" if c.accept else " (rejected)")
    return f"{to}: {words}{answer}"
