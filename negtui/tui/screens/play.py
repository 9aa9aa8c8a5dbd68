"""The main screen: the game as it moves, fed by a live session or a replayed record (tui/sources.py).

This module holds the layout and what both modes share; live play (agents in a worker, a person's
turn, seats) is in screens/live.py, replay (stepping, jumping, taking over) in screens/replay.py."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static, TabbedContent, TabPane

from negtui.engine.negotiation import State
from negtui.names import player_label
from negtui.narrate import commitment_words
from negtui.record import Replay
from negtui.session import Session
from negtui.tui import palette
from negtui.tui.autoplay import Autoplay
from negtui.tui.keys import bindings
from negtui.tui.screens.dialogs import HelpScreen, LessonScreen
from negtui.tui.screens.live import LiveControls
from negtui.tui.screens.replay import ReplayControls
from negtui.tui.screens.welfare import WelfareScreen
from negtui.tui.snapshot import Snapshot
from negtui.tui.sources import Earlier, LiveSource, ReplaySource
from negtui.tui.widgets.coach import CoachPane
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.matrix import LEFT_COLUMN, CommitmentMatrix, left_width, legend
from negtui.tui.widgets.offer import OfferPanel
from negtui.tui.widgets.panes import (
    CellInfo,
    DealNetwork,
    Forecasts,
    GoalBars,
    TextPane,
    TurnLog,
)


class MatrixBox(VerticalScroll):
    """The matrix's scrolling box: its size decides the matrix's layout (a line per action where they fit)."""

    def on_resize(self) -> None:
        self.query_one(CommitmentMatrix).fit(self.size.width, self.size.height)


class PlayScreen(LiveControls, ReplayControls, Screen):
    BINDINGS = bindings()

    def __init__(self, session: Session | None = None, replay: Replay | None = None, follow: Path | None = None,
                 earlier: Earlier | None = None) -> None:
        """`follow`: the replayed record is being written; keep reading it as it grows."""
        super().__init__()
        self.follow = follow
        if (session is None) == (replay is None):
            raise ValueError("a play screen shows a session or a replay")
        self.source: LiveSource | ReplaySource = LiveSource(session, earlier) if session else ReplaySource(replay)
        self.autoplay = Autoplay(self)
        self.thinking = False
        self.focused_cell: int | None = None
        self.coaching: list = []  # the assessments the coach pane shows (negtui.coach.Assessment)
        self.prompted_turn = -1
        self._summary_shown = False
        self._keys: tuple[bool, ...] = ()
        self.target: tuple[str, int, int] | None = None  # a welfare optimum marked: objective, cells, turn
        self._legend = ""
        self._left = LEFT_COLUMN  # the left column's width (sized on mount and on every resize)

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
        snap = self.source.snapshot()
        if self.target is not None and self.target[2] == snap.state.t:
            return replace(snap, target=self.target[1] & ~snap.state.bits)
        return snap

    # --- layout ---------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TextPane(id="topbar")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                with MatrixBox(id="matrix-box"):
                    yield CommitmentMatrix(id="matrix")
                yield Static(legend(38), id="legend")
                yield CellInfo(id="cell-info")
                yield OfferPanel(id="offer-panel")
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
                if self.live:
                    with TabPane("Coach", id="coach"):
                        with VerticalScroll():
                            yield CoachPane(id="coach-pane")
        yield TextPane(id="status")
        yield KeyBar()

    def on_mount(self) -> None:
        self._size_left()
        matrix = self.query_one(CommitmentMatrix)
        matrix.focus()
        matrix.update(self.snapshot())
        self.focused_cell = matrix.focused_cell  # the cell under the cursor explains itself from the start
        self.refresh_panes()
        lesson = self.game.scenario.lesson
        if lesson and self.state.t == 0 and self.app.lessons_in_game:
            self.set_status(f"lesson (l): {lesson.split('. ')[0].rstrip('.')}.")
        self._redraw_due = False
        if self.follow is not None:
            self.set_interval(0.5, self._follow_record)
        self.call_after_refresh(self.advance)
        if self.live:
            self.call_after_refresh(self.start_exact)

    def _follow_record(self) -> None:
        if self.playback.reload(self.follow):
            self.refresh_panes()

    def redraw_soon(self) -> None:
        """During autoplay turns can come faster than a terminal needs frames: redraw at most 10 times a
        second, so key presses never queue behind a backlog of repaints (and an idle screen runs no timer:
        on a server every wake-up is paid for by every trainee)."""
        if not self._redraw_due:
            self._redraw_due = True
            self.set_timer(0.1, self._redraw)

    def _redraw(self) -> None:
        self._redraw_due = False
        self.refresh_panes()

    def on_resize(self) -> None:
        # the side panes choose their layout by the terminal's width (narrow tables under 104 columns)
        self._size_left()
        self.refresh_panes()
        self.call_after_refresh(self.refresh_panes)  # again once laid out: panes fit their new widths

    def _size_left(self) -> None:
        """The left column as wide as whole names need on a wide terminal (40 columns on a narrow one)."""
        self._left = left_width(self.game, self.app.size.width)
        self.query_one("#left").styles.width = self._left
        self._show_legend(self.snapshot())

    def _show_legend(self, snap: Snapshot) -> None:
        target = self.target[0] if snap.target and self.target else ""
        text = legend(self._left - 2, target)  # sized on mount and resize, not on every redraw
        if text != self._legend:
            self._legend = text
            self.query_one("#legend", Static).update(text)

    def refresh_panes(self) -> None:
        """Redraw what is visible; the hidden side panes redraw when their tab is opened."""
        snap = self.snapshot()
        self.query_one(CommitmentMatrix).update(snap)
        self._show_legend(snap)
        self._refresh_side(snap)
        self.query_one(CellInfo).show(snap, self.focused_cell)
        self.query_one("#topbar", TextPane).show_text(self._topbar(snap))
        self.query_one(OfferPanel).show(self.session, self.offer_partner, self.offer_cells)
        keys = tuple(bool(self.check_action(a, ())) for a in ("step", "partner", "submit", "seats", "hint"))
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
        elif pane == "coach":
            self.query_one(CoachPane).show(self.game, self.coaching)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self._refresh_side()

    def _topbar(self, snap: Snapshot) -> Text:
        g, s = self.game, snap.state
        rounds = max(1, (g.T + g.n - 1) // g.n)
        t = Text(no_wrap=True, overflow="ellipsis")
        if snap.proposer is not None:
            who = player_label(g.scenario.players[snap.proposer])
            t.append(f" ▶ {who} ({snap.seats[snap.proposer]}) ", style=f"bold reverse {palette.SKY}")
        else:
            t.append(" game over ", style="bold reverse")
        if self.replay:  # one counter: the turns played at the position shown
            t.append(f" {'LIVE' if self.follow else 'REPLAY'} ", style="bold")
            t.append(f"{self.pos}/{self.replay.last_turn} turns played")
        else:
            t.append(f" turn {min(s.t + 1, g.T)}/{g.T}")
        t.append(f" · round {min(s.t // g.n + 1, rounds)}/{rounds}")
        if self.running:
            t.append(f" · ▶▶ {self.autoplay.delay:g}s", style=palette.SKY)
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
            return live is not None and self.app.seat_changes
        if action == "cancel_exact":
            return self.exact_solving
        if action == "hint":
            return live is not None and live.session.hints and live.person_to_move()
        if action == "lesson":
            return bool(self.game.scenario.lesson) and (self.app.lessons_in_game or self.playback is not None
                                                        or self.live.session.over)
        return True

    def action_step(self) -> None:
        if self.playback:
            self.action_turn_forward()
        else:
            self.live_step()

    # --- autoplay ----------------------------------------------------------------------------------------
    def action_run(self) -> None:
        running = self.autoplay.toggle()
        self.refresh_panes()
        if running:
            if self.playback:
                self._replay_tick()
            elif self.live.person_to_move():
                self.advance()  # a person's turn: prompted once, not again
            else:
                self.live_step()  # an agent's turn: at once

    def action_faster(self) -> None:
        self.autoplay.faster()
        self.refresh_panes()

    def action_slower(self) -> None:
        self.autoplay.slower()
        self.refresh_panes()

    # --- seats, welfare, panes ------------------------------------------------------------------------
    def action_welfare(self) -> None:
        snap = self.snapshot()
        g = self.game
        t = snap.state.t

        def marked(chosen: tuple[str, int] | None) -> None:
            if chosen is not None and self.state.t == t:
                self.target = (chosen[0], chosen[1], t)
                self.set_status(f"◇◇: what the {chosen[0]} optimum still needs (until the next turn)")
                self.refresh_panes()

        self.app.push_screen(WelfareScreen(g.scenario.model_dump(mode="json"), self.neg.rules.as_dict(),
                                           snap.state.bits, g.player_ids, snap.payoffs, snap.forecasts["upper"],
                                           describe=lambda bits: commitment_words(g, bits)), marked)

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
        if pane == "coach" and not self.live:
            return
        self.query_one(TabbedContent).active = pane

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_lesson(self) -> None:
        sc = self.game.scenario
        if sc.lesson and self.check_action("lesson", ()):
            self.app.push_screen(LessonScreen(sc.name, sc.lesson))

    def action_quit(self) -> None:
        if self.session:
            self.session.close()
        self.app.exit()
