"""A sweep's report in words: Table 1 and the claims as Markdown (report.md, with its figures) and as
terminal tables."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from rich import box
from rich.table import Table
from rich.text import Text

from negtui import __version__
from negtui.engine.vocabulary import split_judge
from negtui.sweep.claims import claims, is_small, skipped_metric_note
from negtui.sweep.figures import efficiency_figure, l1_figure
from negtui.sweep.judge import Claim
from negtui.sweep.markdown import BEST, md
from negtui.sweep.markdown import markdown_table as _markdown_table
from negtui.sweep.readings import linearised_exact, lower_reading
from negtui.sweep.render_scenarios import scenario_markdown, structure_markdown
from negtui.sweep.report import (
    REGIME_TITLES,
    STRUCTURES,
    TABLE_REGIMES,
    ScenarioTable,
    Table1,
    by_information,
    groups,
    information_cells,
    l1_by_regime,
    l1_normalised,
    llm_text,
    mean_by,
    methods_of,
    scenario_table,
    spread_by_regime,
    table1,
    void_games,
)
from negtui.sweep.rows import Rows
from negtui.sweep.simultaneous import simultaneous_markdown
from negtui.sweep.table2 import carry_over, table2_claims
from negtui.sweep.verdicts import HOW_TO_READ, claims_markdown, overview_markdown, write_claims_json


def _regimes(t: Table1) -> list[str]:
    return [r for r in TABLE_REGIMES if any(k[1] == r for k in t.cells)]


def _structures(t: Table1) -> list[str]:
    return [s for s in STRUCTURES if any(k[0] == s for k in t.cells)]


def table1_markdown(t: Table1) -> str:
    """One table per structure, the paper's regimes as columns, the best method per column in bold."""
    regimes = _regimes(t)
    lines: list[str] = []
    for s in _structures(t):
        best = {r: t.best(s, r) for r in regimes}
        rows = []
        for m in t.methods:
            cells = []
            for r in regimes:
                c = t.cells.get((s, r, m))
                text = "" if c is None else f"{c.mean:+z.2f} ± {c.sd:z.2f}"
                cells.append(f"**{text}**" if c is not None and m in best[r] else text)
            rows.append([md(m), *cells])
        lines += [f"**{s}**", "", *_markdown_table(["method"] + [REGIME_TITLES[r] for r in regimes], rows), ""]
    n = sorted({c.n for c in t.cells.values()})
    lines.append(f"Mean ± sd of the improvement over the No-Negotiation baseline (sum of payoffs), over "
                 f"{'/'.join(map(str, n))} games per cell. The best method per column in bold, with every method "
                 "tied with it: the same games played by both, their paired difference not clear of zero (seeds "
                 "resampled, 95 %).")
    return "\n".join(lines)


def table1_rich(t: Table1, width: int = 80) -> list[Table]:
    """One table per structure, the regimes as columns, each as wide as its widest cell so that a mean ± sd
    and its ★ stay on one line (a regime's name wraps instead); compact (no outer border, one space between
    columns), so four regimes fit 80 columns, and where they do not fit `width`, as many tables as they need.
    What the cells are is said under them, on one line."""
    regimes = _regimes(t)
    out = []
    for s in _structures(t):
        best_of = {r: t.best(s, r) for r in regimes}
        cells = {r: {m: f"{c.mean:+z.2f} ± {c.sd:z.2f}" + (f" {BEST}" if m in best_of[r] else "")
                     for m in t.methods if (c := t.cells.get((s, r, m))) is not None} for r in regimes}
        wide = {r: max(*(len(text) for text in cells[r].values()), *map(len, REGIME_TITLES[r].split()))
                for r in regimes}
        first = max(len("method"), *map(len, t.methods)) + 2  # a column and the space beside it
        parts: list[list[str]] = [[]]
        used = first
        for r in regimes:
            if parts[-1] and used + wide[r] + 2 > width:
                parts.append([])
                used = first
            parts[-1].append(r)
            used += wide[r] + 2
        legend = f"improvement over No-Negotiation: mean ± sd, {BEST} best"
        for part in parts:
            table = Table(title=f"{t.sweep} · {t.rules} rules · {s}", caption=legend, title_justify="left",
                          caption_justify="left", box=box.SIMPLE_HEAVY, show_edge=False, collapse_padding=True,
                          min_width=min(width, len(legend)))
            table.add_column("method")
            for r in part:
                table.add_column(REGIME_TITLES[r], justify="right", width=wide[r])
            for m in t.methods:
                table.add_row(Text(m), *(Text(cells[r].get(m, ""), style="bold" if m in best_of[r] else "")
                                         for r in part))
            out.append(table)
    return out


def l1_markdown(rows: list[dict], methods: list[str]) -> str:
    """Mean L1 error per lens and regime, raw and normalised: one lens's figure per cell, never pooled."""
    raw, norm = l1_by_regime(rows, methods), l1_by_regime(rows, methods, "l1_normalised")
    regimes = [g for g in TABLE_REGIMES if any(k[0] == g for k in raw)]
    if not regimes:
        return ""
    body = [[md(m), *("" if (c := raw.get((g, m))) is None else
                      f"{c.mean:z.2f} ({n.mean:z.3f})" if (n := norm.get((g, m))) is not None else f"{c.mean:z.2f}"
                      for g in regimes)] for m in methods]
    return "\n".join([*_markdown_table(["method"] + [REGIME_TITLES[g] for g in regimes], body), "",
                      "Mean L1 error against the exact solution, Σ_i |R_i − R*_i|, per method and regime over both "
                      "structures; in brackets the same divided by the exact solution's total absolute payoff "
                      "Σ_i |R*_i|, which compares regimes whose payoffs differ in scale."])


def adaptive_markdown(t: Table1) -> str:
    """The adaptive lens against every single lens and against the best lens per column chosen in
    hindsight (which no player could choose before the game: the bar the adaptive rule aims at)."""
    lenses = [m for m in ("myopic", "upper", "lower") if m in t.methods]
    if "adaptive" not in t.methods or not lenses:
        return ""
    rows = []
    for s in _structures(t):
        for g in _regimes(t):
            a = t.cells.get((s, g, "adaptive"))
            means = {m: c.mean for m in lenses if (c := t.cells.get((s, g, m))) is not None}
            if a is None or not means:
                continue
            best = max(means, key=lambda m: means[m])
            rows.append([f"{s} {REGIME_TITLES[g]}", f"{a.mean:+z.2f}", *(f"{means[m]:+z.2f}" if m in means else ""
                                                                       for m in lenses),
                         f"{best} {means[best]:+z.2f}", f"{a.mean - means[best]:+z.2f}"])
    note = ("Mean improvement over No-Negotiation. The best lens in hindsight is the one with the highest mean in "
            "the column, known only after the games; adaptive picks its lens per player and turn from what the "
            "player can see (docs/adaptive-lens.md).")
    head = ["column", "adaptive", *lenses, "best in hindsight", "adaptive − best"]
    return "\n".join([*_markdown_table(head, rows), "", note])


def information_markdown(rows: list[dict], methods: list[str]) -> str:
    """Each method's improvement and regret with every value known against each seat knowing its own."""
    cells = information_cells(rows, methods)
    if not any(k[0] == "private" for k in cells):
        return ""
    body = []
    for g in TABLE_REGIMES:
        for m in methods:
            got = {(i, col): c for (i, gg, mm, col), c in cells.items() if gg == g and mm == m}
            if not any(k[0] == "private" for k in got):
                continue

            def show(i: str, col: str, got: dict = got) -> str:
                c = got.get((i, col))
                return "" if c is None else f"{c.mean:+z.2f} ± {c.sd / math.sqrt(c.n):z.2f}"

            imp = [got.get((i, "improvement")) for i in ("public", "private")]
            change = f"{imp[1].mean - imp[0].mean:+z.2f}" if imp[0] and imp[1] else ""
            body.append([REGIME_TITLES[g], md(m), show("public", "improvement"), show("private", "improvement"),
                         change, show("public", "regret"), show("private", "regret")])
    note = ("Mean ± standard error over the games, structures together. Improvement: the sum of payoffs over the "
            "No-Negotiation baseline. Regret: per game, the summed gain every player could still have had from "
            "one more commitment of its own at the end (§9.3), summed over players; lower is better. Under private "
            "information each bot knows its own values and guesses the others' from what its seat is told, "
            "learning from every answer (docs/private-information.md).")
    head = ["regime", "method", "improvement, full", "improvement, private", "change", "regret, full",
            "regret, private"]
    return "\n".join([*_markdown_table(head, body), "", note])


def social_markdown(t: Table1) -> str:
    """The welfare- and fairness-minded players beside the lenses: each method's mean gain in the sum and,
    in brackets, the mean gain of the player who gained least."""
    social = [m for m in t.methods if split_judge(m)[0] is not None]
    if not social:
        return ""
    methods = [m for m in t.methods if m in ("myopic", "upper", "lower", "adaptive")] + social
    lines: list[str] = []
    for s in _structures(t):
        regimes = [g for g in _regimes(t) if any((s, g, m) in t.cells for m in social)]
        body = []
        for m in methods:
            cells = []
            for g in regimes:
                c, least = t.cells.get((s, g, m)), t.least.get((s, g, m))
                cells.append("" if c is None else f"{c.mean:+z.2f}" + ("" if least is None else f" ({least:+z.2f})"))
            body.append([md(m), *cells])
        lines += [f"**{s}**", "", *_markdown_table(["method"] + [REGIME_TITLES[g] for g in regimes], body), ""]
    lines.append("Mean improvement of the sum of payoffs over No-Negotiation; in brackets the mean over games of "
                 "the least improvement any player had (the fairness a maximin player aims at). `utilitarian` "
                 "maximises the sum of every player's myopic value in partner choice, offers and answers; "
                 "`maximin` the least of them; `CRITERION:LENS` judges with that lens instead.")
    return "\n".join(lines)


def spread_markdown(rows: list[dict], methods: list[str]) -> str:
    """Mean Var(Δ_i) per structure and regime: how unevenly a method's gains fall among the players."""
    cells = spread_by_regime(rows, methods)
    lines: list[str] = []
    for s in STRUCTURES:
        regimes = [g for g in TABLE_REGIMES if any(k[:2] == (s, g) for k in cells)]
        if not regimes:
            continue
        body = [[md(m), *("" if (c := cells.get((s, g, m))) is None else f"{c.mean:z.1f}" for g in regimes)]
                for m in methods]
        lines += [f"**{s}**", "", *_markdown_table(["method"] + [REGIME_TITLES[g] for g in regimes], body), ""]
    if lines:
        lines.append("Mean over games of Var(Δ_i), the variance over players of each player's gain over the "
                     "No-Negotiation baseline (§3.3): 0 when every player gains alike.")
    return "\n".join(lines)


def efficiency_markdown(rows: list[dict], methods: list[str]) -> str:
    """Median (and mean) welfare efficiency per structure and regime: the numbers behind the figure."""
    lines: list[str] = []
    for s in STRUCTURES:
        cells = mean_by([r for r in rows if r["structure"] == s], "payoff", "efficiency", methods)
        regimes = [r for r in TABLE_REGIMES if any(k[0] == r for k in cells)]
        if not regimes:
            continue
        body = [[md(m), *("" if (c := cells.get((r, m))) is None else f"{c.median:z.2f} ({c.mean:z.2f})"
                          for r in regimes)] for m in methods]
        lines += [f"**{s}**", "", *_markdown_table(["method"] + [REGIME_TITLES[r] for r in regimes], body), ""]
    if lines:
        lines.append("Median (mean) of the negotiated sum of payoffs ÷ the utilitarian optimum, over the games "
                     "whose optimum is not zero (a regime where it is zero in every game has no column). Where the "
                     "optimum is near zero one game's ratio is huge, so the median is what a typical game achieved "
                     "and the figure shows it.")
    return "\n".join(lines)


PAPER_RULES = ("`paper` is negtui's reading of the paper's rules: type-correct goals, the lenses as the paper "
               "defines them, and tie rules of negtui's own where the paper states none (an answer within 1e-9 of "
               "rejecting accepts; equal offers go to the proposer's higher payoff now, then fewer cells, then the "
               "first; the exact solver breaks ties the same way). docs/design.md §2 sets them out.")


def seed_range(rows: list[dict]) -> str:
    """The seeds a section's games were drawn with, as runs: `seeds 0–19 (20)`, `seeds 0–4, 100–104 (10)`."""
    seeds = sorted({int(r["seed"]) for r in rows if r.get("seed") is not None})
    if not seeds:
        return "no seeds"
    runs: list[list[int]] = [[seeds[0], seeds[0]]]
    for s in seeds[1:]:
        if s == runs[-1][1] + 1:
            runs[-1][1] = s
        else:
            runs.append([s, s])
    shown = ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in runs[:6]) + (", …" if len(runs) > 6 else "")
    return f"seed{'s' * (len(seeds) > 1)} {shown} ({len(seeds)})"


@dataclass
class _Report:
    """What the sections of a report add to as they are written: its Markdown, the tables and claims shown in
    the terminal, the claims per section for the overview and claims.json, and the grids' public games."""

    out: Path
    parts: list[str] = field(default_factory=list)
    shown: list[tuple[Table1 | ScenarioTable, list[Claim]]] = field(default_factory=list)
    overview: dict[str, list[Claim]] = field(default_factory=dict)
    judged: list[dict] = field(default_factory=list)
    sections: list[dict] = field(default_factory=list)
    grids: dict[str, dict[str, list[dict]]] = field(default_factory=dict)  # rules -> small | large -> games
    grid_sections: dict[str, list[dict]] = field(default_factory=dict)  # every generated grid section's games

    def judge(self, key: str, sweep: str, table: Table1 | ScenarioTable, found: list[Claim]) -> None:
        self.shown.append((table, found))
        self.overview[key] = found
        self.judged += [{"sweep": sweep, **c.as_dict()} for c in found]


def write_report(rows: list[dict], source: Path, out: Path,
                 ) -> tuple[Path, list[tuple[Table1 | ScenarioTable, list[Claim]]]]:
    """report.md, claims.json and the figures in `out`; the tables and claims per (sweep, rules) for the
    terminal."""
    out.mkdir(parents=True, exist_ok=True)
    head = [f"# negtui report: {md(source.name)}", "",
            f"{len(rows)} rows from {md(source)}, reported by negtui {__version__}. Each section is one sweep "
            "under one rule set.", "", HOW_TO_READ, ""]
    report = _Report(out)
    rows = Rows(rows)
    for (sweep, rules), sub in groups(rows).items():
        sub = _section_head(report, sweep, rules, sub)
        if (st := scenario_table(sub)) is not None:
            _scenario_section(report, sweep, rules, st)
        else:
            _grid_section(report, sweep, rules, sub)
    parts, overview = report.parts, report.overview
    for rules, pair in report.grids.items():
        if {"small", "large"} <= pair.keys():
            found = [carry_over(pair["small"], pair["large"])]
            overview[f"both grids · {rules}"] = found
            report.judged += [{"sweep": "both", **c.as_dict()} for c in found]
            parts += [f"## Small and large games · {md(rules)} rules", "", claims_markdown(found), ""]
    if len(overview) > 1:
        head += ["## The paper's claims at a glance", "", overview_markdown(overview), "",
                 "Each verdict is explained, with its figures, in its section below; — marks a claim the paper "
                 "states for the other grid.", ""]
    if (reading := lower_reading(report.grid_sections)):
        head += ["## The lower lens's reading of credible threats", "", reading, ""]
    if (concurrent := simultaneous_markdown(rows)):
        parts += [concurrent, ""]
    path = out / "report.md"
    path.write_text("\n".join(head + parts))
    write_claims_json(report.judged, out / "claims.json", report.sections)
    return path, report.shown


def _section_head(report: _Report, sweep: str, rules: str, sub: list[dict]) -> list[dict]:
    """A section's heading, size, methods and void games; the rows it reports (void games left out)."""
    sub, void = void_games(sub)
    sub = Rows(l1_normalised(sub))
    methods = methods_of(sub)
    games = len({r["task"] for r in sub})
    seeds = seed_range(sub)
    files = {r["scenario_file"] for r in sub if r.get("scenario_file")}
    report.sections.append({"sweep": sweep, "rules": rules, "games": games, "seeds": seeds, "void_games": void,
                            "llm": llm_text(sub[0]) if sub else ""})
    size = (f"{len(files)} scenario{'s' * (len(files) > 1)}, each played at {seeds}" if files
            else f"{games} games, {seeds}")
    parts = report.parts
    parts += [f"## {md(sweep)} · {md(rules)} rules", "", f"{size}; methods: {', '.join(map(md, methods))}.", ""]
    if void:
        parts += ["**Void games, left out of everything below**: " + ", ".join(
            f"{n} of {md(m)}" for m, n in sorted(void.items())) + " — a seat of the language model never got an "
            "answer from its server (the rows' `notes` say why). Re-run them into a new results file once the "
            "server answers.", ""]
    if rules.startswith("paper"):
        parts += [PAPER_RULES, ""]
    return sub


def _scenario_section(report: _Report, sweep: str, rules: str, st: ScenarioTable) -> None:
    """A sweep over scenario files: each scenario's improvements, the games' sign structure, Table 2's claims."""
    found = table2_claims(st)
    report.judge(f"{sweep} · {rules}", sweep, st, found)
    parts = report.parts
    parts += ["### Scenarios: improvement over the No-Negotiation baseline", "", scenario_markdown(st), ""]
    if (shapes := structure_markdown(st)):
        parts += ["### The games' sign structure", "", shapes, ""]
    parts += ["### Table 2's claims", "",
              "The paper's order on its real-life games is Lower > Myopic > 0 > Upper (§4.2.4), judged here "
              "on each method's mean improvement per scenario, each scenario one observation (its seeds "
              "or model samples averaged); its claims about generated regimes need a grid.", "",
              claims_markdown(found), ""]


def _grid_section(report: _Report, sweep: str, rules: str, sub: list[dict]) -> None:
    """A generated grid: Table 1, the L1 error, the lenses beyond the paper's, the spread of gains, welfare
    efficiency and the paper's claims."""
    methods = methods_of(sub)
    public, private = by_information(sub)
    both, sub = sub, Rows(public or private)  # the paper's game; a sweep of private information alone is its own
    t, found = table1(sub), claims(sub)
    report.grids.setdefault(rules, {}).setdefault("small" if is_small(sub) else "large", sub)
    report.grid_sections[f"{sweep} · {rules}"] = sub
    report.judge(f"{sweep} · {rules}", sweep, t, found)
    parts, out, stem = report.parts, report.out, f"{sweep}-{rules}"
    parts += ["### Table 1: improvement over the No-Negotiation baseline", "", table1_markdown(t), ""]
    if is_small(sub) and (l1_table := l1_markdown(sub, methods)):
        parts += ["### L1 error against the exact solution", "", l1_table, ""]
        l1 = l1_figure(sub, methods, out / f"l1-by-all-or-nothing-{stem}", f"{sweep} · {rules} rules")
        if l1:
            parts += [f"![L1 error by all-or-nothing fraction]({l1[0].name})", ""]
        if (gap := linearised_exact(sub, methods)):
            parts += ["### L1 against the linearised and the true exact solution", "", gap, ""]
    if (adaptive := adaptive_markdown(t)):
        parts += ["### The adaptive lens against every lens and the best in hindsight", "", adaptive, ""]
    if (social := social_markdown(t)):
        parts += ["### Welfare- and fairness-minded players", "", social, ""]
    if public and (informed := information_markdown(both, methods)):
        parts += ["### Private against full information", "", informed, ""]
    if (spread := spread_markdown(sub, methods)):
        parts += ["### How evenly the gains fall: Var(Δ)", "", spread, ""]
    eff = efficiency_figure(sub, methods, out / f"efficiency-{stem}", f"{sweep} · {rules} rules")
    if eff:
        parts += ["### Welfare efficiency", "", efficiency_markdown(sub, methods), "",
                  f"![Welfare efficiency by regime]({eff[0].name})", ""]
    parts += ["### The paper's claims", "", skipped_metric_note(sub), "", claims_markdown(found), ""]
