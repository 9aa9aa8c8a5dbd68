"""How a live game ends and is left: once the last decisions are judged, the debrief (a person played) or
the summary; a retry from an earlier turn; q, which asks first where leaving is not the end of the app.
A part of `LiveScreen` (screens/live.py)."""

from __future__ import annotations

import asyncio
from contextlib import suppress

from textual import work
from textual.worker import WorkerCancelled, WorkerFailed

from negtui.play.sources import LiveSource
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import ConfirmScreen
from negtui.tui.screens.game import GameScreen
from negtui.tui.screens.summary import SummaryScreen


class GameEnd(GameScreen):
    """A live game's screen, as far as its end and leaving it go."""

    source: LiveSource

    def _show_ending(self) -> None:
        if self._assessing():  # the last decisions judged first: the debrief's costliest are made from them
            self._ending_once_assessed()
            return
        ending = self.source.ending()
        if ending.people:
            retry = self._retry_from if self.host.may_retry() else None
            self.app.push_screen(DebriefScreen(ending, retry=retry, done=self.host.debriefed,
                                               score=self.host.score_words(ending)),
                                 lambda _: self.host.after_game())
            return
        game = ending.game
        self.app.push_screen(SummaryScreen(game.neg, game.neg.returns(game.state), game.baseline,
                                           ending.first_forecasts, str(game.record_path) if game.record_path else None),
                             lambda _: self.host.after_game())

    def _assessing(self) -> bool:
        return self.source.has_unassessed or any(w.node is self and w.group == "coach" and not w.is_finished
                                                 for w in self.app.workers)

    @work(group="ending")
    async def _ending_once_assessed(self) -> None:
        for worker in [w for w in self.app.workers if w.node is self and w.group == "coach"]:
            with suppress(WorkerCancelled, WorkerFailed):  # a failed assessment leaves its decision out
                await worker.wait()
        if self.source.has_unassessed:
            await asyncio.to_thread(self.source.assess)
        self._show_ending()

    def _retry_from(self, t: int) -> None:
        """Play again from before turn t, with the same seats (a fork of this game's record)."""
        self.host.start_game(self.source.retry_from(t))

    def leave_question(self) -> tuple[str, str] | None:
        """What `q` asks before leaving (title, text), or None to leave at once."""
        if not self.host.asks_before_leaving or self.source.over:
            return None
        return ("Leave the game?", "It is kept as far as it got: the lobby offers to resume it from here. y leaves, "
                                   "n stays.")

    def action_quit(self) -> None:
        question = self.leave_question()
        if question is None:
            self.leave()
            return

        def leave(yes: bool | None) -> None:
            if yes:
                self.leave()

        self.app.push_screen(ConfirmScreen(*question), leave)

    def leave(self) -> None:
        self.source.close()
        self.host.leave_game()
