"""Name the generator's arrays: players P0.., actions a0.., goals g0.., and the protocol."""

from __future__ import annotations

from pydantic import ValidationError

from negtui.engine.game import round_robin
from negtui.generator.params import GeneratorError, GeneratorParams
from negtui.generator.reference import BAIT_GOAL, POISON_GOAL, GameArrays, generate_game_config
from negtui.scenario.io import first_problem
from negtui.scenario.model import Action, CellRef, Goal, Player, Protocol, Scenario


def generate(params: GeneratorParams) -> Scenario:
    """A random scenario for these parameters; the same parameters always give the same scenario.  A draw
    that breaks a scenario's rules all the same is a GeneratorError naming the rule, not a traceback."""
    try:
        return build_scenario(params, game_arrays(params))
    except ValidationError as err:
        raise GeneratorError(f"the game drawn is not a valid scenario: {first_problem(err)}") from None


def game_arrays(params: GeneratorParams) -> GameArrays:
    """The raw generator output for these parameters (latent vectors included), before naming."""
    return generate_game_config(
        params.action_counts,
        params.goals,
        params.factors,
        params.seed,
        structure=params.structure,
        binary_fraction=params.all_or_nothing,
        zipf_a=params.zipf,
        payoff=params.payoff,
        poison_pill=params.poison_pill,
        rules=params.rules,
        taste=params.taste,
        values=params.values,
        zero_fraction=params.zero_fraction,
    )


def player_id(i: int) -> str:
    return f"P{i}"


def action_id(a: int) -> str:
    return f"a{a}"


def goal_id(j: int) -> str:
    return f"g{j}"


def build_scenario(params: GeneratorParams, arrays: GameArrays) -> Scenario:
    """The scenario file for generated arrays; goal j stays at position j so indices keep their meaning."""
    binary = set(arrays.binary_goals)
    return Scenario(
        name=scenario_name(params),
        description=describe(params, arrays),
        players=[_player(i, m, arrays) for i, m in enumerate(arrays.actions)],
        goals=[_goal(arrays, j, j in binary) for j in range(len(arrays.requirements))],
        protocol=_protocol(params),
        meta=_meta(params, arrays),
    )


def scenario_name(params: GeneratorParams) -> str:
    pill = "-pp" if params.poison_pill else ""
    profile = "shaped" if params.shaped else f"{params.structure}-{params.payoff}"
    return f"generated-N{params.players}-J{params.goals}-{profile}{pill}-seed{params.seed}"


def describe(params: GeneratorParams, arrays: GameArrays) -> str:
    """One paragraph with every parameter, so a file says how it was made without reading meta."""
    counts = set(params.action_counts)
    acts = f"{counts.pop()} action(s) each" if len(counts) == 1 else f"actions {list(params.action_counts)}"
    t_min, t_max = params.value_range
    tastes = (f"players' tastes N({params.taste[0]:g}, {params.taste[1]:g})" if params.taste is not None
              else f"{params.structure} structure")
    regime = f"values {t_min}..{t_max}" if params.values is not None else f"{params.payoff} payoffs ({t_min}..{t_max})"
    zeros = f", {params.zero_fraction:.0%} of values zero" if params.zero_fraction else ""
    text = (
        f"Random game ({params.rules} rules): {params.players} players with {acts}, {params.goals} goals "
        f"from {params.factors} latent factors, {tastes}, {regime}{zeros}, {len(arrays.binary_goals)} "
        f"all-or-nothing goal(s) (fraction {params.all_or_nothing}), requirement sizes Zipf a={params.zipf}"
    )
    if arrays.poison_pill is not None:
        pp = arrays.poison_pill
        text += f", poison pill laid by {player_id(pp.proposer)} for {player_id(pp.receiver)}"
    return text + f"; {params.rounds} rounds, budget {params.budget}, seed {params.seed}."


def _player(i: int, n_actions: int, arrays: GameArrays) -> Player:
    pid = player_id(i)
    actions = [Action(id=action_id(a), label=f"{pid} action {a}") for a in range(n_actions)]
    pp = arrays.poison_pill
    if pp is not None and pp.added_action and i == pp.receiver:
        actions[1] = Action(id=action_id(1), label=f"{pid} action 1 (added for the poison pill)")
    return Player(id=pid, name=pid, actions=actions)


def _goal(arrays: GameArrays, j: int, binary: bool) -> Goal:
    """Goal j; only non-zero values are written (a missing player values the goal 0)."""
    values: dict[str, int | float] = {player_id(i): int(v) for i, v in enumerate(arrays.G[j]) if v != 0}
    label = _goal_label(arrays, j)
    return Goal(
        id=goal_id(j),
        label=label,
        public_label=f"goal {j}" if label != f"goal {j}" else "",  # the bait's and poison's say who gains
        kind="all_or_nothing" if binary else "linear",
        requires=[CellRef(player=player_id(i), action=action_id(a)) for i, a in arrays.requirements[j]],
        values=values,
    )


def _goal_label(arrays: GameArrays, j: int) -> str:
    pp = arrays.poison_pill
    if pp is not None and j == BAIT_GOAL:
        return f"bait: {player_id(pp.proposer)} and {player_id(pp.receiver)} both gain"
    if pp is not None and j == POISON_GOAL:
        return f"poison: {player_id(pp.proposer)} gains, {player_id(pp.receiver)} is harmed"
    return f"goal {j}"


def _protocol(params: GeneratorParams) -> Protocol:
    """Reference rules write the reference's turn order out; paper rules let the engine derive it from
    the seed with this same function, which keeps files short and the seed meaningful."""
    schedule = None
    if params.rules == "reference":
        schedule = [player_id(i) for i in round_robin(params.players, params.rounds, params.seed)]
    return Protocol(rounds=params.rounds, budget=params.budget, seed=params.seed, schedule=schedule)


def _meta(params: GeneratorParams, arrays: GameArrays) -> dict[str, object]:
    meta: dict[str, object] = {"generator": params.as_dict()}
    if arrays.poison_pill is not None:
        pp = arrays.poison_pill
        meta["poison_pill"] = {
            "proposer": player_id(pp.proposer),
            "receiver": player_id(pp.receiver),
            "added_action": pp.added_action,
        }
    meta["binary_goals"] = [goal_id(j) for j in arrays.binary_goals]
    return meta
