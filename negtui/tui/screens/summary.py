"""End of game: payoffs against the No-Negotiation baseline, how each lens forecast the outcome, and
the utilitarian welfare optimum (solved in the background, or as the screen opens when a few thousand
completions settle it: the screen is then drawn once, complete, rather than again as the number arrives)."""

from __future__ import annotations

import time

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widgets import Label, Static

from negtui.coach.closing import WELFARE_SECONDS
from negtui.engine.completions import free_cells, small_enough, utilitarian_optimum
from negtui.engine.negotiation import Negotiation
from negtui.engine.portable import PortableGame
from negtui.names import player_names
from negtui.tui import palette
from negtui.tui.messages import WelfareFailed, WelfareSolved
from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.fit_table import FitTable
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.rendered import SteadyStatic
from negtui.tui.workers import watch_welfare
from negtui.welfare import WelfareJob, WelfareOptions, WelfareRequest, WelfareResult

AT_ONCE_FREE_CELLS = 12  # at most 2^12 completions to enumerate: a few milliseconds, spent as the screen opens


class Scrolled(VerticalScroll):
    """The dialog's scrolling body, its scrollbar always shown (below), measured at the width its content gets:
    Textual measures an auto-height container at its whole width, scrollbar included, and then lays its
    children out beside the scrollbar, so every table was rendered at both widths."""

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.styles.overflow_y == "scroll":
            width = max(0, width - self.styles.scrollbar_size_vertical)
        return super().get_content_height(container, viewport, width)


class SummaryScreen(Dialog[None]):
    BINDINGS = [Binding("escape,enter,q", "close", "close")]
    # its scrollbar always there: a debrief taller than the screen got it after its first layout, and every
    # table in it was rendered and drawn again one column narrower (with the room kept, laid out again)
    DEFAULT_CSS = "SummaryScreen #dialog { overflow-y: scroll; }"

    def __init__(self, neg: Negotiation, payoffs: np.ndarray, baseline: np.ndarray,
                 first_forecasts: dict[str, np.ndarray], record: str | None, solve: bool = True) -> None:
        """`solve` False: the welfare optimum is told (`show_welfare`), not solved here."""
        super().__init__()
        self.solve = solve
        self.neg = neg
        self.names, self.payoffs, self.baseline = player_names(neg.game.scenario), payoffs, baseline
        # myopic's forecast is the payoff of the state it is made in: at the start, of nothing committed
        self.first_forecasts = {lens: v for lens, v in first_forecasts.items() if lens != "myopic"}
        self.record = record
        self.job: WelfareJob | object | None = None

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        t = FitTable(title="final payoffs")
        cols = ["player", "payoff", "baseline", "Δ"] + [f"{lens}\nsaid" for lens in self.first_forecasts]
        for c in cols:
            t.add_column(c, justify="left" if c == "player" else "right")
        for i, name in enumerate(self.names):
            d = float(self.payoffs[i] - self.baseline[i])
            said = [f"{v[i]:z.1f}" for v in self.first_forecasts.values()]
            t.add_row(name, f"{self.payoffs[i]:z.2f}", f"{self.baseline[i]:z.2f}",
                      Text(f"{d:+z.2f}", style=palette.signed(d)), *said)
        total = float(self.payoffs.sum() - self.baseline.sum())
        t.add_section()
        t.add_row("sum", f"{self.payoffs.sum():z.2f}", f"{self.baseline.sum():z.2f}",
                  Text(f"{total:+z.2f}", style=palette.signed(total)), *["" for _ in self.first_forecasts])
        with Scrolled(id="dialog", classes="dialog wide"):
            yield Label("Game over", classes="dialog-title")
            yield SteadyStatic(t)
            yield Static("payoff: what each player got; baseline: what each would get with no negotiation, everyone "
                         "making only the commitments best for itself alone; Δ: the difference; '… said': each lens's "
                         "forecast at the start of the game.", classes="dim")
            yield SteadyStatic("welfare optimum: solving …", id="summary-welfare")
            yield from self.more()
            if self.record and getattr(self.app, "shows_paths", True):  # not a server's paths to its trainees
                yield Static(f"record: {self.record}")

    def more(self) -> ComposeResult:
        """What a subclass adds below the welfare line."""
        return
        yield

    def on_mount(self) -> None:
        """The utilitarian optimum: enumerated before the first frame on a tiny game, in a thread on a small
        one, else a MILP in a worker process."""
        if not self.solve:
            return
        if len(free_cells(self.neg.game, 0)) <= AT_ONCE_FREE_CELLS:
            self.show_welfare(self._enumerated())
            return
        if small_enough(self.neg.game):
            self.job = object()
            self.run_worker(self._enumerate, thread=True, group="welfare")
            return
        game = self.neg.game
        self.job = WelfareJob(WelfareRequest(PortableGame.of(game, self.neg.rules), 0,
                                             WelfareOptions(objective="utilitarian", time_limit=WELFARE_SECONDS)))
        watch_welfare(self, self.job)

    def _enumerate(self) -> None:
        started, job = time.perf_counter(), self.job
        res = self._enumerated()
        self.post_message(WelfareSolved(job, res, time.perf_counter() - started))

    def _enumerated(self) -> WelfareResult:
        welfare, pay, bits = utilitarian_optimum(self.neg.game)
        return WelfareResult("utilitarian", "optimal", True, bits=bits, payoffs=[float(v) for v in pay],
                             welfare=welfare)

    def on_welfare_failed(self, message: WelfareFailed) -> None:
        if message.job is not self.job:
            return  # a solve cancelled meanwhile
        self.say_welfare(f"welfare optimum: not solved ({message.text})")

    def on_welfare_solved(self, message: WelfareSolved) -> None:
        if message.job is not self.job:
            return  # a solve cancelled meanwhile
        self.show_welfare(message.result)

    def say_welfare(self, text: str) -> None:
        """The welfare line, where it is on screen: a result can race the screen closing."""
        for label in self.query("#summary-welfare").results(SteadyStatic):
            label.show(text)

    def show_welfare(self, res: WelfareResult) -> None:
        if res.welfare is None:
            self.say_welfare(f"welfare optimum: {res.status}")
            return
        eff = float(self.payoffs.sum()) / res.welfare if res.welfare else float("nan")
        self.say_welfare(f"utilitarian optimum {res.welfare:z.2f}: the largest sum of payoffs any completion of the "
                     f"game allows; this game reached {eff:z.0%} of it")
        self.solved(res)

    def solved(self, res) -> None:
        """A subclass's use of the welfare optimum."""

    def _cancel(self) -> None:
        if isinstance(self.job, WelfareJob):
            self.job.cancel()  # the app quit mid-solve: do not leave the worker process behind

    def action_close(self) -> None:
        self._cancel()
        self.dismiss(None)

    def on_unmount(self) -> None:
        self._cancel()
