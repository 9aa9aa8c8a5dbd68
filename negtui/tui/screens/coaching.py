"""Coaching in a live game: each decision of a person judged in a worker as its turn ends, a hint (h) asked of
every lens, and the coach's word on the status line (and its pane, where the game shows it first).  A part
of `LiveScreen` (screens/live.py)."""

from __future__ import annotations

from rich.text import Text
from textual import work

from negtui.play.sources import LiveSource
from negtui.tui import palette
from negtui.tui.messages import Coached
from negtui.tui.screens.game import GameScreen
from negtui.tui.widgets.coach import summary


class Coaching(GameScreen):
    """A live game's screen, as far as coaching goes."""

    source: LiveSource

    def __init__(self, source: LiveSource) -> None:
        super().__init__(source)
        self._coach_line: Text | None = None  # the coach's word on the last decision, until another turn ends

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
