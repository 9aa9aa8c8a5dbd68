"""The report's figures (matplotlib, drawn off-screen): the L1 error against the exact solution by
all-or-nothing fraction, one panel per payoff regime and a line per method; and welfare efficiency by
regime and method.  Each is written as PNG and SVG."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from negtui.sweep.report import REGIME_TITLES, STRUCTURES, TABLE_REGIMES, Cell, l1_by_fraction, mean_by

if TYPE_CHECKING:
    import numpy as np
    from matplotlib.figure import Figure


def _pyplot() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display, no GUI toolkit
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


def l1_figure(rows: list[dict], methods: list[str], path: Path, title: str) -> list[Path]:
    """Small games: mean L1 error by all-or-nothing fraction; none when there are no exact solutions."""
    data = l1_by_fraction(rows, methods)
    if not data:
        return []
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(data), figsize=(3.6 * len(data), 3.2), sharey=True, squeeze=False)
    for ax, (regime, cells) in zip(axes[0], data.items(), strict=True):
        for m in methods:
            pts = sorted((f, c.mean) for (f, mm), c in cells.items() if mm == m)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=m)
        ax.set_title(REGIME_TITLES.get(regime, regime))
        ax.set_xlabel("all-or-nothing fraction")
        ax.grid(alpha=0.3)
    return _finish(plt, fig, axes, "L1 error vs exact (mean)", len(methods), title, path)


def efficiency_figure(rows: list[dict], methods: list[str], path: Path, title: str) -> list[Path]:
    """Median welfare efficiency (negotiated ÷ utilitarian optimum) by regime, a bar per method: the ratio
    of a game whose optimum is near zero is huge, and a mean would be that game's."""
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
    for ax, (s, cells) in zip(axes[0], panels, strict=True):
        regimes = [r for r in TABLE_REGIMES if any(k[0] == r for k in cells)]
        for k, m in enumerate(methods):
            ys = [cells[(r, m)].median if (r, m) in cells else 0.0 for r in regimes]
            ax.bar([i + k * width for i in range(len(regimes))], ys, width, label=m)
        ax.set_xticks([i + width * (len(methods) - 1) / 2 for i in range(len(regimes))],
                      [REGIME_TITLES[r] for r in regimes], rotation=15, fontsize="small")
        ax.set_title(s)
        ax.grid(axis="y", alpha=0.3)
    return _finish(plt, fig, axes, "welfare efficiency (median)", len(methods), title, path)
