"""Effects with their uncertainty, resampling the unit that is independent, and the verdicts drawn from them.

Every claim of the paper compares means over games: one lens's L1 error against another's on the same
games, a regime's against another's, a slope of the error against the all-or-nothing fraction, a spread
between lenses.  Each such effect is a function of the *means* of a few per-game columns (a slope is
cov(x, y) / var(x), itself made of the means of x, y, xy and x²), so one procedure serves them all.

**What is resampled.**  Games are not independent: the generator draws one random stream per seed, so the
games of one seed at different grid points (all-or-nothing levels, Zipf exponents, structures) share value
matrices and succeed or fail together.  The unit that *is* independent is the seed, so the bootstrap draws
seeds with replacement and takes all of a drawn seed's games together (a *cluster bootstrap*); a group's
columns are drawn together, which pairs two lenses that played the same games.  `resample` takes per-game
values with their cluster ids (seeds; a scenario sweep's scenarios; or one id per game, which is the plain
bootstrap over games) and returns the effect with its interval, test, p and the number of clusters.

**The interval.**  With few clusters a percentile interval is too narrow (it cannot reach beyond what the
clusters gave), so under FEW clusters the interval is the estimate ± Student's t₀.₉₇₅,C−1 times the
bootstrap standard error scaled by √(C/(C−1)) (for a mean, the cluster-robust t interval), and p is that t
test's.  From FEW clusters on the interval is Hesterberg's expanded percentile interval (percentiles at
Φ(−√(C/(C−1))·t₀.₉₇₅,C−1), all but 2.5 % by then) and p the bootstrap's own (twice the share of resampled
effects on the far side of zero, one added to both counts), so that an interval clear of zero and p < 0.05
say the same thing.  A paired difference with fewer than FEW non-zero game differences is tested by the
exact sign test on the seeds whose summed difference is not zero: few informative games cannot carry a
bootstrap's p.

Verdicts, for an effect the claim says is positive (`direction` +1) or negative (−1): **holds** when the
interval lies wholly on the claimed side of zero and p < 0.05; **fails** when it lies wholly on the other
side and p < 0.05; **identical play** when it cannot tell and the two methods' values were equal in at least
IDENTICAL of the games (they did not play differently, so no number of seeds separates them);
**indistinguishable** otherwise (the data cannot tell; never reported as holding); **not measurable** when
the games it needs are not in the results.

`seeds_needed` answers "how many seeds would settle it": at the observed effect d and its clustered
standard error se over C clusters, C·((z₀.₉₇₅ + z₀.₈₀)·se/|d|)² clusters give a 95 % interval that excludes
zero with 80 % power.  Because d is itself uncertain, its interval is the same formula at the two ends of
d's 95 % interval; an interval that holds zero leaves the count unbounded above.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sp

HOLDS, IDENTICAL, INDISTINGUISHABLE, FAILS, UNMEASURABLE = (
    "holds", "identical play", "indistinguishable", "fails", "not measurable")
VERDICTS = (HOLDS, IDENTICAL, INDISTINGUISHABLE, FAILS, UNMEASURABLE)
RESAMPLES = 2000  # bootstrap draws per effect
LEVEL = 0.95
ALPHA = 1 - LEVEL
Z975, Z80 = float(sp.norm.ppf(0.975)), float(sp.norm.ppf(0.80))
CHUNK = 200  # resamples drawn at once (memory: CHUNK × clusters)
FEW = 30  # clusters under which the interval is Student's t; non-zero differences under which the sign test
IDENTICAL_SHARE = 0.9  # a paired comparison whose values are equal in this share of games is identical play
EQUAL = 1e-9  # two values this close are equal

Stat = Callable[[list[np.ndarray]], np.ndarray]  # per group, the means (draws × columns) -> the effect per draw
Values = Sequence[float] | np.ndarray
Ids = Sequence[object] | np.ndarray


@dataclass(frozen=True)
class Effect:
    """An effect over games: its estimate, 95 % interval, p, the games and independent clusters it rests on."""

    estimate: float
    low: float
    high: float
    p: float
    n: int  # games: the pairs, or the games of the smallest group
    test: str
    se: float  # the bootstrap standard error (the spread of the resampled effects)
    n_clusters: int = 0  # the independent units resampled (seeds; scenarios; games when each is its own)
    unit: str = "seed"  # what those units are
    equal: float | None = None  # paired comparisons: the share of games whose two values were equal

    def verdict(self, direction: int = 1, against: float = 0.0) -> str:
        """Holds when the interval lies wholly on the claimed side of `against` (zero: any effect; a margin
        for a claim of matching), fails when wholly on the other side; against zero the test's p must agree."""
        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            return self._undecided()
        low, high = self.low - against, self.high - against
        low, high = (low, high) if direction > 0 else (-high, -low)
        decided = against != 0 or (math.isfinite(self.p) and self.p < ALPHA)
        if low > 0 and decided:
            return HOLDS
        if high < 0 and decided:
            return FAILS
        return self._undecided()

    def _undecided(self) -> str:
        return IDENTICAL if self.equal is not None and self.equal >= IDENTICAL_SHARE else INDISTINGUISHABLE

    def seeds_needed(self, against: float = 0.0) -> int | None:
        """Clusters for a 95 % interval to exclude `against` with 80 % power at this effect and spread; None
        when the effect sits on it (no number of seeds is sure to settle it)."""
        return _needed(self.estimate - against, self.se, self.n_clusters)

    def seeds_needed_interval(self, against: float = 0.0) -> tuple[int | None, int | None]:
        """The count at the far and the near end of the effect's interval (None above: unbounded, the
        interval holds `against`); (None, None) where there is no interval."""
        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            return None, None
        ends = sorted((abs(self.low - against), abs(self.high - against)), reverse=True)
        crosses = (self.low - against) * (self.high - against) <= 0
        return _needed(ends[0], self.se, self.n_clusters), None if crosses else _needed(ends[1], self.se,
                                                                                        self.n_clusters)

    @property
    def ci95(self) -> tuple[float, float]:
        return (self.low, self.high)


def _needed(gap: float, se: float, clusters: int) -> int | None:
    if gap == 0 or not math.isfinite(se) or not math.isfinite(gap) or clusters < 2:
        return None
    return max(2, math.ceil(clusters * ((Z975 + Z80) * se / abs(gap)) ** 2))


def stable_seed(*parts: object) -> int:
    """A seed from what an effect is about, so that a report drawn twice gives the same intervals."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "little")


def _cluster_index(clusters: Sequence[Ids]) -> tuple[list[np.ndarray], int]:
    """Each group's cluster ids as indices into the clusters of all groups (a seed is one cluster in every
    group it has games in)."""
    labels = [np.asarray(c) for c in clusters]
    if not labels:
        return [], 0
    kinds = {a.dtype.kind for a in labels}
    if len(kinds) > 1 or kinds & {"O", "U", "S"}:
        labels = [a.astype(str) for a in labels]
    found, inverse = np.unique(np.concatenate(labels), return_inverse=True)
    bounds = np.cumsum([0, *(len(a) for a in labels)])
    return [inverse[bounds[i]:bounds[i + 1]] for i in range(len(labels))], len(found)


def resample(groups: Sequence[np.ndarray], clusters: Sequence[Ids], stat: Stat, seed: int,
             test: str = "bootstrap", unit: str = "seed", resamples: int = RESAMPLES) -> Effect:
    """The effect `stat` of the groups' column means, with its interval and p from resampling clusters.

    `groups`: per group of games an array (games × columns); `clusters`: per group, each game's cluster id
    (its seed).  A draw takes C clusters with replacement and, in every group, all the games of each
    (columns together: paired by game); `stat` maps a list of (draws × columns) mean arrays to one effect
    per draw.  One id per game is the plain bootstrap over games."""
    arrays = [np.asarray(g, dtype=float).reshape(len(g), -1) for g in groups]
    n = min(len(a) for a in arrays) if arrays else 0
    estimate = float(stat([a.mean(axis=0, keepdims=True) for a in arrays])[0]) if n else math.nan
    index, c = _cluster_index(clusters)
    name = f"{test}, resampling {unit}s ({resamples:,} draws)"
    if n < 2 or c < 2 or not math.isfinite(estimate):
        return Effect(estimate, math.nan, math.nan, math.nan, n, name, math.nan, c, unit)
    sums = []
    for a, idx in zip(arrays, index, strict=True):
        s = np.zeros((c, a.shape[1] + 1))
        np.add.at(s, idx, np.column_stack([a, np.ones(len(a))]))
        sums.append(s)
    rng = np.random.default_rng(seed)
    draws = np.empty(resamples)
    with np.errstate(divide="ignore", invalid="ignore"):
        for start in range(0, resamples, CHUNK):
            b = min(CHUNK, resamples - start)
            drawn = rng.integers(0, c, size=(b, c), dtype=np.int32) + np.arange(b, dtype=np.int32)[:, None] * c
            weights = np.bincount(drawn.ravel(), minlength=b * c).reshape(b, c).astype(float)
            means = []
            for s in sums:
                total = weights @ s
                means.append(total[:, :-1] / total[:, -1:])
            draws[start:start + b] = stat(means)
    draws = draws[np.isfinite(draws)]
    if len(draws) < resamples // 2:  # the effect is undefined on most resamples (a constant x for a slope)
        return Effect(estimate, math.nan, math.nan, math.nan, n, name, math.nan, c, unit)
    se = float(np.std(draws, ddof=1))
    if c < FEW:
        se *= math.sqrt(c / (c - 1))
        half = float(sp.t.ppf(1 - ALPHA / 2, c - 1)) * se
        p = float(2 * sp.t.sf(abs(estimate) / se, c - 1)) if se > 0 else float(estimate == 0)
        return Effect(estimate, estimate - half, estimate + half, p, n,
                      f"{test}: Student's t on its standard error, {c} {unit}s ({resamples:,} draws)", se, c, unit)
    tail = expanded_tail(c)
    low, high = np.quantile(draws, [tail, 1 - tail])
    below, above = int((draws <= 0).sum()), int((draws >= 0).sum())
    p = min(1.0, 2 * (min(below, above) + 1) / (len(draws) + 1))
    if se == 0:  # no spread at all: every cluster gave the same effect
        p = float(estimate == 0)
    return Effect(estimate, float(low), float(high), p, n, name, se, c, unit)


def expanded_tail(clusters: int) -> float:
    """The lower tail of the expanded percentile interval for C clusters (2.5 % as C grows)."""
    return float(sp.norm.cdf(-math.sqrt(clusters / (clusters - 1)) * sp.t.ppf(1 - ALPHA / 2, clusters - 1)))


def games_as_clusters(n: int) -> np.ndarray:
    """One cluster per game: the plain bootstrap over games (right only where games are independent)."""
    return np.arange(n)


# --- the statistics claims use ---------------------------------------------------------------------------------

def mean_of(values: Values, clusters: Ids, seed: int, unit: str = "seed", resamples: int = RESAMPLES) -> Effect:
    """The mean of one column (one-sample: is it above zero?)."""
    return resample([np.asarray(values, dtype=float)], [clusters], lambda m: m[0][:, 0], seed, "bootstrap", unit,
                    resamples)


def paired_difference(a: Values, b: Values, clusters: Ids, seed: int, unit: str = "seed") -> Effect:
    """mean(a − b) over games both played (a and b in the same order of games, `clusters` their seeds); the
    exact sign test where fewer than FEW games differ at all and others do not (a bootstrap resting on a few
    informative games among many equal ones cannot carry a p)."""
    diffs = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    e = resample([diffs], [clusters], lambda m: m[0][:, 0], seed, "paired bootstrap", unit)
    equal = float(np.mean(np.abs(diffs) <= EQUAL)) if len(diffs) else None
    differing = int(np.sum(np.abs(diffs) > EQUAL))
    out = Effect(e.estimate, e.low, e.high, e.p, e.n, e.test, e.se, e.n_clusters, unit, equal)
    if (0 < differing < FEW and differing < len(diffs)) or (len(diffs) and not differing):
        p, k, m = sign_test(diffs, clusters)
        out = Effect(e.estimate, e.low, e.high, p, e.n,
                     f"exact sign test over the {unit}s whose summed difference is not zero ({k} of {m} positive; "
                     f"{differing} of {len(diffs)} games differ), interval: {e.test}", e.se, e.n_clusters, unit,
                     equal)
    return out


def sign_test(diffs: np.ndarray, clusters: Ids) -> tuple[float, int, int]:
    """(two-sided p, clusters whose summed difference is positive, clusters whose sum is not zero): the exact
    binomial test that a cluster's sum is as likely positive as negative (clusters are independent; games
    of one cluster are not)."""
    (idx,), c = _cluster_index([clusters])
    sums = np.bincount(idx, weights=diffs, minlength=c)
    nonzero = sums[np.abs(sums) > EQUAL]
    k, m = int((nonzero > 0).sum()), len(nonzero)
    return (float(sp.binomtest(k, m, 0.5).pvalue) if m else 1.0), k, m


def difference(a: Values, b: Values, clusters_a: Ids, clusters_b: Ids, seed: int) -> Effect:
    """mean(a) − mean(b) over two different sets of games, their seeds drawn together."""
    return resample([np.asarray(a, dtype=float), np.asarray(b, dtype=float)], [clusters_a, clusters_b],
                    lambda m: m[0][:, 0] - m[1][:, 0], seed, "bootstrap over two sets of games")


def slope_columns(x: Values, y: Values) -> np.ndarray:
    """The columns whose means make a least-squares slope: x, x², y, xy."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return np.column_stack([xs, xs * xs, ys, xs * ys])


def slope_from(means: np.ndarray, y: int = 2) -> np.ndarray:
    """Slopes from resampled means of [x, x², y₁, xy₁, y₂, xy₂, …]: the pair of columns at `y`."""
    var = means[:, 1] - means[:, 0] ** 2
    cov = means[:, y + 1] - means[:, 0] * means[:, y]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(var > 1e-12, cov / np.where(var > 1e-12, var, 1.0), np.nan)


def slope(x: Values, y: Values, clusters: Ids, seed: int) -> Effect:
    """The least-squares slope of y on x over games."""
    return resample([slope_columns(x, y)], [clusters], lambda m: slope_from(m[0]), seed, "bootstrap of the slope")


def slope_difference(x: Values, y1: Values, y2: Values, clusters: Ids, seed: int) -> Effect:
    """slope(y1 on x) − slope(y2 on x) over the same games."""
    cols = np.column_stack([slope_columns(x, y1), np.asarray(y2), np.asarray(x) * np.asarray(y2)])
    return resample([cols], [clusters], lambda m: slope_from(m[0], 2) - slope_from(m[0], 4), seed,
                    "paired bootstrap of the two slopes")


def clustered_se(values: Values, clusters: Ids) -> float:
    """The standard error of a mean over games whose clusters (seeds) are the independent unit: the spread of
    the clusters' sums about what the mean predicts for them (the sandwich estimator, with the small-sample
    factor C/(C − 1)).  A figure's error bar needs no bootstrap; it must not count a seed's games as many
    draws.  0 with one cluster or none (nothing to tell a spread from)."""
    y = np.asarray(values, dtype=float)
    if not len(y):
        return 0.0
    (idx,), c = _cluster_index([clusters])
    if c < 2:
        return 0.0
    mean = float(y.mean())
    sums = np.bincount(idx, weights=y, minlength=c)
    sizes = np.bincount(idx, minlength=c)
    return float(np.sqrt(c / (c - 1) * np.sum((sums - sizes * mean) ** 2)) / len(y))


def holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (NaN stays NaN and counts for nothing)."""
    order = sorted((v, i) for i, v in enumerate(p) if math.isfinite(v))
    m, out, running = len(order), [math.nan] * len(p), 0.0
    for rank, (v, i) in enumerate(order):
        running = max(running, min(1.0, (m - rank) * v))
        out[i] = running
    return out


def proportion(k: int, n: int) -> tuple[float, float, float]:
    """A share k/n with its Wilson 95 % interval (sound at 0 and 1, where the normal one is not)."""
    if n == 0:
        return math.nan, math.nan, math.nan
    ci = sp.binomtest(k, n).proportion_ci(LEVEL, method="wilson")
    return k / n, float(ci.low), float(ci.high)
