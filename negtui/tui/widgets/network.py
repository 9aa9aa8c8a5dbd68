"""The deal network pane: who made deals with whom and what each deal moved, their centrality, and who
can complete or block each open goal."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.console import Group
from rich.table import Table
from rich.text import Text

from negtui.engine.payoff import payoffs
from negtui.names import fit_unique, goal_names, player_names
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


WIDE = 70  # pane columns from which each table has its long headers and names sit on one line


class DealNetwork(StaticPane):
    """Who made deals with whom and what each deal moved, plus who can complete or block each goal.  Players
    are named as everywhere (negtui.names), each cut once to the room its column has (never cut and then
    wrapped too), and a list of players wraps between names, never inside one."""

    def on_resize(self) -> None:
        self.request_draw()  # the columns' room, and so the names, follow the pane's width

    def draw(self) -> None:
        import networkx as nx

        snap = self.snapshot
        if snap is None:
            return
        g = snap.game
        width = self.size.width or 40
        wide = width >= WIDE
        G = deal_graph(snap)
        full = player_names(g.scenario)
        parts: list = []
        # deals: the pair on one line where wide, else one player a line; what moved, in the pair's order
        edges = sorted(G.edges(data=True), key=lambda e: -e[2]["deals"])
        moved = [[f"{data['moved'][k]:+z.1f}" if snap.knows(k) else "?" for k in (a, b)] for a, b, data in edges]
        moved_head = "moved (myopic)" if wide else "moved"
        moved_w = max([len(moved_head), *(len(", ".join(m)) if wide else max(map(len, m)) for m in moved)])
        pair_w = max(8, width - moved_w - len("deals") - 6)  # each column padded by one a side
        side = fit_unique(full, (pair_w - 1) // 2 if wide else pair_w - 1)
        deals = Table(box=None, padding=(0, 1), show_edge=False, title="deals", title_justify="left")
        deals.add_column("pair", no_wrap=True, max_width=pair_w)
        deals.add_column("deals", no_wrap=True, justify="right")
        deals.add_column(moved_head, no_wrap=True)
        for (a, b, data), moves in zip(edges, moved, strict=True):
            pair = f"{side[a]}—{side[b]}" if wide else f"{side[a]}\n—{side[b]}"
            deals.add_row(pair, str(data["deals"]), ", ".join(moves) if wide else "\n".join(moves))
        if not G.number_of_edges():
            deals.add_row("none yet", "", "")
        parts.append(deals)
        if G.number_of_edges():
            parts.append(Text("moved: what the deals changed each one's payoff by, at the time" +
                              ("" if wide else ", in the pair's order (myopic)"), style="dim"))
        heads = ("partners", "degree", "betweenness") if wide else ("partners", "deg", "betw")
        central = Table(box=None, padding=(0, 1), show_edge=False, title="centrality", title_justify="left")
        central.add_column("player", no_wrap=True)
        for col in heads:
            central.add_column(col, justify="right", no_wrap=True)
        shown = fit_unique(full, max(6, width - sum(len(h) for h in heads) - 8))
        deg = nx.degree_centrality(G) if g.n > 1 else {i: 0.0 for i in range(g.n)}
        btw = nx.betweenness_centrality(G) if g.n > 2 else {i: 0.0 for i in range(g.n)}
        for i in sorted(range(g.n), key=lambda i: (-deg[i], i)):
            central.add_row(shown[i], str(G.degree(i)), f"{deg[i]:z.2f}", f"{btw[i]:z.2f}")
        parts.append(central)
        if not wide:
            parts.append(Text("deg: degree centrality · betw: betweenness centrality", style="dim"))
        parts.append(goal_dependencies(snap, width))
        self.show(Group(*parts))


def _listed(names: list[str], room: int) -> str:
    """Names joined by ', ' in lines of at most `room` columns, broken between names only."""
    lines: list[str] = []
    for name in names:
        if lines and len(lines[-1]) + 2 + len(name) <= room:
            lines[-1] += ", " + name
        else:
            if lines:
                lines[-1] += ","
            lines.append(name)
    return "\n".join(lines)


def goal_dependencies(snap: Snapshot, width: int = 80) -> Table:
    """Per open goal: who still owes cells (can complete it) and whose refusal alone stops it (can block)."""
    g = snap.game
    t = Table(box=None, padding=(0, 1), show_edge=False, title="goals: who can complete, who can block",
              title_justify="left")
    room = max(8, (width - 6) // 3)  # each column's share; a player's name is cut to it once, then listed whole
    t.add_column("goal", max_width=room)
    t.add_column("can complete", no_wrap=True, width=room)
    t.add_column("can block", no_wrap=True, width=room)
    bits, blocked = snap.state.bits, snap.blocked
    names = goal_names(g.scenario, snap.known is not None)
    who = fit_unique(player_names(g.scenario), room - 1)
    for j in range(len(names)):
        cells = [int(c) for c in np.flatnonzero(g.inc[:, j])]
        done = sum(1 for c in cells if bits >> c & 1)
        need = int(g.tau[j]) - done
        if need <= 0:
            continue
        open_cells = [c for c in cells if not (bits >> c & 1) and not (blocked >> c & 1)]
        owners = sorted({int(g.owner[c]) for c in open_cells})
        blockers = [i for i in owners if sum(1 for c in open_cells if int(g.owner[c]) != i) < need]
        t.add_row(names[j], _listed([who[i] for i in owners], room) or "— unreachable",
                  _listed([who[i] for i in blockers], room) or "nobody alone")
    return t
