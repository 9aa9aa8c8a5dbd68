"""The read-only panes: goal bars, payoff forecasts, turn log, deal network, focused-cell details.

Each is a Static that redraws from a `Snapshot`; the play screen decides when."""

from __future__ import annotations

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from negtui.engine.payoff import committed_vector, satisfaction
from negtui.names import action_names, fit_unique, goal_names, player_label, shorten
from negtui.narrate import turn_line
from negtui.tui import palette
from negtui.tui.labels import (
    FORECASTS_NARROW,
    WIDE,
    forecast_labels,
    forecast_name_width,
    goal_label_width,
    goal_labels,
)
from negtui.tui.snapshot import Snapshot

BAR = 10


LENS_SHORT = {"myopic": "myo", "upper": "up", "lower": "low", "exact": "ex"}  # headers of narrow panes


def _bar(fraction: float, width: int = BAR) -> str:
    filled = int(round(max(0.0, min(1.0, fraction)) * width))
    return "█" * filled + "░" * (width - filled)


class TextPane(Widget):
    """A pane of styled text that repaints without a screen re-layout while its line count holds:
    the panes redrawn on every autoplayed turn must not make the whole screen reflow."""

    DEFAULT_CSS = "TextPane { height: auto; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._text = Text()
        self._lines = 1

    def show_text(self, text: Text) -> None:
        lines = text.plain.count("\n") + 1
        relayout = lines != self._lines
        self._text, self._lines = text, lines
        self.refresh(layout=relayout)

    def render(self) -> Text:
        return self._text

    @property
    def plain(self) -> str:
        return self._text.plain

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self._lines


def _cell(text: str, width: int, right: bool = False) -> str:
    text = text[:width]
    return text.rjust(width) if right else text.ljust(width)


class GoalBars(TextPane):
    """One bar per goal: kind, threshold, progress and the value the focused player puts on it.

    Drawn as plain styled text (not a Rich table): it is redrawn on every turn of an autoplay."""

    SORTS = ("goal", "value", "progress")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.sort = "goal"
        self.player = 0

    def show(self, snap: Snapshot, player: int | None = None) -> None:
        if player is not None:
            self.player = player
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
        width = goal_label_width(g.scenario, self.app.size.width)
        names = goal_labels(g.scenario, self.app.size.width)
        out = Text(no_wrap=True)
        who = g.player_ids[self.player]
        out.append(f"goals · values of {who} · sorted by {self.sort} (v)\n" if wide else
                   f"values of {fit_unique([who], 16)[0]} · by {self.sort} (v)\n", style="bold")
        out.append(f"{_cell('goal', width)} kind {_cell('progress', BAR)} {'done':>5} {'value':>6}\n", style="dim")
        for j in order:
            v = float(values[j])
            out.append(f"{_cell(names[j], width)} {'all ' if g.binary[j] else 'lin '} ")
            out.append(_bar(sat[j]), style=palette.BLUE if sat[j] >= 1 else "")
            out.append(f" {f'{counts[j]}/{g.tau[j]}':>5} ")
            out.append(f"{v:>+6g}\n", style=palette.signed(v))
        out.rstrip()
        self.show_text(out)


class Forecasts(TextPane):
    """Every player's payoff now and its forecast under each lens, with a sparkline of the payoff.

    Narrow panes (an 80-column terminal) get short headers and no seat column."""

    def show(self, snap: Snapshot) -> None:
        g = snap.game
        lenses = list(snap.forecasts)
        narrow = self.app.size.width < FORECASTS_NARROW  # the side pane is under ~64 columns
        name_w = forecast_name_width(g, self.app.size.width)
        num_w = 5 if narrow else 7
        fmt = "{:.0f}" if narrow else "{:.1f}"
        out = Text(no_wrap=True)
        out.append("payoffs and forecasts\n", style="bold")
        # a narrow pane with short ids leaves the player column unlabelled rather than cut to "p"
        seat_w = min(18, max(11, *(len(label) for label in snap.seats)))  # outside agents' labels are longer
        head = _cell("player" if name_w >= len("player") else "", name_w) + ("" if narrow else " " + _cell("seat", seat_w))
        head += " " + _cell("now", num_w, True)
        head += "".join(" " + _cell(LENS_SHORT.get(lens, lens) if narrow else lens, num_w, True) for lens in lenses)
        # narrow: the header would wrap; the sparklines speak for themselves
        row = name_w + (0 if narrow else 1 + seat_w) + (1 + num_w) * (1 + len(lenses))
        room = (self.size.width or 200) - row - 2  # the sparkline takes what the row leaves, never wraps it
        spark = min(8 if narrow else 12, room) if room >= 3 else 0
        out.append(head + ("  trend\n" if spark and not narrow else "\n"), style="dim")
        hist = np.array(snap.payoff_history)
        shown = forecast_labels(g, self.app.size.width)
        for i, pid in enumerate(g.player_ids):
            now = float(snap.payoffs[i])
            seat = snap.seats[i] if len(snap.seats[i]) <= seat_w else snap.seats[i][:seat_w - 1] + "…"
            out.append(_cell(shown[i], name_w) + ("" if narrow else " " + _cell(seat, seat_w)) + " ")
            out.append(_cell(fmt.format(now), num_w, True), style=palette.signed(now))
            out.append("".join(" " + _cell(fmt.format(float(snap.forecasts[lens][i])), num_w, True) for lens in lenses))
            out.append("  " + palette.sparkline(list(hist[:, i]), width=spark) + "\n" if spark else "\n")
        out.rstrip()
        self.show_text(out)


class TurnLog(Static):
    """Every turn in words, newest last, optionally only turns involving one player."""

    DEFAULT_CSS = "TurnLog { height: auto; }"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.only: int | None = None

    def show(self, snap: Snapshot) -> None:
        g = snap.game
        lines = [turn_line(g, ev) for ev in snap.events
                 if self.only is None or self.only in (ev.proposer, ev.partner)]
        head = "turn log" + (f" · only {g.player_ids[self.only]}" if self.only is not None else "")
        body = Text("\n".join(lines) if lines else "no turns yet", no_wrap=False)
        self.update(Group(Text(head, style="bold"), body))


def deal_graph(snap: Snapshot):
    """Players as nodes; an edge per pair that made deals, with the count and what the deals moved for
    each side (payoff after minus before, at the time of the deal)."""
    import networkx as nx  # imported on first use: keeps the app's start fast

    G = nx.Graph()
    G.add_nodes_from(range(snap.game.n))
    for k, ev in enumerate(snap.events):
        if not ev.deal or ev.partner == ev.proposer:
            continue
        before, after = snap.payoff_history[k], snap.payoff_history[k + 1]
        a, b = ev.proposer, ev.partner
        if not G.has_edge(a, b):
            G.add_edge(a, b, deals=0, moved={a: 0.0, b: 0.0})
        G[a][b]["deals"] += 1
        G[a][b]["moved"][a] += float(after[a] - before[a])
        G[a][b]["moved"][b] += float(after[b] - before[b])
    return G


class DealNetwork(Static):
    """Who made deals with whom and what each deal moved, plus who can complete or block each goal."""

    DEFAULT_CSS = "DealNetwork { height: auto; }"

    def show(self, snap: Snapshot) -> None:
        import networkx as nx

        g = snap.game
        G = deal_graph(snap)
        names = g.player_ids
        parts = []
        deals = Table(box=None, padding=(0, 1), show_edge=False, title="deals", title_justify="left")
        for col in ("pair", "deals", "moved (myopic)"):
            deals.add_column(col, no_wrap=True)
        for a, b, data in sorted(G.edges(data=True), key=lambda e: -e[2]["deals"]):
            moved = data["moved"]
            deals.add_row(f"{names[a]}—{names[b]}", str(data["deals"]),
                          f"{names[a]} {moved[a]:+.1f}, {names[b]} {moved[b]:+.1f}")
        if not G.number_of_edges():
            deals.add_row("no deals between two players yet", "", "")
        parts.append(deals)
        central = Table(box=None, padding=(0, 1), show_edge=False, title="centrality", title_justify="left")
        for col in ("player", "partners", "degree", "betweenness"):
            central.add_column(col, justify="left" if col == "player" else "right")
        deg = nx.degree_centrality(G) if g.n > 1 else {i: 0.0 for i in range(g.n)}
        btw = nx.betweenness_centrality(G) if g.n > 2 else {i: 0.0 for i in range(g.n)}
        for i in sorted(range(g.n), key=lambda i: (-deg[i], i)):
            central.add_row(names[i], str(G.degree(i)), f"{deg[i]:.2f}", f"{btw[i]:.2f}")
        parts.append(central)
        parts.append(goal_dependencies(snap))
        self.update(Group(*parts))


def goal_dependencies(snap: Snapshot) -> Table:
    """Per open goal: who still owes cells (can complete it) and whose refusal alone stops it (can block)."""
    g = snap.game
    t = Table(box=None, padding=(0, 1), show_edge=False, title="goals: who can complete, who can block",
              title_justify="left")
    for col in ("goal", "can complete", "can block"):
        t.add_column(col)
    bits, blocked = snap.state.bits, snap.blocked
    for j, goal in enumerate(g.scenario.goals):
        cells = [int(c) for c in np.flatnonzero(g.inc[:, j])]
        done = sum(1 for c in cells if bits >> c & 1)
        need = int(g.tau[j]) - done
        if need <= 0:
            continue
        open_cells = [c for c in cells if not (bits >> c & 1) and not (blocked >> c & 1)]
        owners = sorted({int(g.owner[c]) for c in open_cells})
        blockers = [i for i in owners if sum(1 for c in open_cells if int(g.owner[c]) != i) < need]
        t.add_row(goal.id, ", ".join(g.player_ids[i] for i in owners) or "— unreachable",
                  ", ".join(g.player_ids[i] for i in blockers) or "nobody alone")
    return t


class CellInfo(Static):
    """The focused cell explained: its action, and the goals it feeds with their values."""

    DEFAULT_CSS = "CellInfo { height: auto; }"

    def show(self, snap: Snapshot, cell: int | None) -> None:
        if cell is None:
            self.update("")
            return
        g = snap.game
        i = int(g.owner[cell])
        act = g.scenario.players[i].actions[cell - int(g.offset[i])]
        goals = [j for j in range(g.n_goals) if g.inc[cell, j]]
        text = Text()
        a = cell - int(g.offset[i])
        name, label = action_names(g.scenario)[i][a], " ".join(act.label.split())
        text.append(player_label(g.scenario.players[i]) + ": ", style="bold")
        if label and not label.startswith(name.rstrip("…")):  # a readable id: it and the label beside it
            text.append(name, style="bold")
            text.append(f" — {label}")
        else:
            text.append(label or name)
        text.append("\nfeeds: ")
        if not goals:
            text.append("no goal", style="dim")
        names = goal_names(g.scenario)
        for j in goals:
            v = float(g.G[j, i])
            text.append(f"{shorten(names[j], 22)} ")
            text.append(f"({v:+g})", style=palette.signed(v))  # to the cell's owner, named above
            text.append("  ")
        self.update(text)
