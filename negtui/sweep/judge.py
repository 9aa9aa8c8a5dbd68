"""Claims and their parts: what a verdict rests on, read from a results table's rows.

A claim is one sentence of the paper (`text`), judged on one metric over a subset of the games.  It is made
of parts (one per regime, or per regime and lens); each part is one or more comparisons, each an `Effect`
with its interval (stats.py), and holds only when every comparison does.  A claim holds when every part
does, fails when any part fails, and is otherwise indistinguishable or identical play (the counts say how
many of each); a claim phrased "sometimes" holds when any part does, one phrased "largely" when more than
half do and none fails (and fails when half or more fail).

**Multiplicity.**  A claim's comparisons are one family.  Where one comparison out of many is enough for a
verdict — *fails* for a claim that needs every part, *holds* for a "sometimes" claim, both for a "largely"
one — that verdict needs the comparison's Holm-adjusted p below 0.05 as well as its interval clear of zero,
so that a claim of twelve parts fails by chance no more often than one of a single part.  A verdict every
comparison must reach (holds for an every-part claim) needs no correction: each must clear its own test.

Games are read by their `task` (one game, played by every method), so two lenses are compared on the very
games both played.  Games of two regimes or structures at the same grid point and seed are drawn from one
stream by the generator; they are paired by that key where every game has its twin.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from negtui.sweep.rows import aggregation, finite, grouped, one_of, table_of
from negtui.sweep.stats import (
    ALPHA,
    FAILS,
    HOLDS,
    IDENTICAL,
    INDISTINGUISHABLE,
    UNMEASURABLE,
    VERDICTS,
    Effect,
    holm,
    stable_seed,
)

GRID_KEY = ("players", "actions", "actions_up_to", "goals", "rounds", "budget", "factors", "structure",
            "all_or_nothing", "zipf", "payoff", "seed", "information")


@dataclass(frozen=True)
class Comparison:
    """One effect and the side of zero the claim puts it on (+1: above, −1: below)."""

    what: str  # what the effect measures: "L1 myopic − lower"
    effect: Effect
    direction: int
    against: float = 0.0  # the value the interval must clear (a margin, for a claim of matching)
    family_p: float = math.nan  # Holm-adjusted p within the claim's comparisons (set by the claim)
    corrected: frozenset[str] = frozenset()  # the verdicts that need family_p below 0.05

    @property
    def raw_verdict(self) -> str:
        """The verdict of this comparison's own interval and test, before the claim's correction."""
        return self.effect.verdict(self.direction, self.against)

    @property
    def verdict(self) -> str:
        found = self.raw_verdict
        if found in self.corrected and not (self.family_p < ALPHA):
            return INDISTINGUISHABLE
        return found

    @property
    def margin(self) -> float:
        """How far the interval's near end lies on the claimed side of `against` (negative: it crosses)."""
        e = self.effect
        if not (math.isfinite(e.low) and math.isfinite(e.high)):
            return -math.inf
        return e.low - self.against if self.direction > 0 else self.against - e.high

    @property
    def reach(self) -> float:
        """How far the interval's far end lies on the claimed side (negative: wholly on the other side)."""
        e = self.effect
        if not (math.isfinite(e.low) and math.isfinite(e.high)):
            return math.inf
        return e.high - self.against if self.direction > 0 else self.against - e.low

    def words(self) -> str:
        e = self.effect
        side = "above" if self.direction > 0 else "below"
        margin = f" (must stay {side} {self.against:+z.2f})" if self.against else ""
        if not math.isfinite(e.low):
            return f"{self.what} {e.estimate:+z.2f}{margin} (n {e.n}, {e.n_clusters} {e.unit}s: too few for an " \
                   "interval)"
        family = ""
        if self.raw_verdict in self.corrected and self.verdict != self.raw_verdict:
            family = f", Holm-adjusted {p_text(self.family_p)}: not settled within the claim"
        equal = f", equal in {e.equal:.0%} of games" if e.equal is not None and e.equal >= 0.5 else ""
        return (f"{self.what} {e.estimate:+z.2f} [{e.low:+z.2f}, {e.high:+z.2f}]{margin}, {p_text(e.p)}{family}, "
                f"n {e.n} ({e.n_clusters} {e.unit}s){equal}")


def p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p {p:.3f}"


def _combined(found: set[str]) -> str:
    """Comparisons (or parts) that must all hold: fails if any fails, holds if all hold, identical play if
    every one left undecided played identically."""
    found = found - {UNMEASURABLE}
    if not found:
        return UNMEASURABLE
    if FAILS in found:
        return FAILS
    if found == {HOLDS}:
        return HOLDS
    return IDENTICAL if found - {HOLDS} == {IDENTICAL} else INDISTINGUISHABLE


@dataclass(frozen=True)
class Part:
    """A claim in one regime (or regime and lens): its comparisons, all of which must hold."""

    label: str
    comparisons: tuple[Comparison, ...]
    note: str = ""  # the means it rests on, in words
    per_seed: bool = True  # False: the games are scenarios, which seeds do not add to

    @property
    def verdict(self) -> str:
        return _combined({c.verdict for c in self.comparisons})

    @property
    def decisive(self) -> Comparison | None:
        """The comparison that decides: the clearest failure, else the least clear of the others."""
        if not self.comparisons:
            return None
        failing = [c for c in self.comparisons if c.verdict == FAILS]
        if failing:
            return min(failing, key=lambda c: c.reach)
        return min(self.comparisons, key=lambda c: c.margin)

    @property
    def seeds_needed(self) -> int | None:
        c = self.decisive
        return None if c is None else c.effect.seeds_needed(c.against)

    @property
    def seeds_needed_interval(self) -> tuple[int | None, int | None]:
        c = self.decisive
        return (None, None) if c is None else c.effect.seeds_needed_interval(c.against)

    def words(self) -> str:
        c = self.decisive
        body = "; ".join(x.words() for x in self.comparisons) if len(self.comparisons) <= 2 or c is None \
            else f"{c.words()} (the {'clearest failure' if c.verdict == FAILS else 'least clear'} of " \
                 f"{len(self.comparisons)} comparisons)"
        return f"{self.label}: {self.verdict} — {body}" + (f" ({self.note})" if self.note else "")


@dataclass(frozen=True)
class Claim:
    id: str  # stable across reports: small.upper-best-negative
    text: str  # the paper's sentence
    metric: str  # the results column it is judged on
    subset: str  # which games, in words
    grid: str  # small | large | table2 | both
    parts: tuple[Part, ...] = ()
    missing: str = ""  # why it is not measurable, when it has no part
    any_part: bool = False  # "sometimes": one part holding is enough
    most: bool = False  # "largely": more than half the parts holding and none failing is enough
    rules: str = ""

    def __post_init__(self) -> None:
        """Judge the claim's comparisons as one family: Holm-adjust their p-values for the verdicts one
        comparison alone can give the claim."""
        flat = [c for p in self.parts for c in p.comparisons]
        if not flat or any(c.corrected for c in flat):
            return
        adjusted = iter(holm([c.effect.p if c.against == 0 else math.nan for c in flat]))
        corrected = frozenset({HOLDS, FAILS} if self.most else {HOLDS} if self.any_part else {FAILS})
        if len(flat) == 1:
            corrected = frozenset()
        parts = tuple(replace(p, comparisons=tuple(
            replace(c, family_p=next(adjusted), corrected=corrected if c.against == 0 else frozenset())
            for c in p.comparisons)) for p in self.parts)
        object.__setattr__(self, "parts", parts)

    @property
    def comparisons(self) -> int:
        return sum(len(p.comparisons) for p in self.parts)

    @property
    def correction(self) -> str:
        """The multiplicity rule, in words (claims.json's `correction`)."""
        m = self.comparisons
        if m <= 1:
            return "none: one comparison"
        which = "holds and fails" if self.most else "holds" if self.any_part else "fails"
        return f"Holm over the claim's {m} comparisons for {which}" + (
            "" if self.any_part or self.most else "; holds needs every comparison to hold on its own")

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(p.verdict for p in self.parts)
        return {v: found[v] for v in VERDICTS if found[v]}

    @property
    def verdict(self) -> str:
        found = [p.verdict for p in self.parts if p.verdict != UNMEASURABLE]
        if not found:
            return UNMEASURABLE
        if self.any_part:
            return HOLDS if HOLDS in found else FAILS if all(v == FAILS for v in found) else _undecided(found)
        if self.most:
            held, failed = found.count(HOLDS), found.count(FAILS)
            return HOLDS if 2 * held > len(found) and not failed else FAILS if 2 * failed >= len(found) \
                else _undecided(found)
        return _combined(set(found))

    @property
    def decisive(self) -> Part | None:
        """The part that decides the verdict (a failing part, else an unsettled one, else the weakest)."""
        measured = [(p, c) for p in self.parts if (c := p.decisive) is not None]
        if not measured:
            return None
        want = self.verdict
        same = [(p, c) for p, c in measured if p.verdict == want] or measured
        if want == FAILS:
            return min(same, key=lambda pc: pc[1].reach)[0]
        if want == HOLDS and self.any_part:
            return max(same, key=lambda pc: pc[1].margin)[0]
        return min(same, key=lambda pc: pc[1].margin)[0]

    @property
    def seeds_needed(self) -> int | None:
        part = self.decisive
        return None if part is None else part.seeds_needed

    @property
    def seeds_needed_interval(self) -> tuple[int | None, int | None]:
        part = self.decisive
        return (None, None) if part is None else part.seeds_needed_interval

    @property
    def evidence(self) -> str:
        if not self.parts:
            return self.missing
        counts = ", ".join(f"{v} {n}" for v, n in self.counts.items())
        head = f"{counts} of {len(self.parts)} parts: " if len(self.parts) > 1 else ""
        shown = sorted(self.parts, key=lambda p: VERDICTS.index(p.verdict) if p.verdict != FAILS else -1)
        return head + "; ".join(p.words() for p in shown)

    def as_dict(self) -> dict[str, object]:
        """The claim for claims.json: the deciding comparison's figures at the top, every part below."""
        part = self.decisive
        c = None if part is None else part.decisive
        return {"id": self.id, "rules": self.rules, "claim": self.text, "metric": self.metric, "subset": self.subset,
                "verdict": self.verdict, "counts": self.counts, **_figures(c), "correction": self.correction,
                **_needed(self.seeds_needed, self.seeds_needed_interval),
                "parts": [{"part": p.label, "verdict": p.verdict, **_figures(p.decisive),
                           **_needed(p.seeds_needed, p.seeds_needed_interval), "comparisons": [
                               {"what": x.what, "verdict": x.verdict, **_figures(x)} for x in p.comparisons]}
                          for p in self.parts],
                **({"missing": self.missing} if not self.parts else {})}


def _undecided(found: list[str]) -> str:
    return IDENTICAL if all(v in (IDENTICAL, FAILS, HOLDS) for v in found) and IDENTICAL in found \
        else INDISTINGUISHABLE


def _needed(point: int | None, interval: tuple[int | None, int | None]) -> dict[str, object]:
    return {"seeds_needed": point, "seeds_needed_ci95": None if interval[0] is None else list(interval)}


def _figures(c: Comparison | None) -> dict[str, object]:
    if c is None:
        return {"estimate": None, "ci95": None, "test": None, "p": None, "n_games": 0, "resampled": None,
                "n_clusters": 0}
    e = c.effect

    def num(x: float) -> float | None:
        return round(x, 6) if math.isfinite(x) else None

    return {"compared": c.what, "estimate": num(e.estimate), "ci95": [num(e.low), num(e.high)], "against": c.against,
            "test": e.test, "p": num(e.p), "p_holm": num(c.family_p), "n_games": e.n, "resampled": e.unit,
            "n_clusters": e.n_clusters, "equal_share": None if e.equal is None else round(e.equal, 4)}


# --- games from rows -------------------------------------------------------------------------------------------

@dataclass
class Games:
    """Per game (task), the values of one column for several methods, the game's grid point and seed, and the
    independent cluster it belongs to (its seed: the generator draws one stream per seed)."""

    tasks: list[str]
    values: np.ndarray  # games × methods
    methods: list[str]
    keys: list[tuple] = field(default_factory=list)  # the grid point and seed of each game
    clusters: np.ndarray = field(default_factory=lambda: np.array([], dtype=int))  # per game, its cluster
    unit: str = "seed"  # what a cluster is

    def column(self, method: str) -> np.ndarray:
        return self.values[:, self.methods.index(method)]

    @property
    def seeds(self) -> int:
        return len(set(self.clusters.tolist()))

    def __len__(self) -> int:
        return len(self.tasks)


def games(rows: Iterable[dict], column: str, methods: list[str], **where: object) -> Games:
    """The games where every one of `methods` has a finite value in `column`, among the rows matching `where`
    (a tuple: any of its values)."""
    t = table_of(rows, ["task", "method", column, *GRID_KEY, *where])
    keep = pc.and_(pc.is_in(t["method"], value_set=pa.array(methods, pa.string())), finite(t, column))
    for k, w in where.items():
        keep = pc.and_(keep, one_of(t, k, w))
    t = t.filter(keep)
    found: dict[str, dict[str, float]] = defaultdict(dict)
    for (task, method), mean in grouped(t, ["task", "method"], column, "mean").items():
        found[task][method] = mean  # a language model's samples of one game: their mean
    by_task = t.group_by("task", use_threads=False).aggregate([aggregation(k, "last") for k in GRID_KEY])
    point = dict(zip(by_task["task"].to_pylist(),
                     zip(*(by_task[f"{k}_last"].to_pylist() for k in GRID_KEY), strict=True), strict=True))
    tasks = sorted(task for task, by in found.items() if len(by) == len(set(methods)))
    values = np.array([[found[task][m] for m in methods] for task in tasks],
                      dtype=float).reshape(len(tasks), len(methods))
    at = GRID_KEY.index("seed")
    clusters = np.array([-1 if point[task][at] is None else int(point[task][at]) for task in tasks], dtype=np.int64)
    return Games(tasks, values, list(methods), [point[task] for task in tasks], clusters)


def twins(a: Games, b: Games, axis: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The rows of a and b that are one game drawn at two values of `axis` (same grid point otherwise, same
    seed), in the same order; None unless every game of each has its twin."""
    at = GRID_KEY.index(axis)

    def without(key: tuple) -> tuple:
        return key[:at] + key[at + 1:]

    index_b = {without(k): i for i, k in enumerate(b.keys)}
    if len(a) != len(b) or len(index_b) != len(b):
        return None
    order = [index_b.get(without(k)) for k in a.keys]
    if any(i is None for i in order):
        return None
    return np.arange(len(a)), np.array(order, dtype=int)


def seed_for(*parts: object) -> int:
    return stable_seed("negtui-claims", *parts)

