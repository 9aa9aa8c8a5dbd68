"""Sequential against simultaneous turns: the same games played one proposer a turn and several at once.

A sweep whose rule sets hold both X and X+simultaneous (the same switches otherwise) plays every game under
each, so the two are compared game by game: the grid point, seed and information, and the method.  Per
payoff regime (structures together) and method the report gives, as the simultaneous mean minus the
sequential one with its 95 % interval (a paired bootstrap resampling seeds, stats.py):

- the improvement of the sum of payoffs over No-Negotiation;
- welfare efficiency (the negotiated sum over the utilitarian optimum, where the optimum is not zero);
- regret (the summed gain every player could still have had from one more commitment of its own);

read as *higher*, *lower* or *indistinguishable* (an interval holding zero is never read as a change, and a
tie is never a win), and the accepted offers void per game under simultaneous rules (none can be under
sequential ones).  Then how the methods' order changes: per regime the best method under each protocol,
with every method tied with it (report.tied_best).  The exact solver does not solve simultaneous games, so
nothing here rests on the L1 error.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from negtui.engine.rules import PROTOCOL_SETTINGS, get_rules
from negtui.sweep.judge import GRID_KEY, p_text, seed_for
from negtui.sweep.markdown import markdown_table, md
from negtui.sweep.report import REGIME_TITLES, TABLE_REGIMES, methods_of, tied_best, usable
from negtui.sweep.rows import grouped, table_of
from negtui.sweep.stats import FAILS, HOLDS, IDENTICAL, INDISTINGUISHABLE, Effect, mean_of, paired_difference

COLUMNS = (("improvement", "improvement"), ("efficiency", "welfare efficiency"), ("regret", "regret"))
READING = {HOLDS: "higher", FAILS: "lower", INDISTINGUISHABLE: "indistinguishable", IDENTICAL: "the same"}
SCENARIOS = "scenarios"  # a sweep over scenario files has no regimes: its games are one group
REGIMES = (*TABLE_REGIMES, SCENARIOS)
TITLES = {**REGIME_TITLES, SCENARIOS: "scenario files"}
KEY = (*GRID_KEY, "scenario_file")  # one game: its grid point (or scenario file), seed and information


def pairs(rows: list[dict]) -> list[tuple[str, str, str]]:
    """(sweep, sequential rule set, simultaneous rule set) for every simultaneous rule set of a sweep whose
    sequential twin (the same switches, one proposer a turn) the sweep also played."""
    names = grouped(table_of(rows, ["sweep", "rules"]), ["sweep"], "rules", "distinct")
    out = []
    for (sweep,), rules in sorted(names.items()):
        for sim in sorted(rules):
            try:
                s = get_rules(sim)
            except ValueError:
                continue
            if not s.simultaneous:
                continue
            twin = {k: v for k, v in s.with_(**PROTOCOL_SETTINGS).as_dict().items() if k != "name"}
            for seq in sorted(rules):
                try:
                    other = get_rules(seq)
                except ValueError:
                    continue
                if not other.simultaneous and {k: v for k, v in other.as_dict().items() if k != "name"} == twin:
                    out.append((sweep, seq, sim))
    return out


def _table(rows: list[dict], sweep: str, rules: tuple[str, ...], *columns: str) -> pa.Table:
    """The rows of `sweep` under any of `rules`: each game's key, method, regime (its payoff regime, or
    SCENARIOS for a sweep over scenario files) and `columns`."""
    t = table_of(rows, ["sweep", "rules", "method", *KEY, *columns])
    t = t.filter(pc.and_(pc.equal(t["sweep"], sweep), pc.is_in(t["rules"], value_set=pa.array(rules, pa.string()))))
    named = pc.fill_null(pc.not_equal(t["payoff"], ""), False)
    return t.append_column("regime", pc.if_else(named, t["payoff"], SCENARIOS))


def _per_game(t: pa.Table, column: str) -> dict[tuple, float]:
    """(game key, method) -> the value (a language model's samples of one game averaged)."""
    means = grouped(t.filter(usable(t, column)), [*KEY, "method"], column, "mean")
    return {(key[:-1], key[-1]): v for key, v in means.items()}


def _effect_text(e: Effect) -> str:
    if not math.isfinite(e.low):
        return f"{e.estimate:+z.2f} (n {e.n}: too few games for an interval)"
    return f"{e.estimate:+z.2f} [{e.low:+z.2f}, {e.high:+z.2f}], {p_text(e.p)}, n {e.n}"


def _count_text(e: Effect) -> str:
    if not math.isfinite(e.low):
        return f"{e.estimate:z.2f} (n {e.n})"
    return f"{e.estimate:z.2f} [{max(0.0, e.low):z.2f}, {e.high:z.2f}], n {e.n}"


def comparison(rows: list[dict], sweep: str, seq: str, sim: str) -> list[dict]:
    """Per regime, method and column: the sequential and simultaneous means and the paired effect."""
    methods = methods_of([r for r in rows if r["sweep"] == sweep and r["rules"] in (seq, sim)])
    t = _table(rows, sweep, (seq, sim), *(c for c, _ in COLUMNS), "welfare_optimum")
    out = []
    for column, _ in COLUMNS:
        values = {rules: _per_game(t.filter(pc.equal(t["rules"], rules)), column) for rules in (seq, sim)}
        for regime in REGIMES:
            for m in methods:
                keys = sorted((k for k in values[seq].keys() & values[sim].keys()
                               if k[1] == m and (k[0][KEY.index("payoff")] or SCENARIOS) == regime), key=str)
                if not keys:
                    continue
                a = np.array([values[sim][k] for k in keys])
                b = np.array([values[seq][k] for k in keys])
                seeds = [k[0][KEY.index("seed")] for k in keys]
                effect = paired_difference(a, b, seeds, seed_for("simultaneous", sweep, sim, regime, m, column))
                out.append({"regime": regime, "method": m, "column": column, "sequential": float(b.mean()),
                            "simultaneous": float(a.mean()), "effect": effect,
                            "reading": READING.get(effect.verdict(+1), "not measurable") if len(keys) > 1
                            else "not measurable"})
    return out


def void_per_game(rows: list[dict], sweep: str, sim: str) -> dict[tuple[str, str], Effect]:
    """(regime, method) -> the mean number of accepted offers void per game under simultaneous rules."""
    t = _table(rows, sweep, (sim,), "void")
    t = t.filter(pc.is_valid(t["void"]))
    t = t.set_column(t.schema.get_field_index("void"), "void", pc.cast(t["void"], pa.float64()))
    seeds = grouped(t, ["regime", "method"], "seed")
    return {k: mean_of(v, seeds[k], seed_for("void", sweep, sim, *k))
            for k, v in grouped(t, ["regime", "method"], "void").items()}


def lens_order(rows: list[dict], sweep: str, rules: str) -> dict[str, set[str]]:
    """Per regime, the method with the best mean improvement and every method tied with it."""
    methods = methods_of([r for r in rows if r["sweep"] == sweep and r["rules"] == rules])
    t = _table(rows, sweep, (rules,), "improvement")
    t = t.filter(pc.and_(pc.is_in(t["method"], value_set=pa.array(methods, pa.string())), usable(t, "improvement")))
    games: dict[str, dict[str, dict[str, float]]] = defaultdict(lambda: defaultdict(dict))
    for (regime, m, *key), v in grouped(t, ["regime", "method", *KEY], "improvement", "last").items():
        games[regime][m][str(tuple(key))] = v
    seeds = {str(key): seed for key, seed in grouped(t, list(KEY), "seed", "last").items()}
    return {regime: tied_best(dict(by), seeds) for regime, by in games.items()}


def simultaneous_markdown(rows: list[dict]) -> str:
    """Every sequential/simultaneous pair of rule sets the results hold, as report.md's section."""
    parts: list[str] = []
    for sweep, seq, sim in pairs(rows):
        found = comparison(rows, sweep, seq, sim)
        if not found:
            continue
        words = dict(COLUMNS)
        body = [[TITLES[f["regime"]], md(f["method"]), words[f["column"]], f"{f['sequential']:+z.2f}",
                 f"{f['simultaneous']:+z.2f}", _effect_text(f["effect"]), f"**{f['reading']}**"] for f in found]
        void = void_per_game(rows, sweep, sim)
        voids = [[TITLES[g], md(m), _count_text(e)] for g in REGIMES for (gg, m), e in sorted(void.items()) if gg == g]
        before, after = lens_order(rows, sweep, seq), lens_order(rows, sweep, sim)
        order = [[TITLES[g], " = ".join(sorted(before.get(g, ()))) or "—",
                  " = ".join(sorted(after.get(g, ()))) or "—"] for g in REGIMES if g in before or g in after]
        parts += [f"## Sequential against simultaneous turns: {md(sweep)} · {md(seq)} and {md(sim)}", "",
                  f"The same games played with one proposer a turn ({md(seq)}) and with several at once ({md(sim)}), "
                  "compared game by game; the change is simultaneous minus sequential, with its 95 % interval "
                  "(paired bootstrap resampling seeds) — *higher* or *lower* only where the interval excludes zero, "
                  "*the same* where the two protocols gave equal values in at least 90 % of games. "
                  "Regret is the summed gain players could still have had from one more commitment of their own "
                  "(lower is less regret). The exact solver does not solve simultaneous games: no L1 error here.", "",
                  *markdown_table(["regime", "method", "metric", "sequential", "simultaneous",
                                   "change [95 % interval]", "reading"], body), ""]
        if voids:
            parts += ["Accepted offers void per game under simultaneous rules (an earlier offer of the same turn took "
                      "a commitment, an exclusive set or a player's budget they needed); mean [95 % interval]:", "",
                      *markdown_table(["regime", "method", "void offers per game"], voids), ""]
        if order:
            parts += ["The best method by improvement per regime, with every method not told apart from it (the same "
                      "games, their paired difference not clear of zero, seeds resampled). A method listed under both "
                      "protocols is not shown to keep its place: a tie is what the data cannot break, not a sameness "
                      "they prove.", "",
                      *markdown_table(["regime", f"best under {md(seq)}", f"best under {md(sim)}"], order), ""]
    return "\n".join(parts)
