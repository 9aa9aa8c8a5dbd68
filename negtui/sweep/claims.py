"""The paper's claims on its generated grids, each judged as the paper states and scopes it.

Small games (§4.2.2, solved exactly) rank the lenses by their L1 error against the exact solution, per
payoff regime; large games (§4.2.3) by their improvement over No-Negotiation in the *adversarial* columns,
with "differences narrow in cooperative games" and "myopic sometimes matches in cooperative games" claims
of their own.  Every verdict is one of four (stats.py): an effect with its 95 % interval that clears zero on
the claimed side holds, one that clears it on the other side fails, one whose interval holds zero is
indistinguishable, and a claim whose games are missing is not measurable.  "X is best" holds only when X
beats every other lens on the same games; a lens tied with the best is indistinguishable, never best.
An L1 figure is always one lens's (never lenses pooled: one lens's collapse would decide for all).

A claim stated for the other grid is left out, so a report lists only what its results can speak to."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

import numpy as np

from negtui.engine.rules import get_rules
from negtui.sweep.judge import GRID_KEY, Claim, Comparison, Games, Part, games, seed_for, twins
from negtui.sweep.report import LENS_NAMES, REGIME_TITLES
from negtui.sweep.spec import EXACT
from negtui.sweep.stats import Effect, paired_difference, resample, slope, slope_difference

LENSES = tuple(LENS_NAMES)
LEARNED = "learned"  # the sweep method the learned lens's claims read (a method of that name)
MATCH_MARGIN = 0.05  # "myopic matches": within 5 % of the best lens's mean improvement
WORD = {"l1_exact": "L1", "improvement": "improvement"}


def is_small(rows: list[dict]) -> bool:
    """Results with exact solutions asked for: the paper's small games, judged on the L1 error."""
    return any(r["method"] == EXACT or r.get("exact_solved") is False for r in rows)


def over_exact_limit(rows: list[dict]) -> tuple[int, int]:
    """(games whose exact solution was asked for but too large to solve, games)."""
    solved = {r["task"]: r.get("exact_solved") for r in rows}
    return sum(v is False for v in solved.values()), len(solved)


def claims(rows: list[dict]) -> list[Claim]:
    found = small_claims(rows) if is_small(rows) else large_claims(rows)
    if any(r["method"] == LEARNED for r in rows):
        found += learned_claims(rows)
    rules = rows[0]["rules"] if rows else ""
    return [replace(c, rules=rules) for c in found]


def lenses_in(rows: list[dict]) -> list[str]:
    return [m for m in LENSES if any(r["method"] == m for r in rows)]


def regimes_in(rows: list[dict]) -> list[str]:
    return [g for g in REGIME_TITLES if any(r["payoff"] == g for r in rows)]


def _means(g: Games) -> str:
    return "means " + ", ".join(f"{m} {v:z.2f}" for m, v in zip(g.methods, g.values.mean(axis=0)))


# --- the building blocks ---------------------------------------------------------------------------------------

def lens_best(claim: str, text: str, lens: str, regimes: tuple[str, ...], rows: list[dict], column: str,
              grid: str, *, pooled: bool = False, **where: object) -> Claim:
    """`lens` better than every other lens, on the same games, in each regime (lower is better for L1); or,
    `pooled`, over the games of all the regimes together (the paper's "overall")."""
    better = -1 if column == "l1_exact" else 1
    parts = []
    others = [m for m in lenses_in(rows) if m != lens]
    if pooled:  # named for the regimes these results hold (reference rules play no poison pill)
        regimes = tuple(g for g in regimes if any(r.get("payoff") == g for r in rows)) or regimes
    for label, regime in ([(" and ".join(REGIME_TITLES[g] for g in regimes) + ", pooled", regimes)] if pooled
                          else [(REGIME_TITLES[g], g) for g in regimes]):
        g = games(rows, column, [lens, *others], payoff=regime, **where)
        if not len(g) or not others:
            continue
        parts.append(Part(label, tuple(
            Comparison(f"{WORD[column]} {lens} − {o}", paired_difference(g.column(lens), g.column(o), g.clusters,
                                                                        seed_for(claim, regime, o)), better)
            for o in others), _means(g)))
    scope = (" and " if pooled else " or ").join(REGIME_TITLES[g] for g in regimes) + (" pooled" if pooled else "")
    return Claim(claim, text, column, f"{grid} games · {scope}" + _where(where), grid, tuple(parts),
                 missing=f"{lens} and another lens in {scope} games are not all in these results")


def _where(where: Mapping[str, object]) -> str:
    return "".join(f" · {v}" for v in where.values())


def contrast(a: Games, b: Games, axis: str, stat: Callable[[np.ndarray, np.ndarray], np.ndarray],
             seed: int) -> Effect:
    """An effect of two sets of games, as `stat(means of a, means of b)`: paired game by game where each game
    of one is the other's twin across `axis` (one draw of the generator), else as two sets."""
    pair = twins(a, b, axis)
    k = a.values.shape[1]
    if pair is not None:
        ia, ib = pair
        joined = np.hstack([a.values[ia], b.values[ib]])
        return resample([joined], [a.clusters[ia]], lambda m: stat(m[0][:, :k], m[0][:, k:]), seed,
                        f"paired bootstrap over games twinned across {axis}")
    return resample([a.values, b.values], [a.clusters, b.clusters], lambda m: stat(m[0], m[1]), seed,
                    "bootstrap over two sets of games")


def _gap(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[:, 0] - b[:, 0]


def regime_gap(claim: str, rows: list[dict], lens: str, high: str, low: str, column: str = "l1_exact",
               ) -> Comparison | None:
    """mean(lens's L1 in `high` games) − mean(in `low` games), claimed above zero."""
    a, b = games(rows, column, [lens], payoff=high), games(rows, column, [lens], payoff=low)
    if not len(a) or not len(b):
        return None
    return Comparison(f"{WORD[column]} {REGIME_TITLES[high]} − {REGIME_TITLES[low]}",
                      contrast(a, b, "payoff", _gap, seed_for(claim, lens, high, low)), 1)


def per_lens_order(claim: str, text: str, rows: list[dict], pairs: list[tuple[str, str]], needed: set[str],
                   ) -> Claim:
    """For each lens, its L1 error higher in the first regime of every pair than in the second (the pairs
    whose regimes are in the results, once every regime in `needed` is)."""
    present = set(regimes_in(rows))
    parts = []
    if needed <= present and len(present) > 2:
        usable = [(high, low) for high, low in pairs if {high, low} <= present]
        for lens in lenses_in(rows):
            found = [c for high, low in usable if (c := regime_gap(claim, rows, lens, high, low)) is not None]
            if found:
                parts.append(Part(lens, tuple(found)))
    shown = ", ".join(REGIME_TITLES[g] for g in REGIME_TITLES if g in needed)
    return Claim(claim, text, "l1_exact", f"small games · each lens · {shown} and another regime", "small",
                 tuple(parts), missing=f"{shown} and another regime are not all in these results")


def fractions(g: Games) -> np.ndarray:
    return np.array([float(k[GRID_KEY.index("all_or_nothing")]) for k in g.keys])


# --- small games: the L1 error against the exact solution (§4.2.2) --------------------------------------------

def small_claims(rows: list[dict]) -> list[Claim]:
    g, col = "small", "l1_exact"
    return [
        lens_best("small.myopic-best-balanced", "Reward (myopic) is best in balanced games", "myopic",
                  ("balanced",), rows, col, g),
        lens_best("small.upper-best-negative", "Upper is best overall in negative-dominated games (both negative "
                  "regimes pooled)", "upper", ("negative", "negative-pp"), rows, col, g, pooled=True),
        pill_advantage("small.upper-advantage-pill", rows, col, g),
        lens_best("small.lower-best-positive", "Lower is best in positive-dominated games", "lower", ("positive",),
                  rows, col, g),
        robust_lower(rows),
        per_lens_order("small.l1-balanced-highest-positive-lowest",
                       "L1 error is highest in balanced and lowest in positive games (each lens)", rows,
                       [("balanced", "negative"), ("balanced", "negative-pp"), ("balanced", "positive"),
                        ("negative", "positive"), ("negative-pp", "positive")], {"balanced", "positive"}),
        per_lens_order("small.negative-between-pill-harder",
                       "Negative regimes fall in between, and the poison pill adds difficulty (each lens)", rows,
                       [("negative", "positive"), ("balanced", "negative"), ("negative-pp", "positive"),
                        ("balanced", "negative-pp"), ("negative-pp", "negative")], set(REGIME_TITLES)),
        adversarial_harder(rows),
        rises_with_all_or_nothing(rows),
    ]


def pill_advantage(claim: str, rows: list[dict], column: str, grid: str) -> Claim:
    """Upper's lead over the best other lens, larger with the poison pill than without (adversarial games
    on the large grid, as the paper reads Table 1's columns)."""
    text = "Upper's advantage is largest with the poison pill"
    where = {"structure": "adversarial"} if grid == "large" else {}
    others = [m for m in lenses_in(rows) if m != "upper"]
    plain = games(rows, column, ["upper", *others], payoff="negative", **where)
    pill = games(rows, column, ["upper", *others], payoff="negative-pp", **where)
    subset = f"{grid} games · negative with and without the pill" + _where(where)
    if not len(plain) or not len(pill) or not others:
        return Claim(claim, text, column, subset, grid,
                     missing="negative games with and without the pill, upper and another lens, are not all in "
                             "these results")

    def lead(m: np.ndarray) -> np.ndarray:  # upper's lead over the best of the others, in the metric's sense
        return (m[:, 1:].min(axis=1) - m[:, 0]) if column == "l1_exact" else (m[:, 0] - m[:, 1:].max(axis=1))

    e = contrast(pill, plain, "payoff", lambda a, b: lead(a) - lead(b), seed_for(claim))
    part = Part("negative + poison pill against negative", (Comparison(
        f"upper's lead over the best other lens ({WORD[column]}), with the pill − without", e, 1),),
        f"lead {float(lead(pill.values.mean(axis=0, keepdims=True))[0]):+z.2f} with the pill, "
        f"{float(lead(plain.values.mean(axis=0, keepdims=True))[0]):+z.2f} without")
    return Claim(claim, text, column, subset, grid, (part,))


def robust_lower(rows: list[dict]) -> Claim:
    """The paper says it of positive games: lower's L1 error rises least with the all-or-nothing fraction."""
    claim = "small.lower-robust-positive"
    text = ("Lower remains robust as non-linearity increases in positive games (its L1 error rises least with "
            "the all-or-nothing fraction)")
    others = [m for m in lenses_in(rows) if m != "lower"]
    g = games(rows, "l1_exact", ["lower", *others], payoff="positive")
    parts: tuple[Part, ...] = ()
    x = fractions(g) if len(g) else np.array([])
    if len(g) and others and len(set(x)) > 1:
        parts = (Part(REGIME_TITLES["positive"], tuple(
            Comparison(f"slope of L1 on the fraction, lower − {o}",
                       slope_difference(x, g.column("lower"), g.column(o), g.clusters, seed_for(claim, o)), -1)
            for o in others)),)
    return Claim(claim, text, "l1_exact", "small games · positive · slope over the all-or-nothing fraction", "small",
                 parts, missing="lower and another lens over two all-or-nothing fractions in positive games are "
                                "not in these results")


def adversarial_harder(rows: list[dict]) -> Claim:
    claim = "small.adversarial-harder"
    parts = []
    for regime in regimes_in(rows):
        for lens in lenses_in(rows):
            a = games(rows, "l1_exact", [lens], payoff=regime, structure="adversarial")
            b = games(rows, "l1_exact", [lens], payoff=regime, structure="cooperative")
            if len(a) and len(b):
                e = contrast(a, b, "structure", _gap, seed_for(claim, regime, lens))
                parts.append(Part(f"{REGIME_TITLES[regime]} {lens}",
                                  (Comparison("L1 adversarial − cooperative", e, 1),)))
    return Claim(claim, "Adversarial games are harder than cooperative ones (higher L1 error, each regime and lens)",
                 "l1_exact", "small games · each regime and lens", "small", tuple(parts),
                 missing="no regime with both structures in these results")


def rises_with_all_or_nothing(rows: list[dict]) -> Claim:
    claim = "small.l1-rises-with-all-or-nothing"
    parts = []
    for regime in regimes_in(rows):
        for lens in lenses_in(rows):
            g = games(rows, "l1_exact", [lens], payoff=regime)
            x = fractions(g) if len(g) else np.array([])
            if len(g) and len(set(x)) > 1:
                parts.append(Part(f"{REGIME_TITLES[regime]} {lens}", (Comparison(
                    "slope of L1 on the fraction", slope(x, g.column(lens), g.clusters, seed_for(claim, regime, lens)),
                    1),)))
    return Claim(claim, "Difficulty (L1 error) rises with the all-or-nothing fraction (each regime and lens)",
                 "l1_exact", "small games · each regime and lens · slope over the all-or-nothing fraction", "small",
                 tuple(parts), missing="fewer than two all-or-nothing fractions in these results")


# --- large games: the improvement over No-Negotiation (§4.2.3) ------------------------------------------------

def large_claims(rows: list[dict]) -> list[Claim]:
    g, col, adv = "large", "improvement", "adversarial"
    return [
        lens_best("large.myopic-best-balanced", "Reward (myopic) is best in balanced games (adversarial)", "myopic",
                  ("balanced",), rows, col, g, structure=adv),
        lens_best("large.upper-best-negative", "Upper is best overall in negative-dominated games (both negative "
                  "regimes pooled, adversarial)", "upper", ("negative", "negative-pp"), rows, col, g, pooled=True,
                  structure=adv),
        pill_advantage("large.upper-advantage-pill", rows, col, g),
        lens_best("large.lower-best-positive", "Lower is best in positive-dominated games (adversarial)", "lower",
                  ("positive",), rows, col, g, structure=adv),
        cooperative_narrow(rows),
        myopic_sometimes_matches(rows),
    ]


def cooperative_narrow(rows: list[dict]) -> Claim:
    """The spread between the lenses' mean improvements is smaller in cooperative than in adversarial games."""
    claim = "large.cooperative-narrow"
    parts = []
    lenses = lenses_in(rows)
    for regime in regimes_in(rows):
        a = games(rows, "improvement", lenses, payoff=regime, structure="adversarial")
        b = games(rows, "improvement", lenses, payoff=regime, structure="cooperative")
        if len(a) and len(b) and len(lenses) > 1:
            def spread(m: np.ndarray) -> np.ndarray:
                return m.max(axis=1) - m.min(axis=1)

            e = contrast(a, b, "structure", lambda x, y: spread(x) - spread(y), seed_for(claim, regime))
            parts.append(Part(REGIME_TITLES[regime], (Comparison(
                "spread of the lenses' means, adversarial − cooperative", e, 1),),
                f"spread {float(spread(a.values.mean(axis=0, keepdims=True))[0]):z.2f} adversarial, "
                f"{float(spread(b.values.mean(axis=0, keepdims=True))[0]):z.2f} cooperative"))
    return Claim(claim, "Differences between the lenses narrow in cooperative games", "improvement",
                 "large games · each regime · both structures", "large", tuple(parts),
                 missing="no regime with both structures and two lenses in these results")


def myopic_sometimes_matches(rows: list[dict]) -> Claim:
    """In some cooperative regime myopic is not worse than the best other lens by more than MATCH_MARGIN of
    that lens's mean (a non-inferiority test: an interval above −margin); a tie alone proves no match."""
    claim = "large.myopic-matches-cooperative"
    others = [m for m in lenses_in(rows) if m != "myopic"]
    parts = []
    for regime in regimes_in(rows):
        g = games(rows, "improvement", ["myopic", *others], payoff=regime, structure="cooperative")
        if not len(g) or not others:
            continue
        means = g.values.mean(axis=0)
        margin = MATCH_MARGIN * float(abs(means[1:].max()))
        e = resample([g.values], [g.clusters], lambda m: m[0][:, 0] - m[0][:, 1:].max(axis=1), seed_for(claim, regime),
                     "paired bootstrap")
        parts.append(Part(REGIME_TITLES[regime], (Comparison(
            "improvement myopic − the best other lens", e, 1, against=-margin),), _means(g)))
    return Claim(claim, f"Myopic sometimes matches the other lenses in cooperative games (within {MATCH_MARGIN:.0%} "
                        "of the best lens's mean improvement, in at least one regime)", "improvement",
                 "large games · cooperative · each regime", "large", tuple(parts), any_part=True,
                 missing="myopic and another lens in cooperative games are not all in these results")


# --- the learned lens (docs/learned-lens.md): a sweep method named `learned` ----------------------------------

def learned_claims(rows: list[dict]) -> list[Claim]:
    """Judged as the hand lenses are, against every one of them: on small games its L1 error below each hand
    lens's and its improvement at least the best hand lens's, per regime; on large games (no exact values) its
    improvement against each hand lens, per regime.  Only seeds the model was not trained on say anything of
    it: the report's caller picks the seeds (`negtui sweep --seed-start`)."""
    regimes = tuple(regimes_in(rows))
    if is_small(rows):
        return [lens_best("learned.l1-below-every-hand-lens", "The learned lens's L1 error is below every hand "
                          "lens's (each regime)", LEARNED, regimes, rows, "l1_exact", "small"),
                learned_at_least_best("learned.improvement-at-least-best-hand-lens", rows, regimes, "small")]
    return [lens_best("learned.improvement-over-every-hand-lens", "The learned lens improves on No-Negotiation "
                      "more than every hand lens (each regime)", LEARNED, regimes, rows, "improvement", "large")]


def learned_at_least_best(claim: str, rows: list[dict], regimes: tuple[str, ...], grid: str) -> Claim:
    """The learned lens's improvement minus the best hand lens's in each regime (the hand lens of the highest mean
    improvement there), claimed at least zero: a tie is reported as a tie (indistinguishable), not as a pass."""
    hand = lenses_in(rows)
    parts = []
    for regime in regimes:
        g = games(rows, "improvement", [LEARNED, *hand], payoff=regime)
        if not len(g) or not hand:
            continue
        best = hand[int(np.argmax(g.values[:, 1:].mean(axis=0)))]
        parts.append(Part(REGIME_TITLES[regime], (Comparison(
            f"improvement {LEARNED} − {best} (the best hand lens here)",
            paired_difference(g.column(LEARNED), g.column(best), g.clusters, seed_for(claim, regime)), 1),),
            _means(g)))
    return Claim(claim, "The learned lens's improvement over No-Negotiation is at least the best hand lens's (each "
                 "regime)", "improvement", f"{grid} games · each regime", grid, tuple(parts),
                 missing="the learned lens and a hand lens are not both in these results")


def _simultaneous(rules: str) -> bool:
    try:
        return get_rules(rules).simultaneous
    except ValueError:  # a rule set this negtui does not know: its games are read as they are
        return False


def skipped_metric_note(rows: list[dict]) -> str:
    """What the report says instead of the claims it leaves out for this grid."""
    if rows and _simultaneous(rows[0]["rules"]):
        return ("Games of simultaneous turns have no exact solution (the exact solver does not solve them), so they "
                "are judged as large games are: on the improvement over No-Negotiation in the adversarial columns; "
                "the L1 claims are not judged here.")
    if is_small(rows):
        over, n = over_exact_limit(rows)
        skipped = (f" {over} of {n} games were over the exact-solve limit: they have no L1 error and no part in "
                   "these claims." if over else "")
        return ("Small games are judged on the L1 error against the exact solution, per lens and regime, as in the "
                "paper's §4.2.2; the claims about large games' improvements are not judged here." + skipped)
    return ("Large games are judged on the improvement over No-Negotiation in the adversarial columns, as in the "
            "paper's §4.2.3; the L1 claims need exact solutions (small games), and difficulty by structure is "
            "judged only there.")
