"""The exact solution solved in the background of a live game: progress on the status line, c cancels, and
a seat that plays the exact lens waits for it rather than freezing the screen while it solves."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.worker import get_current_worker

from negtui.play.sources import LiveSource
from negtui.tui import palette
from negtui.tui.messages import ExactDone, ExactProgress
from negtui.tui.screens.game import GameScreen


class ExactCancelled(Exception):
    """Raised from the exact solve's progress callback when the person cancelled it."""


class ExactSolving(GameScreen):
    """A live game's screen, as far as the exact solve goes (screens/live.py composes it with the other parts)."""

    def __init__(self, source: LiveSource) -> None:
        super().__init__(source)
        self.source: LiveSource = source
        self.exact_solving = False
        self._waiting_for_exact = False  # an exact seat's move waits for the solve

    def action_step(self) -> None:
        raise NotImplementedError

    def wait_for_exact(self) -> bool:
        """Whether the agent to decide must wait for the solve (which starts if it has not)."""
        if not self.source.waits_for_exact():
            return False
        self._waiting_for_exact = True
        if not self.exact_solving:
            self.start_exact()
        return True

    def start_exact(self) -> None:
        """Games too large to solve in a blink are solved in a thread: the game goes on meanwhile, the
        status shows the progress, c cancels; forecasts and coaching add the exact solution when it is there."""
        if not self.source.exact_to_solve or self.exact_solving:  # one solve: a second would cancel the first
            return
        self.exact_solving = True
        self.set_status(f"solving the exact game in the background … (c cancels){self._exact_seats_wait()}")
        self.sync_keys()
        self._solve_exact()

    @work(thread=True, exclusive=True, group="exact")
    def _solve_exact(self) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:
                raise ExactCancelled
            self.post_message(ExactProgress(done, total))

        try:
            self.source.solve_exact(progress)
        except ExactCancelled:
            self.post_message(ExactDone(cancelled=True))
            return
        self.post_message(ExactDone())

    def on_exact_progress(self, message: ExactProgress) -> None:
        if self.exact_solving:
            then = self._exact_seats_wait() or "; forecasts and coaching add it when done"
            self.set_status(f"solving the exact game: {message.done}/{message.total} turns solved (c cancels){then}")

    def _exact_seats_wait(self) -> str:
        """The status's word on the seats that play the exact lens: they move once it is solved."""
        waiting = self.source.game.exact_seats
        if not waiting:
            return ""
        s = "s" * (len(waiting) == 1)
        return f"; {', '.join(waiting)} play{s} the exact lens and move{s} once it is solved"

    def on_exact_done(self, message: ExactDone) -> None:
        self.exact_solving = False
        waiting, self._waiting_for_exact = self._waiting_for_exact, False
        if message.cancelled:
            self.autoplay.stop()
            if self.source.game.exact_seats:
                self.set_status(Text("exact solve cancelled: a seat that plays the exact lens cannot move without it"
                                     " — n solves again, s gives the seat to another lens", style=palette.NEGATIVE))
            else:
                self.set_status("exact solve cancelled: forecasts and coaching go on without it")
        elif self.source.game.exact_ready:
            self.set_status("exact solution ready: the forecasts' exact column and the coach now include it")
        else:
            self.set_status("exact solution ready")
        self.show_snapshot()
        if waiting and not message.cancelled:
            self.action_step()  # the exact seat's move it waited for

    def action_cancel_exact(self) -> None:
        if self.exact_solving:
            self.workers.cancel_group(self, "exact")
            self.set_status("cancelling the exact solve …")
