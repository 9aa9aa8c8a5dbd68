"""The read-only panes: goal bars, payoff forecasts, turn log, deal network, focused-cell details.

Each is a Static that redraws from a `Snapshot`; the play screen decides when."""

from __future__ import annotations

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from negtui.engine.payoff import satisfaction
from negtui.narrate import offer_words, turn_line
from negtui.tui import palette
from negtui.tui.snapshot import Snapshot

BAR = 10


def _bar(fraction: float, width: int = BAR) -> str:
    filled = int(round(max(0.0, min(1.0, fraction)) * width))
    return "█" * filled + "░" * (width - filled)


class GoalBars(Static):
    """One bar per goal: kind, threshold, progress and the value the focused player puts on it."""

    DEFAULT_CSS = "GoalBars { height: auto; }"
    SORTS = ("goal", "value", "progress")

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.sort = "goal"
        self.player = 0

    def show(self, snap: Snapshot, player: int | None = None) -> None:
        if player is not None:
            self.player = player
        g = snap.game
        counts = np.array([int(snap.game.inc[:, j][self._committed(snap)].sum()) for j in range(g.n_goals)])
        sat = satisfaction(g, counts.astype(float))
        values = g.G[:, self.player]
        order = list(range(g.n_goals))
        if self.sort == "value":
            order.sort(key=lambda j: -values[j])
        elif self.sort == "progress":
            order.sort(key=lambda j: -sat[j])
        t = Table(box=None, padding=(0, 1), show_edge=False, expand=False,
                  title=f"goals · values of {g.player_ids[self.player]} · sorted by {self.sort}", title_justify="left")
        for col, just in (("goal", "left"), ("kind", "left"), ("progress", "left"), ("", "right"), ("value", "right")):
            t.add_column(col, justify=just, no_wrap=True)
        for j in order:
            goal = g.scenario.goals[j]
            kind = "all" if g.binary[j] else "lin"
            v = float(values[j])
            t.add_row(Text(goal.id[:14]), kind, Text(_bar(sat[j]), style=palette.BLUE if sat[j] >= 1 else ""),
                      f"{counts[j]}/{g.tau[j]}", Text(f"{v:+g}", style=palette.signed(v)))
        self.update(t)

    @staticmethod
    def _committed(snap: Snapshot) -> np.ndarray:
        S = snap.game.n_cells
        return np.array([(snap.state.bits >> c) & 1 for c in range(S)], dtype=bool)


class Forecasts(Static):
    """Every player's payoff now and its forecast under each lens, with a sparkline of the payoff.

    Narrow panes (an 80-column terminal) get short headers and no seat column."""

    DEFAULT_CSS = "Forecasts { height: auto; }"
    SHORT = {"myopic": "myo", "upper": "up", "lower": "low", "exact": "ex"}

    def show(self, snap: Snapshot) -> None:
        g = snap.game
        lenses = list(snap.forecasts)
        narrow = 0 < self.size.width < 64
        t = Table(box=None, padding=(0, 1), show_edge=False, title="payoffs and forecasts", title_justify="left")
        t.add_column("player", no_wrap=True)
        if not narrow:
            t.add_column("seat", no_wrap=True)
        t.add_column("now", justify="right", no_wrap=True)
        for lens in lenses:
            t.add_column(self.SHORT[lens] if narrow else lens, justify="right", no_wrap=True)
        t.add_column("trend", no_wrap=True)
        hist = np.array(snap.payoff_history)
        fmt = "{:.0f}" if narrow else "{:.1f}"
        for i, pid in enumerate(g.player_ids):
            now = float(snap.payoffs[i])
            row = [pid[:10]] + ([] if narrow else [snap.seats[i]])
            row.append(Text(fmt.format(now), style=palette.signed(now)))
            row += [fmt.format(float(snap.forecasts[lens][i])) for lens in lenses]
            row.append(palette.sparkline(list(hist[:, i]), width=8 if narrow else 12))
            t.add_row(*row)
        self.update(t)

    def on_resize(self) -> None:
        if self.app and hasattr(self.screen, "refresh_panes"):
            self.screen.refresh_panes()


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
        text.append(f"{g.player_ids[i]}.{act.id}", style="bold")
        if act.label:
            text.append(f" — {act.label}")
        text.append("\nfeeds: ")
        if not goals:
            text.append("no goal", style="dim")
        for j in goals:
            v = float(g.G[j, i])
            text.append(f"{g.scenario.goals[j].id} ")
            text.append(f"({g.player_ids[i]} {v:+g})", style=palette.signed(v))
            text.append("  ")
        self.update(text)


def describe_offer(snap: Snapshot, bits: int, p: int, q: int) -> str:
    return offer_words(snap.game, bits, p, q)
