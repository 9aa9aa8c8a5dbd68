"""The report's figures (matplotlib, drawn off-screen): the L1 error against the exact solution by
all-or-nothing fraction, one panel per payoff regime and a line per method; and welfare efficiency by
regime and method.  Each is written as PNG and SVG."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from negtui.sweep.report import REGIME_TITLES, STRUCTURES, TABLE_REGIMES, Cell, l1_by_fraction, mean_by
from negtui.welfare.options import ZERO_WELFARE

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.figure import Figure


def _pyplot() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display, no GUI toolkit
    matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text: searchable, editable for a paper
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Figure, path: Path) -> list[Path]:
    out = []
    for suffix in (".png", ".svg"):
        p = path.with_suffix(suffix)
        fig.savefig(p, dpi=120, bbox_inches="tight")
        out.append(p)
    return out


def _finish(plt: ModuleType, fig: Figure, axes: np.ndarray, ylabel: str, n_methods: int, title: str,
            path: Path) -> list[Path]:
    """The y label, one legend for every panel below them (inside a panel it hides lines and bars), the
    title; written as PNG and SVG."""
    axes[0][0].set_ylabel(ylabel)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.04), ncol=min(n_methods, 6),
               fontsize="small", frameon=False)
    fig.suptitle(title, y=1.04)
    paths = _save(fig, path)
    plt.close(fig)
    return paths


MARKERS = "osD^vPX*"  # a method is told apart by its marker and line, not its colour alone
LINES = ("-", "--", "-.", ":")


def _n_range(cells: dict) -> str:
    """'n = 50' or 'n = 40–50': games behind each point or bar."""
    ns = sorted({c.n for c in cells.values()})
    return f"n = {ns[0]}" if len(ns) == 1 else f"n = {ns[0]}–{ns[-1]}"


def _l1_se(rows: list[dict], methods: list[str]) -> dict[tuple[str, float, str], float]:
    """(regime, fraction, method) -> the standard error of the mean L1 error over seeds (a seed's games share
    value matrices: they are not independent draws)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from negtui.sweep.rows import grouped, table_of
    from negtui.sweep.stats import clustered_se

    t = table_of(rows, ["payoff", "all_or_nothing", "method", "l1_exact", "seed"])
    t = t.filter(pc.and_(pc.is_in(t["method"], value_set=pa.array(methods, pa.string())),
                         pc.and_(pc.is_valid(t["all_or_nothing"]), pc.is_valid(t["l1_exact"]))))
    keys = ["payoff", "all_or_nothing", "method"]
    seeds = grouped(t, keys, "seed")
    return {k: clustered_se(v, seeds[k]) for k, v in grouped(t, keys, "l1_exact").items()}


def l1_figure(rows: list[dict], methods: list[str], path: Path, title: str) -> list[Path]:
    """Small games: mean L1 error by all-or-nothing fraction, with the standard error of each mean over
    seeds; none when there are no exact solutions.  Methods that coincide (myopic and lower often do) stay
    visible: each has its marker and line style, and sits a little apart along the x axis."""
    data = l1_by_fraction(rows, methods)
    se = _l1_se(rows, methods)
    if not data:
        return []
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(data), figsize=(3.6 * len(data), 3.2), sharey=True, squeeze=False)
    for ax, (regime, cells) in zip(axes[0], data.items(), strict=True):
        xs = sorted({f for f, _ in cells})
        step = min((b - a for a, b in pairwise(xs)), default=1.0)
        for k, m in enumerate(methods):
            pts = sorted((f, c) for (f, mm), c in cells.items() if mm == m)
            if not pts:
                continue
            shift = (k - (len(methods) - 1) / 2) * step * 0.06
            ax.errorbar([f + shift for f, _ in pts], [c.mean for _, c in pts],
                        yerr=[se.get((regime, f, m), 0.0) for f, _ in pts],
                        marker=MARKERS[k % len(MARKERS)], linestyle=LINES[k % len(LINES)], markersize=4,
                        capsize=2, label=m)
        ax.set_title(f"{REGIME_TITLES.get(regime, regime)} ({_n_range(cells)} per point)", fontsize="medium")
        ax.set_xlabel("all-or-nothing fraction")
        ax.grid(alpha=0.3)
    return _finish(plt, fig, axes, "L1 error vs exact (mean ± s.e. over seeds)", len(methods), title, path)


def no_efficiency(rows: list[dict], regime: str, methods: list[str]) -> str:
    """Why a regime of a panel has no efficiency bar: no game of it was played, or its games were played and
    their welfare optimum is zero (a ratio to it is undefined), or none was solved (a sweep without welfare)."""
    played = [r for r in rows if r["payoff"] == regime and r["method"] in methods]
    if not played:
        return "not played"
    optima = [r.get("welfare_optimum") for r in played]
    if all(o is not None and abs(o) < ZERO_WELFARE for o in optima):
        return "undefined (optimum 0)"
    if all(o is None for o in optima):
        return "no optimum solved"
    return "undefined"


def efficiency_figure(rows: list[dict], methods: list[str], path: Path, title: str) -> list[Path]:
    """Median welfare efficiency (negotiated ÷ utilitarian optimum) by regime, a bar per method: the ratio
    of a game whose optimum is near zero is huge, and a mean would be that game's.  Every panel shows
    every regime, a regime without a bar saying why (`no_efficiency`), so panels line up and nothing drops
    out unsaid."""
    import textwrap

    panels = []
    for s in STRUCTURES:
        sub = [r for r in rows if r["structure"] == s]
        cells: dict[tuple[object, str], Cell] = mean_by(sub, "payoff", "efficiency", methods)
        if cells:
            panels.append((s, cells))
    if not panels:
        return []
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.4), sharey=True, squeeze=False)
    width = 0.8 / max(len(methods), 1)
    regimes = [r for r in TABLE_REGIMES if any(k[0] == r for _, cells in panels for k in cells)]
    for ax, (s, cells) in zip(axes[0], panels, strict=True):
        for k, m in enumerate(methods):
            ys = [cells[(r, m)].median if (r, m) in cells else float("nan") for r in regimes]  # no bar, not 0
            ax.bar([i + k * width for i in range(len(regimes))], ys, width, label=m,
                   hatch=("", "//", "..", "xx", "\\\\", "++")[k % 6], edgecolor="white", linewidth=0.4)
        panel_rows = [x for x in rows if x["structure"] == s]
        for i, r in enumerate(regimes):
            if not any((r, m) in cells for m in methods):
                ax.text(i + width * (len(methods) - 1) / 2, 0.02, no_efficiency(panel_rows, r, methods), ha="center",
                        va="bottom", fontsize="x-small", color="grey", transform=ax.get_xaxis_transform())
        ax.axhline(0.0, color="grey", linewidth=0.8)  # a median of zero reads as a line, not as nothing
        ax.set_xticks([i + width * (len(methods) - 1) / 2 for i in range(len(regimes))],
                      [textwrap.fill(REGIME_TITLES[r], 12) for r in regimes], fontsize="small")
        ax.set_title(f"{s} ({_n_range(cells)} games per bar)", fontsize="medium")
        ax.grid(axis="y", alpha=0.3)
    return _finish(plt, fig, axes, "welfare efficiency (median)", len(methods), title, path)
