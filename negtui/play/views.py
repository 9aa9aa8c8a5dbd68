"""What a play screen draws from: one immutable picture of the game at a turn (`Snapshot`), and the
view models it carries — an offer under every lens (`Preview`), the partners a person may pick."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from negtui.engine.game import Game
from negtui.engine.negotiation import Phase, State
from negtui.engine.offers import Offer
from negtui.engine.turns import TurnEvent


@dataclass(frozen=True)
class LensView:
    """An offer under one lens: its value to a player if accepted and if rejected."""

    accept: float
    reject: float

    @property
    def gain(self) -> float:
        return self.accept - self.reject


@dataclass(frozen=True)
class Preview:
    """How an offer looks to both sides under every lens, and whether each lens would accept it; `error`
    says why the rules would refuse it."""

    offer: Offer | None
    error: str | None
    proposer: dict[str, LensView] = field(default_factory=dict)
    partner: dict[str, LensView] = field(default_factory=dict)
    partner_accepts: dict[str, bool] = field(default_factory=dict)
    partner_lens: str = ""  # how the partner answers offers (its responding lens, or its seat)


@dataclass(frozen=True)
class PartnerOption:
    partner: int
    offers: dict[str, Offer]  # best offer each lens would make to this partner
    value: dict[str, float]  # its value to the proposer under that lens

    @property
    def suggested(self) -> Offer | None:
        """The suggested offer to this partner: the lens whose best offer is worth most to the proposer."""
        if not self.value:
            return None
        return self.offers[max(self.value, key=lambda lens: self.value[lens])]


@dataclass(frozen=True)
class Earlier:
    """The turns before a fork's first: events, and the payoffs before each of them."""

    events: tuple[TurnEvent, ...] = ()
    payoffs: tuple[np.ndarray, ...] = ()


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The game at one moment, as a screen shows it.  Never compared (it holds arrays): a screen's
    reactive holding it updates on every assignment."""

    game: Game
    rules: str
    state: State
    events: Sequence[TurnEvent]
    seats: list[str]  # label per player: human, upper, upper/lower, …
    forecasts: dict[str, np.ndarray]  # lens -> per-player value now
    payoff_history: Sequence[np.ndarray]
    blocked: int = 0
    offer_cells: frozenset[int] = frozenset()  # the offer being built, or waiting for its answer
    partner: int | None = None  # partner of that offer
    mode: str = "play"  # play | replay
    person_to_move: bool = False  # the next decision is a person's at this app
    preview: Preview | None = None  # the offer being built (or waiting for a person's answer) under every lens
    position: tuple[int, int, int] | None = None  # replay: (first, shown, last) turn
    known: frozenset[int] | None = None  # players whose values and payoffs may be shown (None: everyone's)
    guided: bool = True  # False: an assessment, no guidance until the debrief
    withheld: frozenset[int] = frozenset()  # players whose forecasts are not shown (an assessment: all but yours)
    yours: frozenset[int] = frozenset()  # the seats the person at this screen plays
    # simultaneous turns (play/simultaneous.py): the proposer whose offer a person here builds or answers now, the
    # offers in flight they may see (theirs and those made to them), and what the turn still waits for in words
    focus: int | None = None
    in_flight: tuple[Offer, ...] = ()
    awaited: str = ""
    waiting_on: frozenset[int] | None = None  # at a table, the seats a simultaneous turn waits for, as far as told
    ended: bool = False  # ended before its last turn as it stood (the round's clock ran out, or time was called)

    def knows(self, i: int) -> bool:
        """Whether player i's values (and so its payoffs and forecasts) may be shown here."""
        return self.known is None or i in self.known

    def foresees(self, i: int) -> bool:
        """Whether player i's forecasts (what each lens expects it to get, whether it would accept) may
        be shown here: an assessment leaves judging the others to the person assessed."""
        return self.knows(i) and i not in self.withheld

    def value_words(self, j: int, i: int) -> str:
        """Player i's value of goal j as this screen may show it: the value, the range the scenario
        publishes for it, or '?' (engine.knowledge)."""
        if self.knows(i):
            return f"{float(self.game.G[j, i]):+g}"
        published = self.game.scenario.goals[j].ranges.get(self.game.player_ids[i])
        return "?" if published is None else f"{published[0]:g}..{published[1]:g}"

    @property
    def proposer(self) -> int | None:
        """Who proposes; under simultaneous rules the proposer a person here deals with now, else the turn's first."""
        if self.over:
            return None
        return self.focus if self.focus is not None else self.game.proposer(self.state.t)

    @property
    def proposers(self) -> tuple[int, ...]:
        """Every proposer of the turn shown, in the turn's order (one in a sequential game)."""
        return () if self.over else self.game.proposers(self.state.t)

    @property
    def several_proposers(self) -> bool:
        """A simultaneous turn of several proposers: the headline and the matrix name them all."""
        return len(self.proposers) > 1

    @property
    def deciding(self) -> int | None:
        """Who decides next: the partner of an offer waiting for its answer, else the proposer."""
        if self.over:
            return None
        return self.state.pending.partner if self.state.pending is not None else self.proposer

    @property
    def over(self) -> bool:
        return self.ended or self.state.t >= self.game.T

    @property
    def phase(self) -> Phase:
        if self.over:
            return Phase.TERMINAL
        return Phase.PROPOSE if self.state.pending is None else Phase.RESPOND

    @property
    def person_proposing(self) -> bool:
        return self.person_to_move and self.phase is Phase.PROPOSE

    @property
    def drafting(self) -> bool:
        """A person proposing has picked a partner: an offer is being built on the matrix."""
        return self.person_proposing and self.partner is not None

    @property
    def last_event(self) -> TurnEvent | None:
        return self.events[-1] if self.events else None

    @property
    def payoffs(self) -> np.ndarray:
        return self.payoff_history[-1]
