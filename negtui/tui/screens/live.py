"""A game played now: what happens after each move (the summary, a person's prompt, an agent's answer, the
next autoplayed turn), a person's decision checked by the rules, the reply dialog, seats changing hands.

Everything it knows of the game comes from its `LiveSource`: a person's decision goes in (and is
checked once, by the rules), a snapshot comes out and the view redraws from it.  The rest of the screen is
in its parts: the agents' turns (bot_turns.py), a person's offer (offer_builder.py), coaching
(coaching.py), the end (game_end.py), the exact solve (exact_solve.py); the dialogs it keeps for the
whole game are in kept_dialogs.py."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text

from negtui.engine.negotiation import IllegalMove, Phase
from negtui.engine.turns import TurnEvent
from negtui.names import player_labels, player_names
from negtui.narrate import offer_words, turn_line
from negtui.play.simultaneous import offers_to_answer
from negtui.play.sources import LiveSource
from negtui.seats import Seat
from negtui.tui import palette
from negtui.tui.keys import LIVE, KeyContext, bindings
from negtui.tui.screens.bot_turns import BotTurns
from negtui.tui.screens.coaching import Coaching
from negtui.tui.screens.dialogs import RespondScreen
from negtui.tui.screens.exact_solve import ExactSolving
from negtui.tui.screens.game_end import GameEnd
from negtui.tui.screens.kept_dialogs import KeptDialogs
from negtui.tui.screens.offer_builder import OfferBuilding
from negtui.tui.screens.seats import SeatsScreen
from negtui.tui.simultaneous import decided_words, proposer_prompt, respond_note, settled_status


class LiveScreen(BotTurns, OfferBuilding, Coaching, GameEnd, ExactSolving):
    MODE = LIVE
    BINDINGS = bindings(LIVE)

    def __init__(self, source: LiveSource) -> None:
        super().__init__(source)
        self.source: LiveSource = source
        self.prompted_turn: int | tuple[int, int] = -1  # the turn (and proposer, simultaneous) last prompted
        self._summary_shown = False
        self._record_failure_shown = False
        self._dialogs = KeptDialogs(self)
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
            self.app.push_screen(self._dialogs.filled(RespondScreen, title, words, preview, names[offer.partner]),
                                 answer)

    def _offer_key(self) -> tuple[int, int, int, int] | None:
        """The pending offer, told apart from any other (the turn, who offers whom, what)."""
        offer = self.source.pending
        return None if offer is None else (self.source.state.t, offer.proposer, offer.partner, offer.bits)

    def on_unmount(self) -> None:
        self._dialogs.uninstall()

    # --- seats changing hands ---------------------------------------------------------------------------
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
