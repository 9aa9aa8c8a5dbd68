"""A game played now: agents deciding in a worker, a person's turn (partner dialog, offer builder,
reply dialog), the exact solution solved in the background, coaching, seats changing hands, the end.

Everything it knows of the game comes from its `LiveSource`: a person's decision goes in (and is
checked once, by the rules), a snapshot comes out and the view redraws from it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import suppress
from typing import Any, TypeVar, cast

from rich.text import Text
from textual import events, on, work
from textual.timer import Timer
from textual.worker import WorkerCancelled, WorkerFailed

from negtui.engine.negotiation import IllegalMove, Phase
from negtui.engine.turns import TurnEvent
from negtui.names import player_label, player_labels, player_names
from negtui.narrate import offer_words, turn_line
from negtui.play.simultaneous import offers_to_answer
from negtui.play.sources import LiveSource
from negtui.seats import Seat
from negtui.tui import palette
from negtui.tui.keys import LIVE, KeyContext, bindings
from negtui.tui.messages import AgentDecided, AgentFailed, Coached
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import ConfirmScreen, PartnerScreen, RespondScreen
from negtui.tui.screens.exact_solve import ExactSolving
from negtui.tui.screens.seats import SeatsScreen
from negtui.tui.screens.summary import SummaryScreen
from negtui.tui.simultaneous import decided_words, proposer_prompt, respond_note, settled_status
from negtui.tui.widgets.coach import summary
from negtui.tui.widgets.matrix import CommitmentMatrix

D = TypeVar("D", PartnerScreen, RespondScreen)

THINKING_SHOWN_AFTER = 0.15  # seconds a bot has been deciding before the headline says so


class LiveScreen(ExactSolving):
    MODE = LIVE
    BINDINGS = bindings(LIVE)

    def __init__(self, source: LiveSource) -> None:
        super().__init__(source)
        self.source: LiveSource = source
        self.thinking = False
        self._thinking_shown: Timer | None = None
        self.prompted_turn: int | tuple[int, int] = -1  # the turn (and proposer, simultaneous) last prompted
        self._summary_shown = False
        self._record_failure_shown = False
        self._coach_line: Text | None = None  # the coach's word on the last decision, until another turn ends
        self._dialogs: dict[type, PartnerScreen | RespondScreen] = {}  # see _kept
        self._aside: tuple[int, int, int, int] | None = None  # the offer the person put aside with escape

    def mounted(self) -> None:
        super().mounted()
        lesson = self.game.scenario.lesson
        if lesson and self.source.state.t == 0 and self.host.lessons_in_game:
            self.set_status(f"lesson (l): {lesson.split('. ')[0].rstrip('.')}.")
        self.call_after_refresh(self.advance)
        self.call_after_refresh(self.start_exact)

    def key_context(self) -> KeyContext:
        src, app = self.source, self.host
        return KeyContext(self.MODE, over=src.over, person_to_move=src.person_to_move(),
                          person_proposing=src.person_proposing, drafting=src.partner is not None,
                          seat_changes=app.seat_changes, hints=src.hints, exact_solving=self.exact_solving,
                          lesson=self.lesson_allowed(), secret=src.game.known is not None, guided=src.guided)

    def lesson_allowed(self) -> bool:
        secret = self.source.game.known is not None  # a lesson tells everyone's values
        return bool(self.game.scenario.lesson) and ((self.host.lessons_in_game and not secret) or self.source.over)

    def set_thinking(self, thinking: bool) -> None:
        """The headline says "thinking…" only for a decision that takes a while: a fast autoplay would
        otherwise redraw it twice a turn, for a flash nobody can read."""
        self.thinking = thinking
        if self._thinking_shown is not None:
            self._thinking_shown.stop()
            self._thinking_shown = None
        if thinking:
            self._thinking_shown = self.set_timer(THINKING_SHOWN_AFTER, self._show_thinking)
        elif self.view.thinking:
            self.view.thinking = False

    def _show_thinking(self) -> None:
        self._thinking_shown = None
        self.view.thinking = self.thinking

    # --- agents ----------------------------------------------------------------------------------------
    def action_step(self) -> None:
        """Let the agent whose decision it is decide (on a person's turn: open the partner dialog)."""
        src = self.source
        if src.over or self.thinking:
            return
        if src.person_to_move():
            if src.person_proposing:
                self.action_partner()
            else:
                self._ask_person()  # the offer again, after escape put it aside
            return
        if self.wait_for_exact():  # its first move needs the whole solution: solved with progress, not in a blink
            return
        self.set_thinking(True)
        self._think()

    @work(thread=True, exclusive=True, group="agent")
    def _think(self) -> None:
        try:
            moves = self.source.think()
        except Exception as err:  # shown to the user; the game stays as it was
            self.post_message(AgentFailed(str(err) or type(err).__name__))
            return
        self.post_message(AgentDecided(moves))

    def on_agent_failed(self, message: AgentFailed) -> None:
        self.set_thinking(False)
        self.autoplay.stop()
        self.set_status(Text(f"a bot could not move: {message.text}", style=palette.NEGATIVE))
        self.show_snapshot()

    def on_agent_decided(self, message: AgentDecided) -> None:
        self.set_thinking(False)
        for ev in self.source.commit(message.moves):
            self._turn_ended(ev)
        self.advance()

    def autoplay_started(self) -> None:
        if self.source.person_to_move():
            self.advance()  # a person's turn: prompted once, not again
        else:
            self.action_step()  # an agent's turn: at once

    def _autoplay_step(self) -> None:
        """Autoplay's next step, due a moment after it was scheduled: by then it may be a person's turn, which
        was prompted as it came (advance) and may have been put aside (escape): a step leaves it as it is,
        where the step key opens it again."""
        if not self.source.person_to_move():
            self.action_step()

    # --- what happens next -----------------------------------------------------------------------------
    def _turn_ended(self, ev: TurnEvent) -> None:
        self._coach_line = None  # it was about an earlier turn
        if ev.simultaneous:  # a line per offer would not fit: the count and the people's offers, faults marked
            line = settled_status(self.game, ev, self.source.own_seats())
        else:
            line = Text(turn_line(self.game, ev))
            if ev.fault:
                line.stylize(palette.NEGATIVE)
        self.set_status(line)
        if self.source.has_unassessed:
            self._assess()
        failed = self.source.game.record_failed
        if failed and not self._record_failure_shown:
            self._record_failure_shown = True
            self.notify(f"recording stopped: {failed}. The game goes on unrecorded.", severity="error", timeout=30)

    def advance(self) -> None:
        """What happens next: the summary, a person's prompt, an agent's answer, or the next autoplayed turn."""
        src = self.source
        if src.over:
            self.autoplay.stop()
            self.show_snapshot()
            if not self._summary_shown:
                self._summary_shown = True
                self._show_ending()
            return
        if self.autoplay.running and not src.person_to_move():
            self.show_soon()
        else:
            self.show_snapshot()
        if src.person_to_move() and not src.person_proposing:
            if self._aside != self._offer_key():  # put aside, it stays aside until asked for (n, space)
                self._ask_person()
        elif src.person_proposing:
            self._prompt_proposer()
        elif src.phase is Phase.RESPOND:
            self.action_step()  # an agent answers an offer at once, autoplay or not
        elif src.turn_started:
            self.action_step()  # the agents' offers of a simultaneous turn a person has offered in: at once
        elif self.autoplay.running:
            self.autoplay.later(self._autoplay_step)

    def _prompt_proposer(self) -> None:
        src, g = self.source, self.game
        who = player_names(g.scenario)[src.proposer]
        only_a_pass = src.game.only_a_pass()
        if only_a_pass:
            self._decide(src.pass_turn, advance=False)
            self.set_status(f"{who} passed: {only_a_pass}")
            self.advance()  # whatever comes next says so itself
            return
        prompt = (src.state.t, src.proposer) if src.simultaneous else src.state.t  # each person of the turn once
        if self.prompted_turn != prompt and src.partner is None:
            self.prompted_turn = prompt
            k = len(g.proposers(src.state.t))
            words = Text(proposer_prompt(who, k) if k > 1 else f"{who}, your turn: pick a partner (p) or pass (x)")
            if self._coach_line is not None:  # coached before this prompt came: the prompt does not erase it
                words.append("\n").append_text(self._coach_line)
            self.set_status(words)
            self.action_partner()

    def _decide(self, decision: Callable[..., TurnEvent | None], *args: object, advance: bool = True) -> None:
        """A person's decision: the rules check it (once); a refused one keeps the game where it was."""
        src = self.source
        who, phase = (src.proposer, src.phase) if src.simultaneous else (-1, Phase.TERMINAL)
        try:
            ev = decision(*args)
        except IllegalMove as err:
            self.set_status(Text(str(err), style=palette.NEGATIVE))
            self.show_snapshot()
            return
        if ev is None and src.simultaneous:  # a simultaneous turn goes on: the last prompt is over
            self.set_status(decided_words(self.game, who, phase))
        if ev is not None:
            self._turn_ended(ev)
            if self.autoplay.running and not self.source.over:  # or r, read as "go on", would pause it unawares
                self.set_status(Text(self.view.status_text).append("  · autoplay runs on: r pauses it", style="dim"))
        if advance:
            self.advance()

    # --- a person's answer ----------------------------------------------------------------------------
    def _ask_person(self) -> None:
        g, src = self.game, self.source
        offer = src.pending
        assert offer is not None
        words = offer_words(g, offer.bits, offer.proposer, offer.partner, whole=True)  # to be read in full
        preview = src.preview(offer.partner, frozenset(offer.cells))
        names = player_names(g.scenario)
        title = f"{names[offer.proposer]} offers {names[offer.partner]} a deal"
        k = len(g.proposers(src.state.t))
        if k > 1:  # a simultaneous turn: which of the offers to this person, and how the turn settles
            words += respond_note(*offers_to_answer(src.state, offer.partner), k)

        def answer(accept: bool | None) -> None:
            if accept is None:  # escape: the offer waits; n or space shows it again (nothing else does)
                self._aside = self._offer_key()
                self.set_status(f"{title}: it waits for your answer — n (or space) shows it again")
                return
            self._decide(src.answer, accept)

        if not any(isinstance(s, RespondScreen) for s in self.app.screen_stack):
            self.app.push_screen(self._kept(RespondScreen, title, words, preview, names[offer.partner]), answer)

    def _offer_key(self) -> tuple[int, int, int, int] | None:
        """The pending offer, told apart from any other (the turn, who offers whom, what)."""
        offer = self.source.pending
        return None if offer is None else (self.source.state.t, offer.proposer, offer.partner, offer.bits)

    # --- a person's offer ----------------------------------------------------------------------------
    def action_partner(self) -> None:
        src, g = self.source, self.game
        if not src.person_proposing or any(isinstance(s, PartnerScreen) for s in self.app.screen_stack):
            return  # a step of autoplay scheduled before the person's turn must not open a second dialog

        def chosen(q: int | tuple[int, list[int]] | None) -> None:
            if q is None:
                return
            if q == -1:
                self.action_pass_turn()
                return
            cells: list[int] = []
            if isinstance(q, tuple):  # the suggested offer, loaded to be edited
                q, cells = q
            src.draft(q, tuple(cells))
            self.set_status(f"offer to {player_names(g.scenario)[q]}: move with arrows, enter toggles a cell, "
                            "o submits, escape picks another partner")
            self.show_snapshot()

        names = player_names(g.scenario)
        self.app.push_screen(self._kept(PartnerScreen, names[src.proposer], names, src.partner_options(),
                                        lambda o: offer_words(g, o.bits, o.proposer, o.partner),
                                        suggest=src.guided, labels=[player_label(p) for p in g.scenario.players]),
                             chosen)

    def _kept(self, kind: type[D], *args: Any, **kwargs: Any) -> D:
        """The game's one dialog of this kind, filled for this decision: made and installed the first time,
        refilled after, so a turn costs the lines that changed, not a dialog composed, styled and laid out
        from scratch (a trainee opens one a dozen times a game)."""
        dialog = self._dialogs.get(kind)
        if dialog is None:
            dialog = self._dialogs[kind] = kind(*args, **kwargs)
            self.app.install_screen(dialog, f"{kind.__name__}-{id(self)}")
            return dialog
        return cast(D, dialog).refill(*args, **kwargs)

    def on_unmount(self) -> None:
        for dialog in self._dialogs.values():
            if dialog not in self.app.screen_stack:  # on the stack, the app is closing: it goes with it
                self.app.uninstall_screen(dialog)

    def action_load_best(self) -> None:
        """In the offer builder: the suggested offer to the partner chosen, to edit from."""
        src, g = self.source, self.game
        if not (src.person_proposing and src.partner is not None and src.guided):
            return
        option = next((o for o in src.partner_options() if o.partner == src.partner), None)
        best = None if option is None else option.suggested
        if best is None:
            self.set_status("no suggested offer to this partner")
            return
        src.draft(src.partner, tuple(best.cells))
        self.set_status(f"the suggested offer to {player_names(g.scenario)[src.partner]} loaded: enter toggles a cell, "
                        "o submits")
        self.show_snapshot()

    @on(CommitmentMatrix.CellToggled)
    def toggle(self, event: CommitmentMatrix.CellToggled) -> None:
        if not self.source.person_proposing:
            return
        problem = self.source.toggle(event.cell)
        if problem:
            self.view.status_until_moved(problem)
            return
        self.show_snapshot()

    def on_key(self, event: events.Key) -> None:
        """`o` before a partner is chosen (the partner dialog closed with escape) is not a usable key, so the key
        bar leaves it out; pressed anyway, it says why and asks whom the offer goes to, rather than nothing."""
        src = self.source
        if event.key == "o" and src.person_proposing and src.partner is None:
            event.stop()
            event.prevent_default()
            self.notify("Choose a partner first: an offer goes to one player (or to yourself alone).", timeout=6)
            self.action_partner()

    def action_submit(self) -> None:
        src = self.source
        if not (src.person_proposing and src.partner is not None):
            return
        if src.cells:
            self._decide(src.propose)
            return

        def empty(yes: bool | None) -> None:
            if yes and src.person_proposing:
                self._decide(src.pass_turn)

        to = "" if src.partner == src.proposer else f" to {self.game.player_ids[src.partner]}"
        self.app.push_screen(ConfirmScreen("Pass the turn?", f"Your offer{to} has nothing in it: sending it "
                                           "passes the turn. y passes, n goes back to the offer."), empty)

    def action_pass_turn(self) -> None:
        if self.source.person_proposing:
            self._decide(self.source.pass_turn)

    def action_back(self) -> None:
        if self.source.partner is not None:
            self.source.clear_draft()
            self.show_snapshot()
            self.action_partner()

    # --- coaching ---------------------------------------------------------------------------------------
    @work(thread=True, group="coach")
    def _assess(self) -> None:
        assessed = self.source.assess()
        if assessed:
            self.post_message(Coached(assessed))

    def action_hint(self) -> None:
        if self.check_action("hint", ()):
            self.set_status("hint: asking every lens …")
            self._hint()

    @work(thread=True, exclusive=True, group="hint")
    def _hint(self) -> None:
        a = self.source.hint()
        if a is not None:
            self.post_message(Coached([a], hint=True))

    def on_coached(self, message: Coached) -> None:
        if not message.assessments or not self.source.guided:  # an assessment: kept for the debrief
            return
        view = self.view
        view.coaching = tuple(message.assessments)
        last = message.assessments[-1]
        line = Text(view.status_text.split("\n")[0] if not message.hint else "")
        if line.plain:
            line.append("\n")
        style = palette.NEGATIVE if last.cost > 1e-9 else palette.POSITIVE
        coach = Text(summary(self.game, last, reason=False, caveat=False) + (" (the coach pane says why)"
                                                                             if last.cost > 1e-9 else ""), style=style)
        if any(a.caveat for a in message.assessments):  # a simultaneous turn's void offer: the pane says it in full
            coach.append(" · a void offer: the coach pane (5) says what these values leave out", style=palette.NEGATIVE)
        if not message.hint:
            self._coach_line = coach
        self.set_status(line.append_text(coach))
        if message.hint or self.source.coach_pane_first:
            view.show_pane("coach")

    # --- seats and the end ------------------------------------------------------------------------------
    def action_seats(self) -> None:
        if not self.host.seat_changes:
            return

        def done(seats: dict[str, Seat] | None) -> None:
            if not seats:
                return
            for problem in self.source.set_seats(seats):
                self.set_status(Text(problem, style=palette.NEGATIVE))
            self.prompted_turn = -1
            self.start_exact()  # a seat given to the exact lens: solved now, with progress
            self.advance()

        src = self.source
        labels = player_labels(self.game.scenario)  # names, as on starting
        self.app.push_screen(SeatsScreen(src.seats, src.lenses, base=self.host.base, start="Apply", labels=labels),
                             done)

    def _show_ending(self) -> None:
        if self._assessing():  # the last decisions judged first: the debrief's costliest are made from them
            self._ending_once_assessed()
            return
        ending = self.source.ending()
        if ending.people:
            retry = self._retry_from if self.host.may_retry() else None
            self.app.push_screen(DebriefScreen(ending, retry=retry, done=self.host.debriefed,
                                               score=self.host.score_words(ending)),
                                 lambda _: self.host.after_game())
            return
        game = ending.game
        self.app.push_screen(SummaryScreen(game.neg, game.neg.returns(game.state), game.baseline,
                                           ending.first_forecasts, str(game.record_path) if game.record_path else None),
                             lambda _: self.host.after_game())

    def _assessing(self) -> bool:
        return self.source.has_unassessed or any(w.node is self and w.group == "coach" and not w.is_finished
                                                 for w in self.app.workers)

    @work(group="ending")
    async def _ending_once_assessed(self) -> None:
        for worker in [w for w in self.app.workers if w.node is self and w.group == "coach"]:
            with suppress(WorkerCancelled, WorkerFailed):  # a failed assessment leaves its decision out
                await worker.wait()
        if self.source.has_unassessed:
            await asyncio.to_thread(self.source.assess)
        self._show_ending()

    def _retry_from(self, t: int) -> None:
        """Play again from before turn t, with the same seats (a fork of this game's record)."""
        self.host.start_game(self.source.retry_from(t))

    def leave_question(self) -> tuple[str, str] | None:
        """What `q` asks before leaving (title, text), or None to leave at once."""
        if not self.host.asks_before_leaving or self.source.over:
            return None
        return ("Leave the game?", "It is kept as far as it got: the lobby offers to resume it from here. y leaves, "
                                   "n stays.")

    def action_quit(self) -> None:
        question = self.leave_question()
        if question is None:
            self.leave()
            return

        def leave(yes: bool | None) -> None:
            if yes:
                self.leave()

        self.app.push_screen(ConfirmScreen(*question), leave)

    def leave(self) -> None:
        self.source.close()
        self.host.leave_game()
