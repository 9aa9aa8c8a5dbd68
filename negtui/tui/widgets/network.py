"""The deal network pane: who made deals with whom and what each deal moved, their centrality, and who
can complete or block each open goal."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.console import Group
from rich.table import Table

from negtui.engine.payoff import payoffs
from negtui.names import goal_names
from negtui.play.views import Snapshot
from negtui.tui.widgets.pane import StaticPane

if TYPE_CHECKING:
    import networkx as nx


def deal_graph(snap: Snapshot) -> nx.Graph:
    """Players as nodes; an edge per pair that made deals, with the count and what the deals moved for
    each side (payoff after minus before, at the time of the deal)."""
    import networkx as nx  # imported on first use: keeps the app's start fast

    G = nx.Graph()
    G.add_nodes_from(range(snap.game.n))
    for k, ev in enumerate(snap.events):
        before, after = snap.payoff_history[k], snap.payoff_history[k + 1]
        if ev.simultaneous:  # every applied offer is a deal; what each moved alone, from the turn's start
            for out in ev.outcomes:
                o = out.offer
                if out.applied and not o.is_noop and o.partner != o.proposer:
                    _add(G, o.proposer, o.partner, before, payoffs(snap.game, ev.before.bits | o.bits))
            continue
        if not ev.deal or ev.partner == ev.proposer:
            continue
        _add(G, ev.proposer, ev.partner, before, after)
    return G


def _add(G: nx.Graph, a: int, b: int, before: np.ndarray, after: np.ndarray) -> None:
    if not G.has_edge(a, b):
        G.add_edge(a, b, deals=0, moved={a: 0.0, b: 0.0})
    G[a][b]["deals"] += 1
    G[a][b]["moved"][a] += float(after[a] - before[a])
    G[a][b]["moved"][b] += float(after[b] - before[b])


class DealNetwork(StaticPane):
    """Who made deals with whom and what each deal moved, plus who can complete or block each goal."""


    def draw(self) -> None:
        import networkx as nx

        snap = self.snapshot
        if snap is None:
            return
        g = snap.game
        G = deal_graph(snap)
        names = [p.display for p in g.scenario.players]
        parts = []
        deals = Table(box=None, padding=(0, 1), show_edge=False, title="deals", title_justify="left")
        for col in ("pair", "deals", "moved (myopic)"):
            deals.add_column(col, no_wrap=True)
        for a, b, data in sorted(G.edges(data=True), key=lambda e: -e[2]["deals"]):
            moved = data["moved"]
            moves = [f"{names[k]} {moved[k]:+z.1f}" if snap.knows(k) else f"{names[k]} ?" for k in (a, b)]
            deals.add_row(f"{names[a]}—{names[b]}", str(data["deals"]), ", ".join(moves))
        if not G.number_of_edges():
            deals.add_row("no deals between two players yet", "", "")
        parts.append(deals)
        central = Table(box=None, padding=(0, 1), show_edge=False, title="centrality", title_justify="left")
        for col in ("player", "partners", "degree", "betweenness"):
            central.add_column(col, justify="left" if col == "player" else "right")
        deg = nx.degree_centrality(G) if g.n > 1 else {i: 0.0 for i in range(g.n)}
        btw = nx.betweenness_centrality(G) if g.n > 2 else {i: 0.0 for i in range(g.n)}
        for i in sorted(range(g.n), key=lambda i: (-deg[i], i)):
            central.add_row(names[i], str(G.degree(i)), f"{deg[i]:z.2f}", f"{btw[i]:z.2f}")
        parts.append(central)
        parts.append(goal_dependencies(snap))
        self.show(Group(*parts))


def goal_dependencies(snap: Snapshot) -> Table:
    """Per open goal: who still owes cells (can complete it) and whose refusal alone stops it (can block)."""
    g = snap.game
    t = Table(box=None, padding=(0, 1), show_edge=False, title="goals: who can complete, who can block",
              title_justify="left")
    for col in ("goal", "can complete", "can block"):
        t.add_column(col)
    bits, blocked = snap.state.bits, snap.blocked
    names, who = goal_names(g.scenario, snap.known is not None), [p.display for p in g.scenario.players]
    for j in range(len(names)):
        cells = [int(c) for c in np.flatnonzero(g.inc[:, j])]
        done = sum(1 for c in cells if bits >> c & 1)
        need = int(g.tau[j]) - done
        if need <= 0:
            continue
        open_cells = [c for c in cells if not (bits >> c & 1) and not (blocked >> c & 1)]
        owners = sorted({int(g.owner[c]) for c in open_cells})
        blockers = [i for i in owners if sum(1 for c in open_cells if int(g.owner[c]) != i) < need]
        t.add_row(names[j], ", ".join(who[i] for i in owners) or "— unreachable",
                  ", ".join(who[i] for i in blockers) or "nobody alone")
    return t
