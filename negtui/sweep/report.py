"""The paper's tables and claims from a results table: improvement over the No-Negotiation baseline by
method and regime (Table 1), the L1 error against the exact solution by all-or-nothing fraction, welfare
efficiency, and each of the paper's qualitative claims marked holds or does not hold on these results.

Pure computation on rows (no plotting here: figures.py draws, the command prints and writes)."""

from __future__ import annotations

import itertools
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from negtui.sweep.spec import BASELINE, EXACT, PAYOFF_REGIMES
from negtui.welfare.options import ZERO_WELFARE

STRUCTURES = ("adversarial", "cooperative")
TABLE_REGIMES = ("balanced", "negative-pp", "negative", "positive")  # the paper's column order
REGIME_TITLES = {"balanced": "balanced", "negative-pp": "negative + poison pill", "negative": "negative",
                 "positive": "positive"}
TIE = 1e-9  # means this close are equal
TIE_SE = 2.0  # a method trailing the best by less than this many standard errors of their paired difference ties
LENS_NAMES = {"myopic": "Reward (myopic)", "upper": "Upper", "lower": "Lower"}


@dataclass(frozen=True)
class Cell:
    mean: float
    sd: float
    n: int
    median: float


def _value(r: dict, column: str) -> float | None:
    """A row's number in `column`; no efficiency where the optimum is zero up to float noise (files
    written before the sweep knew it hold a huge ratio there)."""
    v = r.get(column)
    if v is None or not math.isfinite(float(v)):
        return None
    if column == "efficiency" and (opt := r.get("welfare_optimum")) is not None and abs(opt) < ZERO_WELFARE:
        return None
    return float(v)


def tied_best(values: dict[str, dict[str, float]]) -> set[str]:
    """The method with the best mean improvement, and every method that cannot be told apart from it.
    `values`: method -> {task: improvement}.  Every method plays the same games, so methods are compared
    game by game: a method ties with the best when the mean of their per-game differences is under
    TIE_SE standard errors of those differences (about a 95% test), or within TIE with one game."""
    means = {m: statistics.fmean(v.values()) for m, v in values.items() if v}
    if not means:
        return set()
    top = max(means, key=lambda m: means[m])
    out = {top}
    for m in means:
        if m == top:
            continue
        common = sorted(values[m].keys() & values[top].keys())
        diffs = [values[top][k] - values[m][k] for k in common]
        if means[top] - means[m] <= TIE or _within_noise(diffs):
            out.add(m)
    return out


def _within_noise(diffs: list[float]) -> bool:
    return len(diffs) >= 2 and statistics.fmean(diffs) <= TIE_SE * statistics.stdev(diffs) / math.sqrt(len(diffs))


def _cell(values: list[float]) -> Cell | None:
    if not values:
        return None
    return Cell(statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0, len(values),
                statistics.median(values))


@dataclass
class Table1:
    """Mean ± sd of the improvement over the baseline (sum of payoffs), by structure and regime."""

    sweep: str
    rules: str
    methods: list[str]
    cells: dict[tuple[str, str, str], Cell]  # (structure, regime, method)
    games: dict[tuple[str, str, str], dict[str, float]]  # the same, per game (task)

    def best(self, structure: str, regime: str, among: list[str] | None = None) -> set[str]:
        """The best method in a column and those tied with it (`tied_best`), among `among` (default all)."""
        return tied_best({m: v for m in (among or self.methods) if (v := self.games.get((structure, regime, m)))})


@dataclass
class ScenarioTable:
    """A sweep over scenario files (the `hnc` preset): per scenario, the No-Negotiation baseline and each
    method's improvement over it (mean ± sd over seeds, which vary the partner search) and efficiency."""

    sweep: str
    rules: str
    methods: list[str]
    scenarios: list[tuple[str, str, int]]  # (file, name, players), in the order met
    baseline: dict[str, float]  # by file
    cells: dict[tuple[str, str], Cell]  # (file, method): improvement
    efficiency: dict[tuple[str, str], Cell]
    games: dict[tuple[str, str], dict[str, float]]  # (file, method): improvement per game (task)

    def best(self, scenario: str) -> set[str]:
        return tied_best({m: v for m in self.methods if (v := self.games.get((scenario, m)))})


def scenario_table(rows: list[dict]) -> ScenarioTable | None:
    """None when no row comes from a scenario file (a generated grid)."""
    mine = [r for r in rows if r.get("scenario_file")]
    if not mine:
        return None
    methods = methods_of(mine)
    scenarios: dict[str, tuple[str, str, int]] = {}
    baseline: dict[str, float] = {}
    gains: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    ratios: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in mine:
        f = r["scenario_file"]
        scenarios.setdefault(f, (f, r["scenario"], int(r["players"])))
        baseline[f] = float(r["baseline_sum"])
        if r["method"] in methods:
            gains[(f, r["method"])][r["task"]] = float(r["improvement"])
            if (e := _value(r, "efficiency")) is not None:
                ratios[(f, r["method"])].append(e)
    cells = {k: c for k, v in gains.items() if (c := _cell(list(v.values()))) is not None}
    eff = {k: c for k, v in ratios.items() if (c := _cell(v)) is not None}
    return ScenarioTable(mine[0]["sweep"], mine[0]["rules"], methods, list(scenarios.values()), baseline, cells, eff,
                         dict(gains))


def groups(rows: Iterable[dict]) -> dict[tuple[str, str], list[dict]]:
    """Rows by (sweep, rules): each is reported on its own."""
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        out[(r["sweep"], r["rules"])].append(r)
    return dict(sorted(out.items()))


def methods_of(rows: list[dict]) -> list[str]:
    seen = []
    for r in rows:
        if r["method"] not in (BASELINE, EXACT) and r["method"] not in seen:
            seen.append(r["method"])
    return seen


def table1(rows: list[dict]) -> Table1:
    methods = methods_of(rows)
    games: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
    for r in rows:
        if r["method"] in methods and r["structure"] and r["payoff"]:
            games[(r["structure"], r["payoff"], r["method"])][r["task"]] = float(r["improvement"])
    cells = {k: c for k, v in games.items() if (c := _cell(list(v.values()))) is not None}
    return Table1(rows[0]["sweep"], rows[0]["rules"], methods, cells, dict(games))


def mean_by(rows: list[dict], key: str, column: str, methods: list[str]) -> dict[tuple[Any, str], Cell]:
    """Statistics of `column` by (row[key], method) over the rows that have it (a key is the row's value,
    of whatever type its column holds)."""
    values: dict[tuple[Any, str], list[float]] = defaultdict(list)
    for r in rows:
        if r["method"] in methods and r.get(key) is not None and (v := _value(r, column)) is not None:
            values[(r[key], r["method"])].append(v)
    return {k: c for k, v in values.items() if (c := _cell(v)) is not None}


def l1_by_fraction(rows: list[dict], methods: list[str]) -> dict[str, dict[tuple[float, str], Cell]]:
    """Per payoff regime: the mean L1 error against the exact solution by (all-or-nothing fraction, method)."""
    out: dict[str, dict[tuple[float, str], Cell]] = {}
    for regime in PAYOFF_REGIMES:
        sub = [r for r in rows if r["payoff"] == regime]
        cells = mean_by(sub, "all_or_nothing", "l1_exact", methods)
        if cells:
            out[regime] = cells
    return out


# --- the paper's claims ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Claim:
    text: str
    verdict: str  # holds | does not hold | not measurable
    evidence: str


def _values(rows: list[dict], column: str, **where: object) -> list[float]:
    return [v for r in rows if all(r.get(k) == w for k, w in where.items()) and r["method"] not in (BASELINE, EXACT)
            and (v := _value(r, column)) is not None]


def _mean(rows: list[dict], column: str, **where: object) -> float | None:
    vals = _values(rows, column, **where)
    return statistics.fmean(vals) if vals else None


def _median(rows: list[dict], column: str, **where: object) -> float | None:
    """For ratios such as efficiency: where the optimum is near zero one game's ratio can outweigh the
    rest, and a median is what a typical game achieved."""
    vals = _values(rows, column, **where)
    return statistics.median(vals) if vals else None


def _best_in(t: Table1, regimes: tuple[str, ...], lens: str) -> tuple[bool, list[str]] | None:
    """Whether `lens` has the highest mean improvement among the lenses, or ties with it, in every listed
    column."""
    lenses = [m for m in t.methods if m in LENS_NAMES]
    if lens not in lenses:
        return None
    ok, notes = True, []
    for s in STRUCTURES:
        for regime in regimes:
            best = sorted(t.best(s, regime, among=lenses), key=lambda m: -t.cells[(s, regime, m)].mean)
            if not best:
                continue
            ok &= lens in best
            tied = f", tied with {' and '.join(best[1:])}" if len(best) > 1 else ""
            notes.append(f"{s} {REGIME_TITLES[regime]}: best {best[0]}{tied}")
    return (ok, notes) if notes else None


def claims(rows: list[dict]) -> list[Claim]:
    t = table1(rows)
    return [
        _verdict(_best_in(t, ("balanced",), "myopic"), "Reward (myopic) is best in balanced games"),
        _upper_claim(t),
        _verdict(_best_in(t, ("positive",), "lower"), "Lower is best in positive-dominated games"),
        _l1_by_regime_claim(rows),
        _structure_claim(rows),
        _all_or_nothing_claim(rows),
    ]


def _verdict(result: tuple[bool, list[str]] | None, text: str) -> Claim:
    if result is None:
        return Claim(text, "not measurable", "the lens or the regime is not in these results")
    return Claim(text, "holds" if result[0] else "does not hold", "; ".join(result[1]))


def _lens_margin(t: Table1, regime: str) -> float | None:
    """How far the best lens leads the next one in `regime`, averaged over the structures."""
    gaps = []
    for s in STRUCTURES:
        scored = sorted((c.mean for m in t.methods if m in LENS_NAMES
                         and (c := t.cells.get((s, regime, m))) is not None), reverse=True)
        if len(scored) > 1:
            gaps.append(scored[0] - scored[1])
    return statistics.fmean(gaps) if gaps else None


def _upper_claim(t: Table1) -> Claim:
    upper = _best_in(t, ("negative", "negative-pp"), "upper")
    text = "Upper is best in negative-dominated games, most of all with the poison pill"
    if upper is not None and upper[0]:
        plain, pill = _lens_margin(t, "negative"), _lens_margin(t, "negative-pp")
        if plain is not None and pill is not None:
            upper = (pill >= plain, [*upper[1], f"margin over the next lens: {pill:.2f} with the pill, "
                                                f"{plain:.2f} without"])
        else:
            upper = (upper[0], [*upper[1], "(with and without the pill not both in these results: the margin is "
                                           "not compared)"])
    return _verdict(upper, text)


def _l1_by_regime_claim(rows: list[dict]) -> Claim:
    l1 = {regime: v for regime in PAYOFF_REGIMES if (v := _mean(rows, "l1_exact", payoff=regime)) is not None}
    text = "L1 error is highest in balanced and lowest in positive games"
    if {"balanced", "positive"} <= l1.keys() and len(l1) > 2:
        ok = max(l1, key=lambda k: l1[k]) == "balanced" and min(l1, key=lambda k: l1[k]) == "positive"
        return Claim(text, "holds" if ok else "does not hold",
                     ", ".join(f"{REGIME_TITLES[k]} {v:.2f}" for k, v in l1.items()))
    return Claim(text, "not measurable", "no exact solutions in these results (small games only)")


def _structure_claim(rows: list[dict]) -> Claim:
    """Judged by the L1 error where there are exact solutions, else by the median welfare efficiency."""
    adv, coop = _mean(rows, "l1_exact", structure="adversarial"), _mean(rows, "l1_exact", structure="cooperative")
    text = "Adversarial games are harder than cooperative ones (higher L1 error)"
    if adv is not None and coop is not None:
        return Claim(text, "holds" if adv > coop else "does not hold",
                     f"L1 adversarial {adv:.2f}, cooperative {coop:.2f}")
    adv, coop = (_median(rows, "efficiency", structure="adversarial"),
                 _median(rows, "efficiency", structure="cooperative"))
    if adv is None or coop is None:
        return Claim(text, "not measurable", "no L1 error or efficiency for both structures")
    return Claim(text.replace("higher L1 error", "lower welfare efficiency"),
                 "holds" if adv < coop else "does not hold",
                 f"median efficiency adversarial {adv:.3f}, cooperative {coop:.3f}")


def _all_or_nothing_claim(rows: list[dict]) -> Claim:
    fractions = sorted({float(r["all_or_nothing"]) for r in rows if r.get("all_or_nothing") is not None})
    by = [(f, v) for f in fractions if (v := _mean(rows, "l1_exact", all_or_nothing=f)) is not None]
    text = "Difficulty (L1 error) rises with the all-or-nothing fraction"
    if len(by) < 2:
        return Claim(text, "not measurable", "fewer than two all-or-nothing fractions with exact solutions")
    # the trend: the least-squares slope of the mean L1 error against the fraction
    xs, ys = [f for f, _ in by], [v for _, v in by]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    monotone = all(b >= a for a, b in itertools.pairwise(ys))
    return Claim(text, "holds" if slope > 0 else "does not hold",
                 ", ".join(f"{f:g}: {v:.2f}" for f, v in by) + f"; slope {slope:+.1f}"
                 + ("" if monotone else " (not monotone)"))
