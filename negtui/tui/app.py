"""The negtui app: picker → seats → play, or a record in replay mode.

One app instance per terminal (or SSH connection): everything it needs arrives through its
constructor — scenario, rules, seats, where records go — and nothing is kept in module globals."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.actions import SkipAction
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, TextArea
from textual.widgets._toast import ToastRack

from negtui.coach.regime import suggested_lens
from negtui.datadir import default_record_path, user_data_dir
from negtui.engine.rules import get_rules
from negtui.engine.vocabulary import CLOSED_FORM_LENSES
from negtui.names import player_labels
from negtui.scenario import Scenario, ScenarioError, load_scenario, write_scenario
from negtui.scenario.library import bundled_root
from negtui.seats import Seat, SeatError, default_seats
from negtui.tui.keys import palette_entries
from negtui.tui.screens.dialogs import HelpScreen
from negtui.tui.screens.seats import SeatsScreen
from negtui.tui.stylesheet import NegtuiStylesheet
from negtui.tui.toasts import LastingNotifications
from negtui.tui.too_small import SizeGuard

# The first screen (the seats of a scenario, or the picker) is drawn from the scenario alone; the engine's
# arrays, the bots, the records and the game screens are imported beside it (`_check_game`) or when a game
# starts.
if TYPE_CHECKING:
    from negtui.agents.options import AgentOptions
    from negtui.engine.game import Game
    from negtui.engine.rules import Rules
    from negtui.generator import GeneratorParams
    from negtui.play.live import LiveGame
    from negtui.play.sources import LiveSource
    from negtui.play.starts import GameStart
    from negtui.tui.screens.game import GameHost
    from negtui.tui.screens.picker import PickerHost

FIRST_FRAME = 0.05  # s after the first screen is laid out before the game's modules are imported beside it
EXIT_GRACE = 3.0  # seconds an app ended by a signal may take to close before it is made to


class NegtuiApp(SizeGuard, App):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere find it too
    TITLE = "negtui"
    # priority: a dialog (a modal screen) would otherwise hide the app's own keys
    BINDINGS = [Binding("ctrl+q", "quit", "quit", show=False, priority=True),
                Binding("question_mark", "help", "help", priority=True),
                Binding("ctrl+c", "interrupt", "end the app", show=False, priority=True, system=True)]

    def __init__(self, scenario: Path | None = None, *, rules: str = "paper", seats: dict[str, Seat] | None = None,
                 ask_seats: bool = True, replay: Path | None = None, record: bool = True,
                 data_dir: Path | None = None, scenarios_dir: Path | None = None, base: Seat | None = None,
                 partner: str = "mcts", sims: int = 50, autoplay: bool = False,
                 options: AgentOptions | None = None, follow: bool = False, loaded: Scenario | None = None,
                 compiled: Game | None = None) -> None:
        """`base` is the seat every bot starts from (lens and search settings); `partner` and `sims`
        set it when it is not given.  Bots think in their own process unless `options` say otherwise.
        `loaded` is the scenario at `scenario` as the command line read and checked it, and `compiled` that
        scenario compiled under `rules`, if it was: the app reads and compiles neither again."""
        super().__init__()
        # CSS parsed once per process and theme, nodes styled from memory (stylesheet.py)
        self.stylesheet = NegtuiStylesheet(variables=self.get_css_variables())
        self._notifications = LastingNotifications()  # no toast for a notification about to expire (toasts.py)
        self.options = options  # None: AgentOptions(remote_bots=True), made when a game starts
        self.scenario_path, self.rules_name, self.seats = scenario, rules, seats or {}
        self.ask_seats, self.replay_path, self.follow = ask_seats, replay, follow
        self.record, self.data_dir = record, data_dir or user_data_dir()
        self.scenarios_dir = scenarios_dir or bundled_root()
        self.base = base or Seat(partner=partner, sims=sims)
        self.autoplay = autoplay
        self.live: LiveSource | None = None  # the game being played
        self.records_written: list[Path] = []  # named on the terminal after the app closes
        self.rule_set = get_rules(rules)  # and fail early on an unknown rule set
        self.loaded = loaded
        # a scenario compiled already, with the rules it was compiled under
        self._compiled = (loaded, self.rule_set, compiled) if loaded is not None and compiled is not None else None

    def on_mount(self) -> None:
        self._catch_signals()
        self.open_first()
        self._once_drawn(self, _collect_again)

    def _once_drawn(self, node: App | Screen, work: Callable[[], object]) -> None:
        """`work` once `node` is on the terminal (a moment after its layout: work then would hold up the
        drawing)."""
        node.call_after_refresh(lambda: self.set_timer(FIRST_FRAME, work))

    def open_first(self) -> None:
        """The first screen: a replay, a scenario's seats, or the picker (the training app: its lobby)."""
        if self.replay_path is not None:
            from negtui.play.sources import ReplaySource
            from negtui.record import Replay, load_record
            from negtui.record.reader import RecordError
            from negtui.tui.screens.replay import ReplayScreen

            try:
                rp = Replay(load_record(self.replay_path))
            except RecordError as err:
                self.exit(message=err.render(), return_code=2)
                return
            self.push_screen(ReplayScreen(ReplaySource(rp, self.replay_path if self.follow else None)))
        elif self.loaded is not None:
            self.choose_seats(self.loaded)
        elif self.scenario_path is not None:
            self.open_scenario(self.scenario_path)
        else:
            self.push_picker()

    def push_picker(self) -> None:
        """The scenarios and records to choose from, unless they are already on the stack."""
        from negtui.tui.screens.picker import PickerScreen

        if not any(isinstance(s, PickerScreen) for s in self.screen_stack):
            self.push_screen(PickerScreen(self.scenarios_dir))

    # --- starting games -------------------------------------------------------------------------------
    def open_record(self, path: Path) -> None:
        """A record chosen in the picker, replayed (a broken one is reported there, the picker stays)."""
        from negtui.play.sources import ReplaySource
        from negtui.record import Replay, load_record
        from negtui.record.reader import RecordError
        from negtui.tui.screens.replay import ReplayScreen

        try:
            rp = Replay(load_record(path))
        except RecordError as err:
            self.notify(err.render(), severity="error", timeout=10)
            return
        self.push_screen(ReplayScreen(ReplaySource(rp)))

    def open_scenario(self, path: Path) -> None:
        try:
            sc = load_scenario(path)
        except ScenarioError as err:
            from negtui.tui.screens.picker import PickerScreen

            if self.screen_stack and isinstance(self.screen, PickerScreen):
                self.notify(err.render(), severity="error", timeout=10)
            else:
                self.exit(message=err.render(), return_code=2)
            return
        self.choose_seats(sc)

    def open_generated(self, params: GeneratorParams) -> None:
        from negtui.generator import GeneratorError, generate

        try:
            sc = generate(params)
        except GeneratorError as err:  # the form checks every limit first: a draw that still fails is said here
            self.notify(str(err), severity="error", timeout=10)
            return
        folder = self.data_dir / "scenarios"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{sc.name}.json"
        write_scenario(sc, path, force=True)
        self.notify(f"generated {path}")
        self.choose_seats(sc, rules=params.rules)

    def choose_seats(self, sc: Scenario, rules: str | None = None) -> None:
        rules = rules or self.rules_name
        rule_set = self.rule_set if rules == self.rules_name else get_rules(rules)
        # bots play the lens that suits the game wherever no seat names another (as on the command line);
        # the dialog says why
        lens, why = suggested_lens(sc)
        seats = {**default_seats(sc.player_ids, self.base, lens), **self.seats}
        if not self.ask_seats:
            from negtui.play.starts import GameStart

            self.start_game(GameStart(sc, rule_set, seats, compiled=self._compiled_for(sc, rule_set)))
            return

        def chosen(result: dict[str, Seat] | None) -> None:
            if result is None:  # back: to the scenarios (ctrl+q or q there quits)
                self.push_picker()
                return
            from negtui.play.starts import GameStart

            self.start_game(GameStart(sc, rule_set, result, compiled=self._compiled_for(sc, rule_set)))

        refusal = rule_set.refusal(sc)
        if refusal is not None:  # the rule set cannot play it: say why before any seat is chosen
            self.back_to_scenarios(f"cannot play {sc.name} under {rules} rules: {refusal}")
            return
        note = f"Bots play {lens}: {why}. Make a seat human to play it yourself." if why else ""
        dialog = SeatsScreen(seats, CLOSED_FORM_LENSES, title=sc.name, base=self.base, note=note, bot_lens=lens,
                             labels=player_labels(sc))
        self.push_screen(dialog, chosen)
        # the dialog is drawn from the scenario alone; whether the exact lens fits the game is found while
        # the person reads it, in a thread that imports what playing the game needs (once the dialog is on the
        # terminal: the thread would hold up its drawing)
        self._once_drawn(dialog, lambda: self.run_worker(lambda: self._check_game(dialog, sc, rule_set), thread=True,
                                                         group="warm-up", exit_on_error=False))

    def _compiled_for(self, sc: Scenario, rules: Rules) -> Game | None:
        """The game compiled from this very scenario under these rules, if it was (by the command line, or
        while the seats were chosen); None: starting the game compiles it."""
        if self._compiled is not None and self._compiled[0] is sc and self._compiled[1] is rules:
            return self._compiled[2]
        return None

    def _check_game(self, dialog: SeatsScreen, sc: Scenario, rules: Rules) -> None:
        """In a thread: compile the game (importing the engine, the bots and the game screens on the way)
        and offer the exact lens if it fits; the game starts from what was compiled here."""
        from negtui.engine.game import compile_game
        from negtui.play.live import exact_not_offered
        from negtui.play.starts import GameStart  # noqa: F401  what starting the game will import
        from negtui.tui.screens.live import LiveScreen  # noqa: F401

        try:
            game = compile_game(sc, rules)
            why_not = exact_not_offered(game)
        except ValueError:  # starting the game will say why
            return
        self._compiled = (sc, rules, game)
        self.call_from_thread(self._exact_known, dialog, why_not)

    def _exact_known(self, dialog: SeatsScreen, why_not: str | None) -> None:
        """The exact lens offered in the seat dialog, or why it is not."""
        if dialog not in self.screen_stack:
            return
        if why_not is None:
            dialog.offer_lens("exact")
        elif why_not:
            dialog.add_note(why_not)

    def back_to_scenarios(self, why: str) -> None:
        """A game that cannot start: the reason, and a screen to go on from (never a blank one)."""
        self.notify(why, severity="error", timeout=10)
        if not self._has_game_screen():
            self.push_picker()

    def start_game(self, how: GameStart) -> None:
        """A live game, recorded in the data directory unless recording is off."""
        from negtui.agents.options import AgentOptions
        from negtui.play.live import LiveGame
        from negtui.play.sources import LiveSource
        from negtui.record.signing import data_dir_key
        from negtui.tui.screens.live import LiveScreen

        record = key = None
        try:
            if self.record:  # records the app writes are signed with the data directory's key
                self.records_dir.mkdir(parents=True, exist_ok=True)
                record, key = default_record_path(how.scenario.name, self.records_dir), data_dir_key(self.data_dir)
            options = self.options or AgentOptions(remote_bots=True)  # bots think in their own process
            game = LiveGame(how.scenario, how.rules, how.seats, start=how.start, record=record, parent=how.parent,
                            budget=how.budget, options=options, record_key=key, guided=how.guided,
                            compiled=how.compiled)
        except (ValueError, OSError, SeatError) as err:
            self.back_to_scenarios(f"cannot start: {err}")
            return
        if self.live is not None:
            self.live.close()
        self.live = LiveSource(game, how.earlier)
        screen = LiveScreen(self.live)
        self.switch_screen(screen) if self._has_game_screen() else self.push_screen(screen)
        if record:
            self.announce_record(record)
        if self.autoplay:
            self.call_after_refresh(screen.action_run)

    def announce_record(self, record: Path) -> None:
        """That the game is written, briefly (a path in a toast wraps mid-word and hides the lesson on a small
        terminal); where it went is said on quitting, and on the game-over screen."""
        self.records_written.append(record)
        self.notify("recording this game: the file is named when you quit", timeout=4)

    @property
    def game(self) -> LiveGame | None:
        """The game being played, if one is."""
        return self.live.game if self.live is not None else None

    def _has_game_screen(self) -> bool:
        from negtui.tui.screens.game import GameScreen

        return any(isinstance(s, GameScreen) for s in self.screen_stack)

    @property
    def records_dir(self) -> Path:
        return self.data_dir / "records"

    # what a player may do in a game (the training app restricts it)
    seat_changes = True  # hand seats to bots or people mid-game
    asks_before_leaving = False  # q ends the app; the record keeps the game
    shows_paths = True  # files on this machine may be named (a server's are not its trainees' business)
    lessons_in_game = True  # a scenario's lesson before the game is over (it may tell the answer)

    def may_retry(self) -> bool:
        """Whether a debrief may offer to play again from a decision."""
        return True

    def after_game(self) -> None:
        """The end-of-game screen closed."""

    def close_game(self) -> None:
        """Every game screen off the stack and the game closed: back to what was shown before it (the
        training app's lobby, the trainer's console)."""
        while self._has_game_screen():
            self.pop_screen()
        if self.live is not None:
            self.live.close()
            self.live = None

    def leave_game(self) -> None:
        """The player left the game (q): negtui's own app ends with it."""
        self.exit()

    def score_words(self, ending) -> str | None:
        """What the game is scored by, said at the top of its debrief (a course's exercise); None: nothing."""
        return None

    def debriefed(self, debriefs: list) -> None:
        """A game with people in it has been debriefed (negtui.coach.debrief.Debrief per person's seat);
        the training app keeps the results."""

    # --- app-wide -------------------------------------------------------------------------------------
    def action_help(self) -> None:
        focused = self.focused
        if isinstance(focused, TextArea) or (isinstance(focused, Input) and focused.type == "text"):
            raise SkipAction  # a question mark typed into a field (a number field has no use for one)
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        from negtui.tui.screens.game import GameScreen

        game = next((s for s in reversed(self.screen_stack) if isinstance(s, GameScreen)), None)
        self.push_screen(HelpScreen(game.MODE if game is not None else "play"))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        from negtui.tui.screens.game import GameScreen

        yield from super().get_system_commands(screen)
        if isinstance(screen, GameScreen):
            for title, help_text, action in palette_entries(screen.MODE):
                if screen.check_action(action, ()):
                    yield SystemCommand(title, help_text, getattr(screen, f"action_{action}"))

    def on_unmount(self) -> None:
        if self.live is not None:
            self.live.close()
        for sig in self._signals:
            asyncio.get_running_loop().remove_signal_handler(sig)

    # --- what Textual's App does that a screen of ours does not need ----------------------------------------
    @property
    def _background_screens(self) -> list[Screen]:
        """Textual counts the screen just below the top one as showing through it, the top one opaque or not: its
        update timer laid it out and drew it, and each region it drew made the top screen repaint that region
        (a lobby refreshing its list as a game opened over it was laid out twice and repainted the game).  A
        screen below shows only through a translucent one (a dialog)."""
        stack = self.screen_stack
        if stack and stack[-1].styles.background.a == 1:
            return []  # nothing shows through an opaque screen
        return super()._background_screens

    def _refresh_notifications(self) -> None:
        """Every screen resuming tells its toast rack the notifications, and the rack sets its `display` from
        them: with none, hidden over its hidden, which Textual takes for a change and answers with a layout of
        the screen (each screen shown was laid out once more for it).  A rack with nothing to show and nothing
        shown is left as it is."""
        if not self._notifications:
            rack = next(iter(self.screen.query_children(ToastRack)), None) if self.screen_stack else None
            if rack is None or (not rack.display and not rack.children):
                return
        super()._refresh_notifications()

    # --- signals --------------------------------------------------------------------------------------
    _signals: tuple[int, ...] = ()

    def _catch_signals(self) -> None:
        """kill -INT, -TERM or -HUP (a closed terminal, a dropped SSH connection) end the app as Ctrl-C
        ends a command: the record keeps every finished turn and the exit status says why (128 + signal)."""
        loop = asyncio.get_running_loop()
        caught = []
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            try:
                loop.add_signal_handler(sig, self._signalled, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
                continue
            caught.append(sig)
        self._signals = tuple(caught)

    def action_interrupt(self) -> None:
        """Ctrl-C ends the app as it ends any command: status 130, the record keeping every finished turn.  In
        the app's raw mode it is a key, not a signal, and Textual's own binding only said how to quit (in a
        dialog, not even that).  Text selected (in a field, or on the screen) is copied instead, as a field's
        Ctrl-C does."""
        focused = self.focused
        selected = focused.selected_text if isinstance(focused, Input | TextArea) else None
        selected = selected or self.screen.get_selected_text()
        if selected:
            self.copy_to_clipboard(selected)
            return
        self._signalled(signal.SIGINT)

    def _signalled(self, sig: int) -> None:
        """End as asked; and should the ending hang (Textual's shutdown can wait forever on output to a
        terminal that is gone, after a hang-up mid-start), leave anyway after a grace period: the record
        is written line by line with os.write, so nothing is lost, and bot processes end with their parent."""
        self.exit(None, 128 + sig)
        if sig != signal.SIGINT:  # ctrl+c comes from a terminal that is still there
            watchdog = threading.Timer(EXIT_GRACE, os._exit, (128 + sig,))
            watchdog.daemon = True
            watchdog.start()


if TYPE_CHECKING:  # the app is what its screens ask of their host
    def _hosts(app: NegtuiApp) -> tuple[GameHost, PickerHost]:
        return app, app


def _collect_again() -> None:
    """A command opening the app holds off garbage collection (gc.disable) until the first screen is out:
    start-up makes long-lived objects (modules, classes, styles) that collections went over again and
    again, about 80 ms of a start.  They are set aside for good (gc.freeze), and collecting resumes."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def run_app(app: NegtuiApp) -> int:
    """Run the app in this terminal (headless under NEGTUI_HEADLESS); its exit status, after naming the
    records it wrote."""
    try:
        if os.environ.get("NEGTUI_HEADLESS"):
            app.run(headless=True)
        else:
            app.run()
    finally:
        _collect_again()  # an app that ended before its first screen leaves no collector off behind it
    for record in app.records_written:  # a record with no finished turn was removed: nothing to name
        if record.exists():
            print(f"recorded: {record}  (negtui replay {record})")
    return app.return_code or 0
