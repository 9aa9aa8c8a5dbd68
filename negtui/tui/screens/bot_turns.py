"""The bots' turns of a live game: the agent whose decision it is decides in a worker (a person's turn opens
its dialog instead), the headline says "thinking…" for a decision that takes a while, and autoplay steps.
A part of `LiveScreen` (screens/live.py), which decides what happens after each move."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.timer import Timer

from negtui.play.sources import LiveSource
from negtui.tui import palette
from negtui.tui.messages import AgentDecided, AgentFailed
from negtui.tui.screens.game import GameScreen

if TYPE_CHECKING:
    from negtui.engine.turns import TurnEvent

THINKING_SHOWN_AFTER = 0.15  # seconds a bot has been deciding before the headline says so


class BotTurns(GameScreen):
    """A live game's screen, as far as the agents' decisions go."""

    source: LiveSource

    if TYPE_CHECKING:  # the rest of the live screen's
        def advance(self) -> None: ...
        def _turn_ended(self, ev: TurnEvent) -> None: ...
        def _ask_person(self) -> None: ...
        def action_partner(self) -> None: ...
        def wait_for_exact(self) -> bool: ...

    def __init__(self, source: LiveSource) -> None:
        super().__init__(source)
        self.thinking = False
        self._thinking_shown: Timer | None = None

    def set_thinking(self, thinking: bool) -> None:
        """The headline says "thinking…" only for a decision that takes a while: a fast autoplay would
        otherwise redraw it twice a turn, for a flash nobody can read."""
        self.thinking = thinking
        if self._thinking_shown is not None:
            self._thinking_shown.stop()
            self._thinking_shown = None
        if thinking:
            self._thinking_shown = self.set_timer(THINKING_SHOWN_AFTER, self._show_thinking)
        elif self.view.thinking:
            self.view.thinking = False

    def _show_thinking(self) -> None:
        self._thinking_shown = None
        self.view.thinking = self.thinking

    def action_step(self) -> None:
        """Let the agent whose decision it is decide (on a person's turn: open the partner dialog)."""
        src = self.source
        if src.over or self.thinking:
            return
        if src.person_to_move():
            if src.person_proposing:
                self.action_partner()
            else:
                self._ask_person()  # the offer again, after escape put it aside
            return
        if self.wait_for_exact():  # its first move needs the whole solution: solved with progress, not in a blink
            return
        self.set_thinking(True)
        self._think()

    @work(thread=True, exclusive=True, group="agent")
    def _think(self) -> None:
        try:
            moves = self.source.think()
        except Exception as err:  # shown to the user; the game stays as it was
            self.post_message(AgentFailed(str(err) or type(err).__name__))
            return
        self.post_message(AgentDecided(moves))

    def on_agent_failed(self, message: AgentFailed) -> None:
        self.set_thinking(False)
        self.autoplay.stop()
        self.set_status(Text(f"a bot could not move: {message.text}", style=palette.NEGATIVE))
        self.show_snapshot()

    def on_agent_decided(self, message: AgentDecided) -> None:
        self.set_thinking(False)
        for ev in self.source.commit(message.moves):
            self._turn_ended(ev)
        self.advance()

    def autoplay_started(self) -> None:
        if self.source.person_to_move():
            self.advance()  # a person's turn: prompted once, not again
        else:
            self.action_step()  # an agent's turn: at once

    def _autoplay_step(self) -> None:
        """Autoplay's next step, due a moment after it was scheduled: by then it may be a person's turn, which
        was prompted as it came (advance) and may have been put aside (escape): a step leaves it as it is,
        where the step key opens it again."""
        if not self.source.person_to_move():
            self.action_step()
