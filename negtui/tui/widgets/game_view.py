"""The game screens' one layout: headline, commitment matrix with its legend, the focused cell and the
offer being built, the side panes (goals, forecasts, log, network, coach) and the status line.

The view holds the state its panes show as reactives — the snapshot, the focused cell, the coaching,
the optimum marked, autoplay and thinking — and every pane binds what it draws (as toolong binds its
views); the live and replay screens only set them."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from negtui.coach.assess import Assessment
from negtui.play.views import Snapshot
from negtui.table.views import TableView
from negtui.tui.labels import LEFT_COLUMN
from negtui.tui.widgets.coach import CoachPane
from negtui.tui.widgets.matrix import CommitmentMatrix, left_width
from negtui.tui.widgets.network import DealNetwork
from negtui.tui.widgets.offer import OfferPanel
from negtui.tui.widgets.pane import TextPane
from negtui.tui.widgets.panes import CellInfo, Forecasts, GoalBars
from negtui.tui.widgets.side_panes import PaneNames, SidePanes
from negtui.tui.widgets.table_pane import TablePane
from negtui.tui.widgets.topbar import Legend, TopBar
from negtui.tui.widgets.turn_log import TurnLog

PANES = ("table", "goals", "forecasts", "log", "network", "coach")  # in the order their names are listed
ROOMY = (100, 40)  # a terminal this wide and tall shows the turn log under the pane open (the panes' width as before)
SHORT = 36  # terminal rows under which the offer's preview, while one is built, takes the legend's place


class MatrixBox(VerticalScroll):
    """The matrix's scrolling box: its size decides the matrix's layout (a line per action where they fit)."""

    def on_resize(self) -> None:
        self.query_one(CommitmentMatrix).fit(self.size.width, self.size.height)


class StatusLine(TextPane):
    """The status line: what just happened or what to do; its two lines are wrapped here, so a new word
    repaints the lines it changes."""

    WRAP = True


class GameView(Vertical):
    DEFAULT_CSS = "GameView { height: 1fr; }"

    snapshot: reactive[Snapshot | None] = reactive(None, always_update=True, repaint=False)
    focused_cell: reactive[int | None] = reactive(None, repaint=False)
    coaching: reactive[tuple[Assessment, ...]] = reactive((), repaint=False)  # the coach pane's decisions
    # a welfare optimum marked on the matrix until the turn moves on: (objective, its cells, the turn)
    target: reactive[tuple[str, int, int] | None] = reactive(None, repaint=False)
    running: reactive[bool] = reactive(False, repaint=False)
    delay: reactive[float] = reactive(0.0, repaint=False)
    thinking: reactive[bool] = reactive(False, repaint=False)
    following: reactive[bool] = reactive(False, repaint=False)
    table: reactive[TableView | None] = reactive(None, always_update=True, repaint=False)  # a table's game

    def __init__(self, coach: bool, at_table: bool = False) -> None:
        super().__init__(id="game-view")
        self.coach = coach  # a live game has a coach pane
        self.at_table = at_table  # a table's game has a pane for the table: its people and what they said
        self._until_moved: str | None = None  # the status line to show again once the cursor moves

    def compose(self) -> ComposeResult:
        yield TopBar(id="topbar").data_bind(GameView.snapshot, GameView.running, GameView.delay,
                                            GameView.thinking, GameView.following, GameView.table)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                with MatrixBox(id="matrix-box"):
                    yield CommitmentMatrix(id="matrix").data_bind(GameView.snapshot)
                yield Legend(id="legend")
                yield CellInfo(id="cell-info").data_bind(GameView.snapshot, GameView.focused_cell)
                yield OfferPanel(id="offer-panel").data_bind(GameView.snapshot)
            with Vertical(id="right"):
                panes = self.panes
                yield PaneNames(panes, id="pane-names")
                with SidePanes(id="side", initial=panes[0] if self.at_table else "forecasts"):
                    if self.at_table:
                        with VerticalScroll(id="table"):
                            yield TablePane(id="table-pane").data_bind(GameView.snapshot, GameView.table)
                    with VerticalScroll(id="goals"):
                        yield GoalBars(id="goal-bars").data_bind(GameView.snapshot, GameView.focused_cell)
                    with VerticalScroll(id="forecasts"):
                        yield Forecasts(id="forecast-table").data_bind(GameView.snapshot)
                    yield TurnLog(id="log").data_bind(GameView.snapshot)
                    with VerticalScroll(id="network"):
                        yield DealNetwork(id="deal-network").data_bind(GameView.snapshot)
                    if self.coach:
                        with VerticalScroll(id="coach"):
                            yield CoachPane(id="coach-pane").data_bind(GameView.snapshot, GameView.coaching)
                with Vertical(id="aside"):  # a tall terminal: the turn log under the pane open, never among them
                    yield Static(Text("Log · 3 hides it"), id="aside-name")
                    yield TurnLog(id="aside-log").data_bind(GameView.snapshot)
        yield StatusLine(id="status")

    @property
    def panes(self) -> list[str]:
        """The side panes this game has, in the order their names are listed."""
        return [p for p in PANES if (p != "coach" or self.coach) and (p != "table" or self.at_table)]

    def on_mount(self) -> None:
        self.size_left()
        self.query_one(PaneNames).active = self.pane

    def on_resize(self) -> None:
        self._roomy(self.app.size.width >= ROOMY[0] and self.app.size.height >= ROOMY[1])
        self.size_left()  # the side panes choose their layout by the terminal's width
        self.query_one("#left").set_class(self.app.size.height < SHORT, "short")

    def _roomy(self, roomy: bool) -> None:
        """A tall terminal shows the turn log under the pane open (3 hides it and shows it again) rather than
        as a pane: one log on screen either way, so a turn is still wrapped once."""
        if roomy == self.has_class("roomy"):
            return
        self.set_class(roomy, "roomy")
        if roomy and self.pane == "log":
            self.show_pane("forecasts")
        under, pane = self.query_one("#aside-log", TurnLog), self.query_one("#log", TurnLog)
        (under if roomy else pane).only = (pane if roomy else under).only

    def size_left(self) -> None:
        """The left column as wide as whole names need on a wide terminal (40 columns on a narrow one)."""
        width = left_width(self.snapshot.game, self.app.size.width) if self.snapshot else LEFT_COLUMN
        self.query_one("#left").styles.width = width
        self.query_one(Legend).columns = width - 2

    # --- what the screens set -----------------------------------------------------------------------------
    def watch_snapshot(self, old: Snapshot | None, snap: Snapshot | None) -> None:
        self._mark_target()
        if self.is_mounted:  # an offer being built: on a short terminal its preview takes the legend's lines
            self.query_one("#left").set_class(snap is not None and snap.drafting, "drafting")
        if snap is not None and (old is None or old.game is not snap.game) and self.is_mounted:
            self.size_left()  # the left column fits this game's names

    def watch_target(self) -> None:
        self._mark_target()

    def _mark_target(self) -> None:
        """The optimum's cells stay marked on the matrix until the turn moves on."""
        snap, target = self.snapshot, self.target
        shown = target is not None and snap is not None and target[2] == snap.state.t
        cells = target[1] & ~snap.state.bits if shown and target and snap else 0
        if self.is_mounted:
            self.query_one(CommitmentMatrix).target = cells
            self.query_one(Legend).target = target[0] if shown and target and cells else ""

    def tick(self) -> None:
        """A second of a running clock: the lines with a countdown on them are drawn again, nothing else
        (the headline's round time, the table pane's decision clock)."""
        self.query_one(TopBar).draw()
        if self.at_table:
            self.query_one(TablePane).tick()

    def status(self, text: str | Text) -> None:
        self._until_moved = None
        self.query_one("#status", TextPane).show_text(Text(text) if isinstance(text, str) else text)

    def status_until_moved(self, text: str) -> None:
        """A word about the focused cell ("… belongs to neither side"): the status line says it until the
        cursor moves on, then says again what it said before."""
        before = self.query_one("#status", TextPane).plain
        self.status(text)
        self._until_moved = before

    @property
    def status_text(self) -> str:
        return self.query_one("#status", TextPane).plain

    # --- moving around ------------------------------------------------------------------------------------
    @property
    def matrix(self) -> CommitmentMatrix:
        return self.query_one(CommitmentMatrix)

    @property
    def pane(self) -> str:
        """The side pane open."""
        return self.query_one(SidePanes).current or ""

    def show_pane(self, pane: str) -> None:
        if pane == "log" and self.has_class("roomy"):
            self.toggle_class("log-hidden")  # in sight already, under the pane open: 3 hides it, or shows it again
            return
        if pane in self.panes and pane != self.pane:
            self.query_one(SidePanes).current = pane
            self.query_one(PaneNames).active = pane

    def sort_goals(self) -> None:
        self.query_one(GoalBars).next_sort()
        self.show_pane("goals")

    def filter_log(self) -> None:
        """Only the focused player's turns, or every turn again."""
        log = self.query_one("#aside-log" if self.has_class("roomy") else "#log", TurnLog)
        player = int(self.snapshot.game.owner[self.focused_cell]) if self.snapshot and self.focused_cell is not None \
            else None
        log.only = None if log.only is not None else player
        if self.has_class("roomy"):
            self.remove_class("log-hidden")
        else:
            self.show_pane("log")

    def on_commitment_matrix_cell_focused(self, event: CommitmentMatrix.CellFocused) -> None:
        if event.cell != self.focused_cell and self._until_moved is not None:
            self.status(self._until_moved)
        self.focused_cell = event.cell
