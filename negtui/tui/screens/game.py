"""What the live and the replay screen share: the one layout (GameView) fed from a game source, the keys
of the key table with their rules, autoplay's clock, and the actions on the view (panes, goals, log,
welfare optimum, help, lesson).  Each screen adds what its mode does: screens/live.py, screens/replay.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

from textual.app import ComposeResult
from textual.binding import ActiveBinding

from negtui.narrate import commitment_words
from negtui.play.sources import Ending, GameSource
from negtui.play.views import Snapshot
from negtui.tui.autoplay import Autoplay
from negtui.tui.keys import GAME_KEYS, REPLAY, KeyContext, keys_of, rule
from negtui.tui.screen_base import NegtuiScreen
from negtui.tui.screens.dialogs import HelpScreen, LessonScreen
from negtui.tui.screens.welfare import WelfareScreen
from negtui.tui.widgets.game_view import GameView
from negtui.tui.widgets.keybar import KeyBar

if TYPE_CHECKING:
    from negtui.coach.debrief import Debrief
    from negtui.engine.game import Game
    from negtui.play.starts import GameStart
    from negtui.seats import Seat

REDRAW_EVERY = 0.1  # seconds: autoplayed turns redraw at most this often


class GameHost(Protocol):
    """What a game screen asks of the app it runs in (negtui's own app, the training app, a table's)."""

    seat_changes: bool  # seats may change hands mid-game
    lessons_in_game: bool  # a scenario's lesson may be read before the game ends
    asks_before_leaving: bool  # q in a game asks first (where leaving is not the end of the app)
    base: Seat  # the seat new bots start from
    seats: dict[str, Seat]  # seats the person gave on the command line (a take-over starts with them)

    def start_game(self, how: GameStart) -> None: ...

    def may_retry(self) -> bool: ...

    def debriefed(self, debriefs: list[Debrief]) -> None: ...

    def score_words(self, ending: Ending) -> str | None: ...

    def after_game(self) -> None: ...

    def leave_game(self) -> None: ...


class GameScreen(NegtuiScreen[None]):
    MODE = ""
    # its panes draw at the sizes its first layout gives them (names cut to the width, the matrix's list or
    # grid chosen for its box): painted only after that, the screen shows once, complete (screen_base.py)
    PAINTED_AFTER_FIRST_SIZES = True

    def __init__(self, source: GameSource) -> None:
        super().__init__()
        self.source = source
        self.autoplay = Autoplay(self)
        self._redraw_due = False
        self._keys: tuple[bool, ...] = ()
        self._actions = tuple(k.action for k in keys_of(self.MODE) if k.action)
        self._read_once: KeyContext | None = None  # the game read once while Textual checks every binding

    def compose(self) -> ComposeResult:
        yield GameView(coach=self.MODE != REPLAY)
        yield KeyBar()

    @property
    def host(self) -> GameHost:
        return cast("GameHost", self.app)

    @property
    def view(self) -> GameView:
        return self.query_one(GameView)

    @property
    def game(self) -> Game:
        return self.source.neg.game

    def on_mount(self) -> None:
        view = self.view
        self.show_snapshot()
        matrix = view.matrix
        matrix.focus()
        view.focused_cell = matrix.focused_cell  # the cell under the cursor explains itself from the start
        self.mounted()

    def mounted(self) -> None:
        """What a kind of game screen does once the game is on it.  Not `on_mount`: Textual calls the
        `on_mount` of every class of a screen itself, so a subclass's own would run before this one, and
        one calling `super().on_mount()` ran it twice (the snapshot drawn twice, a table's game three times)."""

    # --- drawing ---------------------------------------------------------------------------------------
    def show_snapshot(self) -> Snapshot:
        """The source's game now, into the view (every bound pane redraws what it shows)."""
        snap = self.source.snapshot()
        view = self.view
        view.snapshot = snap
        view.running, view.delay = self.autoplay.running, self.autoplay.delay
        self.sync_keys()
        return snap

    def show_soon(self) -> None:
        """During autoplay turns can come faster than a terminal needs frames: redraw at most 10 times a
        second, so key presses never queue behind a backlog of repaints (and an idle screen runs no timer:
        on a server every wake-up is paid for by every trainee)."""
        if not self._redraw_due:
            self._redraw_due = True
            self.set_timer(REDRAW_EVERY, self._redraw)

    def _redraw(self) -> None:
        self._redraw_due = False
        self.show_snapshot()

    def set_status(self, text: object) -> None:
        self.view.status(text)  # type: ignore[arg-type]

    # --- which keys work now ---------------------------------------------------------------------------
    def key_context(self) -> KeyContext:
        return KeyContext(self.MODE, lesson=self.lesson_allowed())

    def lesson_allowed(self) -> bool:
        return bool(self.game.scenario.lesson)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show only the keys that work now, each by its rule in the key table."""
        when = rule(action, self.MODE)
        return True if when is None else when(self._read_once or self.key_context())

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        """Textual checks every binding's action in turn: the game is read once for them all, not once each."""
        self._read_once = self.key_context()
        try:
            return super().active_bindings
        finally:
            self._read_once = None

    def sync_keys(self) -> None:
        """Re-render the footer only when the usable keys change (it is costly)."""
        context = self.key_context()
        keys = tuple(k.when(context) for k in GAME_KEYS if self.MODE in k.modes and k.action)
        if keys != self._keys:
            self._keys = keys
            self.refresh_bindings()

    # --- autoplay ----------------------------------------------------------------------------------------
    def action_run(self) -> None:
        running = self.autoplay.toggle()
        self.show_snapshot()
        if running:
            self.autoplay_started()

    def autoplay_started(self) -> None:
        """The first step of a run."""

    def action_faster(self) -> None:
        self.autoplay.faster()
        self.show_snapshot()

    def action_slower(self) -> None:
        self.autoplay.slower()
        self.show_snapshot()

    # --- the view ----------------------------------------------------------------------------------------
    def action_pane(self, pane: str) -> None:
        self.view.show_pane(pane)

    def action_sort_goals(self) -> None:
        self.view.sort_goals()

    def action_filter_log(self) -> None:
        self.view.filter_log()

    def action_welfare(self) -> None:
        view = self.view
        snap = view.snapshot
        if snap is None or not self.check_action("welfare", ()):  # the palette asks too
            return
        g, t = snap.game, snap.state.t

        def marked(chosen: tuple[str, int] | None) -> None:
            if chosen is not None and self.source.snapshot().state.t == t:
                view.target = (chosen[0], chosen[1], t)
                self.set_status(f"◇◇: what the {chosen[0]} optimum still needs (until the next turn)")

        self.app.push_screen(WelfareScreen(self.source.neg, snap.state.bits, snap.payoffs, snap.forecasts["upper"],
                                           describe=lambda bits: commitment_words(g, bits)), marked)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.MODE))

    def action_lesson(self) -> None:
        sc = self.game.scenario
        if sc.lesson and self.lesson_allowed():
            self.app.push_screen(LessonScreen(sc.name, sc.lesson))

    def action_quit(self) -> None:
        self.host.leave_game()
