"""The welfare benchmark for the current state, solved in a worker process with a cancel key."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Select, Static

from negtui.engine.negotiation import Negotiation
from negtui.engine.portable import PortableGame
from negtui.names import player_names
from negtui.tui import palette
from negtui.tui.messages import WelfareFailed, WelfareSolved
from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.workers import watch_welfare
from negtui.welfare import (
    OBJECTIVES,
    WelfareJob,
    WelfareOptions,
    WelfareRequest,
    WelfareResult,
    efficiency,
    welfare_of,
)
from negtui.welfare.options import MEANING


class WelfareScreen(Dialog[tuple[str, int] | None]):
    """Dismissed with (objective, the optimum's commitments) when the person asks to see it on the matrix."""

    SCROLLS = "#welfare-body"
    BINDINGS = [
        Binding("enter", "solve", "solve"),
        Binding("c", "cancel_solve", "cancel solve"),
        Binding("m", "mark", "mark on the matrix"),
        Binding("escape", "close", "close"),
    ]

    def __init__(self, neg: Negotiation, bits: int, payoffs: np.ndarray, forecast: np.ndarray,
                 objective: str = "utilitarian", describe: Callable[[int], str] | None = None) -> None:
        super().__init__()
        self.game = PortableGame.of(neg.game, neg.rules)  # solved in a worker process
        self.bits, names = bits, player_names(neg.game.scenario)
        self.describe = describe  # new commitments (a bitmask) in words
        self.names, self.payoffs, self.forecast = names, payoffs, forecast
        self.objective = objective
        self.job: WelfareJob | None = None
        self.result: WelfareResult | None = None

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        with Vertical(id="dialog", classes="dialog wide"):
            yield Label("Welfare optimum over every completion of the current commitments", classes="dialog-title")
            with Horizontal(classes="dialog-buttons"):
                yield Select([(o, o) for o in OBJECTIVES], value=self.objective, allow_blank=False, id="objective",
                             classes="objective")
                yield Button("Solve (enter)", variant="primary", id="solve")
                yield Button("Cancel (c)", id="cancel")
                yield Button("Mark (m)", id="mark", disabled=True)
            # what the solve found scrolls under the buttons; the table before the words on what the optimum
            # adds, which on a large game run for a dozen lines (at 80×24 they hid the table)
            with VerticalScroll(id="welfare-body"):
                yield Static("", id="welfare-status")
                yield Static("", id="welfare-table")
                yield Static("", id="welfare-adds")

    def on_mount(self) -> None:
        self.query_one("#welfare-body").focus()  # arrows scroll what was found; tab reaches the objective
        self.action_solve()

    @property
    def solving(self) -> bool:
        return self.job is not None and not self.job.done()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """c cancels a solve while one runs, and is not offered otherwise (False hides it from the key bar;
        None would show it greyed)."""
        return self.solving if action == "cancel_solve" else True

    def _solve_changed(self) -> None:
        """A solve started or ended: the key bar and the cancel button follow."""
        self.query_one("#cancel", Button).disabled = not self.solving
        self.refresh_bindings()

    def on_select_changed(self, event: Select.Changed) -> None:
        if str(event.value) != self.objective:  # another objective: its own solve, the old table gone
            self.objective = str(event.value)
            self.action_solve()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "solve":
            self.action_solve()
        elif event.button.id == "mark":
            self.action_mark()
        else:
            self.action_cancel_solve()

    def action_solve(self) -> None:
        self.action_cancel_solve(quiet=True)
        self.query_one("#welfare-status", Static).update(f"solving {self.objective} … (c cancels)")
        self.query_one("#welfare-table", Static).update("")
        self.query_one("#welfare-adds", Static).update("")
        self.query_one("#mark", Button).disabled = True
        self.result = None
        self.job = WelfareJob(WelfareRequest(self.game, self.bits, WelfareOptions(objective=self.objective,
                                                                                  time_limit=60)))
        watch_welfare(self, self.job)
        self._solve_changed()

    def action_cancel_solve(self, quiet: bool = False) -> None:
        if self.job is not None and not self.job.done():
            self.job.cancel()
            if not quiet:
                self.query_one("#welfare-status", Static).update("solve cancelled")
        self.job = None
        if not quiet:  # c or the button (quietly: a new solve starting, or the dialog going)
            self._solve_changed()

    def on_welfare_failed(self, message: WelfareFailed) -> None:
        if message.job is not self.job:
            return  # a solve cancelled meanwhile
        self._solve_changed()
        self.query_one("#welfare-status", Static).update(Text(f"error: {message.text}", style=palette.NEGATIVE))

    def on_welfare_solved(self, message: WelfareSolved) -> None:
        if message.job is not self.job:
            return  # a solve cancelled meanwhile
        res, seconds = message.result, message.seconds
        self.result = res
        self._solve_changed()
        status = self.query_one("#welfare-status", Static)
        if res.payoffs is None:
            status.update(f"{res.objective}: {res.status}. {res.message}")
            return
        base = None if res.objective == "nash" else res.disagreement
        now = welfare_of(res.objective, self.payoffs, res.included, base)
        eff = efficiency(res.objective, now, res.welfare, len(res.included))
        proven = "proven optimal" if res.proven_optimal else "best found"
        so_far = ("n/a" if eff is None else f"{eff:z.0%}") if now is not None or eff is None else \
            "0% (someone in the product has gained nothing yet, or lost)"
        lines = [f"{res.objective}: welfare {res.welfare:z.2f}, {MEANING[res.objective]} ({proven}, {res.solves} "
                 f"solve(s), {seconds:z.1f} s)", f"the game so far reaches {so_far} of it"]
        if res.message:
            lines.append(res.message)
        status.update("\n".join(lines))
        if self.describe is not None and res.bits is not None:
            self.query_one("#welfare-adds", Static).update(f"the optimum adds: {self.describe(res.bits & ~self.bits)}")
        t = Table(box=None, padding=(0, 1))
        for col in ("player", "now", "forecast", "optimum", "gap"):
            t.add_column(col, justify="left" if col == "player" else "right")
        for i, name in enumerate(self.names):
            gain = res.payoffs[i] - float(self.payoffs[i])
            t.add_row(name, f"{self.payoffs[i]:z.1f}", f"{self.forecast[i]:z.1f}", f"{res.payoffs[i]:z.1f}",
                      Text(f"{gain:+z.1f}", style=palette.signed(gain)))
        self.query_one("#welfare-table", Static).update(t)
        self.query_one("#mark", Button).disabled = res.bits is None

    def action_mark(self) -> None:
        """Close, leaving the optimum's commitments marked ◇◇ on the matrix until the next turn."""
        if self.result is None or self.result.bits is None:
            self.notify("nothing to mark yet: solve first", severity="warning")
            return
        self.dismiss((self.result.objective, int(self.result.bits)))

    def action_close(self) -> None:
        self.action_cancel_solve(quiet=True)
        self.dismiss(None)

    def on_unmount(self) -> None:
        self.action_cancel_solve(quiet=True)  # the app quit mid-solve: do not leave the worker process behind
