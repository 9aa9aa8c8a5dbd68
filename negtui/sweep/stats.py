"""Effects with their uncertainty, and the four verdicts drawn from them.

Every claim of the paper compares means over games: one lens's L1 error against another's on the same
games, a regime's against another's, a slope of the error against the all-or-nothing fraction, a spread
between lenses.  Each such effect is a function of the *means* of a few per-game columns (a slope is
cov(x, y) / var(x), itself made of the means of x, y, xy and x²), so one procedure serves them all: the
**bootstrap over games**.  The games of each group are drawn again with replacement (a group's columns are
drawn together, which is what pairs two lenses that played the same games), the effect is recomputed from
the resampled means, and the 2.5th and 97.5th percentiles of those effects bound the 95 % interval.

With few games a percentile interval is too narrow (it cannot reach beyond the values the games gave), so
under FEW games the interval is the estimate ± Student's t₀.₉₇₅,ₙ₋₁ times its bootstrap standard error
(scaled by √(n/(n−1)), n the smallest group): for a mean that is exactly Student's t interval, and the p-value
is the t test's.  From FEW games on, the percentiles are those of Hesterberg's *expanded percentile interval*
(taken at Φ(−√(n/(n−1))·t₀.₉₇₅,ₙ₋₁) rather than 2.5 %, all but the same by then), and the p-value is the
bootstrap's own: twice the share of resampled effects on the far side of zero (one added to both counts), so
that an interval excluding zero and p < 0.05 say the same thing.

Verdicts, for an effect the claim says is positive (`direction` +1) or negative (−1):
**holds** when the interval lies wholly on the claimed side of zero; **fails** when it lies wholly on the
other; **indistinguishable** when it holds zero (the data cannot tell; never reported as holding); **not
measurable** when the games it needs are not in the results.

`seeds_needed` answers "how many seeds would settle it": at the observed effect d and its standard error
se over n games, the games needed for a 95 % interval to exclude zero with 80 % power are
n·((z₀.₉₇₅ + z₀.₈₀)·se/|d|)², turned into seeds by the subset's games per seed.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

HOLDS, INDISTINGUISHABLE, FAILS, UNMEASURABLE = "holds", "indistinguishable", "fails", "not measurable"
VERDICTS = (HOLDS, INDISTINGUISHABLE, FAILS, UNMEASURABLE)
RESAMPLES = 2000  # bootstrap draws per effect
LEVEL = 0.95
Z975, Z80 = 1.959963984540054, 0.8416212335729143
CHUNK = 200  # resamples drawn at once (memory: CHUNK × games × columns)
FEW = 30  # games under which the interval is Student's t on the bootstrap standard error

Stat = Callable[[list[np.ndarray]], np.ndarray]  # per group, the means (draws × columns) -> the effect per draw
Values = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class Effect:
    """An effect over games: its estimate, 95 % interval, p-value, the games it rests on and how judged."""

    estimate: float
    low: float
    high: float
    p: float
    n: int  # games: the pairs, or the games of the smallest group
    test: str
    se: float  # the bootstrap standard error (the spread of the resampled effects)

    def verdict(self, direction: int = 1, against: float = 0.0) -> str:
        """Holds when the interval lies wholly on the claimed side of `against` (zero: any effect; a margin
        for a claim of matching), fails when wholly on the other side."""
        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            return INDISTINGUISHABLE
        low, high = self.low - against, self.high - against
        low, high = (low, high) if direction > 0 else (-high, -low)
        if low > 0:
            return HOLDS
        if high < 0:
            return FAILS
        return INDISTINGUISHABLE

    def games_needed(self, against: float = 0.0) -> int | None:
        """Games for a 95 % interval to exclude `against` with 80 % power at this effect and spread; None when
        the effect sits on it (no number of games is sure to settle it)."""
        gap = self.estimate - against
        if gap == 0 or not math.isfinite(self.se) or not math.isfinite(gap):
            return None
        return max(2, math.ceil(self.n * ((Z975 + Z80) * self.se / abs(gap)) ** 2))

    def seeds_needed(self, games_per_seed: float, against: float = 0.0) -> int | None:
        games = self.games_needed(against)
        if games is None or games_per_seed <= 0:
            return None
        return max(1, math.ceil(games / games_per_seed))

    @property
    def ci95(self) -> tuple[float, float]:
        return (self.low, self.high)


def stable_seed(*parts: object) -> int:
    """A seed from what an effect is about, so that a report drawn twice gives the same intervals."""
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "little")


def bootstrap(groups: Sequence[np.ndarray], stat: Stat, seed: int, test: str = "bootstrap over games",
              resamples: int = RESAMPLES) -> Effect:
    """The effect `stat` of the groups' column means, with its bootstrap interval and p-value.

    `groups`: per group of games an array (games × columns); rows are drawn again together, so columns of
    one group are paired by game.  `stat` maps a list of (draws × columns) mean arrays to one effect per
    draw."""
    arrays = [np.asarray(g, dtype=float).reshape(len(g), -1) for g in groups]
    n = min(len(a) for a in arrays) if arrays else 0
    estimate = float(stat([a.mean(axis=0, keepdims=True) for a in arrays])[0]) if n else math.nan
    name = f"{test} ({resamples:,} resamples)"
    if n < 2 or not math.isfinite(estimate):
        return Effect(estimate, math.nan, math.nan, math.nan, n, name, math.nan)
    rng = np.random.default_rng(seed)
    draws = np.empty(resamples)
    for start in range(0, resamples, CHUNK):
        b = min(CHUNK, resamples - start)
        means = [a[rng.integers(0, len(a), size=(b, len(a)))].mean(axis=1) for a in arrays]
        draws[start:start + b] = stat(means)
    draws = draws[np.isfinite(draws)]
    if len(draws) < resamples // 2:  # the effect is undefined on most resamples (a constant x for a slope)
        return Effect(estimate, math.nan, math.nan, math.nan, n, name, math.nan)
    se = float(np.std(draws, ddof=1))
    if n < FEW:
        se *= math.sqrt(n / (n - 1))
        half = t_quantile(1 - (1 - LEVEL) / 2, n - 1) * se
        p = 2 * (1 - t_cdf(abs(estimate) / se, n - 1)) if se > 0 else float(estimate == 0)
        return Effect(estimate, estimate - half, estimate + half, p, n,
                      f"{test}: Student's t on its standard error, {n} games ({resamples:,} resamples)", se)
    tail = expanded_tail(n)
    low, high = np.quantile(draws, [tail, 1 - tail])
    below, above = int((draws <= 0).sum()), int((draws >= 0).sum())
    p = min(1.0, 2 * (min(below, above) + 1) / (len(draws) + 1))
    if se == 0:  # no spread at all: every game gave the same effect
        p = float(estimate == 0)
    return Effect(estimate, float(low), float(high), p, n, name, se)


def expanded_tail(n: int) -> float:
    """The lower tail of the expanded percentile interval for n games (2.5 % as n grows)."""
    return normal_cdf(-math.sqrt(n / (n - 1)) * t_quantile(1 - (1 - LEVEL) / 2, n - 1))


# --- the statistics claims use ---------------------------------------------------------------------------------

def mean_of(values: Values, seed: int) -> Effect:
    """The mean of one column (one-sample: is it above zero?)."""
    return bootstrap([np.asarray(values, dtype=float)], lambda m: m[0][:, 0], seed)


def paired_difference(a: Values, b: Values, seed: int) -> Effect:
    """mean(a − b) over games both played (a and b in the same order of games)."""
    diffs = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    return bootstrap([diffs], lambda m: m[0][:, 0], seed, "paired bootstrap over games")


def difference(a: Values, b: Values, seed: int) -> Effect:
    """mean(a) − mean(b) over two different sets of games."""
    return bootstrap([np.asarray(a, dtype=float), np.asarray(b, dtype=float)],
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


def slope(x: Values, y: Values, seed: int) -> Effect:
    """The least-squares slope of y on x over games."""
    return bootstrap([slope_columns(x, y)], lambda m: slope_from(m[0]), seed, "bootstrap over games of the slope")


def slope_difference(x: Values, y1: Values, y2: Values, seed: int) -> Effect:
    """slope(y1 on x) − slope(y2 on x) over the same games."""
    cols = np.column_stack([slope_columns(x, y1), np.asarray(y2), np.asarray(x) * np.asarray(y2)])
    return bootstrap([cols], lambda m: slope_from(m[0], 2) - slope_from(m[0], 4), seed,
                     "paired bootstrap over games of the two slopes")


# --- distributions (no SciPy: the two the intervals need) -----------------------------------------------------

def normal_cdf(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2))


def t_cdf(t: float, df: float) -> float:
    """Student's t distribution function, through the regularised incomplete beta function."""
    x = df / (df + t * t)
    tail = 0.5 * incomplete_beta(df / 2, 0.5, x)
    return 1 - tail if t > 0 else tail


def t_quantile(q: float, df: float) -> float:
    """The q-quantile of Student's t (bisection on the distribution function; q in (0, 1))."""
    if q == 0.5:
        return 0.0
    if q < 0.5:
        return -t_quantile(1 - q, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < q:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if t_cdf(mid, df) < q:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


def incomplete_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b) by its continued fraction (modified Lentz), using the symmetry where it converges faster."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1) / (a + b + 2):
        return 1 - front * _beta_fraction(b, a, 1 - x) / b
    return front * _beta_fraction(a, b, x) / a


def _beta_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    out = d
    for m in range(1, 500):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            out *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return out


def proportion(k: int, n: int) -> tuple[float, float, float]:
    """A share k/n with its Wilson 95 % interval (sound at 0 and 1, where the normal one is not)."""
    if n == 0:
        return math.nan, math.nan, math.nan
    p, z = k / n, Z975
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, max(0.0, centre - half), min(1.0, centre + half)
