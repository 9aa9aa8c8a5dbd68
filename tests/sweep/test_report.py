"""negtui report: Table 1, the claims and the figures from a hand-made results file with known means."""

from __future__ import annotations

import statistics

import pytest

from negtui.sweep.claims import claims
from negtui.sweep.report import table1
from negtui.sweep.results import Results

# improvement over the baseline per (structure, regime, method): two games each, so mean and sd are known
IMPROVEMENT = {
    ("adversarial", "balanced"): {"myopic": (10, 20), "upper": (0, 4), "lower": (2, 2)},
    ("adversarial", "negative-pp"): {"myopic": (-5, -7), "upper": (8, 12), "lower": (0, 0)},
    ("adversarial", "negative"): {"myopic": (-1, -1), "upper": (3, 5), "lower": (1, 1)},
    ("adversarial", "positive"): {"myopic": (5, 5), "upper": (1, 1), "lower": (9, 11)},
    ("cooperative", "balanced"): {"myopic": (30, 30), "upper": (10, 10), "lower": (20, 20)},
    ("cooperative", "negative-pp"): {"myopic": (0, 0), "upper": (6, 6), "lower": (1, 1)},
    ("cooperative", "negative"): {"myopic": (0, 0), "upper": (2, 2), "lower": (1, 1)},
    ("cooperative", "positive"): {"myopic": (5, 5), "upper": (4, 4), "lower": (7, 9)},
}
# L1 error against the exact solution: by regime (balanced highest, positive lowest), adversarial above
# cooperative, rising with the all-or-nothing fraction
L1 = {"balanced": 8.0, "negative-pp": 5.0, "negative": 4.0, "positive": 1.0}


def row(structure: str, regime: str, method: str, seed: int, improvement: float, aon: float) -> dict:
    l1 = None if method == "baseline" else L1[regime] + (1.0 if structure == "adversarial" else 0.0) + 2 * aon
    return {"sweep": "hand", "task": f"{structure}-{regime}-{seed}", "scenario": "s", "scenario_file": None,
            "actions": 1, "goals": 15, "rounds": 5, "budget": 2, "factors": 5, "structure": structure,
            "all_or_nothing": aon, "zipf": 1.6, "payoff": regime, "seed": seed, "rules": "paper", "negtui": "0",
            "players": 2, "method": method, "payoffs": [improvement, 0.0], "sum": improvement, "baseline_sum": 0.0,
            "improvement": float(improvement), "improvement_min": 0.0, "fraction_improved": 0.5, "l1_exact": l1,
            "welfare_optimum": 100.0, "efficiency": (50 + improvement) / 100, "nash_optimum": None,
            "nash_efficiency": None, "turns": None if method == "baseline" else 50, "seconds": 0.1,
            "improvement_var": improvement ** 2 / 4}  # the variance of Δ = (improvement, 0)


def hand_rows() -> list[dict]:
    out = []
    for (structure, regime), by in IMPROVEMENT.items():
        for seed in range(2):
            aon = (0.0, 0.5)[seed]
            out.append(row(structure, regime, "baseline", seed, 0, aon))
            out += [row(structure, regime, m, seed, v[seed], aon) for m, v in by.items()]
    return out


def test_table1_means_and_best():
    t = table1(hand_rows())
    assert t.methods == ["myopic", "upper", "lower"]
    for (structure, regime), by in IMPROVEMENT.items():
        for m, v in by.items():
            c = t.cells[(structure, regime, m)]
            assert c.mean == pytest.approx(statistics.fmean(v)) and c.sd == pytest.approx(statistics.stdev(v))
            assert c.n == 2
    # two seeds settle a lead only where it is the same on both (cooperative balanced: +10 and +10)
    assert t.best("adversarial", "balanced") == {"myopic", "upper", "lower"}
    assert t.best("cooperative", "balanced") == {"myopic"}
    eight = table1(seeded_rows(8))  # the same leads over eight seeds are clear
    assert eight.best("adversarial", "balanced") == {"myopic"}
    assert eight.best("adversarial", "negative-pp") == {"upper"}
    assert eight.best("cooperative", "positive") == {"lower"}
    tied = table1([dict(r, improvement=5.0) if r["payoff"] == "positive" and r["structure"] == "cooperative"
                   and r["method"] != "baseline" else r for r in seeded_rows(8)])
    assert tied.best("cooperative", "positive") == {"myopic", "upper", "lower"}  # a tie marks every one


def seeded_rows(seeds: int = 8) -> list[dict]:
    """hand_rows' games again over more seeds: each seed plays the first or second game of its cell, shifted
    for every method alike, so each paired difference alternates between the cell's two and its mean is
    known."""
    out = []
    for (structure, regime), by in IMPROVEMENT.items():
        for seed in range(seeds):
            aon, shift = (0.0, 0.5)[seed % 2], seed // 2
            out.append(row(structure, regime, "baseline", seed, 0, aon))
            out += [row(structure, regime, m, seed, v[seed % 2] + shift, aon) for m, v in by.items()]
    return out


def test_large_game_claims_are_judged_on_the_adversarial_columns():
    """Without exact solutions (large games) the lens claims are read from the adversarial improvements
    alone (§4.2.3): the cooperative balanced column, where myopic also leads, does not decide."""
    from negtui.sweep.stats import FAILS, HOLDS, INDISTINGUISHABLE

    found = {c.id: c for c in claims(seeded_rows())}
    assert {k: c.verdict for k, c in found.items()} == {
        "large.myopic-best-balanced": HOLDS, "large.upper-best-negative": HOLDS,
        "large.upper-advantage-pill": HOLDS, "large.lower-best-positive": HOLDS,
        "large.cooperative-narrow": FAILS, "large.myopic-matches-cooperative": HOLDS,
    }
    assert all(c.grid == "large" for c in found.values())
    # upper's lead over the best other lens, adversarial: 10 - 0 with the pill, 4 - 1 without: +7
    pill = found["large.upper-advantage-pill"].decisive
    assert pill.decisive.effect.estimate == pytest.approx(7.0)
    assert "lead +10.00 with the pill, +3.00 without" in pill.note
    # spreads: balanced 20 cooperative against 13 adversarial fails; the other three regimes narrow
    narrow = found["large.cooperative-narrow"]
    assert narrow.counts == {HOLDS: 3, FAILS: 1} and narrow.decisive.label == "balanced"
    assert narrow.decisive.decisive.effect.estimate == pytest.approx(-7.0)
    # myopic matches in cooperative balanced games (it leads: 30 against 20), not in the others
    matches = {p.label: p.verdict for p in found["large.myopic-matches-cooperative"].parts}
    assert matches["balanced"] == HOLDS and matches["negative + poison pill"] == FAILS
    # a cooperative column does not decide: myopic last there, still best where the paper states it
    cooperative_flip = [dict(r, improvement=-50.0) if (r["structure"], r["payoff"], r["method"]) == (
        "cooperative", "balanced", "myopic") else r for r in seeded_rows()]
    assert {c.id: c.verdict for c in claims(cooperative_flip)}["large.myopic-best-balanced"] == HOLDS
    adversarial_flip = [dict(r, improvement=-10.0) if (r["structure"], r["payoff"], r["method"]) == (
        "adversarial", "balanced", "myopic") else r for r in seeded_rows()]
    assert {c.id: c.verdict for c in claims(adversarial_flip)}["large.myopic-best-balanced"] == FAILS
    # the same results at two seeds cannot settle it: the lead is within what two games can tell
    assert {c.id: c.verdict for c in claims(hand_rows())}["large.myopic-best-balanced"] == INDISTINGUISHABLE


def test_report_command_writes_markdown_and_figures(cli, tmp_path):
    results = tmp_path / "hand.parquet"
    r = Results(results)
    for x in hand_rows():
        r.add([x])
    r.write()
    r.close()
    out = tmp_path / "rep"
    res = cli("report", str(results), "-o", str(out))
    assert res.exit_code == 0, res.output
    md = (out / "report.md").read_text()
    assert "## hand · paper rules" in md
    assert "| myopic | **+15.00 ± 7.07** |" in md  # adversarial balanced: mean 15, sd 7.07, the best
    # two games a cell: myopic's lead (+8 and +18 over lower) is not one two games can settle
    assert "| Reward (myopic) is best in balanced games (adversarial) | **indistinguishable** |" in md
    assert (out / "claims.json").is_file()
    assert "Large games are judged on the improvement over No-Negotiation in the adversarial columns" in md
    assert "### How evenly the gains fall: Var(Δ)" in md
    assert not (out / "l1-by-all-or-nothing-hand-paper.png").exists()  # no exact solutions: no L1 figure
    for stem in ("efficiency-hand-paper",):
        assert (out / f"{stem}.png").stat().st_size > 1000 and (out / f"{stem}.svg").read_text().startswith("<?xml")
    assert "+15.00 ± 7.07 ★" in res.stdout


def test_report_refuses_what_is_not_a_results_table(cli, tmp_path):
    bad = tmp_path / "x.parquet"
    bad.write_text("not parquet")
    res = cli("report", str(bad), "-o", str(tmp_path / "rep"))
    assert res.exit_code == 2 and "not a results table" in res.stderr
    res = cli("report", str(tmp_path / "missing.parquet"))
    assert res.exit_code == 2 and "no such results file" in res.stderr


def test_efficiency_is_shown_by_its_median_and_decides_no_claim():
    """One adversarial game with an optimum near zero has a huge ratio: the median (what the report and its
    figure show) is what a typical game achieved.  The paper judges no claim by efficiency, so neither does
    the report."""
    from negtui.sweep.render import efficiency_markdown

    rows = [dict(r, l1_exact=None) for r in hand_rows()]  # large games: no exact solutions
    outlier = next(i for i, r in enumerate(rows) if r["structure"] == "adversarial" and r["method"] == "upper")
    rows[outlier] = dict(rows[outlier], efficiency=500.0, welfare_optimum=0.01)
    md = efficiency_markdown(rows, ["myopic", "upper", "lower"])
    # adversarial balanced, myopic: efficiencies 0.60 and 0.70
    assert "| myopic | 0.65 (0.65) |" in md and "**adversarial**" in md and "**cooperative**" in md
    assert not any("efficiency" in c.evidence or "Adversarial" in c.text for c in claims(rows))


def scenario_rows() -> list[dict]:
    """Two scenario files, two seeds: improvements by (scenario, method) with known means."""
    gains = {"a.json": {"myopic": (10, 30), "upper": (-4, -6), "lower": (0, 2)},
             "b.json": {"myopic": (1, 1), "upper": (2, 3), "lower": (6, 6)}}
    out = []
    for f, by in gains.items():
        for seed in range(2):
            base = row("", "", "baseline", seed, 0, 0.0) | {"scenario_file": f"/s/{f}", "scenario": f[0] + "-game",
                                                              "structure": None, "payoff": None, "all_or_nothing": None,
                                                              "l1_exact": None, "players": 3, "baseline_sum": 50.0,
                                                              "payoffs": [0.0, 0.0, 0.0],
                                                              "task": f"{f}-{seed}"}
            out.append(base)
            out += [base | {"method": m, "improvement": float(v[seed]), "sum": 50.0 + v[seed],
                            "efficiency": (50.0 + v[seed]) / 100} for m, v in by.items()]
    return out


def test_a_scenario_sweep_is_reported_per_scenario(cli, tmp_path):
    from negtui.sweep.report import scenario_table

    st = scenario_table(scenario_rows())
    assert st is not None and [s[1:] for s in st.scenarios] == [("a-game", 3), ("b-game", 3)]
    assert st.cells[("/s/a.json", "myopic")].mean == 20 and st.cells[("/s/a.json", "myopic")].sd == pytest.approx(
        statistics.stdev([10, 30]))
    # two plays of a scenario settle only a lead kept in both (lower over myopic in b: +5 and +5)
    assert st.best("/s/a.json") == {"myopic", "upper", "lower"} and st.best("/s/b.json") == {"lower", "upper"}
    assert st.efficiency[("/s/b.json", "upper")].median == pytest.approx(0.525)
    assert scenario_table(hand_rows()) is None  # a generated grid has none
    results = tmp_path / "hnc.parquet"
    r = Results(results)
    r.add(scenario_rows())
    r.write()
    r.close()
    res = cli("report", str(results), "-o", str(tmp_path / "rep"), env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| a-game | 3 | 50.00 | **+20.00 ± 14.14 (70%)** | **-5.00 ± 1.41 (45%)** | **+1.00 ± 1.41 (51%)** |" in md
    assert "Table 1" not in md
    # Table 2: per-scenario means 20 and 1 (myopic), -5 and 2.5 (upper), 1 and 6 (lower), over the two games
    assert "| **mean ± sd over the 2 games** |  |  | +10.50 ± 13.44 | -1.25 ± 5.30 | +3.50 ± 3.54 |" in md
    # two scenarios settle nothing: myopic ahead of lower (10.50 against 3.50) and upper below zero (-1.25)
    # are all within what two games can tell
    assert ("| Lower achieves the highest improvement on the real-life games | **indistinguishable** | "
            "improvement lower − myopic: -7.00 \\[-157.47, +143.47\\] | 0.660 | 2 (2 scenarios) | "
            "45 scenarios (≥ 2) |") in md
    assert "| Upper falls below No-Negotiation | **indistinguishable** | improvement of upper: -1.25 \\[" in md
    assert "| The language-model baseline yields the lowest payoffs | **not measurable** |" in md
    assert "+20.00 ± 14.14 ★" in res.stdout and "a-game (3)" in res.stdout
    assert max(len(line) for line in res.stdout.splitlines()) <= 80


def test_table1_keeps_each_star_beside_its_number_at_80_columns():
    """Three-digit means make Table 1's cells wide ("+270.35 ± 0.00 ★"): printed at 80 columns, each structure's
    four regimes still fit one table, each ★ stays on the line of its number, the legend says what ★ is on one
    line, and no line is longer than 80."""
    import io
    import re

    from rich.console import Console

    from negtui.sweep.render import table1_rich

    rows = [r | {"improvement": r["improvement"] * 8.0 - 50.0} if r["method"] != "baseline" else r
            for r in seeded_rows(8)]
    tables = table1_rich(table1(rows), 80)
    out = io.StringIO()
    console = Console(width=80, file=out)
    for table in tables:
        console.print(table)
    text = out.getvalue()
    cells = re.findall(r"[+-]\d+\.\d\d ± \d+\.\d\d ★", text)
    assert len(tables) == 2 and cells and any(len(c) >= 16 for c in cells), text  # four regimes a table
    assert text.count("mean ± sd, ★ best") == len(tables), text
    assert text.count("★") == len(cells) + len(tables), text  # every ★ beside a number, or in the legend
    assert max(map(len, text.splitlines())) <= 80, text


def test_scenario_names_stay_whole_in_the_printed_table_at_80_columns():
    import io

    from rich.console import Console

    from negtui.sweep.render_scenarios import scenario_rich
    from negtui.sweep.report import scenario_table

    rows = [r | {"scenario": "cop-climate-22"} if r["scenario_file"] == "/s/a.json" else r for r in scenario_rows()]
    rows += [r | {"method": m} for r in rows if r["method"] == "upper" for m in ("llm", "utilitarian", "maximin")]
    st = scenario_table(rows)
    assert st is not None
    out = io.StringIO()
    console = Console(width=80, file=out)
    tables = scenario_rich(st, 80)
    for table in tables:
        console.print(table)
    text = out.getvalue()
    assert len(tables) > 2  # six methods do not fit one table of 80 columns
    assert text.count("cop-climate-22 (3)") == len(tables) and "…" not in text, text
    assert "+20.00 ± 14.14 ★" in text and "maximin" in text and max(map(len, text.splitlines())) <= 80
    improvement = [t for t in tables if "improvement" in str(t.title)]
    assert text.count("improvement over No-Negotiation (★ best)") == len(improvement)  # a title on one line


def test_no_efficiency_where_the_optimum_is_zero_up_to_float_noise():
    """A game whose best completion is worth nothing sums its fractional payoffs to -6.7e-16: the sweep
    writes no efficiency for it, and the report ignores the huge ratio a file may already hold."""
    from negtui.sweep.report import mean_by
    from negtui.welfare.options import efficiency

    assert efficiency("utilitarian", -281.4, -6.661338147750939e-16, 10) is None
    assert efficiency("utilitarian", 30.0, 60.0, 2) == 0.5
    rows = hand_rows()
    noisy = [dict(r, welfare_optimum=-6.661338147750939e-16, efficiency=4.2e17) if r["payoff"] == "negative"
             else r for r in rows]
    cells = mean_by(noisy, "payoff", "efficiency", ["myopic", "upper", "lower"])
    assert not any(regime == "negative" for regime, _ in cells)
    assert cells[("balanced", "myopic")] == mean_by(rows, "payoff", "efficiency", ["myopic"])[("balanced", "myopic")]


def test_a_difference_within_the_noise_of_the_same_games_is_a_tie():
    """Methods play the same games, so the best is judged game by game: a mean lead smaller than two
    standard errors of the per-game differences is a tie; the same lead, kept in every game, is not."""
    from negtui.sweep.report import tied_best

    tasks = [f"g{k}" for k in range(20)]
    myopic = {t: 100.0 + 10 * k for k, t in enumerate(tasks)}
    noisy = {t: v + (1.0 if k % 2 else -1.0) + 0.1 for k, (t, v) in enumerate(myopic.items())}  # +0.1 ± 1
    steady = {t: v + 0.1 for t, v in myopic.items()}  # +0.1 in every game
    assert tied_best({"myopic": myopic, "lower": noisy}) == {"myopic", "lower"}
    assert tied_best({"myopic": myopic, "lower": steady}) == {"lower"}
    # a large spread across games (sd 59) does not hide a lead kept game by game
    assert statistics.stdev(myopic.values()) > 50
    assert tied_best({"myopic": myopic, "lower": steady, "upper": {t: 0.0 for t in tasks}}) == {"lower"}
    assert tied_best({"a": {"g0": 1.0}, "b": {"g0": 1.0 - 1e-12}}) == {"a", "b"}  # one game: equal means tie
    # one play each (a deterministic scenario at one seed) is not a sample: the higher is the best alone
    assert tied_best({"a": {"g0": 759.7}, "b": {"g0": -176.8}, "c": {"g0": 572.7}}) == {"a"}
    assert tied_best({}) == set()


def test_the_adaptive_lens_is_set_against_every_lens_and_the_best_in_hindsight():
    from negtui.sweep.render import adaptive_markdown

    rows = hand_rows()
    rows += [dict(r, method="adaptive", improvement=12.0) for r in hand_rows() if r["method"] == "myopic"]
    md = adaptive_markdown(table1(rows))
    # adversarial balanced: myopic 15, upper 2, lower 2: the best in hindsight is myopic, adaptive 3 below it
    assert "| adversarial balanced | +12.00 | +15.00 | +2.00 | +2.00 | myopic +15.00 | -3.00 |" in md
    # adversarial negative + poison pill: upper 10 is best, adaptive 2 above it
    assert "| adversarial negative + poison pill | +12.00 | -6.00 | +10.00 | +0.00 | upper +10.00 | +2.00 |" in md
    assert adaptive_markdown(table1(hand_rows())) == ""  # no adaptive method: no table


def test_seeds_that_all_gave_the_same_are_not_shown_as_a_spread_of_zero():
    """`--preset hnc --seeds 2` plays each deterministic game twice: the report says so, without ± 0.00."""
    from negtui.sweep.render_scenarios import scenario_markdown
    from negtui.sweep.report import scenario_table

    rows = [r for r in scenario_rows() if r["task"].endswith("-0")]
    twice = rows + [r | {"task": r["task"][:-1] + "1"} for r in rows]
    st = scenario_table(twice)
    assert st is not None
    text = scenario_markdown(st)
    assert "± 0.00" not in text.split("**mean ± sd over the 2 games**")[0]
    assert "the same on each of 2 seeds (these games and methods are deterministic" in text
    assert "| **+10.00 (60%)** |" in text  # a-game, myopic: 10 on both seeds


def test_a_played_regime_whose_optimum_is_zero_has_its_efficiency_called_undefined(tmp_path):
    """Adversarial negative games were played, but their welfare optimum is 0, so no efficiency is a ratio to
    it: the figure says "undefined (optimum 0)" where it has no bar, never "not played"."""
    from negtui.sweep.figures import efficiency_figure, no_efficiency

    methods = ["myopic", "upper", "lower"]
    rows = [r | {"welfare_optimum": 0.0, "efficiency": None} if (r["structure"], r["payoff"]) == (
        "adversarial", "negative") else r for r in hand_rows()]
    paths = efficiency_figure(rows, methods, tmp_path / "eff", "hand")
    svg = next(p for p in paths if p.suffix == ".svg").read_text()
    assert "undefined (optimum 0)" in svg and "not played" not in svg
    adversarial = [r for r in rows if r["structure"] == "adversarial"]
    assert no_efficiency(adversarial, "negative", methods) == "undefined (optimum 0)"
    assert no_efficiency([r for r in adversarial if r["payoff"] != "negative"], "negative", methods) == "not played"
    unsolved = [r | {"welfare_optimum": None, "efficiency": None} for r in adversarial]
    assert no_efficiency(unsolved, "negative", methods) == "no optimum solved"


def test_figures_show_every_regime_their_n_and_methods_that_coincide(tmp_path):
    """The efficiency figure keeps a regime a panel has no games of ("not played", not dropped), says how
    many games each bar holds, and draws no zero bar for a missing cell; the L1 figure gives each
    method its own marker and error bars, so myopic stays visible where lower lies on top of it."""
    import re

    from negtui.sweep.figures import efficiency_figure, l1_figure

    rows = [r for r in hand_rows() if (r["structure"], r["payoff"]) != ("adversarial", "negative")]
    paths = efficiency_figure(rows, ["myopic", "upper", "lower"], tmp_path / "eff", "hand")
    svg = next(p for p in paths if p.suffix == ".svg").read_text()
    assert "not played" in svg and "n = 2 games per bar" in svg
    assert svg.count("poison pill") == 2  # the regime's label (wrapped) under both panels
    same = [r | {"l1_exact": 3.0} if r["method"] in ("myopic", "lower") else r for r in hand_rows()]
    paths = l1_figure(same, ["myopic", "upper", "lower"], tmp_path / "l1", "hand")
    svg = next(p for p in paths if p.suffix == ".svg").read_text()
    assert "(n = 2 per point)" in svg
    assert "mean ± s.e. over seeds" in svg
    # three methods, three marker shapes in the legend and the panels: each is a path id of its own
    assert len(set(re.findall(r'id="(m[0-9a-f]+)"', svg))) >= 3
