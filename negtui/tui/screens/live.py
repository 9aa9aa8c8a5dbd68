"""Live play on the play screen: agents deciding in a worker, a person's turn (partner dialog, offer
builder, reply dialog), seats changing hands, the end of the game.

A mixin of `PlayScreen` (screens/play.py), which holds the layout and what both modes share."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.widgets import TabbedContent
from textual.worker import get_current_worker

from negtui.engine.completions import free_cells
from negtui.engine.negotiation import IllegalMove, Phase
from negtui.engine.turns import Move, TurnEvent
from negtui.narrate import offer_words, turn_line
from negtui.record import Replay, load_record, parent_at
from negtui.seats import Seat
from negtui.session import FORECAST_LENSES
from negtui.tui import palette
from negtui.tui.messages import (
    AgentDecided,
    AgentFailed,
    Coached,
    ExactDone,
    ExactProgress,
)
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import PartnerScreen, RespondScreen, SeatsScreen
from negtui.tui.screens.summary import SummaryScreen
from negtui.tui.sources import Earlier
from negtui.tui.widgets.coach import CoachPane, summary
from negtui.tui.widgets.panes import TextPane


class ExactCancelled(Exception):
    """Raised from the exact solve's progress callback when the person cancelled it."""

class LiveControls:
    # --- agents ----------------------------------------------------------------------------------------
    def live_step(self) -> None:
        """Let the agent whose decision it is decide (on a person's turn: open the partner dialog)."""
        ses = self.session
        if ses.over or self.thinking:
            return
        if self.live.person_to_move():
            if self._human_turn():
                self.action_partner()
            elif self.live.person_to_move(Phase.RESPOND):
                self._ask_person()  # the offer again, after escape put it aside
            return
        self.thinking = True
        self.query_one("#topbar", TextPane).show_text(self._topbar(self.snapshot()))
        self._think()

    @work(thread=True, exclusive=True, group="agent")
    def _think(self) -> None:
        try:
            moves = self.session.think()
        except Exception as err:  # shown to the user; the game stays as it was
            self.post_message(AgentFailed(str(err) or type(err).__name__))
            return
        self.post_message(AgentDecided(moves))

    def on_agent_failed(self, message: AgentFailed) -> None:
        self.thinking = False
        self.autoplay.stop()
        self.set_status(Text(f"a bot could not move: {message.text}", style=palette.NEGATIVE))
        self.refresh_panes()

    def on_agent_decided(self, message: AgentDecided) -> None:
        self.thinking = False
        ses = self.session
        for k, move in enumerate(message.moves):
            if ses is None or move.t != ses.state.t or move.player != ses.deciding or ses.is_human(move.player):
                return  # the game moved on, or the seat was handed to a person while its agent was thinking
            self._submit(move, advance=k == len(message.moves) - 1)

    # --- the exact solution, solved in the background ----------------------------------------------------
    exact_solving = False

    def start_exact(self) -> None:
        """Games too large to solve in a blink (over EXACT_AT_ONCE states) are solved in a thread: the
        game goes on meanwhile, the status shows the progress, c cancels; forecasts and coaching add the
        exact solution when it is there."""
        ses = self.session
        if ses is None or not ses.exact_available or ses.exact_ready:
            return
        self.exact_solving = True
        self.set_status("solving the exact game in the background … (c cancels)")
        self.refresh_bindings()
        self._solve_exact()

    @work(thread=True, exclusive=True, group="exact")
    def _solve_exact(self) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise ExactCancelled
            self.post_message(ExactProgress(done, total))

        try:
            self.session.neg.solve_exact(progress)
        except ExactCancelled:
            self.post_message(ExactDone(cancelled=True))
            return
        self.post_message(ExactDone())

    def on_exact_progress(self, message: ExactProgress) -> None:
        if self.exact_solving:
            self.set_status(f"solving the exact game: {message.done}/{message.total} turns solved (c cancels); "
                            "forecasts and coaching add it when done")

    def on_exact_done(self, message: ExactDone) -> None:
        self.exact_solving = False
        self.refresh_bindings()
        if message.cancelled:
            self.set_status("exact solve cancelled: forecasts and coaching go on without it")
            return
        self.set_status("exact solution ready: the forecasts' exact column and the coach now include it")
        self.refresh_panes()

    def action_cancel_exact(self) -> None:
        if self.exact_solving:
            self.workers.cancel_group(self, "exact")
            self.set_status("cancelling the exact solve …")

    # --- coaching ---------------------------------------------------------------------------------------
    @work(thread=True, group="coach")
    def _assess(self) -> None:
        self.post_message(Coached(self.session.assess_pending()))

    def action_hint(self) -> None:
        if self.check_action("hint", ()):
            self.set_status("hint: asking every lens …")
            self._hint()

    @work(thread=True, exclusive=True, group="hint")
    def _hint(self) -> None:
        a = self.session.hint()
        if a is not None:
            self.post_message(Coached([a], hint=True))

    def on_coached(self, message: Coached) -> None:
        if not message.assessments:
            return
        self.coaching = list(message.assessments)
        last = message.assessments[-1]
        line = Text(self.query_one("#status", TextPane).plain.split("\n")[0] if not message.hint else "")
        if line.plain:
            line.append("\n")
        line.append(summary(self.game, last), style=palette.NEGATIVE if last.cost > 1e-9 else palette.POSITIVE)
        self.set_status(line)
        if message.hint or self.session.coach_pane_first:
            self.query_one(TabbedContent).active = "coach"
        if self.query_one(TabbedContent).active == "coach":
            self.query_one(CoachPane).show(self.game, self.coaching)

    # --- what happens next ------------------------------------------------------------------
    def _submit(self, move: Move, advance: bool = True) -> None:
        try:
            ev = self.live.submit(move)
        except IllegalMove as err:
            self.set_status(Text(str(err), style=palette.NEGATIVE))
            return
        if ev is not None:
            self._turn_ended(ev)
        elif advance:
            self.refresh_panes()
        if advance:
            self.advance()

    def _turn_ended(self, ev: TurnEvent) -> None:
        line = Text(turn_line(self.game, ev))
        if ev.fault:
            line.stylize(palette.NEGATIVE)
        self.set_status(line)
        if self.session.has_unassessed:
            self._assess()
        if self.running and not self.session.over:
            self.redraw_soon()
        else:
            self.refresh_panes()

    def advance(self) -> None:
        """What happens next: the summary, a person's prompt, an agent's answer, or the next autoplayed turn."""
        if self.playback:
            return
        ses, live = self.session, self.live
        if ses.over:
            self.autoplay.stop()
            self.refresh_panes()
            if not self._summary_shown:
                self._summary_shown = True
                self._show_summary()
            return
        if live.person_to_move(Phase.RESPOND):
            self._ask_person()
            return
        if live.person_proposing:
            if not free_cells(self.game, ses.state.bits):
                who = self.game.player_ids[ses.proposer]
                self._submit(self.live.pass_move(), advance=False)
                self.set_status(f"{who} passed: every commitment is made or ruled out, so there was nothing left to "
                                "offer or ask for")
                self.advance()  # whatever comes next says so itself
                return
            if self.prompted_turn != ses.state.t and self.offer_partner is None:
                self.prompted_turn = ses.state.t
                self.set_status(f"{self.game.player_ids[ses.proposer]}, your turn: pick a partner (p) or pass (x)")
                self.action_partner()
            return
        if ses.driver.phase is Phase.RESPOND:
            self.live_step()  # an agent answers an offer at once, autoplay or not
        elif self.running:
            self.autoplay.later(self.live_step)

    def _ask_person(self) -> None:
        g, ses = self.game, self.session
        offer = ses.pending
        words = offer_words(g, offer.bits, offer.proposer, offer.partner)
        preview = ses.preview(offer.partner, list(offer.cells))
        title = f"{g.player_ids[offer.proposer]} offers {g.player_ids[offer.partner]} a deal"
        self.refresh_panes()

        def answer(accept: bool | None) -> None:
            if accept is None:  # escape: the offer waits; n or space shows it again
                self.set_status(f"{title}: it waits for your answer — n (or space) shows it again")
                return
            self._submit(ses.answer(accept))

        if not any(isinstance(s, RespondScreen) for s in self.app.screen_stack):
            self.app.push_screen(RespondScreen(title, words, preview, g.player_ids[offer.partner]), answer)

    # --- a person's offer ----------------------------------------------------------------------
    def action_partner(self) -> None:
        if not self._human_turn() or any(isinstance(s, PartnerScreen) for s in self.app.screen_stack):
            return  # a step of autoplay scheduled before the person's turn must not open a second dialog
        ses, g = self.session, self.game
        options = ses.partner_options()

        def chosen(q: int | tuple[int, list[int]] | None) -> None:
            if q is None:
                return
            if q == -1:
                self.action_pass_turn()
                return
            cells: list[int] = []
            if isinstance(q, tuple):  # the suggested offer, loaded to be edited
                q, cells = q
            self.live.start_offer(q)
            self.live.offer_cells.update(cells)
            self.set_status(f"offer to {g.player_ids[q]}: move with arrows, enter toggles a cell, o submits, "
                            "escape picks another partner")
            self.refresh_panes()

        self.app.push_screen(PartnerScreen(g.player_ids[ses.proposer], g.player_ids, options,
                                           lambda o: offer_words(g, o.bits, o.proposer, o.partner)), chosen)

    def action_submit(self) -> None:
        if not self._human_turn() or self.offer_partner is None:
            return
        try:
            move = self.live.offer_move()
        except IllegalMove as err:
            self.set_status(Text(str(err), style=palette.NEGATIVE))
            return
        self._submit(move)

    def action_pass_turn(self) -> None:
        if self._human_turn():
            self._submit(self.live.pass_move())

    def action_back(self) -> None:
        if self.offer_partner is not None:
            self.live.clear_offer()
            self.refresh_panes()
            self.action_partner()

    def action_seats(self) -> None:
        if not self.session or not self.app.seat_changes:
            return
        ses = self.session

        def done(seats: dict[str, Seat] | None) -> None:
            if not seats:
                return
            for pid, seat in seats.items():
                if seat != ses.seats[pid]:
                    try:
                        ses.set_seat(pid, seat)
                    except (IllegalMove, ValueError) as err:
                        self.set_status(Text(str(err), style=palette.NEGATIVE))
            self.prompted_turn = -1
            self.refresh_panes()
            self.advance()

        self.app.push_screen(SeatsScreen(ses.seats, ses.lenses, base=self.app.base, start="Apply"), done)

    def _show_summary(self) -> None:
        ses = self.session
        first = {lens: ses.history[lens][0] for lens in FORECAST_LENSES}
        if any(ses.is_human(i) for i in range(self.game.n)):
            retry = self._retry_from if self.app.may_retry() else None
            self.app.push_screen(DebriefScreen(ses, first, retry=retry, done=self.app.debriefed),
                                 lambda _: self.app.after_game())
            return
        self.app.push_screen(SummaryScreen(self.neg, self.neg.returns(ses.state), ses.baseline, first,
                                           str(ses.record_path) if ses.record_path else None),
                             lambda _: self.app.after_game())

    def _retry_from(self, t: int) -> None:
        """Play again from before turn t, with the same seats (a fork of this game's record)."""
        ses = self.session
        before = ses.events[t - ses.start.t].before
        parent = parent_at(Replay(load_record(ses.record_path)), t) if ses.record_path else None
        game = self.game
        budget = game.budget if game.budget != game.scenario.protocol.budget else None
        k, prior = t - ses.start.t, self.source.earlier  # the log and trends keep the turns before
        earlier = Earlier((*prior.events, *ses.events[:k]), (*prior.payoffs, *ses.payoff_history[:k]))
        self.app.start_session(game.scenario, self.neg.rules, ses.seats, start=before, parent=parent, budget=budget,
                               earlier=earlier)
