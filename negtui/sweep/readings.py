"""Two readings a verdict depends on, each set out with its intervals before anyone leans on it.

**The lower lens's reading of "credible threats".**  Under `paper` rules a threat counts only where another
player owes a cell of a harmful goal and none of them gains from it; the reference counts every harm only
the player itself can complete (docs/reference.md §4 note 3).  Under the first, lower and myopic often
end the game with the very same payoffs, so "lower is best in positive games" can be reproduced only as a
tie; under the second lower plays differently, is strictly better in positive games and pays for it in
negative ones.  Which reading reproduces the paper is the headline of the ablations: the report gives, per
rule set, how often the two lenses end alike, the lower-best verdict in positive games, and lower's cost
against myopic in negative ones.

**The exact solution the L1 error is measured against.**  The reference's solver treats every goal as
linear (`exact_linearised`): its solution's own payoffs are then not the true payoffs of the commitments its
path ends with.  The report gives each lens's L1 error against both, and the gap within the solution itself.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np

from negtui.sweep.claims import is_small
from negtui.sweep.judge import Comparison, games, p_text, seed_for
from negtui.sweep.markdown import markdown_table, md
from negtui.sweep.report import REGIME_TITLES, TABLE_REGIMES
from negtui.sweep.spec import EXACT
from negtui.sweep.stats import mean_of, paired_difference, proportion

SAME = 1e-9  # payoffs this close are the same ending


def alike(rows: list[dict], a: str = "lower", b: str = "myopic", **where: object) -> tuple[int, int]:
    """(games where `a` and `b` ended with the same payoffs for every player, games both played)."""
    pays: dict[str, dict[str, list[float]]] = defaultdict(dict)
    for r in rows:
        if r["method"] in (a, b) and all(r.get(k) == w for k, w in where.items()):
            pays[r["task"]][r["method"]] = r["payoffs"]
    both = [p for p in pays.values() if a in p and b in p]
    same = sum(len(p[a]) == len(p[b]) and all(abs(x - y) <= SAME for x, y in zip(p[a], p[b])) for p in both)
    return same, len(both)


def share_text(k: int, n: int) -> str:
    if not n:
        return "—"
    p, low, high = proportion(k, n)
    return f"{p:.0%} [{low:.0%}, {high:.0%}] of {n}"


def _effect(c: Comparison | None) -> str:
    if c is None:
        return "—"
    e = c.effect
    interval = f" [{e.low:+z.2f}, {e.high:+z.2f}]" if math.isfinite(e.low) else ""
    return f"{e.estimate:+z.2f}{interval}, {p_text(e.p)}"


def lower_reading(sections: dict[str, list[dict]]) -> str:
    """Per rule set (one section each, of one grid), how often lower and myopic end alike in each regime, whether
    lower is strictly better than myopic in positive games, and what lower costs against myopic in negative
    ones (L1 on small games, improvement in the adversarial columns on large ones)."""
    body = []
    for name, rows in sections.items():
        if not {"lower", "myopic"} <= {r["method"] for r in rows}:
            continue
        small = is_small(rows)
        column = "l1_exact" if small else "improvement"
        where = {} if small else {"structure": "adversarial"}
        shares = [share_text(*alike(rows, payoff=g)) for g in TABLE_REGIMES]
        effects = []
        for regime in ("positive", "negative"):
            g = games(rows, column, ["lower", "myopic"], payoff=regime, **where)
            c = None
            if len(g):
                e = paired_difference(g.column("lower"), g.column("myopic"), g.clusters,
                                      seed_for("lower-reading", name, regime))
                c = Comparison("lower − myopic", e, -1 if small else 1)
            effects.append(_effect(c) + ("" if c is None else f" ({c.verdict})"))
        body.append([md(name), *shares, *effects])
    if not body:
        return ""
    metric = "L1 error" if all(is_small(r) for r in sections.values()) else "L1 error (small) or improvement (large)"
    head = ["section", *(f"alike: {REGIME_TITLES[g]}" for g in TABLE_REGIMES),
            f"positive: lower − myopic, {metric}", f"negative: lower − myopic, {metric}"]
    note = ("*Alike*: the share of games in which lower and myopic ended with the same payoffs for every player, "
            "with its Wilson 95 % interval. The two effects are paired over the same games with their 95 % "
            "intervals: on small games a negative L1 difference favours lower; on large games (adversarial "
            "columns) a positive improvement difference does. In brackets, whether lower is better than myopic "
            "there (holds), worse (fails) or neither can be told. Under `paper` rules a threat is credible only "
            "where another player owes a cell of the harmful goal and none of them gains from it; `reference` "
            "(and `paper+lower_reference_credibility`) counts the harms only the player itself can complete.")
    return "\n".join([*markdown_table(head, body), "", note])


def linearised_exact(rows: list[dict], methods: list[str]) -> str:
    """Each lens's mean L1 error against the linearised exact solution and against the true payoffs of its
    path, per regime, and the solution's own gap; "" where the two solutions agree (paper rules)."""
    rows = [r for r in rows if r.get("l1_true") is not None]
    if not any(abs(float(r["l1_true"]) - float(r["l1_exact"])) > SAME for r in rows if r.get("l1_exact") is not None):
        return ""
    body = []
    for regime in TABLE_REGIMES:
        exact = [r for r in rows if r["method"] == EXACT and r["payoff"] == regime]
        if not exact:
            continue
        e = mean_of([float(r["l1_true"]) for r in exact], [r["seed"] for r in exact], seed_for("exact-gap", regime))
        cells = []
        for m in methods:
            g = games(rows, "l1_exact", [m], payoff=regime)
            t = games(rows, "l1_true", [m], payoff=regime)
            cells.append("" if not len(g) else f"{float(np.mean(g.values)):z.2f} / {float(np.mean(t.values)):z.2f}")
        interval = f" [{e.low:z.2f}, {e.high:z.2f}]" if math.isfinite(e.low) else ""
        body.append([REGIME_TITLES[regime], f"{e.estimate:z.2f}{interval}", *cells])
    head = ["regime", "the solution's own gap", *(f"{md(m)}: L1 linearised / true" for m in methods)]
    note = ("Under these rules the exact solver values every goal as linear, as the reference's does: *the "
            "solution's own gap* is Σ_i |R*_i − R_i(P*)|, its linearised payoffs against the true payoffs of the "
            "commitments P* its path ends with (mean over games, 95 % interval). Each lens's mean L1 error is shown "
            "against the linearised solution (the reference's figure, on which the claims are judged) and against "
            "the true payoffs of the same path. Where the gap is as large as the errors, the L1 figure measures "
            "the solver's linearisation as much as the lens.")
    return "\n".join([*markdown_table(head, body), "", note])
