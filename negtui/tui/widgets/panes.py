"""The read-only panes: goal bars, payoff forecasts, focused-cell details (the turn log: turn_log.py).

Each binds the snapshot (and what else it shows) from the game view and draws itself when on screen
(pane.py)."""

from __future__ import annotations

import numpy as np
from rich.text import Text
from textual.reactive import reactive

from negtui.engine.payoff import committed_vector, satisfaction
from negtui.names import action_names, fit_unique, goal_names, player_label, player_names, shorten, without_owner
from negtui.tui import palette
from negtui.tui.labels import (
    FORECASTS_NARROW,
    WIDE,
    forecast_labels,
    forecast_name_width,
    goal_label_width,
    goal_labels,
)
from negtui.tui.widgets.pane import Drawn, TextPane

BAR = 10


LENS_SHORT = {"myopic": "myo", "upper": "up", "lower": "low", "learned": "lrn", "exact": "ex"}  # narrow headers


def _bar(fraction: float, width: int = BAR) -> str:
    filled = round(max(0.0, min(1.0, fraction)) * width)
    return "█" * filled + "░" * (width - filled)


def _cell(text: str, width: int, right: bool = False) -> str:
    text = text[:width]
    return text.rjust(width) if right else text.ljust(width)


class GoalBars(Drawn, TextPane):
    """One bar per goal: kind, threshold, progress and the value the focused player puts on it.

    Drawn as plain styled text (not a Rich table): it is redrawn on every turn of an autoplay."""

    SORTS = ("goal", "value", "progress")
    focused_cell: reactive[int | None] = reactive(None, repaint=False)
    sort: reactive[str] = reactive("goal", repaint=False)

    def watch_focused_cell(self) -> None:
        self.request_draw()

    def watch_sort(self) -> None:
        self.request_draw()

    def on_resize(self) -> None:
        self.request_draw()  # the names take the width the bars leave

    def next_sort(self) -> None:
        self.sort = self.SORTS[(self.SORTS.index(self.sort) + 1) % len(self.SORTS)]

    @property
    def player(self) -> int:
        """The player whose values are shown: the focused cell's owner."""
        if self.snapshot is None or self.focused_cell is None:
            return 0
        return int(self.snapshot.game.owner[self.focused_cell])

    def draw(self) -> None:
        snap = self.snapshot
        if snap is None:
            return
        g = snap.game
        counts = (committed_vector(g, snap.state.bits).astype(float) @ g.inc).astype(int)
        sat = satisfaction(g, counts.astype(float))
        values = g.G[:, self.player]
        order = list(range(g.n_goals))
        if self.sort == "value":
            order.sort(key=lambda j: -values[j])
        elif self.sort == "progress":
            order.sort(key=lambda j: -sat[j])
        wide = self.app.size.width >= WIDE
        private = snap.known is not None  # labels as the seat may read them
        width = goal_label_width(g.scenario, self.app.size.width, self.size.width, private)
        names = goal_labels(g.scenario, self.app.size.width, self.size.width, private)
        out = Text(no_wrap=True)
        who = player_names(g.scenario)[self.player]
        secret = "" if snap.knows(self.player) else " (secret)"
        out.append(f"goals · values of {who}{secret} · sorted by {self.sort} (v)\n" if wide else
                   f"values of {fit_unique([who], 16)[0]}{secret} · by {self.sort} (v)\n", style="bold")
        out.append(f"{_cell('goal', width)} kind {_cell('progress', BAR)} {'done':>5} {'value':>6}\n", style="dim")
        for j in order:
            v = float(values[j]) if snap.knows(self.player) else 0.0
            out.append(f"{_cell(names[j], width)} {'all ' if g.binary[j] else 'lin '} ")
            out.append(_bar(sat[j]), style=palette.BLUE if sat[j] >= 1 else "")
            out.append(f" {f'{counts[j]}/{g.tau[j]}':>5} ")
            out.append(f"{snap.value_words(j, self.player):>6}\n", style=palette.signed(v))
        out.rstrip()
        self.show_text(out)


class Forecasts(Drawn, TextPane):
    """Every player's payoff now and its forecast under each lens, with a sparkline of the payoff.

    Narrow panes (an 80-column terminal) get short headers and no seat column."""


    def on_resize(self) -> None:
        self.request_draw()  # the sparkline takes the width the row leaves

    def draw(self) -> None:
        snap = self.snapshot
        if snap is None:
            return
        g = snap.game
        lenses = [lens for lens in snap.forecasts if lens != "myopic"]  # myopic's forecast is the payoff now
        narrow = self.app.size.width < FORECASTS_NARROW  # the side pane is under ~64 columns
        name_w = forecast_name_width(g, self.app.size.width)
        num_w = 5 if narrow else 7
        fmt = "{:z.0f}" if narrow else "{:z.1f}"
        out = Text(no_wrap=True)
        out.append("payoffs and forecasts", style="bold")
        out.append(" (now = myopic)\n" if narrow else " (now: also myopic's forecast)\n", style="dim")
        # a narrow pane with short ids leaves the player column unlabelled rather than cut to "p"
        seat_w = min(18, max(11, *(len(label) for label in snap.seats)))  # outside agents' labels are longer
        head = _cell("player" if name_w >= len("player") else "", name_w)
        head += "" if narrow else " " + _cell("seat", seat_w)
        head += " " + _cell("now", num_w, True)
        head += "".join(" " + _cell(LENS_SHORT.get(lens, lens) if narrow else lens, num_w, True) for lens in lenses)
        # narrow: the header would wrap; the sparklines speak for themselves
        row = name_w + (0 if narrow else 1 + seat_w) + (1 + num_w) * (1 + len(lenses))
        room = (self.size.width or 200) - row - 2  # the sparkline takes what the row leaves, never wraps it
        spark = min(8 if narrow else 12, room) if room >= 3 else 0
        out.append(head + ("  trend\n" if spark and not narrow else "\n"), style="dim")
        hist = np.array(snap.payoff_history)
        shown = forecast_labels(g, self.app.size.width)
        for i in range(g.n):
            now = float(snap.payoffs[i])
            seat = snap.seats[i] if len(snap.seats[i]) <= seat_w else snap.seats[i][:seat_w - 1] + "…"
            out.append(_cell(shown[i], name_w) + ("" if narrow else " " + _cell(seat, seat_w)) + " ")
            if not snap.knows(i):  # its values are secret: so is what it gets
                out.append(" ".join(_cell("?", num_w, True) for _ in range(1 + len(lenses))) + "\n", style="dim")
                continue
            out.append(_cell(fmt.format(now), num_w, True), style=palette.signed(now))
            if not snap.foresees(i):  # an assessment: judging the others is the person's own work
                out.append("".join(" " + _cell("·", num_w, True) for _ in lenses) + "\n", style="dim")
                continue
            out.append("".join(" " + _cell(fmt.format(float(snap.forecasts[lens][i])), num_w, True) for lens in lenses))
            out.append("  " + palette.sparkline(list(hist[:, i]), width=spark) + "\n" if spark else "\n")
        if snap.known is not None:
            out.append("? another player's values are secret at this table\n", style="dim")
        if snap.withheld:
            out.append("· an assessment: the others' forecasts come with the debrief\n", style="dim")
        out.rstrip()
        self.show_text(out)


class CellInfo(Drawn, TextPane):
    """The focused cell explained: its action, and the goals it feeds with their values.  Redrawn with
    every snapshot but repainted only when what it says changes (the cursor moved, the values revealed)."""

    WRAP = True
    focused_cell: reactive[int | None] = reactive(None, repaint=False)

    def watch_focused_cell(self) -> None:
        self.request_draw()

    def draw(self) -> None:
        snap, cell = self.snapshot, self.focused_cell
        if snap is None or cell is None:
            self.show_text(Text())
            return
        g = snap.game
        i = int(g.owner[cell])
        act = g.scenario.players[i].actions[cell - int(g.offset[i])]
        goals = [j for j in range(g.n_goals) if g.inc[cell, j]]
        text = Text()
        a = cell - int(g.offset[i])
        player = g.scenario.players[i]
        name, label = action_names(g.scenario)[i][a], without_owner(player, " ".join(act.label.split()))
        text.append(player_label(player) + ": ", style="bold")
        if label and not label.startswith(name.rstrip("…")):  # a readable id: it and the label beside it
            text.append(name, style="bold")
            text.append(f" — {label}")
        else:
            text.append(label or name)
        text.append("\nfeeds: ")
        if not goals:
            text.append("no goal", style="dim")
        names = goal_names(g.scenario, snap.known is not None)
        for j in goals:
            v = float(g.G[j, i]) if snap.knows(i) else 0.0
            text.append(f"{shorten(names[j], 22)} ")
            text.append(f"({snap.value_words(j, i)})", style=palette.signed(v))  # to the cell's owner, named above
            text.append("  ")
        self.show_text(text)
