"""Table 2's claims on the real-life games (§4.2.4), and whether the small grid's lens order carries over to
the large one.

Table 2 judges each scenario as one observation (its methods' mean improvement over its seeds or model
samples), so comparisons pair methods scenario by scenario and more seeds add no games: the evidence says
how many *scenarios* would settle a claim.  With four or five scenarios most intervals are wide, and a claim
they cannot settle is indistinguishable, not holding."""

from __future__ import annotations

import numpy as np

from negtui.sweep.claims import LENSES, is_small, lenses_in, regimes_in
from negtui.sweep.judge import Claim, Comparison, Games, Part, games, seed_for
from negtui.sweep.report import REGIME_TITLES, ScenarioTable
from negtui.sweep.stats import mean_of, paired_difference


def scenario_games(st: ScenarioTable, methods: list[str]) -> Games:
    """Per scenario, each method's mean improvement (the scenarios every one of them played): the generated
    ones where the table holds hand-written games too (those are one game each, not a sample of a shape)."""
    by = {m: st.by_scenario(m) for m in methods}
    judged = st.files(generated=True) if st.split else st.files()
    files = sorted(f for f in judged if all(f in by[m] for m in methods))  # an order of its own
    values = np.array([[by[m][f] for m in methods] for f in files], dtype=float).reshape(len(files), len(methods))
    return Games(files, values, list(methods), clusters=np.arange(len(files)), unit="scenario")


def table2_claims(st: ScenarioTable) -> list[Claim]:
    lenses = [m for m in LENSES if m in st.methods]
    models = [m for m in st.methods if m.startswith("llm")]
    return [
        _best(st, lenses),
        _sign(st, "table2.myopic-improves", "Reward (myopic) improves on No-Negotiation", "myopic", 1),
        _sign(st, "table2.upper-below", "Upper falls below No-Negotiation", "upper", -1),
        _model_lowest(st, lenses, models),
    ]


def _claim(claim: str, text: str, parts: tuple[Part, ...], missing: str, st: ScenarioTable) -> Claim:
    n = len(st.files(generated=True)) if st.split else len(st.scenarios)
    which = f"the {n} generated scenarios (the hand-written one apart)" if st.split else f"the {n} scenarios"
    return Claim(claim, text, "improvement", f"{which}, one observation each", "table2", parts, missing=missing,
                 rules=st.rules)


def _best(st: ScenarioTable, lenses: list[str]) -> Claim:
    text, claim = "Lower achieves the highest improvement on the real-life games", "table2.lower-best"
    others = [m for m in lenses if m != "lower"]
    parts: tuple[Part, ...] = ()
    if "lower" in lenses and others:
        g = scenario_games(st, ["lower", *others])
        if len(g):
            parts = (Part("every scenario", tuple(
                Comparison(f"improvement lower − {o}", paired_difference(
                    g.column("lower"), g.column(o), g.clusters, seed_for(claim, st.rules, o), "scenario"), 1)
                for o in others), _means(g), per_seed=False),)
    return _claim(claim, text, parts, "lower and another lens are not among the methods", st)


def _means(g: Games) -> str:
    return "means " + ", ".join(f"{m} {v:+z.2f}" for m, v in zip(g.methods, g.values.mean(axis=0)))


def _sign(st: ScenarioTable, claim: str, text: str, lens: str, direction: int) -> Claim:
    parts: tuple[Part, ...] = ()
    if lens in st.methods:
        g = scenario_games(st, [lens])
        if len(g):
            parts = (Part("every scenario", (Comparison(f"improvement of {lens}", mean_of(
                g.column(lens), g.clusters, seed_for(claim, st.rules), "scenario"), direction),), per_seed=False),)
    return _claim(claim, text, parts, f"{lens} is not among the methods", st)


def _model_lowest(st: ScenarioTable, lenses: list[str], models: list[str]) -> Claim:
    """As the paper words it: the model's payoffs below every lens's, not merely below the best one's."""
    claim, text = "table2.llm-lowest", "The language-model baseline yields the lowest payoffs"
    parts = []
    for model in models:
        g = scenario_games(st, [model, *lenses])
        if len(g) and lenses:
            parts.append(Part(model, tuple(
                Comparison(f"improvement {model} − {lens}", paired_difference(
                    g.column(model), g.column(lens), g.clusters, seed_for(claim, st.rules, model, lens), "scenario"),
                           -1) for lens in lenses), _means(g), per_seed=False))
    return _claim(claim, text, tuple(parts), "no language-model method (sweep --with-llm MODEL) or no lens in these "
                                              "results", st)


def carry_over(small: list[dict], large: list[dict]) -> Claim:
    """In each regime the lens with the lowest mean L1 error on small games is, on large games (adversarial),
    better than every other lens: holds when it is so in more than half the regimes and fails in none;
    fails when at least half fail."""
    claim = "both.small-trends-carry-over"
    text = "Trends from small games largely carry over to large ones (each regime's best lens)"
    parts = []
    for regime in regimes_in(small):
        lenses = lenses_in(small)
        s = games(small, "l1_exact", lenses, payoff=regime)
        others = [m for m in lenses_in(large) if m in lenses]
        if not len(s) or len(others) < 2:
            continue
        best = lenses[int(np.argmin(s.values.mean(axis=0)))]
        rest = [m for m in others if m != best]
        g = games(large, "improvement", [best, *rest], payoff=regime, structure="adversarial")
        if best not in others or not len(g):
            continue
        parts.append(Part(f"{REGIME_TITLES[regime]}: {best} (lowest L1 on small games)", tuple(
            Comparison(f"large-game improvement {best} − {o}", paired_difference(
                g.column(best), g.column(o), g.clusters, seed_for(claim, regime, o)), 1) for o in rest), _means(g)))
    return Claim(claim, text, "l1_exact, then improvement", "small games' best lens per regime, on large games "
                 "(adversarial)", "both", tuple(parts), missing="small and large games with the same regimes and "
                 "lenses are not both in these results", most=True, rules=(small or large or [{}])[0].get("rules", ""))


def is_pair(small: list[dict], large: list[dict]) -> bool:
    return is_small(small) and not is_small(large)
