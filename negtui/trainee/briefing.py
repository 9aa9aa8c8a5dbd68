"""An exercise before play: its briefing, the seat (when the trainee picks one), what the numbers of
the game will mean for that seat (the baseline and the lenses, with this game's values), and how the
exercise is coached or graded."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Select, Static

from negtui.classroom.course import Exercise
from negtui.coach.words import primer
from negtui.engine.negotiation import Negotiation
from negtui.engine.rules import get_rules
from negtui.names import player_label
from negtui.scenario.model import Scenario
from negtui.tui.screens.dialogs import ConfirmScreen
from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.keybar import KeyBar


class BriefingScreen(Dialog[str | None]):
    """An exercise before play: the briefing, and the seat (when the trainee may choose one)."""

    BINDINGS = [Binding("escape", "cancel", "back"), Binding("ctrl+s", "start", "start"),
                # the briefing scrolls from where focus starts (the Start button), as its scrollbar promises
                *(Binding(key, f"briefing('{how}')", show=False)
                  for key, how in (("down", "down"), ("up", "up"), ("pagedown", "page_down"), ("pageup", "page_up")))]

    def __init__(self, exercise: Exercise, scenario: Scenario) -> None:
        super().__init__()
        self.exercise, self.scenario = exercise, scenario
        self.neg = Negotiation.from_scenario(scenario, get_rules(exercise.rules))

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        ex, sc = self.exercise, self.scenario
        with Vertical(id="dialog", classes="dialog wide"):
            yield Label(ex.title, classes="dialog-title")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Start (ctrl+s)", variant="primary", id="start")
                yield Button("Back (escape)", id="back")
            if ex.seat == "any":
                yield Select([(player_label(p), p.id) for p in sc.players], value=sc.players[0].id,
                             allow_blank=False, id="seat")
            else:
                you = next(p for p in sc.players if p.id == ex.seat)
                yield Static(Text(f"you play {player_label(you)}", style="bold"))
            with VerticalScroll(classes="briefing"):
                yield Static(ex.briefing or sc.description)  # not the lesson: it tells the answer
                yield Static(self._primer(ex.seat if ex.seat != "any" else sc.players[0].id), id="primer")
                yield Static(Text("\nAn assessment: no hints, suggestions or solver's numbers while you play; "
                                  "the debrief sets each of your decisions beside what each lens bot would have "
                                  "done. This game counts as an attempt as soon as it starts.", style="dim")
                             if not ex.guided else
                             Text("\nAfter each of your decisions the coach pane sets it beside what each lens bot "
                                  "would have done" + ("; h asks before you decide." if ex.hints else "."),
                                  style="dim"))

    def _primer(self, seat: str) -> Text:
        return Text("\n" + primer(self.neg, self.neg.game.index_of(seat)))

    def on_select_changed(self, event: Select.Changed) -> None:
        self.query_one("#primer", Static).update(self._primer(str(event.value)))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_start() if event.button.id == "start" else self.action_cancel()

    def action_start(self) -> None:
        seat = str(self.query_one("#seat", Select).value) if self.exercise.seat == "any" else self.exercise.seat
        if self.exercise.guided:
            self.dismiss(seat)
            return
        attempts = self.exercise.attempts  # an assessment's attempt counts once it starts: asked first

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss(seat)

        allowed = f" ({attempts} allowed in all)" if attempts else ""
        self.app.push_screen(ConfirmScreen(
            "Start a graded attempt?", f"This game counts as an attempt as soon as it starts{allowed}; leaving it "
            "keeps it to resume. y starts it, n goes back to the briefing."), answered)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_briefing(self, how: str) -> None:
        text = self.query_one(".briefing", VerticalScroll)
        {"down": text.scroll_down, "up": text.scroll_up, "page_down": text.scroll_page_down,
         "page_up": text.scroll_page_up}[how]()
