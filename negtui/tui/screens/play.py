"""The main screen: the game as it moves, in play mode (a live session) or replay mode (a record)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static, TabbedContent, TabPane

from negtui.engine.lenses import lens_vector
from negtui.engine.negotiation import IllegalMove, State
from negtui.engine.offers import Offer
from negtui.engine.payoff import state_info
from negtui.engine.protocol import TurnEvent
from negtui.narrate import offer_words, turn_line
from negtui.record import Replay
from negtui.session import FORECAST_LENSES, Decision, Seat, Session
from negtui.tui import palette
from negtui.tui.screens.dialogs import (
    HelpScreen, JumpScreen, LessonScreen, PartnerScreen, RespondScreen, SeatsScreen,
)
from negtui.tui.screens.summary import SummaryScreen
from negtui.tui.screens.welfare import WelfareScreen
from negtui.tui.snapshot import Snapshot
from negtui.tui.widgets.matrix import LEGEND, CommitmentMatrix
from negtui.tui.widgets.panes import CellInfo, DealNetwork, Forecasts, GoalBars, TextPane, TurnLog

SPEEDS = (0.0, 0.05, 0.2, 0.5, 1.0, 2.0)  # seconds between autoplayed turns


class PlayScreen(Screen):
    BINDINGS = [
        Binding("space,n", "step", "step"),
        Binding("r", "run", "run/pause"),
        Binding("plus,equals_sign", "faster", "faster"),
        Binding("minus", "slower", "slower"),
        Binding("p", "partner", "partner"),
        Binding("o", "submit", "offer"),
        Binding("x", "pass_turn", "pass"),
        Binding("escape", "back", "back", show=False),
        Binding("comma", "turn_back", "◀ turn"),
        Binding("full_stop", "turn_forward", "turn ▶"),
        Binding("g", "jump", "jump"),
        Binding("t", "take_over", "take over"),
        Binding("s", "seats", "seats"),
        Binding("w", "welfare", "welfare"),
        Binding("v", "sort_goals", "sort goals", show=False),
        Binding("f", "filter_log", "filter log", show=False),
        Binding("1", "pane('goals')", "goals", show=False),
        Binding("2", "pane('forecasts')", "forecasts", show=False),
        Binding("3", "pane('log')", "log", show=False),
        Binding("4", "pane('network')", "network", show=False),
        Binding("l", "lesson", "lesson"),
        Binding("question_mark", "help", "help"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, session: Session | None = None, replay: Replay | None = None) -> None:
        super().__init__()
        if (session is None) == (replay is None):
            raise ValueError("a play screen shows a session or a replay")
        self.session = session
        self.replay = replay
        self.pos = replay.first_turn if replay else 0
        self._replay_events = _events_of(replay) if replay else []
        self.running = False
        self._run_id = 0  # bumped by every run/pause: a pending autoplay step of an earlier run is dropped
        self.speed = 2
        self.thinking = False
        self.offer_partner: int | None = None
        self.offer_cells: set[int] = set()
        self.focused_cell: int | None = None
        self.prompted_turn = -1
        self._summary_shown = False
        self._keys: tuple[bool, ...] = ()

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
        self.call_after_refresh(self.after_turn)

    def _refresh_if_dirty(self) -> None:
        if self._dirty:
            self._dirty = False
            self.refresh_panes()

    # --- what to show ---------------------------------------------------------------------------------
    @property
    def game(self):
        return self.session.neg.game if self.session else self.replay.neg.game

    @property
    def neg(self):
        return self.session.neg if self.session else self.replay.neg

    @property
    def state(self) -> State:
        return self.session.state if self.session else self.replay.state_at(self.pos)

    def snapshot(self) -> Snapshot:
        g, s = self.game, self.state
        info = state_info(g, s.bits)
        if self.session:
            ses = self.session
            # the closed-form forecasts were computed when the turn concluded
            forecasts = {lens: ses.history[lens][-1] if lens in ses.history else ses.forecast(lens)
                         for lens in ses.lenses}
            events, history = ses.events, ses.payoff_history
            seats = [ses.seats[pid].label for pid in g.player_ids]
        else:
            rules = self.replay.neg.rules
            forecasts = {lens: lens_vector(g, rules, lens, info, s.t) for lens in FORECAST_LENSES}
            k = self.pos - self.replay.first_turn
            events = self._replay_events[:k]
            history = [self.neg.returns(st) for st in self.replay.states[:k + 1]]
            specs = self.replay.seat_specs(self.pos)
            seats = [_seat_label(specs.get(pid)) for pid in g.player_ids]
        return Snapshot(g, self.neg.rules.name, s, events, seats, forecasts, history, info.blocked,
                        frozenset(self.offer_cells), self.offer_partner, "play" if self.session else "replay")

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
            t.append(f" · ▶▶ {SPEEDS[self.speed]:g}s", style=palette.GREEN)
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
        if self.offer_partner is None:
            if self._human_turn():
                self.set_status("pick a partner first (p)")
            return
        owner = int(self.game.owner[event.cell])
        if owner not in (self.session.proposer, self.offer_partner):
            self.set_status(f"{self.game.cell_name(event.cell)} belongs to neither side of this offer")
            return
        self.offer_cells ^= {event.cell}
        self.refresh_panes()

    # --- playing --------------------------------------------------------------------------------------
    def _human_turn(self) -> bool:
        return bool(self.session) and not self.session.over and self.session.is_human(self.session.proposer)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show only the keys that work now (False hides a binding from the footer)."""
        play, replay = self.session is not None, self.replay is not None
        if action in ("step", "run", "faster", "slower"):
            return replay or (play and not self.session.over)
        if action in ("partner", "pass_turn"):
            return self._human_turn()
        if action == "submit":
            return self._human_turn() and self.offer_partner is not None
        if action in ("turn_back", "turn_forward", "jump", "take_over"):
            return replay
        if action == "seats":
            return play
        if action == "lesson":
            return bool(self.game.scenario.lesson)
        return True

    def action_step(self) -> None:
        if self.replay:
            self.action_turn_forward()
            return
        ses = self.session
        if ses.over or self.thinking:
            return
        if ses.is_human(ses.proposer):
            self.action_partner()
            return
        self.thinking = True
        self.query_one("#topbar", TextPane).show_text(self._topbar(self.snapshot()))
        self._think()

    @work(thread=True, exclusive=True, group="bot")
    def _think(self) -> None:
        try:
            decision = self.session.decide()
        except Exception as err:  # shown to the user; the game stays as it was
            self.app.call_from_thread(self._think_failed, str(err))
            return
        self.app.call_from_thread(self._decided, decision)

    def _think_failed(self, message: str) -> None:
        self.thinking = False
        self.running = False
        self.set_status(Text(f"a bot could not move: {message}", style=palette.NEGATIVE))
        self.refresh_panes()

    def _decided(self, d: Decision) -> None:
        self.thinking = False
        if d.t != self.session.state.t or self.session.is_human(d.proposer):
            return  # the game moved on, or the seat was handed to a human while its bot was thinking
        if d.accepted is None:
            self._ask_human(d)
            return
        self._conclude(d)

    def _ask_human(self, d: Decision) -> None:
        g, ses = self.game, self.session
        words = offer_words(g, d.offer.bits, d.proposer, d.partner)
        preview = ses.preview(d.partner, g.cells_of(d.offer.bits))
        title = f"{g.player_ids[d.proposer]} offers {g.player_ids[d.partner]} a deal"

        def answer(accept: bool | None) -> None:
            self._conclude(ses.respond(d, bool(accept)))

        self.app.push_screen(RespondScreen(title, words, preview, g.player_ids[d.partner]), answer)

    def _conclude(self, d: Decision) -> None:
        try:
            ev = self.session.conclude(d)
        except IllegalMove as err:
            self.set_status(Text(str(err), style=palette.NEGATIVE))
            return
        self.offer_partner, self.offer_cells = None, set()
        self.set_status(turn_line(self.game, ev))
        if self.running and not self.session.over:
            self._dirty = True
        else:
            self.refresh_panes()
        self.after_turn()

    def after_turn(self) -> None:
        """What happens next: the end-of-game summary, a human's prompt, or the next autoplayed turn."""
        if self.replay:
            return
        ses = self.session
        if ses.over:
            self.running = False
            self.refresh_panes()
            if not self._summary_shown:
                self._summary_shown = True
                self._show_summary()
            return
        if ses.is_human(ses.proposer):
            if self.prompted_turn != ses.state.t and self.offer_partner is None:
                self.prompted_turn = ses.state.t
                self.set_status(f"{self.game.player_ids[ses.proposer]}, your turn: pick a partner (p) or pass (x)")
                self.action_partner()
            return
        if self.running:
            self._later(self.action_step)

    def _later(self, callback) -> None:
        """Run the next autoplay step after the current pause (at full speed: after the next repaint)."""
        delay, run = SPEEDS[self.speed], self._run_id

        def tick() -> None:
            if self.running and self._run_id == run:  # not paused (or paused and resumed) meanwhile
                callback()

        if delay > 0:
            self.set_timer(delay, tick)
        else:
            self.call_after_refresh(tick)

    def action_run(self) -> None:
        self.running = not self.running
        self._run_id += 1
        self.refresh_panes()
        if self.running:
            if self.replay:
                self._replay_tick()
            else:
                self.action_step()

    def action_faster(self) -> None:
        self.speed = max(0, self.speed - 1)
        self.refresh_panes()

    def action_slower(self) -> None:
        self.speed = min(len(SPEEDS) - 1, self.speed + 1)
        self.refresh_panes()

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
            self.offer_partner, self.offer_cells = q, set()
            self.set_status(f"offer to {g.player_ids[q]}: move with arrows, enter toggles a cell, o submits, "
                            "escape picks another partner")
            self.refresh_panes()

        self.app.push_screen(PartnerScreen(g.player_ids[ses.proposer], g.player_ids, options,
                                           lambda o: offer_words(g, o.bits, o.proposer, o.partner)), chosen)

    def action_submit(self) -> None:
        if not self._human_turn() or self.offer_partner is None:
            return
        try:
            d = self.session.propose(self.offer_partner, sorted(self.offer_cells))
        except IllegalMove as err:
            self.set_status(Text(str(err), style=palette.NEGATIVE))
            return
        if d.accepted is None and d.partner == d.proposer:
            d = self.session.respond(d, True)  # a unilateral commitment: nobody else to ask
        if d.accepted is None:
            self._ask_human(d)
        else:
            self._conclude(d)

    def action_pass_turn(self) -> None:
        if not self._human_turn():
            return
        ses = self.session
        self._conclude(ses.propose(ses.proposer if ses.neg.game.unilateral else ses.neg.legal_partners(ses.state)[0], []))

    def action_back(self) -> None:
        if self.offer_partner is not None:
            self.offer_partner, self.offer_cells = None, set()
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
        from rich.console import Group

        panel.update(Group(head, t))

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
                    except IllegalMove as err:
                        self.set_status(Text(str(err), style=palette.NEGATIVE))
            self.prompted_turn = -1
            self.refresh_panes()
            self.after_turn()

        self.app.push_screen(SeatsScreen(ses.seats, ses.lenses), done)

    def action_welfare(self) -> None:
        snap = self.snapshot()
        self.app.push_screen(WelfareScreen(self.game.scenario.model_dump(mode="json"), snap.rules, snap.state.bits,
                                           self.game.player_ids, snap.payoffs, snap.forecasts["upper"]))

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
                                           self.game.scenario.model_dump(mode="json"), self.neg.rules.name,
                                           ses.state.bits, str(ses.record_path) if ses.record_path else None))

    # --- replay ---------------------------------------------------------------------------------------
    def action_turn_back(self) -> None:
        if self.replay and self.pos > self.replay.first_turn:
            self.pos -= 1
            self.refresh_panes()

    def action_turn_forward(self) -> None:
        if self.replay and self.pos < self.replay.last_turn:
            self.pos += 1
            ev = self._replay_events[self.pos - self.replay.first_turn - 1]
            self.set_status(turn_line(self.game, ev))
            self.refresh_panes()

    def _replay_tick(self) -> None:
        if not (self.running and self.replay):
            return
        if self.pos >= self.replay.last_turn:
            self.running = False
            self.refresh_panes()
            return
        self.action_turn_forward()
        self._later(self._replay_tick)

    def action_jump(self) -> None:
        if not self.replay:
            return

        def go(t: int | None) -> None:
            if t is not None:
                self.pos = t
                self.refresh_panes()

        self.app.push_screen(JumpScreen(self.replay.first_turn, self.replay.last_turn), go)

    def action_take_over(self) -> None:
        """Fork: continue the recorded game from the shown turn, with seats the user chooses."""
        if not self.replay:
            return
        rp, t = self.replay, self.pos
        specs = rp.seat_specs(t)
        seats = {pid: _seat_of(specs.get(pid)) for pid in rp.neg.game.player_ids}
        bots = [spec for spec in specs.values() if spec.agent == "lens"]

        def start(chosen: dict[str, Seat] | None) -> None:
            if chosen is None:
                return
            # the bots search as the recorded ones did
            self.app.start_session(rp.record.scenario, rp.neg.rules.name, chosen, start=rp.state_at(t),
                                   parent=rp.parent_at(t), budget=rp.record.header.budget,
                                   partner=bots[0].partner if bots else None, sims=bots[0].sims if bots else None)

        self.app.push_screen(SeatsScreen(seats, ("myopic", "upper", "lower"), title=f"Take over from turn {t}"), start)


def _seat_of(spec) -> Seat:
    """A record's seat description as a seat of a new session."""
    if spec is None or spec.agent != "lens":
        return Seat(human=True)
    return Seat(False, spec.propose or "upper", spec.respond or spec.propose or "upper")


def _seat_label(spec) -> str:
    return _seat_of(spec).label


def _events_of(rp: Replay) -> list[TurnEvent]:
    g, out = rp.neg.game, []
    for k, line in enumerate(rp.record.turns):
        before, after = rp.states[k], rp.states[k + 1]
        p, q = g.index_of(line.proposer), g.index_of(line.partner)
        out.append(TurnEvent(line.t, p, q, Offer(p, q, g.bits_of(line.offer)), line.accepted, line.decided_by,
                             before, after, rp.neg.returns(after)))
    return out
