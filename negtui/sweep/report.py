"""The paper's tables from a results table: improvement over the No-Negotiation baseline by method and
regime (Table 1), the L1 error against the exact solution per lens (raw and normalised), the spread of
the gains among players (Var Δ), welfare efficiency.  claims.py judges the paper's claims on them.

Pure computation on rows (no plotting here: figures.py draws, the command prints and writes)."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from negtui.sweep.rows import GAME, aggregation, finite, grouped, table_of
from negtui.sweep.spec import BASELINE, EXACT, PAYOFF_REGIMES
from negtui.welfare.options import ZERO_WELFARE

STRUCTURES = ("adversarial", "cooperative")
TABLE_REGIMES = ("balanced", "negative-pp", "negative", "positive")  # the paper's column order
REGIME_TITLES = {"balanced": "balanced", "negative-pp": "negative + poison pill", "negative": "negative",
                 "positive": "positive"}
TIE = 1e-9  # means this close are equal
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


def usable(t: pa.Table, column: str) -> pa.ChunkedArray:
    """`_value` on a whole table: where `column` holds a number the report uses (`t` holds `welfare_optimum`
    when `column` is efficiency)."""
    keep = finite(t, column)
    if column == "efficiency":
        zero = pc.fill_null(pc.less(pc.abs(t["welfare_optimum"]), ZERO_WELFARE), False)
        keep = pc.and_(keep, pc.invert(zero))
    return keep


def _played(t: pa.Table, methods: list[str]) -> pa.ChunkedArray:
    return pc.is_in(t["method"], value_set=pa.array(methods, pa.string()))


def _named(t: pa.Table, column: str) -> pa.ChunkedArray:
    """Where `column` holds a name (neither empty nor "")."""
    return pc.fill_null(pc.not_equal(t[column], ""), False)


def tied_best(values: dict[str, dict[str, float]], clusters: Mapping[str, object] | None = None) -> set[str]:
    """The method with the best mean improvement, and every method that cannot be told apart from it.
    `values`: method -> {game: improvement}; `clusters`: game -> its seed (default: each game its own).  Every
    method plays the same games, so methods are compared game by game, resampling seeds (stats.py): a method
    ties with the best unless the best is ahead of it with its interval clear of zero.  One play each is not a
    sample to resample (a deterministic scenario played at one seed): there only means within TIE tie."""
    from negtui.sweep.stats import HOLDS, paired_difference, stable_seed

    means = {m: statistics.fmean(v.values()) for m, v in values.items() if v}
    if not means:
        return set()
    top = max(means, key=lambda m: means[m])
    out = {top}
    for m in means:
        if m == top:
            continue
        common = sorted(values[m].keys() & values[top].keys())
        if means[top] - means[m] <= TIE:
            out.add(m)
            continue
        if len(common) < 2:
            continue
        seeds = [k if clusters is None else clusters.get(k, k) for k in common]
        e = paired_difference([values[top][k] for k in common], [values[m][k] for k in common], seeds,
                              stable_seed("tied-best", top, m, len(common)))
        if e.verdict() != HOLDS:
            out.add(m)
    return out


def game_key(r: dict) -> str:
    """One play of a game: its task, and which sample of a language model's plays of it."""
    return r["task"] if r.get("sample") is None else f"{r['task']}#{r['sample']}"


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
    least: dict[tuple[str, str, str], float] = field(default_factory=dict)  # mean least gain of any player
    seeds: dict[str, object] = field(default_factory=dict)  # per game, its seed (the cluster it is drawn with)

    def best(self, structure: str, regime: str, among: list[str] | None = None) -> set[str]:
        """The best method in a column and those tied with it (`tied_best`), among `among` (default all)."""
        return tied_best({m: v for m in (among or self.methods) if (v := self.games.get((structure, regime, m)))},
                         self.seeds)


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
    # by file: negative value mass, mixed-sign goals, sign agreement (negtui.scenario.shape); None before the
    # sweep measured them
    structure: dict[str, tuple[float, float, float] | None] = field(default_factory=dict)
    generated: dict[str, bool | None] = field(default_factory=dict)  # by file: made by the generator (None: unknown)

    @property
    def split(self) -> bool:
        """Both hand-written and generated games: reported apart, the claims judged on the generated ones
        (a sample of one shape), the hand-written game beside them (one game, not a sample)."""
        kinds = set(self.generated.values())
        return True in kinds and False in kinds

    def files(self, generated: bool | None = None) -> list[str]:
        """The scenario files, or those of one kind."""
        return [f for f, _, _ in self.scenarios if generated is None or self.generated.get(f) is generated]

    def best(self, scenario: str) -> set[str]:
        return tied_best({m: v for m in self.methods if (v := self.games.get((scenario, m)))})

    def by_scenario(self, method: str) -> dict[str, float]:
        """The method's mean improvement per scenario (over its seeds)."""
        return {f: c.mean for f, _, _ in self.scenarios if (c := self.cells.get((f, method))) is not None}

    def over_scenarios(self, method: str, files: list[str] | None = None) -> Cell | None:
        """Mean ± sd over the scenarios (or `files`) of the method's per-scenario mean improvement (Table 2's
        figure)."""
        by = self.by_scenario(method)
        return _cell([v for f, v in by.items() if files is None or f in files])


def scenario_table(rows: list[dict]) -> ScenarioTable | None:
    """None when no row comes from a scenario file (a generated grid)."""
    mine = [r for r in rows if r.get("scenario_file")]
    if not mine:
        return None
    methods = methods_of(mine)
    shape = ("negative_mass", "mixed_sign_goals", "sign_agreement")
    t = table_of(mine, ["scenario_file", "scenario", "players", "baseline_sum", *shape, "generated", "method", GAME,
                        "improvement", "efficiency", "welfare_optimum"])
    files = t.group_by("scenario_file", use_threads=False).aggregate(
        [aggregation("scenario", "first"), aggregation("players", "first"), aggregation("baseline_sum", "last"),
         *(aggregation(k, "last") for k in (*shape, "generated"))]).to_pylist()
    scenarios = [(f["scenario_file"], f["scenario_first"], int(f["players_first"])) for f in files]
    baseline = {f["scenario_file"]: float(f["baseline_sum_last"]) for f in files}
    structure = {f["scenario_file"]: None if None in (v := [f[f"{k}_last"] for k in shape])
                 else (float(v[0]), float(v[1]), float(v[2])) for f in files}
    generated = {f["scenario_file"]: f["generated_last"] for f in files}
    played = t.filter(_played(t, methods))
    gains: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for (f, m, game), v in grouped(played, ["scenario_file", "method", GAME], "improvement", "last").items():
        gains[(f, m)][game] = float(v)
    ratios = grouped(played.filter(usable(played, "efficiency")), ["scenario_file", "method"], "efficiency")
    cells = {k: c for k, v in gains.items() if (c := _cell(list(v.values()))) is not None}
    eff = {k: c for k, v in ratios.items() if (c := _cell(v)) is not None}
    return ScenarioTable(mine[0]["sweep"], mine[0]["rules"], methods, scenarios, baseline, cells, eff,
                         dict(gains), structure, generated)


LLM_COLUMNS = ("llm_model", "llm_prompt", "llm_offers", "llm_responder", "llm_samples", "llm_temperature")


def llm_text(r: dict) -> str:
    """A row's language-model settings in words ("" for a sweep without a model): part of what a result is."""
    if not r.get("llm_model"):
        return ""
    temperature = "the server's temperature" if r.get("llm_temperature") is None \
        else f"temperature {r['llm_temperature']:g}"
    answers = "the model answers offers" if r.get("llm_responder") in (None, "model") \
        else f"{r['llm_responder']} answers offers"
    return (f"llm {r['llm_model']}: {r.get('llm_prompt')} prompt, offers {r.get('llm_offers')}, {answers}, "
            f"{r.get('llm_samples')} samples, {temperature}")


def groups(rows: Iterable[dict]) -> dict[tuple[str, str], list[dict]]:
    """Rows by (sweep, rules): each is reported on its own.  A sweep played with a language model under
    several settings is a section per setting ("table2 (llm m: paper prompt, …)"): its games are others."""
    out: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        llm = llm_text(r)
        out[(f"{r['sweep']} ({llm})" if llm else r["sweep"], r["rules"])].append(r)
    return dict(sorted(out.items()))


def void_games(rows: list[dict]) -> tuple[list[dict], dict[str, int]]:
    """(the rows but the void games', void games by method): a game in which a model's seat never got an
    answer from its server is no game of the model's and is counted in nothing."""
    t = table_of(rows, ["game_void", "method"])
    void = pc.fill_null(t["game_void"], False)
    kept = [r for r, out in zip(rows, void.to_pylist(), strict=True) if not out]
    return kept, {m: n for (m,), n in grouped(t.filter(void), ["method"], "method", "count").items()}


def by_information(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """(public, private) rows: the paper's game, where every seat knows every value, and the extension
    where each knows its own (files from before information was an axis are all public)."""
    public = [r for r in rows if r.get("information") in (None, "public")]
    return public, [r for r in rows if r.get("information") == "private"]


def information_cells(rows: list[dict], methods: list[str]) -> dict[tuple[str, str, str, str], Cell]:
    """Improvement and regret by (information, regime, method, column), structures pooled."""
    t = table_of(rows, ["method", "payoff", "information", "improvement", "regret"])
    t = t.filter(pc.and_(_played(t, methods), _named(t, "payoff")))
    t = t.set_column(t.schema.get_field_index("information"), "information", pc.fill_null(t["information"], "public"))
    out: dict[tuple[str, str, str, str], Cell] = {}
    for column in ("improvement", "regret"):
        for (information, regime, m), v in grouped(t.filter(usable(t, column)), ["information", "payoff", "method"],
                                                   column).items():
            if (c := _cell(v)) is not None:
                out[(information, regime, m, column)] = c
    return out


def methods_of(rows: list[dict]) -> list[str]:
    seen = []
    for r in rows:
        if r["method"] not in (BASELINE, EXACT) and r["method"] not in seen:
            seen.append(r["method"])
    return seen


def table1(rows: list[dict]) -> Table1:
    methods = methods_of(rows)
    t = table_of(rows, ["method", "structure", "payoff", GAME, "seed", "improvement", "improvement_min"])
    t = t.filter(pc.and_(_played(t, methods), pc.and_(_named(t, "structure"), _named(t, "payoff"))))
    keys = ["structure", "payoff", "method"]
    games: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
    for (structure, regime, m, game), v in grouped(t, [*keys, GAME], "improvement", "last").items():
        games[(structure, regime, m)][game] = float(v)
    seeds = {game: seed for (game,), seed in grouped(t, [GAME], "seed", "last").items()}
    least = grouped(t.filter(usable(t, "improvement_min")), keys, "improvement_min")
    cells = {k: c for k, v in games.items() if (c := _cell(list(v.values()))) is not None}
    return Table1(rows[0]["sweep"], rows[0]["rules"], methods, cells, dict(games),
                  {k: statistics.fmean(v) for k, v in least.items()}, seeds)


def mean_by(rows: list[dict], key: str, column: str, methods: list[str]) -> dict[tuple[Any, str], Cell]:
    """Statistics of `column` by (row[key], method) over the rows that have it (a key is the row's value,
    of whatever type its column holds)."""
    t = table_of(rows, [key, "method", column, "welfare_optimum"])
    t = t.filter(pc.and_(pc.and_(_played(t, methods), pc.is_valid(t[key])), usable(t, column)))
    return {k: c for k, v in grouped(t, [key, "method"], column).items() if (c := _cell(v)) is not None}


def l1_by_fraction(rows: list[dict], methods: list[str]) -> dict[str, dict[tuple[float, str], Cell]]:
    """Per payoff regime: the mean L1 error against the exact solution by (all-or-nothing fraction, method)."""
    out: dict[str, dict[tuple[float, str], Cell]] = {}
    for regime in PAYOFF_REGIMES:
        sub = [r for r in rows if r["payoff"] == regime]
        cells = mean_by(sub, "all_or_nothing", "l1_exact", methods)
        if cells:
            out[regime] = cells
    return out


def l1_normalised(rows: list[dict]) -> list[dict]:
    """The rows with `l1_normalised` (the L1 error ÷ the exact solution's total absolute payoff) wherever
    there is an exact solution: filled in from the game's exact row for results written before the
    column existed."""
    scale = {r["task"]: sum(abs(x) for x in r["payoffs"]) for r in rows if r["method"] == EXACT and r.get("payoffs")}
    out = []
    for r in rows:
        if r.get("l1_normalised") is None and r.get("l1_exact") is not None and scale.get(r["task"]):
            r = dict(r, l1_normalised=float(r["l1_exact"]) / scale[r["task"]])
        out.append(r)
    return out


def l1_by_regime(rows: list[dict], methods: list[str], column: str = "l1_exact") -> dict[tuple[str, str], Cell]:
    """Mean L1 error (raw, or `l1_normalised`) by (regime, method): one lens's figure each, never pooled."""
    return mean_by(rows, "payoff", column, methods)


def spread_by_regime(rows: list[dict], methods: list[str]) -> dict[tuple[str, str, str], Cell]:
    """Var(Δ_i), the variance over players of their gains over the baseline (§3.3), by (structure, regime,
    method): how unevenly a method's gains fall."""
    out: dict[tuple[str, str, str], Cell] = {}
    for s in STRUCTURES:
        for (regime, m), c in mean_by([r for r in rows if r["structure"] == s], "payoff", "improvement_var",
                                      methods).items():
            out[(s, regime, m)] = c
    return out

