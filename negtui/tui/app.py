"""The negtui app: picker → seats → play, or a record in replay mode.

One app instance per terminal (or SSH connection): everything it needs arrives through its
constructor — scenario, rules, seats, where records go — and nothing is kept in module globals."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from negtui.engine.negotiation import State
from negtui.engine.rules import get_rules
from negtui.generator import GeneratorParams, generate
from negtui.record import Parent, Replay, load_record
from negtui.record.reader import RecordError
from negtui.scenario import Scenario, ScenarioError, load_scenario, write_scenario
from negtui.scenario.library import bundled_root
from negtui.session import Seat, Session, default_record_path, user_data_dir
from negtui.tui.screens.dialogs import HelpScreen, SeatsScreen
from negtui.tui.screens.picker import PickerScreen
from negtui.tui.screens.play import PlayScreen



class NegtuiApp(App):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere find it too
    TITLE = "negtui"
    BINDINGS = [Binding("ctrl+q", "quit", "quit", show=False), Binding("question_mark", "help", "help", show=False)]

    def __init__(self, scenario: Path | None = None, *, rules: str = "paper", seats: dict[str, Seat] | None = None,
                 ask_seats: bool = True, replay: Path | None = None, record: bool = True,
                 data_dir: Path | None = None, scenarios_dir: Path | None = None, partner: str = "mcts",
                 sims: int = 50, autoplay: bool = False, remote_bots: bool = True) -> None:
        super().__init__()
        self.remote_bots = remote_bots
        self.scenario_path, self.rules_name, self.seats = scenario, rules, seats or {}
        self.ask_seats, self.replay_path = ask_seats, replay
        self.record, self.data_dir = record, data_dir or user_data_dir()
        self.scenarios_dir = scenarios_dir or bundled_root()
        self.partner, self.sims, self.autoplay = partner, sims, autoplay
        self.session: Session | None = None
        get_rules(rules)  # fail early on an unknown rule set

    def on_mount(self) -> None:
        if self.replay_path is not None:
            try:
                rp = Replay(load_record(self.replay_path))
            except RecordError as err:
                self.exit(message=err.render(), return_code=2)
                return
            self.push_screen(PlayScreen(replay=rp))
        elif self.scenario_path is not None:
            self.open_scenario(self.scenario_path)
        else:
            self.push_screen(PickerScreen(self.scenarios_dir))

    # --- starting games -------------------------------------------------------------------------------
    def open_scenario(self, path: Path) -> None:
        try:
            sc = load_scenario(path)
        except ScenarioError as err:
            if self.screen_stack and isinstance(self.screen, PickerScreen):
                self.notify(err.render(), severity="error", timeout=10)
            else:
                self.exit(message=err.render(), return_code=2)
            return
        self.choose_seats(sc)

    def open_generated(self, params: GeneratorParams) -> None:
        sc = generate(params)
        folder = self.data_dir / "scenarios"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{sc.name}.json"
        write_scenario(sc, path, force=True)
        self.notify(f"generated {path}")
        self.choose_seats(sc)

    def choose_seats(self, sc: Scenario) -> None:
        seats = {p.id: self.seats.get(p.id, Seat()) for p in sc.players}
        if not self.ask_seats:
            self.start_session(sc, self.rules_name, seats)
            return

        def chosen(result: dict[str, Seat] | None) -> None:
            if result is None:
                if not isinstance(self.screen, PickerScreen):
                    self.exit()
                return
            self.start_session(sc, self.rules_name, result)

        lenses = ("myopic", "upper", "lower", "exact")
        self.push_screen(SeatsScreen(seats, lenses, title=sc.name), chosen)

    def start_session(self, sc: Scenario, rules: str, seats: dict[str, Seat], *, start: State | None = None,
                      parent: Parent | None = None, budget: int | None = None, partner: str | None = None,
                      sims: int | None = None) -> None:
        record = default_record_path(sc.name, self.data_dir / "records") if self.record else None
        try:
            session = Session(sc, get_rules(rules), seats, partner_method=partner or self.partner,
                              sims=self.sims if sims is None else sims,
                              start=start, record=record, parent=parent, budget=budget, remote=self.remote_bots)
        except (ValueError, OSError) as err:
            self.notify(f"cannot start: {err}", severity="error", timeout=10)
            return
        if self.session is not None:
            self.session.close()
        self.session = session
        screen = PlayScreen(session=session)
        self.switch_screen(screen) if self._has_play_screen() else self.push_screen(screen)
        if record:
            self.notify(f"recording to {record}", timeout=4)
        if self.autoplay:
            self.call_after_refresh(screen.action_run)

    def _has_play_screen(self) -> bool:
        return any(isinstance(s, PlayScreen) for s in self.screen_stack)

    # --- app-wide -------------------------------------------------------------------------------------
    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, PlayScreen):
            for action, title, help_text in (
                ("step", "Step one turn", "let the bot whose turn it is move"),
                ("run", "Run / pause autoplay", "bots play on their own"),
                ("faster", "Faster autoplay", "shorter pause between turns"),
                ("slower", "Slower autoplay", "longer pause between turns"),
                ("partner", "Pick a partner", "on your turn: choose whom to make an offer to"),
                ("submit", "Submit the offer", "send the offer being built"),
                ("pass_turn", "Pass the turn", "make no offer"),
                ("seats", "Seats", "switch seats between human and lenses"),
                ("welfare", "Welfare optimum", "utilitarian, Nash, Nash bargaining or maximin optimum now"),
                ("sort_goals", "Sort goals", "by value, progress or id"),
                ("filter_log", "Filter the turn log", "only turns of the focused player"),
                ("turn_back", "Replay: previous turn", ""), ("turn_forward", "Replay: next turn", ""),
                ("jump", "Replay: jump to turn", ""), ("take_over", "Replay: take over from this turn", "fork"),
                ("help", "Help", "keys and lenses"),
            ):
                if screen.check_action(action, ()):
                    yield SystemCommand(title, help_text, getattr(screen, f"action_{action}"))

    def on_unmount(self) -> None:
        if self.session is not None:
            self.session.close()


def run_app(**kwargs) -> int:
    app = NegtuiApp(**kwargs)
    if os.environ.get("NEGTUI_HEADLESS"):
        app.run(headless=True)
    else:
        app.run()
    return app.return_code or 0
