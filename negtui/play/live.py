"""A game in progress with any mix of people and agents, in this process: what a live source drives.

The turn driver runs the game; agents decide through `think()` (safe to call from a worker thread),
people through `propose()` and `answer()`, and every decision goes through `submit()`, which records
finished turns and keeps the forecast history.  No UI code here: the app and tests share it.
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cached_property
from pathlib import Path

import numpy as np

from negtui.agents.options import AgentOptions
from negtui.agents.seating import Seating
from negtui.coach.assess import Assessment, Coach
from negtui.engine.baseline import no_negotiation
from negtui.engine.completions import free_cells
from negtui.engine.exact import ExactTooLarge, check_size, state_space
from negtui.engine.game import Game
from negtui.engine.negotiation import IllegalMove, Negotiation, Phase, State
from negtui.engine.offers import Offer
from negtui.engine.rules import Rules
from negtui.engine.turns import Move, TurnDriver, TurnEvent
from negtui.engine.valuation import Valuation
from negtui.engine.vocabulary import CLOSED_FORM_LENSES as FORECAST_LENSES
from negtui.narrate import void_words
from negtui.play.simultaneous import next_focus, start_of_turn, still_open
from negtui.play.views import LensView, PartnerOption, Preview
from negtui.record.format import Parent
from negtui.record.writer import RecordCut, RecordWriter
from negtui.scenario.model import Scenario
from negtui.seats import Seat

EXACT_IN_APP_LIMIT = 3_000_000  # state-space bound under which the app offers the exact lens
EXACT_AT_ONCE = 100_000  # states: solved as the session starts (a blink); larger ones in the background


def exact_fits(game: Game) -> bool:
    """Whether the app offers the exact lens: the solve must take seconds, not minutes."""
    return exact_not_offered(game) is None


def exact_not_offered(game: Game) -> str | None:
    """Why the app's seat dialog does not offer the exact lens for this game (None: it does; "": the game is
    beyond the solver itself, and the command line refuses it too).  A game over the
    app's limit may still fit the solver's own, which the command line's `--seat NAME=exact` accepts: the
    dialog says so, rather than leave a lens missing that the command line takes."""
    try:
        check_size(game, EXACT_IN_APP_LIMIT)
    except ExactTooLarge:
        pass
    else:
        return None
    try:
        check_size(game)
    except ExactTooLarge:  # nor does the command line: nothing is missing that the dialog must explain
        return ""
    return (f"exact is not offered: its solution has {state_space(game):,} states, over the {EXACT_IN_APP_LIMIT:,} the "
            "app solves while you choose; `negtui play FILE --seat NAME=exact` seats it anyway, and the game waits "
            "for the solve, its progress shown")


class LiveGame:
    def __init__(self, scenario: Scenario, rules: Rules, seats: dict[str, Seat] | None = None, *,
                 budget: int | None = None, start: State | None = None,
                 record: str | os.PathLike[str] | None = None, parent: Parent | None = None,
                 options: AgentOptions | None = None, record_key: bytes | None = None,
                 known: frozenset[int] | None = None, guided: bool = True, compiled: Game | None = None):
        """`record` is a new file (created exclusively) for the game's record, signed with `record_key`.
        `known`: the players whose values this game's screens may show (None: everyone's); a game that
        hides some is a seat's picture (engine.knowledge), and has no exact solution to show.
        `guided` False is an assessment: no hint, exact solution, suggested offer or other players'
        forecasts while playing; people's decisions are still assessed, for the debrief."""
        self.known, self.guided = known, guided
        self.ended: str | None = None  # why the game stopped before its last turn (`end_now`)
        # `compiled`: the scenario compiled under these rules and budget by whoever started the game
        self.neg = Negotiation(compiled, rules) if compiled is not None else \
            Negotiation.from_scenario(scenario, rules, budget=budget)
        self.seating = Seating(self.neg, seats or {}, options)
        self.valuation: Valuation = self.seating.valuation  # the bots' own: what they searched is a look-up here
        try:
            self.driver = TurnDriver(self.neg, self.seating.agents, start or self.neg.initial_state())
            self.start = self.driver.state
            self.history: dict[str, list[np.ndarray]] = {lens: [self.forecast(lens)] for lens in FORECAST_LENSES}
            self.payoff_history: list[np.ndarray] = [self.neg.returns(self.state)]
            self.record_path = Path(record) if record else None
            self._writer = RecordWriter(self.record_path, self.neg, self.seating.seats, self.state, parent,
                                        key=record_key, information=self.seating.options.information
                                        ) if self.record_path else None
        except BaseException:
            self.seating.close()
            raise
        self._refocus()
        self.record_failed: str | None = None  # why recording stopped (a full disk): the game goes on
        self._baseline: np.ndarray | None = None
        self._switched: dict[str, Seat] = {}  # seats changed since the last recorded turn
        self._decided: list[tuple[Move, State]] = []  # people's decisions in the turn under way
        self._unassessed: list[tuple[Move, State, TurnEvent]] = []  # finished turns' decisions to assess
        self.assessments: list[Assessment] = []
        self._coach: Coach | None = None
        if self.exact_available and state_space(self.neg.game) <= EXACT_AT_ONCE:
            self.valuation.solve_exact()
        self.coached: set[int] | None = None  # the people's seats whose decisions are assessed (None: all)
        self._hints = True  # the hint key works (a course exercise may turn it off)
        self.coach_pane_first = False  # after a person's decision, show the coach pane (training)

    @property
    def hints(self) -> bool:
        """Whether the hint key works: where the exercise allows it, and never in an assessment."""
        return self._hints and self.guided

    @hints.setter
    def hints(self, allowed: bool) -> None:
        self._hints = allowed

    # --- seats ----------------------------------------------------------------------------------------
    @property
    def seats(self) -> dict[str, Seat]:
        return dict(zip(self.neg.game.player_ids, self.seating.seats))

    def set_seat(self, pid: str, seat: Seat) -> None:
        """Give a seat to someone else, also mid-game."""
        if seat.uses_exact and self.known is not None:
            raise IllegalMove("the exact lens needs every player's values, which this game keeps secret", "seat")
        i = self.neg.game.index_of(pid)
        self.driver.seats[i] = self.seating.set(i, seat)
        self._switched[pid] = seat
        self._refocus()  # a simultaneous turn asks a person's decision first, whoever sits where now

    def is_human(self, i: int) -> bool:
        return self.seating.seats[i].is_human

    @cached_property
    def exact_available(self) -> bool:
        return self.known is None and self.guided and exact_fits(self.neg.game)

    @property
    def exact_seats(self) -> list[str]:
        """The players whose seats play the exact lens: the solution must be there before they move (the app
        solves it in the background, with progress and a cancel key, rather than in a bot's first move)."""
        return [pid for pid, seat in zip(self.neg.game.player_ids, self.seating.seats, strict=True) if seat.uses_exact]

    def waits_for_exact(self, i: int) -> bool:
        """Seat i plays the exact lens and the solution is not solved yet."""
        return self.seating.seats[i].uses_exact and not self.valuation.exact_solved

    @property
    def exact_ready(self) -> bool:
        """The exact solution is solved and may be shown: forecasts and coaching include it from then on
        (the app solves larger games in the background, with progress and a cancel key)."""
        return self.known is None and self.guided and self.valuation.exact_solved

    @property
    def lenses(self) -> tuple[str, ...]:
        return FORECAST_LENSES + (("exact",) if self.exact_ready else ())

    # --- the turn -------------------------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self.driver.state

    @property
    def events(self) -> list[TurnEvent]:
        return self.driver.events

    @property
    def over(self) -> bool:
        return self.driver.over or self.ended is not None

    def end_now(self, why: str = "clock") -> None:
        """End the game before its last turn, as it stands (a round's time ran out): the commitments made
        bind, no more turns are played, and the record's result line says why."""
        if self.over:
            return
        self.ended = why
        if self._writer:
            try:
                self._writer.result(self.state, ended=why)
                self._writer.close()
            except RecordCut as err:
                self._stop_recording(err)

    @property
    def proposer(self) -> int:
        """Who proposes on the turn under way (the game must not be over)."""
        return self.neg.proposer(self.state)

    @property
    def deciding(self) -> int:
        """Who decides next: the proposer, or the partner of a pending offer."""
        return self.driver.player

    @property
    def pending(self) -> Offer | None:
        return self.state.pending

    def waiting_for_person(self) -> bool:
        """Whether the next decision is a person's."""
        return not self.over and self.driver.decided_outside()

    def think(self) -> list[Move]:
        """The next decision of an agent's seat and, when it is an offer another agent answers, that
        answer too (one worker run per turn); safe to call from a worker thread.  Under simultaneous rules:
        every agent's open decision of the turn's phase (all their offers, or all their answers), each naming
        the offer it answers, since the app may ask them in any order."""
        if self.neg.game.simultaneous:
            driver = self.driver
            return [replace(move, offer=w.pending) if move.phase is Phase.RESPOND else move
                    for w in self.neg.waiting(self.state) if not driver.decided_outside(state=w)
                    for move in (driver.ask(w),)]
        move = self.driver.ask()
        moves = [move]
        if move.phase is Phase.PROPOSE and move.offer is not None:
            after = self.neg.apply(self.state, move.offer)
            if after.pending is not None and not self.driver.decided_outside(after.pending.partner, after):
                moves.append(self.driver.ask(after))
        return moves

    def propose(self, q: int, cells: list[int]) -> Move:
        """A person's offer to q (no cells: a pass), as a move `submit` checks."""
        s = self.state
        return self.driver.propose(self.neg.offer(s, q, cells) if cells else self.neg.pass_offer(s))

    def answer(self, accept: bool) -> Move:
        """A person's answer to the pending offer."""
        return self.driver.answer(accept)

    def submit(self, move: Move) -> TurnEvent | None:
        """Apply a decision; when it ends the turn, record it and extend the forecast history.  A
        person's decisions are kept to be assessed (`assess_pending`)."""
        before = self.state
        ev = self.driver.submit(move)
        self._refocus()
        if self.is_human(move.player) and (self.coached is None or move.player in self.coached):
            self._decided.append((move, before))
        if ev is None:
            return None
        self._unassessed += [(m, s, ev) for m, s in self._decided]
        self._decided = []
        shown = {lens: self.forecast(lens) for lens in FORECAST_LENSES}
        for lens, values in shown.items():
            self.history[lens].append(values)
        self.payoff_history.append(ev.payoffs)
        if self._writer:
            try:
                self._writer.turn(ev, self._switched, shown)
                if self.over:
                    self._writer.result(ev.after)
                    self._writer.close()
            except RecordCut as err:
                self._stop_recording(err)
        self._switched = {}
        return ev

    def _refocus(self) -> None:
        """Under simultaneous rules, the state asks next for a person's open decision before the agents'
        (play/simultaneous.py); a sequential game is left as it is."""
        if self.neg.game.simultaneous:
            self.driver.state = next_focus(self.neg, self.state, lambda w: self.driver.decided_outside(state=w))

    def still_open(self, move: Move) -> bool:
        """Whether an agent's decision thought out in a worker still has its place in the game: the same moment
        of a sequential turn, or a decision of the simultaneous turn under way that is still open."""
        if self.is_human(move.player):  # a seat handed to a person meanwhile decides for itself
            return False
        if self.neg.game.simultaneous:
            return still_open(self.neg, self.state, move)
        return move.t == self.state.t and move.player == self.deciding

    def start_of_turn(self, proposer: int | None = None) -> State:
        """The turn under way as its proposer (default: the one in focus) meets it when offering: what an offer
        is built, previewed and suggested against (under simultaneous rules, whatever the others offered)."""
        s = self.state
        if not self.neg.game.simultaneous:
            return State(s.t, s.bits)
        return start_of_turn(self.neg, s, self.proposer if proposer is None else proposer)

    def keep_message(self, sender: str, to: str | None, text: str) -> None:
        """Something said at the table, into the record with the turn under way."""
        if self._writer and not self.over:  # after the result line a record takes nothing more
            try:
                self._writer.message(self.state.t, sender, to, text)
            except RecordCut as err:
                self._stop_recording(err)

    def _stop_recording(self, err: RecordCut) -> None:
        """A game is worth more than its record: play on unrecorded, and say why (`record_failed`)."""
        self._writer = None
        self.record_failed = err.reason

    # --- coaching ---------------------------------------------------------------------------------------
    @property
    def coach(self) -> Coach:
        if self._coach is None:
            self._coach = Coach(self.valuation, self.seating.respond_lens, lambda: self.exact_ready)
        return self._coach

    @property
    def has_unassessed(self) -> bool:
        return bool(self._unassessed)

    def assess_pending(self) -> list[Assessment]:
        """Assess the people's decisions of the turns finished since the last call (slow on large games:
        call it from a worker thread)."""
        todo, self._unassessed = self._unassessed, []
        out = []
        for move, before, ev in todo:
            if ev.outcomes:
                out.append(self._assess_simultaneous(move, before, ev))
            elif move.phase is Phase.PROPOSE and move.offer is not None:
                out.append(self.coach.proposal(before, move.offer, ev.accepted, ev.after))
            else:
                out.append(self.coach.response(before, bool(move.accept)))
        self.assessments += out
        return out

    def _assess_simultaneous(self, move: Move, before: State, ev: TurnEvent) -> Assessment:
        """A decision of a simultaneous turn, judged as its turn's only deal against the turn's start (the plain
        reading, which the coach pane names); an offer that was void says so beside values that count it."""
        offer = move.offer if move.phase is Phase.PROPOSE else before.pending
        assert offer is not None
        got = next(o for o in ev.outcomes if o.offer.proposer == offer.proposer)
        if move.phase is Phase.PROPOSE:
            start = start_of_turn(self.neg, before, offer.proposer)
            a = self.coach.proposal(start, offer, got.accepted, self.neg.next_state(start, offer, got.accepted))
        else:
            a = self.coach.response(before, bool(move.accept))
        if got.status != "void":
            return a
        whose = "your offer" if move.phase is Phase.PROPOSE else "the offer you accepted"
        why = void_words(self.neg.game, got)  # players and actions named as the turn log names them
        return replace(a, caveat=f"{whose} was void ({why}): it brought you nothing. The values below count it as the "
                                 "turn's only deal (the plain reading), so they cannot tell whether another offer "
                                 "would have stood")

    def hint(self) -> Assessment | None:
        """What each lens (and exact) would do now, for the person whose decision it is."""
        if not self.waiting_for_person() or not self.hints:
            return None
        s = self.state
        return self.coach.response_hint(s) if s.pending is not None else self.coach.proposal_hint(s)

    # --- what the panes show --------------------------------------------------------------------------
    def forecast(self, lens: str, s: State | None = None) -> np.ndarray:
        return self.valuation.forecast(s or self.state, lens)

    @property
    def baseline(self) -> np.ndarray:
        if self._baseline is None:
            self._baseline = no_negotiation(self.neg.game, self.neg.rules).payoffs
        return self._baseline

    def partner_options(self) -> list[PartnerOption]:
        """For a person proposing: per partner, the best offer each lens would make and its value to them
        (an assessment: the partners alone)."""
        s, out = self.start_of_turn(), []
        for q in self.neg.legal_partners(s):
            offers, values = {}, {}
            for lens in self.lenses if self.guided else ():
                o = self.valuation.best_offer(s, q, lens, self.seating.respond_lens(q) or lens)  # a person: same lens
                offers[lens], values[lens] = o, o.value_proposer - o.reject_proposer
            out.append(PartnerOption(q, offers, values))
        return out

    def only_a_pass(self) -> str | None:
        """Why the person proposing can do nothing but pass, if so: every commitment is made or ruled out; or
        their own actions all are, and under no lens would any partner accept an offer worth anything to them
        (the partner dialog would list every partner with "nothing" to offer, turn after turn).  Without
        guidance (an assessment) the lenses are not asked, and the person decides."""
        s = self.state
        free = free_cells(self.neg.game, s.bits)
        if not free:
            return "every commitment is made or ruled out, so there was nothing left to offer or ask for"
        p = self.proposer
        if not self.guided or any(int(self.neg.game.owner[c]) == p for c in free):
            return None
        if any(not offer.is_noop for option in self.partner_options() for offer in option.offers.values()):
            return None
        return ("its own actions are all made or ruled out, and under no lens would a partner accept an offer "
                "worth anything to it")

    def preview(self, q: int, cells: list[int]) -> Preview:
        """An offer of the proposer's under every lens, for both sides (what it would be worth; the
        move itself is checked when it is submitted)."""
        s = self.start_of_turn()
        if not cells:
            return Preview(None, None)
        try:
            offer = self.neg.offer(s, q, cells)
            self.neg.check_offer(s, offer)
        except IllegalMove as err:
            return Preview(None, str(err))
        p, val = offer.proposer, self.valuation
        mine, theirs, accepts = {}, {}, {}
        for lens in self.lenses:
            mine[lens] = LensView(*val.offer_value(s, offer, lens, p))
            theirs[lens] = view = LensView(*val.offer_value(s, offer, lens, q))
            accepts[lens] = bool(self.neg.rules.accepts(view.accept, view.reject))
        seat = self.seating.seats[q]
        return Preview(offer, None, mine, theirs, accepts, self.seating.respond_lens(q) or seat.label)

    def close(self) -> None:
        if self._writer:
            self._writer.close()
            self._writer = None
        self.seating.close()


__all__ = ["EXACT_AT_ONCE", "EXACT_IN_APP_LIMIT", "FORECAST_LENSES", "LiveGame", "exact_fits", "exact_not_offered"]
