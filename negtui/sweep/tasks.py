"""One task is one game: generated (or loaded) once, its baseline, exact solution and welfare optimum
computed once, then played by every method.  Tasks are deterministic and independent, so a sweep's
rows do not depend on where or in which order its tasks ran."""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from negtui import __version__
from negtui.sweep.spec import BASELINE, EXACT, SweepSpec

if TYPE_CHECKING:
    from negtui.engine import Negotiation
    from negtui.generator import GeneratorParams
    from negtui.generator.params import Payoff, Structure
    from negtui.generator.params import Rules as RuleName
    from negtui.scenario import Scenario
    from negtui.welfare import WelfareResult

WELFARE_SECONDS = 60.0
SAMPLE_SEED = 7919  # between one sample of a model's play of a game and the next, added to every seat's seed
MAX_NOTES = 1000  # characters of what a method's agents said of how they were asked (a refused schema)


@dataclass(frozen=True)
class Task:
    key: str  # the game's identity: sweep, grid point (or scenario), seed, rules
    sweep: str
    point: tuple[tuple[str, object], ...]  # the grid point, or (("scenario", path),)
    seed: int
    rules: str
    information: str = "public"  # what the seats know (engine.knowledge)

    @property
    def params(self) -> dict[str, object]:
        return dict(self.point)


def task_key(sweep: str, point: dict[str, object], seed: int, rules: str, information: str = "public",
             llm: dict[str, object] | None = None) -> str:
    """Public information keeps the key it had before information was an axis, so old results resume; a sweep
    with a language model in it keys its games by the model's settings too (`llm_settings`), so a re-run with
    other settings plays the games again instead of keeping rows played under the old ones."""
    key: dict[str, object] = {"sweep": sweep, "point": point, "seed": seed, "rules": rules}
    if information != "public":
        key["information"] = information
    if llm:
        key["llm"] = llm
    text = json.dumps(key, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _points(spec: SweepSpec) -> list[dict[str, object]]:
    """Every grid point (or scenario), in a fixed order."""
    if spec.grid is None:
        return [{"scenario": s} for s in spec.scenarios]
    g = spec.grid
    names = ("players", "actions", "goals", "rounds", "budget", "factors", "structure", "all_or_nothing", "zipf",
             "payoff")
    return [dict(zip(names, combo, strict=True))
            for combo in itertools.product(g.players, g.actions, g.goals, g.rounds, g.budget, g.factors,
                                           g.structure, g.all_or_nothing, g.zipf, g.payoff)]


def tasks(spec: SweepSpec) -> list[Task]:
    """Every game of the sweep, in a fixed order (grid point, then rules, then seed); the cells the
    generator refuses are left out (`skipped` says which)."""
    llm = llm_settings(spec)
    return [Task(task_key(spec.name, point, seed, rules, info, llm), spec.name, tuple(point.items()), seed, rules,
                 info)
            for point in _points(spec) for rules in spec.rules if _refusal(point, rules) is None
            for info in spec.information for seed in range(spec.seed_start, spec.seed_start + spec.seeds)]


def llm_settings(spec: SweepSpec) -> dict[str, object] | None:
    """What a language model's play depends on, for a sweep with one (None otherwise): its methods' seats
    (the models), the prompt, whether its offers bind, who answers offers to it, samples and temperature.
    These are part of a result: they go into the task key and into every row of the sweep."""
    methods = [m for m in spec.methods if m.uses_llm]
    if not methods:
        return None
    return {"methods": [[m.name, m.seats] for m in methods], "prompt": spec.llm_prompt or "negtui",
            "offers": spec.llm_offers, "responder": spec.llm_responder, "samples": spec.llm_samples,
            "temperature": spec.llm_temperature}


def _llm_columns(spec: SweepSpec) -> dict[str, object]:
    """The language model's settings as columns of every row of a sweep with one (none otherwise)."""
    llm = llm_settings(spec)
    if llm is None:
        return {}
    texts = [text.strip() for m in spec.methods if m.uses_llm
             for text in ([m.seats] if isinstance(m.seats, str) else m.seats)]
    models = sorted({text[4:].strip() for text in texts if text.startswith("llm:")})
    return {"llm_model": ", ".join(models), "llm_prompt": llm["prompt"], "llm_offers": llm["offers"],
            "llm_responder": llm["responder"], "llm_samples": llm["samples"], "llm_temperature": llm["temperature"]}


def skipped(spec: SweepSpec) -> list[tuple[dict[str, object], str, str]]:
    """Grid cells the generator refuses under a rule set (the reference generator cannot place a poison
    pill on players with one action): (point, rules, why), to be said before a sweep runs."""
    return [(point, rules, why) for point in _points(spec) for rules in spec.rules
            if (why := _refusal(point, rules)) is not None]


def _refusal(point: dict[str, object], rules: str) -> str | None:
    if "scenario" in point:
        return _scenario_refusal(str(point["scenario"]), rules)
    proposers = _proposers(rules, int(str(point["players"])))
    if proposers > int(str(point["players"])):
        return f"{rules} has {proposers} proposers a turn, more than the grid point's {point['players']} players"
    low, up_to = _actions(point)
    if up_to is not None and low == 1 and point["payoff"] == "negative-pp" and _generator(rules) == "reference":
        return "the reference generator cannot place a poison pill on a one-action receiver, which 1-… allows"
    return _generator_refusal(tuple(point.items()), _generator(rules))


def _generator(rules: str) -> str:
    """The generator a rule set (or a variant of one) draws its games with: a variant plays its base's games."""
    from negtui.engine.rules import get_rules

    return get_rules(rules).generator


def _proposers(rules: str, players: int) -> int:
    """Proposers a turn of a game of `players` under a rule set (1 but under simultaneous rules)."""
    from negtui.engine.rules import get_rules

    return get_rules(rules).proposers_for(players)


def _actions(point: dict[str, Any]) -> tuple[int, int | None]:
    """A grid point's action count, and the top of its range (None for a fixed count)."""
    from negtui.generator.params import parse_actions

    low, up_to = parse_actions(str(point["actions"]))
    assert isinstance(low, int)
    return low, up_to


@functools.lru_cache(maxsize=1024)
def _scenario_refusal(name: str, rules: str) -> str | None:
    """Why a rule set cannot play a scenario file (the reference has no exclusive sets or thresholds):
    that scenario is skipped under it, and the sweep goes on with the rest."""
    from negtui.engine import GameError, compile_game, get_rules
    from negtui.scenario import load_scenario
    from negtui.scenario.library import resolve

    try:
        compile_game(load_scenario(resolve(name)), get_rules(rules))
    except GameError as err:
        return f"{name}: {err}"
    return None


@functools.lru_cache(maxsize=4096)
def _generator_refusal(point: tuple[tuple[str, object], ...], rules: str) -> str | None:
    """Why the generator refuses a grid cell (whatever the seed: the refusals depend on its shape)."""
    from negtui.generator import GeneratorError, generate

    try:
        generate(_params(dict(point), 0, rules))
    except (GeneratorError, ValueError) as err:
        return re.sub(r"receiver \S+ has", "the receiver has", str(err))  # the same refusal whoever it hits
    return None


def _scenario(task: Task) -> Scenario:
    from negtui.generator import generate
    from negtui.scenario import load_scenario
    from negtui.scenario.library import resolve

    p = task.params
    if "scenario" in p:
        return load_scenario(resolve(str(p["scenario"])))
    return generate(_params(p, task.seed, task.rules))


def _params(p: dict[str, Any], seed: int, rules: str) -> GeneratorParams:
    """The generator's parameters at a grid point (the spec has checked every value)."""
    from negtui.generator import GeneratorParams

    payoff = str(p["payoff"])
    low, up_to = _actions(p)
    return GeneratorParams(
        players=int(p["players"]), actions=low, actions_up_to=up_to, goals=int(p["goals"]), factors=int(p["factors"]),
        structure=cast("Structure", p["structure"]),
        payoff=cast("Payoff", "negative" if payoff == "negative-pp" else payoff),
        all_or_nothing=float(p["all_or_nothing"]), zipf=float(p["zipf"]), poison_pill=payoff == "negative-pp",
        rounds=int(p["rounds"]), budget=int(p["budget"]), seed=seed, rules=cast("RuleName", _generator(rules)))


def run_task(task: Task, spec: SweepSpec) -> list[dict]:
    """The task's rows: the baseline, the exact solution (small games), then one per method."""
    from negtui.agents import AgentOptions, Seating
    from negtui.engine import Negotiation, TurnDriver, Valuation, get_rules
    from negtui.engine.baseline import no_negotiation
    from negtui.engine.metrics import improvement, l1_error, regret
    from negtui.engine.outcome import exact_outcome
    from negtui.engine.simultaneous import void_count
    from negtui.scenario.shape import sign_structure, values_matrix
    from negtui.scenario.untrusted import one_line
    from negtui.seats import Seat, parse_seat

    started = time.perf_counter()
    rules = get_rules(task.rules)
    sc = _scenario(task)
    neg = Negotiation.from_scenario(sc, rules)
    game = neg.game
    base = np.asarray(no_negotiation(game, rules).payoffs, dtype=float)
    valuation = Valuation(neg)  # one per game: every method's bots share its caches and exact solution
    exact_asked = spec.exact and not rules.simultaneous  # the exact solver does not solve simultaneous games
    solved = exact_outcome(valuation) if exact_asked else None
    exact, exact_true = (None, None) if solved is None else solved
    scale = None if exact is None else float(np.abs(exact).sum())  # what normalises the L1 error
    welfare = _welfare(neg, spec)
    _, _, negative_mass, mixed_sign_goals, sign_agreement = sign_structure(values_matrix(sc))
    common = {"sweep": task.sweep, "task": task.key, "scenario": sc.name, **_point_columns(task), "seed": task.seed,
              "rules": task.rules, "information": task.information, "negtui": __version__, "players": game.n,
              "exact_solved": None if not exact_asked else exact is not None, "negative_mass": negative_mass,
              "mixed_sign_goals": mixed_sign_goals, "sign_agreement": sign_agreement,
              "generated": _generated(sc), **_llm_columns(spec)}
    setup = time.perf_counter() - started

    def row(method: str, pay: np.ndarray, turns: int | None, seconds: float, bits: int | None = None,
            void: int | None = None) -> dict:
        imp = improvement(pay, base)
        l1 = None if exact is None else float(l1_error(pay, exact))
        l1_true = None if exact_true is None else float(l1_error(pay, exact_true))
        out = {**common, "method": method, "payoffs": [float(v) for v in pay], "sum": float(pay.sum()),
               "baseline_sum": float(base.sum()), "improvement": imp.sum, "improvement_min": imp.min,
               "fraction_improved": imp.fraction_improved,
               "l1_exact": l1, "l1_true": l1_true, "turns": turns, "seconds": seconds,
               "improvement_var": imp.variance, "l1_normalised": None if l1 is None or not scale else l1 / scale,
               "regret": None if bits is None else float(regret(game, rules, bits).sum()),
               "void": void}
        out.update(_efficiency(welfare, pay, spec))
        return out

    rows = [row(BASELINE, base, None, setup)]
    if exact is not None:
        rows.append(row(EXACT, exact, game.T, 0.0))
    for method in spec.methods:
        for sample in range(spec.llm_samples if method.uses_llm else 1):
            t0 = time.perf_counter()
            # a model's samples differ by the seed each seat sends its server; lens bots keep theirs
            base_seat = Seat(partner=spec.partner, sims=spec.sims, seed=task.seed * 1009 + SAMPLE_SEED * sample,
                             base_url=spec.llm_base_url, prompt=spec.llm_prompt, temperature=spec.llm_temperature)
            seats = [parse_seat(text, base_seat).model_copy(update={"seed": base_seat.seed + i}).baseline(
                spec.llm_offers, spec.llm_responder) for i, text in enumerate(method.seat_texts(game.n))]
            with Seating(neg, seats, AgentOptions(remote_bots=False, information=task.information),
                         valuation) as seating:
                driver = TurnDriver(neg, seating.agents)
                end = driver.play_out()
                pay = np.asarray(neg.returns(end), dtype=float)
                notes = sorted({note for agent in seating.agents for note in getattr(agent, "notes", ())})
                # a seat that never got an answer played no game of its own: the game is void, not data
                silent = [why for agent in seating.agents if (why := getattr(agent, "unanswered", ""))]
            void = sum(void_count(ev.outcomes) for ev in driver.events)  # 0 under one proposer a turn
            out = row(method.name, pay, len(driver.events), time.perf_counter() - t0, end.bits, void)
            if method.uses_llm:
                if silent:
                    notes = [f"void: {'; '.join(silent)}", *notes]
                out |= {"sample": sample, "sample_seed": base_seat.seed, "game_void": bool(silent),
                        "notes": one_line("; ".join(notes), MAX_NOTES) or None}
            rows.append(out)
    return rows


def _generated(sc: Scenario) -> bool:
    """A game the generator made (a grid's, or a scenario file it wrote) rather than one written by hand."""
    return "generator" in sc.meta


def _point_columns(task: Task) -> dict[str, object]:
    """Every grid column in every row (a scenario sweep leaves the generator's columns empty)."""
    p = task.params
    cols = {k: p.get(k) for k in ("actions", "goals", "rounds", "budget", "factors", "structure",
                                  "all_or_nothing", "zipf", "payoff")}
    if "actions" in p:
        cols["actions"], cols["actions_up_to"] = _actions(p)
    from negtui.scenario.library import shown_path

    cols["scenario_file"] = shown_path(str(p["scenario"])) if p.get("scenario") else None
    return cols


@dataclass(frozen=True)
class _Optima:
    """The game's welfare optima the rows are measured against (None where not solved)."""

    utilitarian: float | None = None
    nash: WelfareResult | None = None


def _welfare(neg: Negotiation, spec: SweepSpec) -> _Optima:
    if spec.welfare == "none":
        return _Optima()
    from negtui.welfare import WelfareOptions, solve_welfare

    res = solve_welfare(neg.game, neg.rules, 0, WelfareOptions(objective="utilitarian", time_limit=WELFARE_SECONDS))
    utilitarian = res.welfare if res.payoffs is not None else None
    if spec.welfare != "nash":
        return _Optima(utilitarian)
    res = solve_welfare(neg.game, neg.rules, 0, WelfareOptions(objective="nash", time_limit=WELFARE_SECONDS))
    return _Optima(utilitarian, res if res.payoffs is not None else None)


def _efficiency(welfare: _Optima, pay: np.ndarray, spec: SweepSpec) -> dict[str, object]:
    from negtui.welfare.options import efficiency, welfare_of

    out: dict[str, object] = {}
    if spec.welfare == "none":
        return out
    opt = welfare.utilitarian
    out["welfare_optimum"] = opt
    out["efficiency"] = efficiency("utilitarian", float(pay.sum()), opt, len(pay)) if opt is not None else None
    if spec.welfare == "nash":
        res = welfare.nash
        if res is None:
            out["nash_optimum"] = out["nash_efficiency"] = None
        else:
            now = welfare_of("nash", pay, res.included, None)  # the product of payoffs, not of gains
            out["nash_optimum"] = res.welfare
            out["nash_efficiency"] = efficiency("nash", now, res.welfare, len(res.included))
    return out

