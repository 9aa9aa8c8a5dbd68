"""The paper's claims, each judged as the paper states it, on the paper's own metric.

Small games (§4.2.2, solved exactly) rank the lenses by their L1 error against the exact solution, per
payoff regime; large games (§4.2.3) by their improvement over No-Negotiation in the *adversarial*
columns, with "differences narrow in cooperative games" a claim of its own.  An L1 figure is always one
lens's (never lenses pooled: one lens's collapse would decide for all), and a claim made of several
parts (per lens, per regime) says how many of them hold.

A claim stated for the other grid is left out, so a report lists only what its results can speak to;
"not measurable" means the regimes or lenses it needs are missing from the results."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from negtui.sweep.report import LENS_NAMES, REGIME_TITLES, STRUCTURES, ScenarioTable, Table1, table1, tied_best
from negtui.sweep.spec import EXACT

LENSES = tuple(LENS_NAMES)
HOLDS, PART, FAILS, UNKNOWN = "holds", "holds in part", "does not hold", "not measurable"


@dataclass(frozen=True)
class Claim:
    text: str
    verdict: str  # holds | holds in part | does not hold | not measurable
    evidence: str
    grid: str = ""  # "small" (judged on the L1 error) or "large" (on the improvement, adversarial columns)


def is_small(rows: list[dict]) -> bool:
    """Results with exact solutions asked for: the paper's small games, judged on the L1 error."""
    return any(r["method"] == EXACT or r.get("exact_solved") is False for r in rows)


def over_exact_limit(rows: list[dict]) -> tuple[int, int]:
    """(games whose exact solution was asked for but too large to solve, games)."""
    games = {r["task"]: r.get("exact_solved") for r in rows}
    return sum(v is False for v in games.values()), len(games)


def claims(rows: list[dict]) -> list[Claim]:
    if is_small(rows):
        return small_claims(rows)
    return large_claims(rows)


# --- reading the rows ------------------------------------------------------------------------------------

def per_game(rows: list[dict], column: str, **where: object) -> dict[str, dict[str, float]]:
    """lens -> {task: value} over the rows matching `where` (the lenses only, finite values only)."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        v = r.get(column)
        if r["method"] in LENSES and v is not None and v == v and all(r.get(k) == w for k, w in where.items()):
            out[r["method"]][r["task"]] = float(v)
    return {m: out[m] for m in LENSES if m in out}  # always in the paper's order of the lenses


def lens_means(rows: list[dict], column: str, **where: object) -> dict[str, float]:
    return {m: statistics.fmean(v.values()) for m, v in per_game(rows, column, **where).items() if v}


def slope(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of y on x; None with fewer than two distinct x."""
    xs = [x for x, _ in points]
    if len(set(xs)) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(y for _, y in points)
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)


def l1_slopes(rows: list[dict], regime: str) -> dict[str, float]:
    """Per lens, the slope of its mean L1 error against the all-or-nothing fraction within one regime."""
    by: dict[str, dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["method"] in LENSES and r["payoff"] == regime and r.get("l1_exact") is not None \
                and r.get("all_or_nothing") is not None:
            by[r["method"]][float(r["all_or_nothing"])].append(float(r["l1_exact"]))
    out = {}
    for lens, fractions in sorted(by.items(), key=lambda item: LENSES.index(item[0])):
        s = slope([(f, statistics.fmean(v)) for f, v in sorted(fractions.items())])
        if s is not None:
            out[lens] = s
    return out


def regimes_in(rows: list[dict]) -> list[str]:
    return [g for g in REGIME_TITLES if any(r["payoff"] == g for r in rows)]


def _counted(text: str, parts: list[tuple[bool, str]], grid: str, why_none: str) -> Claim:
    """A claim made of parts: holds when all do, in part when some do; the parts that fail listed first."""
    if not parts:
        return Claim(text, UNKNOWN, why_none, grid)
    good = sum(ok for ok, _ in parts)
    verdict = HOLDS if good == len(parts) else FAILS if good == 0 else PART
    shown = [note for ok, note in parts if not ok] + [note for ok, note in parts if ok]
    return Claim(text, verdict, f"{good} of {len(parts)}: " + "; ".join(shown), grid)


def _lens_best(text: str, lens: str, regimes: tuple[str, ...], grid: str,
               best: Callable[[str], tuple[list[str], str] | None]) -> Claim:
    """`lens` best (or tied with the best) in each listed regime; `best(regime)` gives the ranked set of
    best lenses and a word on the figures, or None where the regime is not in the results."""
    parts = []
    for regime in regimes:
        found = best(regime)
        if found is None:
            continue
        ranked, figures = found
        tied = f", tied with {' and '.join(ranked[1:])}" if len(ranked) > 1 else ""
        parts.append((lens in ranked, f"{REGIME_TITLES[regime]}: best {ranked[0]}{tied} ({figures})"))
    if not parts:
        return Claim(text, UNKNOWN, f"no {' or '.join(REGIME_TITLES[g] for g in regimes)} games in these results",
                     grid)
    ok = all(p for p, _ in parts)
    return Claim(text, HOLDS if ok else FAILS, "; ".join(n for _, n in parts), grid)


def _figures(means: dict[str, float], digits: int = 2) -> str:
    return ", ".join(f"{m} {v:.{digits}f}" for m, v in means.items())


# --- small games: the L1 error against the exact solution (§4.2.2) ------------------------------------------

def _lowest_l1(rows: list[dict]) -> Callable[[str], tuple[list[str], str] | None]:
    def best(regime: str) -> tuple[list[str], str] | None:
        games = per_game(rows, "l1_exact", payoff=regime)
        if not games:
            return None
        means = {m: statistics.fmean(v.values()) for m, v in games.items()}
        ranked = sorted(tied_best({m: {k: -x for k, x in v.items()} for m, v in games.items()}),
                        key=lambda m: means[m])
        return ranked, "mean L1 " + _figures(means)
    return best


def _advantage(means: dict[str, float], lower_is_better: bool) -> float | None:
    """How far upper leads the best of the other lenses (positive: upper ahead)."""
    others = [v for m, v in means.items() if m != "upper"]
    if "upper" not in means or not others:
        return None
    return (min(others) - means["upper"]) if lower_is_better else (means["upper"] - max(others))


def _pill_claim(plain: dict[str, float], pill: dict[str, float], lower_is_better: bool, metric: str,
                grid: str) -> Claim:
    text = "Upper's advantage is largest with the poison pill"
    a, b = _advantage(pill, lower_is_better), _advantage(plain, lower_is_better)
    if a is None or b is None:
        return Claim(text, UNKNOWN, "negative games with and without the poison pill, upper and another lens, "
                                    "are not all in these results", grid)
    return Claim(text, HOLDS if a > b else FAILS,
                 f"upper's lead over the best other lens ({metric}): {a:+z.2f} with the pill, {b:+z.2f} without", grid)


def small_claims(rows: list[dict]) -> list[Claim]:
    best = _lowest_l1(rows)
    g = "small"
    return [
        _lens_best("Reward (myopic) is best in balanced games", "myopic", ("balanced",), g, best),
        _lens_best("Upper is best in negative-dominated games", "upper", ("negative", "negative-pp"), g, best),
        _pill_claim(lens_means(rows, "l1_exact", payoff="negative"), lens_means(rows, "l1_exact", payoff="negative-pp"),
                    True, "mean L1", g),
        _lens_best("Lower is best in positive-dominated games", "lower", ("positive",), g, best),
        _robust_lower(rows),
        _highest_balanced_lowest_positive(rows),
        _negative_between(rows),
        _adversarial_harder(rows),
        _rises_with_all_or_nothing(rows),
    ]


def _l1_by_regime(rows: list[dict]) -> dict[str, dict[str, float]]:
    """lens -> regime -> mean L1 error."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for regime in regimes_in(rows):
        for lens, v in lens_means(rows, "l1_exact", payoff=regime).items():
            out[lens][regime] = v
    return dict(out)


def _regime_figures(by: dict[str, float]) -> str:
    return ", ".join(f"{REGIME_TITLES[g]} {v:z.2f}" for g, v in by.items())


def _highest_balanced_lowest_positive(rows: list[dict]) -> Claim:
    parts = []
    for lens, by in _l1_by_regime(rows).items():
        if {"balanced", "positive"} <= by.keys() and len(by) > 2:
            ok = max(by, key=lambda g: by[g]) == "balanced" and min(by, key=lambda g: by[g]) == "positive"
            parts.append((ok, f"{lens}: {_regime_figures(by)}"))
    return _counted("L1 error is highest in balanced and lowest in positive games (each lens)", parts, "small",
                    "balanced, positive and another regime are not all in these results")


def _negative_between(rows: list[dict]) -> Claim:
    parts = []
    for lens, by in _l1_by_regime(rows).items():
        if {"balanced", "positive", "negative", "negative-pp"} <= by.keys():
            low, high = by["positive"], by["balanced"]
            ok = low < by["negative"] < high and low < by["negative-pp"] < high and by["negative-pp"] > by["negative"]
            parts.append((ok, f"{lens}: {_regime_figures(by)}"))
    return _counted("Negative regimes fall in between, and the poison pill adds difficulty (each lens)", parts,
                    "small", "all four regimes are not in these results")


def _adversarial_harder(rows: list[dict]) -> Claim:
    parts = []
    for regime in regimes_in(rows):
        adv = lens_means(rows, "l1_exact", payoff=regime, structure="adversarial")
        coop = lens_means(rows, "l1_exact", payoff=regime, structure="cooperative")
        for lens in adv.keys() & coop.keys():
            parts.append((adv[lens] > coop[lens],
                          f"{REGIME_TITLES[regime]} {lens}: {adv[lens]:z.2f} against {coop[lens]:z.2f}"))
    return _counted("Adversarial games are harder than cooperative ones (higher L1 error, each regime and lens)",
                    parts, "small", "no regime with both structures in these results")


def _rises_with_all_or_nothing(rows: list[dict]) -> Claim:
    parts = []
    for regime in regimes_in(rows):
        for lens, s in l1_slopes(rows, regime).items():
            parts.append((s > 0, f"{REGIME_TITLES[regime]} {lens}: slope {s:+z.1f}"))
    return _counted("Difficulty (L1 error) rises with the all-or-nothing fraction (each regime and lens)", parts,
                    "small", "fewer than two all-or-nothing fractions in these results")


def _robust_lower(rows: list[dict]) -> Claim:
    parts = []
    for regime in regimes_in(rows):
        slopes = l1_slopes(rows, regime)
        if "lower" in slopes and len(slopes) > 1:
            ok = slopes["lower"] <= min(slopes.values())
            figures = ", ".join(f"{m} {s:+z.1f}" for m, s in slopes.items())
            parts.append((ok, f"{REGIME_TITLES[regime]}: slope {figures}"))
    return _counted("Lower remains robust as non-linearity increases (its L1 error rises least with the "
                    "all-or-nothing fraction)", parts, "small",
                    "lower and another lens over two all-or-nothing fractions are not in these results")


# --- large games: the improvement over No-Negotiation, adversarial columns (§4.2.3) ---------------------------

def _best_adversarial(t: Table1) -> Callable[[str], tuple[list[str], str] | None]:
    lenses = [m for m in t.methods if m in LENSES]

    def best(regime: str) -> tuple[list[str], str] | None:
        cells = {m: c.mean for m in lenses if (c := t.cells.get(("adversarial", regime, m))) is not None}
        if not cells:
            return None
        ranked = sorted(t.best("adversarial", regime, among=lenses), key=lambda m: -cells[m])
        return ranked, "mean improvement " + _figures(cells)
    return best


def large_claims(rows: list[dict]) -> list[Claim]:
    t = table1(rows)
    best = _best_adversarial(t)
    g = "large"

    def adversarial(regime: str) -> dict[str, float]:
        return {m: c.mean for m in LENSES if (c := t.cells.get(("adversarial", regime, m))) is not None}

    return [
        _lens_best("Reward (myopic) is best in balanced games (adversarial)", "myopic", ("balanced",), g, best),
        _lens_best("Upper is best in negative-dominated games (adversarial)", "upper", ("negative", "negative-pp"),
                   g, best),
        _pill_claim(adversarial("negative"), adversarial("negative-pp"), False, "mean improvement, adversarial", g),
        _lens_best("Lower is best in positive-dominated games (adversarial)", "lower", ("positive",), g, best),
        _cooperative_narrow(t),
    ]


def _cooperative_narrow(t: Table1) -> Claim:
    """The spread between the lenses' mean improvements is smaller in cooperative than adversarial games."""
    parts = []
    for regime in REGIME_TITLES:
        spread = {}
        for s in STRUCTURES:
            means = [c.mean for m in LENSES if (c := t.cells.get((s, regime, m))) is not None]
            if len(means) > 1:
                spread[s] = max(means) - min(means)
        if len(spread) == 2:
            parts.append((spread["cooperative"] < spread["adversarial"],
                          f"{REGIME_TITLES[regime]}: spread {spread['cooperative']:z.2f} cooperative, "
                          f"{spread['adversarial']:z.2f} adversarial"))
    return _counted("Differences between the lenses narrow in cooperative games", parts, "large",
                    "no regime with both structures and two lenses in these results")


# --- Table 2: the real-life games (§4.2.4) ---------------------------------------------------------------

def table2_claims(st: ScenarioTable) -> list[Claim]:
    """Table 2's order on the real-life games, Lower > Myopic > 0 > Upper, judged on the mean improvement
    over the scenarios (each scenario one observation, so the best is judged scenario by scenario), and
    the language-model baseline (a method named llm…) against the best lens."""
    g = "table2"
    means = {m: c for m in st.methods if (c := st.over_scenarios(m)) is not None}
    lenses = [m for m in LENSES if m in means]
    out = []
    text = "Lower is best on the real-life games"
    if "lower" in lenses:
        ranked = sorted(tied_best({m: st.by_scenario(m) for m in lenses}), key=lambda m: -means[m].mean)
        tied = f", tied with {' and '.join(ranked[1:])}" if len(ranked) > 1 else ""
        out.append(Claim(text, HOLDS if "lower" in ranked else FAILS, f"best {ranked[0]}{tied} (mean over "
                         f"{means['lower'].n} games: {_figures({m: means[m].mean for m in lenses})})", g))
    else:
        out.append(Claim(text, UNKNOWN, "lower is not among the methods", g))
    for lens, sign, words in (("myopic", 1, "Reward (myopic) improves on No-Negotiation"),
                              ("upper", -1, "Upper falls below No-Negotiation")):
        c = means.get(lens)
        if c is None:
            out.append(Claim(words, UNKNOWN, f"{lens} is not among the methods", g))
        else:
            out.append(Claim(words, HOLDS if sign * c.mean > 0 else FAILS,
                             f"{lens} {c.mean:+z.2f} ± {c.sd:z.2f} over {c.n} games", g))
    models = [m for m in means if m.startswith("llm")]
    text = "The language-model baseline trails the best lens"
    if models and lenses:
        top = max(lenses, key=lambda m: means[m].mean)
        parts = [(means[m].mean < means[top].mean, f"{m} {means[m].mean:+z.2f} against {top} {means[top].mean:+z.2f}")
                 for m in models]
        out.append(_counted(text, parts, g, ""))
    else:
        out.append(Claim(text, UNKNOWN, "no language-model method (sweep --with-llm MODEL) or no lens in these "
                                        "results", g))
    return out


def skipped_metric_note(rows: list[dict]) -> str:
    """What the report says instead of the claims it leaves out for this grid."""
    if is_small(rows):
        over, games = over_exact_limit(rows)
        skipped = (f" {over} of {games} games were over the exact-solve limit: they have no L1 error and no part in "
                   "these claims." if over else "")
        return ("Small games are judged on the L1 error against the exact solution, per lens and regime, as in the "
                "paper's §4.2.2; the claims about large games' improvements are not judged here." + skipped)
    return ("Large games are judged on the improvement over No-Negotiation in the adversarial columns, as in the "
            "paper's §4.2.3; the L1 claims need exact solutions (small games), and difficulty by structure is "
            "judged only there.")

