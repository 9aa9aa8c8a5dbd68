"""A game in progress with any mix of human and bot seats: the small API the app drives.

Bots decide in `decide()` (pure computation, safe to run in a worker thread); humans decide through
`propose()` and `respond()`.  Every finished turn goes through `conclude()`, which applies it, records
it and keeps the forecast history.  No UI code here: the app, the SSH host and tests share it.
"""

from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from negtui.agents.lens_bot import LensBot
from negtui.engine.baseline import no_negotiation
from negtui.engine.exact import ExactTooLarge, check_size
from negtui.engine.lenses import CLOSED_FORM_LENSES as FORECAST_LENSES
from negtui.engine.negotiation import IllegalMove, Negotiation, State
from negtui.engine.offers import Offer
from negtui.engine.protocol import TurnEvent, describe
from negtui.engine.rules import Rules
from negtui.record.format import Parent
from negtui.record.writer import RecordWriter
from negtui.scenario.model import Scenario

EXACT_IN_APP_LIMIT = 3_000_000  # state-space bound under which the app offers the exact lens


@dataclass(frozen=True)
class Seat:
    human: bool = False
    propose: str = "upper"
    respond: str = "upper"

    @property
    def label(self) -> str:
        if self.human:
            return "human"
        return self.propose if self.propose == self.respond else f"{self.propose}/{self.respond}"


@dataclass
class Human:
    """A human seat as an agent: its decisions arrive from the UI."""

    name: str
    label: str = "human"


@dataclass(frozen=True)
class Decision:
    """A proposer's move: partner and offer, and the answer if it is already known."""

    t: int
    proposer: int
    partner: int
    offer: Offer
    accepted: bool | None  # None: waiting for a human partner
    decided_by: str = ""


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
    """How an offer looks to both sides under every lens, and whether each lens would accept it."""

    offer: Offer | None
    error: str | None
    proposer: dict[str, LensView] = field(default_factory=dict)
    partner: dict[str, LensView] = field(default_factory=dict)
    partner_accepts: dict[str, bool] = field(default_factory=dict)
    partner_lens: str = ""


@dataclass(frozen=True)
class PartnerOption:
    partner: int
    offers: dict[str, Offer]  # best offer each lens would make to this partner
    value: dict[str, float]  # its value to the proposer under that lens


class Session:
    def __init__(self, scenario: Scenario, rules: Rules, seats: dict[str, Seat] | None = None, *,
                 partner_method: str = "mcts", sims: int = 50, ucb: float = 10.0, budget: int | None = None,
                 start: State | None = None, record: str | os.PathLike[str] | None = None,
                 parent: Parent | None = None, remote: bool = False):
        self.neg = Negotiation.from_scenario(scenario, rules, budget=budget)
        self.partner_method, self.sims, self.ucb = partner_method, sims, ucb
        game = self.neg.game
        self.seats: dict[str, Seat] = {pid: Seat() for pid in game.player_ids}
        self.seats.update(seats or {})
        self.agents: list[LensBot | Human] = [self._agent(pid) for pid in game.player_ids]
        self.state = start or self.neg.initial_state()
        self.start = self.state
        self.events: list[TurnEvent] = []
        self.history: dict[str, list[np.ndarray]] = {lens: [self.forecast(lens)] for lens in FORECAST_LENSES}
        self.payoff_history: list[np.ndarray] = [self.neg.returns(self.state)]
        self.record_path = Path(record) if record else None
        self._writer = RecordWriter(self.record_path, self.neg, self.agents, self.state, parent, force=True) \
            if self.record_path else None
        self._baseline = None
        self._switched: set[str] = set()  # seats changed since the last recorded turn
        self._remote = None
        if remote:  # bots think in their own process: the caller's interpreter stays free (see agents.remote)
            from negtui.agents.remote import RemoteBots, seats_json

            self._remote = RemoteBots(scenario.model_dump(mode="json"), rules.name, seats_json(self.seats),
                                      partner_method, sims, ucb, budget)

    # --- seats ----------------------------------------------------------------------------------------
    def _agent(self, pid: str) -> LensBot | Human:
        seat = self.seats[pid]
        if seat.human:
            return Human(pid)
        i = self.neg.game.player_ids.index(pid)
        return LensBot(pid, seat.propose, seat.respond, self.partner_method, self.sims, self.ucb, seed=i)

    def set_seat(self, pid: str, seat: Seat) -> None:
        """Switch a seat between human and any lens, also mid-game."""
        if "exact" in (seat.propose, seat.respond) and not seat.human and not self.exact_available:
            raise IllegalMove("the exact lens needs a small game")
        self.seats[pid] = seat
        self.agents[self.neg.game.player_ids.index(pid)] = self._agent(pid)
        self._switched.add(pid)
        if self._remote is not None:
            from negtui.agents.remote import seats_json

            self._remote.set_seats(seats_json(self.seats))

    def is_human(self, i: int) -> bool:
        return isinstance(self.agents[i], Human)

    @property
    def exact_available(self) -> bool:
        try:
            check_size(self.neg.game, EXACT_IN_APP_LIMIT)
        except ExactTooLarge:
            return False
        return True

    @property
    def lenses(self) -> tuple[str, ...]:
        return FORECAST_LENSES + (("exact",) if self.exact_available else ())

    # --- the turn -------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.neg.is_terminal(self.state)

    @property
    def proposer(self) -> int:
        return self.neg.proposer(self.state)

    @property
    def round(self) -> int:
        return self.state.t // max(self.neg.game.n, 1) + 1

    def decide(self) -> Decision:
        """A bot proposer's move (and a bot partner's answer); safe to call from a worker thread."""
        s, p = self.state, self.proposer
        bot = self.agents[p]
        if not isinstance(bot, LensBot):
            raise IllegalMove(f"{self.neg.game.player_ids[p]} is played by a human")
        if self._remote is not None:
            res = self._remote.decide(s.t, s.bits)
            q, bits = int(res["partner"]), int(res["offer"], 16)
            offer = self.neg.make_offer(s, q, self.neg.game.cells_of(bits)) if bits else Offer(p, q, 0)
            return Decision(s.t, p, q, offer, res["accepted"], res["decided_by"] or "")
        q, _ = bot.choose_partner(self.neg, s, self.agents)
        offer = bot.propose(self.neg, s, q, self.agents[q])
        return self._answer(s, p, q, offer)

    def _answer(self, s: State, p: int, q: int, offer: Offer) -> Decision:
        if offer.is_noop:
            return Decision(s.t, p, q, offer, self.neg.rules.noop_is_deal, describe(self.agents[p]))
        partner = self.agents[q]
        if isinstance(partner, Human):
            return Decision(s.t, p, q, offer, None)
        return Decision(s.t, p, q, offer, partner.respond(self.neg, s, offer), describe(partner))

    def propose(self, q: int, cells: list[int]) -> Decision:
        """A human proposer's offer (an empty offer passes the turn)."""
        s, p = self.state, self.proposer
        if q not in self.neg.legal_partners(s):
            raise IllegalMove(f"{self.neg.game.player_ids[q]} is not a legal partner")
        offer = self.neg.make_offer(s, q, cells) if cells else Offer(p, q, 0)
        return self._answer(s, p, q, offer)

    def respond(self, decision: Decision, accept: bool) -> Decision:
        """A human partner's answer to a pending offer."""
        return Decision(decision.t, decision.proposer, decision.partner, decision.offer, accept,
                        describe(self.agents[decision.partner]))

    def conclude(self, d: Decision) -> TurnEvent:
        """Apply a decided turn: commit, record, extend the forecast history."""
        if d.accepted is None:
            raise IllegalMove("the partner has not answered yet")
        if d.t != self.state.t:
            raise IllegalMove("this decision belongs to another turn")
        s = self.state
        after = self.neg.apply(s, d.offer, d.accepted)
        ev = TurnEvent(s.t, d.proposer, d.partner, d.offer, d.accepted, d.decided_by or describe(self.agents[d.proposer]),
                       s, after, self.neg.returns(after))
        self.state = after
        self.events.append(ev)
        shown = {lens: self.forecast(lens) for lens in FORECAST_LENSES}
        for lens, values in shown.items():
            self.history[lens].append(values)
        self.payoff_history.append(ev.payoffs)
        if self._writer:
            ids = self.neg.game.player_ids
            self._writer.turn(ev, {pid: self.agents[ids.index(pid)] for pid in sorted(self._switched)}, shown)
            if self.over:
                self._writer.result(after, baseline=[float(v) for v in self.baseline])
                self._writer.close()
        self._switched.clear()
        return ev

    # --- what the panes show --------------------------------------------------------------------------
    def forecast(self, lens: str, s: State | None = None) -> np.ndarray:
        return self.neg.forecast(s or self.state, lens)

    @property
    def baseline(self) -> np.ndarray:
        if self._baseline is None:
            self._baseline = no_negotiation(self.neg.game, self.neg.rules).payoffs
        return self._baseline

    def partner_options(self) -> list[PartnerOption]:
        """For a human proposer: per partner, the best offer each lens would make and its value to them."""
        s, p = self.state, self.proposer
        out = []
        for q in self.neg.legal_partners(s):
            responder = self.agents[q]
            offers, values = {}, {}
            for lens in self.lenses:
                lens_q = responder.respond_lens if isinstance(responder, LensBot) else lens  # a human: same lens
                o = self.neg.best_offer(s, q, lens, lens_q)
                offers[lens], values[lens] = o, o.value_proposer - o.reject_proposer
            out.append(PartnerOption(q, offers, values))
        return out

    def preview(self, q: int, cells: list[int]) -> Preview:
        """Live preview of an offer being built: values for both sides under every lens."""
        s = self.state
        try:
            offer = self.neg.make_offer(s, q, cells) if cells else None
        except IllegalMove as err:
            return Preview(None, str(err))
        if offer is None:
            return Preview(None, None)
        p = self.proposer
        mine, theirs, accepts = {}, {}, {}
        for lens in self.lenses:
            a, r = self.neg.offer_value(s, offer, lens, p)
            mine[lens] = LensView(a, r)
            a, r = self.neg.offer_value(s, offer, lens, q)
            theirs[lens] = LensView(a, r)
            accepts[lens] = a >= r - self.neg.rules.accept_tolerance
        responder = self.agents[q]
        return Preview(offer, None, mine, theirs, accepts,
                       responder.respond_lens if isinstance(responder, LensBot) else "human")

    def close(self) -> None:
        if self._writer:
            self._writer.close()
            self._writer = None
        if self._remote is not None:
            self._remote.close()
            self._remote = None


def user_data_dir() -> Path:
    """The user's negtui data directory (platformdirs): records/ and generated scenarios/ live there."""
    from platformdirs import user_data_dir as _dir

    return Path(_dir("negtui"))


def default_record_path(scenario_name: str, directory: str | os.PathLike[str] | None = None) -> Path:
    """A new record file name for a scenario, in `directory` (default: the data directory's records/)."""
    if directory is None:
        directory = user_data_dir() / "records"
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in scenario_name)[:60]
    return Path(directory) / f"{stamp}-{safe}.jsonl"
