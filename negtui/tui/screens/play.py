"""The main screen: the game as it moves, fed by a live session or a replayed record (tui/sources.py).

Agents decide in a worker thread and post `AgentDecided`; people decide through the partner dialog,
the offer builder on the matrix and the reply dialog.  Every decision goes to the source's `submit`,
then `advance` works out what happens next."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent, TabPane

from negtui.engine.negotiation import IllegalMove, Phase, State
from negtui.engine.turns import Move, TurnEvent
from negtui.narrate import offer_words, turn_line
from negtui.record import Replay, parent_at
from negtui.seats import Seat
from negtui.session import FORECAST_LENSES, Session
from negtui.tui import palette
from negtui.tui.autoplay import Autoplay
from negtui.tui.keys import bindings
from negtui.tui.messages import AgentDecided, AgentFailed
from negtui.tui.screens.dialogs import (
    HelpScreen, JumpScreen, LessonScreen, PartnerScreen, RespondScreen, SeatsScreen,
)
from negtui.tui.screens.summary import SummaryScreen
from negtui.tui.screens.welfare import WelfareScreen
from negtui.tui.snapshot import Snapshot
from negtui.tui.sources import LiveSource, ReplaySource
from negtui.tui.widgets.matrix import LEGEND, CommitmentMatrix
from negtui.tui.widgets.panes import CellInfo, DealNetwork, Forecasts, GoalBars, TextPane, TurnLog


class PlayScreen(Screen):
    BINDINGS = bindings()

    def __init__(self, session: Session | None = None, replay: Replay | None = None) -> None:
        super().__init__()
        if (session is None) == (replay is None):
            raise ValueError("a play screen shows a session or a replay")
        self.source: LiveSource | ReplaySource = LiveSource(session) if session else ReplaySource(replay)
        self.autoplay = Autoplay(self)
        self.thinking = False
        self.focused_cell: int | None = None
        self.prompted_turn = -1
        self._summary_shown = False
        self._keys: tuple[bool, ...] = ()

    # --- the source ------------------------------------------------------------------------------------
    @property
    def live(self) -> LiveSource | None:
        return self.source if isinstance(self.source, LiveSource) else None

    @property
    def playback(self) -> ReplaySource | None:
        return self.source if isinstance(self.source, ReplaySource) else None

    @property
    def session(self) -> Session | None:
        return self.live.session if self.live else None

    @property
    def replay(self) -> Replay | None:
        return self.playback.replay if self.playback else None

    @property
    def game(self):
        return self.source.neg.game

    @property
    def neg(self):
        return self.source.neg

    @property
    def state(self) -> State:
        return self.source.state

    @property
    def pos(self) -> int:
        return self.playback.pos if self.playback else self.state.t

    @property
    def offer_partner(self) -> int | None:
        return self.live.offer_partner if self.live else None

    @property
    def offer_cells(self) -> set[int]:
        return self.live.offer_cells if self.live else set()

    @property
    def running(self) -> bool:
        return self.autoplay.running

    @property
    def speed(self) -> int:
        return self.autoplay.speed

    def snapshot(self) -> Snapshot:
        return self.source.snapshot()

    # --- layout ---------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TextPane(id="topbar")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                with VerticalScroll(id="matrix-box"):
                    yield CommitmentMatrix(id="matrix")
                yield Static(LEGEND, id="legend")
                yield CellInfo(id="cell-info")
                yield Static("", id="offer-panel")
            with TabbedContent(id="side", initial="forecasts"):
                with TabPane("Goals", id="goals"):
                    with VerticalScroll():
                        yield GoalBars(id="goal-bars")
                with TabPane("Forecasts", id="forecasts"):
                    with VerticalScroll():
                        yield Forecasts(id="forecast-table")
                with TabPane("Log", id="log"):
                    with VerticalScroll(id="log-scroll"):
                        yield TurnLog(id="turn-log")
                with TabPane("Network", id="network"):
                    with VerticalScroll():
                        yield DealNetwork(id="deal-network")
        yield TextPane(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(CommitmentMatrix).focus()
        self.refresh_panes()
        lesson = self.game.scenario.lesson
        if lesson and self.state.t == 0:
            self.set_status(f"lesson (l): {lesson.split('. ')[0].rstrip('.')}.")
        self._dirty = False
        # during autoplay turns can come faster than a terminal needs frames: redraw at most 10 times a
        # second, so key presses never queue behind a backlog of repaints
        self.set_interval(0.1, self._refresh_if_dirty)
        self.call_after_refresh(self.advance)

    def _refresh_if_dirty(self) -> None:
        if self._dirty:
            self._dirty = False
            self.refresh_panes()

    def refresh_panes(self) -> None:
        """Redraw what is visible; the hidden side panes redraw when their tab is opened."""
        snap = self.snapshot()
        self.query_one(CommitmentMatrix).update(snap)
        self._refresh_side(snap)
        self.query_one(CellInfo).show(snap, self.focused_cell)
        self.query_one("#topbar", TextPane).show_text(self._topbar(snap))
        self._show_offer_panel()
        keys = tuple(bool(self.check_action(a, ())) for a in ("step", "partner", "submit", "seats"))
        if keys != self._keys:  # re-rendering the footer is costly: only when the usable keys change
            self._keys = keys
            self.refresh_bindings()

    def _refresh_side(self, snap: Snapshot | None = None) -> None:
        snap = snap or self.snapshot()
        pane = self.query_one(TabbedContent).active
        if pane == "goals":
            focus_player = int(self.game.owner[self.focused_cell]) if self.focused_cell is not None else 0
            self.query_one(GoalBars).show(snap, focus_player)
        elif pane == "forecasts":
            self.query_one(Forecasts).show(snap)
        elif pane == "log":
            self.query_one(TurnLog).show(snap)
            self.query_one("#log-scroll", VerticalScroll).scroll_end(animate=False)
        elif pane == "network":
            self.query_one(DealNetwork).show(snap)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._refresh_side()

    def _topbar(self, snap: Snapshot) -> Text:
        g, s = self.game, snap.state
        rounds = max(1, (g.T + g.n - 1) // g.n)
        t = Text(no_wrap=True, overflow="ellipsis")
        if snap.proposer is not None:
            t.append(f" ▶ {g.player_ids[snap.proposer]} ({snap.seats[snap.proposer]}) ", style=f"bold reverse {palette.SKY}")
        else:
            t.append(" game over ", style="bold reverse")
        t.append(f" turn {min(s.t + 1, g.T)}/{g.T} · round {min(s.t // g.n + 1, rounds)}/{rounds}")
        if self.replay:
            t.append(f" · REPLAY {self.pos}/{self.replay.last_turn}", style="bold")
        if self.running:
            t.append(f" · ▶▶ {self.autoplay.delay:g}s", style=palette.GREEN)
        if self.thinking:
            t.append(" · thinking…", style="italic")
        t.append(f" · {g.scenario.name} · {snap.rules} rules", style="dim")
        return t

    def set_status(self, text: str | Text) -> None:
        self.query_one("#status", TextPane).show_text(Text(text) if isinstance(text, str) else text)

    # --- matrix events --------------------------------------------------------------------------------
    def on_commitment_matrix_cell_focused(self, event: CommitmentMatrix.CellFocused) -> None:
        self.focused_cell = event.cell
        snap = self.snapshot()
        self.query_one(CellInfo).show(snap, event.cell)
        if self.query_one(TabbedContent).active == "goals":
            self.query_one(GoalBars).show(snap, int(self.game.owner[event.cell]))

    def on_commitment_matrix_cell_toggled(self, event: CommitmentMatrix.CellToggled) -> None:
        live = self.live
        if live is None or live.offer_partner is None:
            if self._human_turn():
                self.set_status("pick a partner first (p)")
            return
        problem = live.toggle(event.cell)
        if problem:
            self.set_status(problem)
            return
        self.refresh_panes()

    # --- which keys work now --------------------------------------------------------------------------
    def _human_turn(self) -> bool:
        return bool(self.live) and self.live.person_proposing

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show only the keys that work now (False hides a binding from the footer)."""
        live, replay = self.live, self.playback
        if action in ("step", "run", "faster", "slower"):
            return replay is not None or (live is not None and not live.session.over)
        if action in ("partner", "pass_turn"):
            return self._human_turn()
        if action == "submit":
            return self._human_turn() and self.offer_partner is not None
        if action in ("turn_back", "turn_forward", "jump", "take_over"):
            return replay is not None
        if action == "seats":
            return live is not None
        if action == "lesson":
            return bool(self.game.scenario.lesson)
        return True

    # --- live play: agents ------------------------------------------------------------------------------
    def action_step(self) -> None:
        if self.playback:
            self.action_turn_forward()
            return
        ses = self.session
        if ses.over or self.thinking:
            return
        if self.live.person_to_move():
            if self._human_turn():
                self.action_partner()
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

    # --- live play: what happens next ------------------------------------------------------------------
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
        if self.running and not self.session.over:
            self._dirty = True
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
            if self.prompted_turn != ses.state.t and self.offer_partner is None:
                self.prompted_turn = ses.state.t
                self.set_status(f"{self.game.player_ids[ses.proposer]}, your turn: pick a partner (p) or pass (x)")
                self.action_partner()
            return
        if ses.driver.phase is Phase.RESPOND:
            self.action_step()  # an agent answers an offer at once, autoplay or not
        elif self.running:
            self.autoplay.later(self.action_step)

    def _ask_person(self) -> None:
        g, ses = self.game, self.session
        offer = ses.pending
        words = offer_words(g, offer.bits, offer.proposer, offer.partner)
        preview = ses.preview(offer.partner, list(offer.cells))
        title = f"{g.player_ids[offer.proposer]} offers {g.player_ids[offer.partner]} a deal"
        self.refresh_panes()

        def answer(accept: bool | None) -> None:
            self._submit(ses.answer(bool(accept)))

        self.app.push_screen(RespondScreen(title, words, preview, g.player_ids[offer.partner]), answer)

    # --- live play: a person's offer ----------------------------------------------------------------------
    def action_partner(self) -> None:
        if not self._human_turn():
            return
        ses, g = self.session, self.game
        options = ses.partner_options()

        def chosen(q: int | None) -> None:
            if q is None:
                return
            if q == -1:
                self.action_pass_turn()
                return
            self.live.start_offer(q)
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

    def _show_offer_panel(self) -> None:
        panel = self.query_one("#offer-panel", Static)
        if self.offer_partner is None or not self.session:
            panel.update("")
            return
        ses, g = self.session, self.game
        preview = ses.preview(self.offer_partner, sorted(self.offer_cells))
        head = Text(f"offer {g.player_ids[ses.proposer]} → {g.player_ids[self.offer_partner]}: ", style="bold")
        head.append(offer_words(g, sum(1 << c for c in self.offer_cells), ses.proposer, self.offer_partner))
        if preview.error:
            head.append(f"\n{preview.error}", style=palette.NEGATIVE)
            panel.update(head)
            return
        if preview.offer is None:
            head.append("\n(empty: toggle cells with enter)", style="dim")
            panel.update(head)
            return
        t = Table(box=None, padding=(0, 1))
        for col in ("lens", "you", g.player_ids[self.offer_partner], "accepts?"):
            t.add_column(col, justify="left" if col == "lens" else "right")
        for lens in preview.proposer:
            mine, theirs = preview.proposer[lens].gain, preview.partner[lens].gain
            ok = preview.partner_accepts[lens]
            mark = "yes" if ok else "no"
            if lens == preview.partner_lens:
                mark += " ◀"
            t.add_row(lens, Text(f"{mine:+.1f}", style=palette.signed(mine)),
                      Text(f"{theirs:+.1f}", style=palette.signed(theirs)),
                      Text(mark, style=palette.POSITIVE if ok else palette.NEGATIVE))
        panel.update(Group(head, t))

    # --- autoplay ----------------------------------------------------------------------------------------
    def action_run(self) -> None:
        running = self.autoplay.toggle()
        self.refresh_panes()
        if running:
            if self.playback:
                self._replay_tick()
            else:
                self.action_step()

    def action_faster(self) -> None:
        self.autoplay.faster()
        self.refresh_panes()

    def action_slower(self) -> None:
        self.autoplay.slower()
        self.refresh_panes()

    # --- seats, welfare, panes ------------------------------------------------------------------------
    def action_seats(self) -> None:
        if not self.session:
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

        self.app.push_screen(SeatsScreen(ses.seats, ses.lenses, base=self.app.base), done)

    def action_welfare(self) -> None:
        snap = self.snapshot()
        self.app.push_screen(WelfareScreen(self.game.scenario.model_dump(mode="json"), self.neg.rules.as_dict(),
                                           snap.state.bits, self.game.player_ids, snap.payoffs,
                                           snap.forecasts["upper"]))

    def action_sort_goals(self) -> None:
        bars = self.query_one(GoalBars)
        bars.sort = GoalBars.SORTS[(GoalBars.SORTS.index(bars.sort) + 1) % len(GoalBars.SORTS)]
        self.refresh_panes()
        self.query_one(TabbedContent).active = "goals"

    def action_filter_log(self) -> None:
        log = self.query_one(TurnLog)
        player = int(self.game.owner[self.focused_cell]) if self.focused_cell is not None else None
        log.only = None if log.only is not None else player
        self.refresh_panes()
        self.query_one(TabbedContent).active = "log"

    def action_pane(self, pane: str) -> None:
        self.query_one(TabbedContent).active = pane

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_lesson(self) -> None:
        sc = self.game.scenario
        if sc.lesson:
            self.app.push_screen(LessonScreen(sc.name, sc.lesson))

    def action_quit(self) -> None:
        if self.session:
            self.session.close()
        self.app.exit()

    def _show_summary(self) -> None:
        ses = self.session
        first = {lens: ses.history[lens][0] for lens in FORECAST_LENSES}
        self.app.push_screen(SummaryScreen(self.game.player_ids, self.neg.returns(ses.state), ses.baseline, first,
                                           self.game.scenario.model_dump(mode="json"), self.neg.rules.as_dict(),
                                           ses.state.bits, str(ses.record_path) if ses.record_path else None))

    # --- replay ---------------------------------------------------------------------------------------
    def action_turn_back(self) -> None:
        if self.playback and self.playback.back():
            self.refresh_panes()

    def action_turn_forward(self) -> None:
        if not self.playback:
            return
        ev = self.playback.forward()
        if ev is not None:
            self.set_status(turn_line(self.game, ev))
            self.refresh_panes()

    def _replay_tick(self) -> None:
        if not (self.running and self.playback):
            return
        if self.playback.at_end:
            self.autoplay.stop()
            self.refresh_panes()
            return
        self.action_turn_forward()
        self.autoplay.later(self._replay_tick)

    def action_jump(self) -> None:
        if not self.playback:
            return

        def go(t: int | None) -> None:
            if t is not None:
                self.playback.jump(t)
                self.refresh_panes()

        self.app.push_screen(JumpScreen(self.replay.first_turn, self.replay.last_turn), go)

    def action_take_over(self) -> None:
        """Fork: continue the recorded game from the shown turn, with seats the user chooses."""
        if not self.playback:
            return
        rp, t = self.replay, self.pos
        recorded = rp.seats_at(t)
        seats = {pid: recorded.get(pid) or Seat.human() for pid in rp.neg.game.player_ids}

        def start(chosen: dict[str, Seat] | None) -> None:
            if chosen is not None:  # bots keep the recorded search settings (SeatsScreen keeps them)
                self.app.start_session(rp.record.scenario, rp.neg.rules, chosen, start=rp.state_at(t),
                                       parent=parent_at(rp, t), budget=rp.record.header.budget)

        self.app.push_screen(SeatsScreen(seats, ("myopic", "upper", "lower"), title=f"Take over from turn {t}",
                                         base=self.app.base), start)
