"""Value-function lenses: a player's estimate of its end-of-game payoff from a commitment state.

One core formula serves both uses: a batch of candidate successor states seen by one player (offer
search) and one state seen by every player (forecasts, MCTS leaves).  `paper` and `reference`
formulas differ only through the switches of `Rules` (docs/design.md §2, docs/reference.md §4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from negtui.engine import issues
from negtui.engine.game import Game, GoalView
from negtui.engine.payoff import StateInfo, payoffs_from_counts, scaled_satisfaction
from negtui.engine.rules import Rules
from negtui.engine.vocabulary import ADAPTIVE

SIGN_SHARE = 0.6  # of a player's value mass, the share of one sign that makes its goals dominated by it
ALL_OR_NOTHING_SHARE = 0.3  # of a balanced player's value mass, the share on all-or-nothing goals that asks for lower


def adaptive_lens(game: Game, i: int, t: int) -> str:
    """The lens the `adaptive` player i uses at turn t, from what it can see: its own values and goal
    kinds, and the turn.  The paper's findings as a rule (docs/adaptive-lens.md): where its values are
    mostly negative, upper (best in negative-dominated games); mostly positive, lower (best in
    positive-dominated ones); balanced, myopic, or lower when much of its value hangs on all-or-nothing
    goals (lower is the robust one as non-linearity rises).  In the last round, with no turn of its own
    to come, it counts only what is realised: myopic (under simultaneous rules, in a turn that starts
    there)."""
    if game.position(t) >= len(game.schedule) - game.n:
        return "myopic"
    g, binary_goals = game.G[:, i], game.binary
    if game.issues is not None:  # an option's value once, not once per goal that settles it (with its sign)
        table = game.issues
        g = np.concatenate([table.V[:, i], g[~table.covered]])
        binary_goals = np.concatenate([np.ones(len(table.V), dtype=bool), binary_goals[~table.covered]])
    positive, negative = float(g[g > 0].sum()), float(-g[g < 0].sum())
    mass = positive + negative
    if mass == 0:
        return "myopic"
    if negative >= SIGN_SHARE * mass:
        return "upper"
    if positive >= SIGN_SHARE * mass:
        return "lower"
    binary = float(np.abs(g)[binary_goals].sum())
    return "lower" if binary >= ALL_OR_NOTHING_SHARE * mass else "myopic"


def combine(criterion: str, values: np.ndarray) -> np.ndarray:
    """A criterion over every player's values (axis 0): their sum, or their minimum."""
    return values.sum(axis=0) if criterion == "utilitarian" else values.min(axis=0)


def concrete_lens(game: Game, lens: str, i: int, t: int) -> str:
    """The formula player i evaluates with: `adaptive` resolved, any other lens as it is."""
    return adaptive_lens(game, i, t) if lens == ADAPTIVE else lens


@dataclass(frozen=True)
class Owing:
    """Who still owes required cells, seen by one player, for a batch of states (arrays (O, J))."""

    own: np.ndarray  # cells of each goal the player itself could still commit
    others: np.ndarray  # cells other players could still commit
    others_owing: np.ndarray  # number of other players still owing a cell
    others_hostile: np.ndarray  # of those, players that value the goal negatively


def owing_all(game: Game, info: StateInfo) -> Owing:
    """Per player at one state: arrays of shape (N, J), computed once per state."""
    hit = info.memo.get("owing")
    if hit is None:
        hit = info.memo["owing"] = _owing_all(game, info)
    return hit


def _owing_all(game: Game, info: StateInfo) -> Owing:
    owes = info.owes
    owing = owes > 0
    hostile = owing & (game.G.T < 0)
    return Owing(
        own=owes,
        others=owes.sum(axis=0) - owes,
        others_owing=owing.sum(axis=0) - owing,
        others_hostile=hostile.sum(axis=0) - hostile,
    )


def lens_terms(goals: GoalView, rules: Rules, lens: str, counts: np.ndarray, lost: np.ndarray, g: np.ndarray,
               owing: Owing | None, memo: dict | None = None) -> tuple[np.ndarray, np.ndarray | None, float]:
    """A lens's per-goal terms on the integer scale L, for goal counts `counts` (..., J) and a player's
    goal values `g` ((J,), or (N, J) for every player at once): the value is the sum over goals of
    `first`, plus `factor` times the sum of `second` (None for the myopic lens).  Being per goal, the
    terms can be summed over any subset of the goals.  `memo` keeps the arrays that do not depend on
    the player, for the next player evaluating the same states (the proposer, then its partner)."""
    L = goals.scale
    memo = {} if memo is None else memo
    s = memo.get("s")
    if s is None:
        s = memo["s"] = scaled_satisfaction(goals, counts)  # L·s
    first = s * g
    if lens == "myopic":
        return first, None, 1.0
    if lens == "upper":
        remainder = memo.get("remainder")
        if remainder is None:
            remainder = memo["remainder"] = upper_remainder(goals, rules, counts, lost, s)
        return first, remainder * np.maximum(g, 0.0), 1.0
    if lens == "lower":
        assert owing is not None
        harm = g < 0
        if rules.lower_reference_credibility:
            credible = harm & (counts < goals.d) & (owing.others_hostile == 0)
            return first, credible * g, L
        credible = harm & (owing.others_owing > 0) & (owing.others_hostile == 0)
        completed = scaled_satisfaction(goals, np.minimum(counts + owing.others, goals.d - lost))
        return first, credible * (completed - s) * g, 1.0
    raise ValueError(f"lens {lens!r} has no closed form")


def upper_remainder(goals: GoalView, rules: Rules, counts: np.ndarray, lost: np.ndarray, s: np.ndarray) -> np.ndarray:
    """What the upper lens still counts of each goal on the integer scale L (times the goal's value if liked):
    the unrealised part of a reachable goal, or (reference rules) the linear part still missing."""
    if rules.upper_linear_remainder:
        return goals.scale - counts * goals.mult_d
    return (goals.scale - s) * ((goals.d - lost) >= goals.tau)


def lens_sum(first_sum, second_sum, factor: float):
    """A lens value from the sums of its two kinds of terms (`lens_terms`), added in one fixed way, so
    that a subset of goals summed apart (offers.py) gives bit for bit what summing them here gives."""
    if second_sum is None:
        return first_sum
    return first_sum + (factor * second_sum if factor != 1.0 else second_sum)


def lens_core(goals: GoalView, rules: Rules, lens: str, counts: np.ndarray, lost: np.ndarray, g: np.ndarray,
              owing: Owing | None, const: float = 0.0, scaled: bool = False, memo: dict | None = None,
              ) -> np.ndarray:
    """Lens value of states with goal counts `counts` (O, J) for a player valuing goals `g` ((J,) or (O, J)):
    the sums of `lens_terms`.  `const` adds the (scaled) terms of the goals left out.  Sums run on the
    integer scale L (Game.scale) and are divided once, unless `scaled` asks for the scaled value."""
    first, second, factor = lens_terms(goals, rules, lens, counts, lost, g, owing, memo)
    total = lens_sum(first.sum(axis=-1), None if second is None else second.sum(axis=-1), factor)
    return total if scaled else (total + const) / goals.scale


def effective_lens(game: Game, rules: Rules, lens: str) -> str:
    """In a two-player game without unilateral moves nothing is committed without the other's consent,
    so (paper rules) there are no credible threats and the lower lens is the myopic one."""
    if lens == "lower" and not rules.lower_reference_credibility and not game.unilateral and game.n == 2:
        return "myopic"
    return lens


def lens_vector(game: Game, rules: Rules, lens: str, info: StateInfo, t: int, exact_values=None) -> np.ndarray:
    """(N,) every player's lens value at state (t, P)."""
    if lens == "exact":
        if exact_values is None:
            raise ValueError("the exact lens needs the exact solution of the game")
        return exact_values(t, info.bits)
    lens = effective_lens(game, rules, lens)
    s_counts = info.counts[None, :]
    if t >= game.T or lens == "myopic":
        return payoffs_from_counts(game, info.counts)
    if game.issues is not None:
        return _issue_vector(game, rules, lens, info)
    owing = owing_all(game, info) if lens == "lower" else None
    return lens_core(game.all_goals, rules, lens, s_counts, info.lost[None, :], game.G.T, owing)


def _issue_vector(game: Game, rules: Rules, lens: str, info: StateInfo) -> np.ndarray:
    assert game.issues is not None
    table, out = game.issues, np.empty(game.n)
    owes = info.owes[None] if lens == "lower" else None
    for i in range(game.n):
        x = int(table.exit_cell[i])
        exit_of = issues.exit_state(table, i, np.array([x >= 0 and bool(info.bits >> x & 1)]),
                                    np.array([x >= 0 and bool(info.blocked >> x & 1)]))
        out[i] = issue_lens(game, rules, lens, info.counts[None], info.lost[None], owes, game.G[:, i], i, exit_of)[0]
    return out


def issue_lens(game: Game, rules: Rules, lens: str, counts: np.ndarray, lost: np.ndarray, owes: np.ndarray | None,
               g: np.ndarray, i: int, exit_of: np.ndarray) -> np.ndarray:
    """Player i's `upper` or `lower` value on a game that declares its issues (engine/issues.py) of states
    with goal counts `counts` and required cells ruled out `lost` (O, J), every player's cells still owed
    `owes` (O, N, J; the lower lens only); `g`: i's goal values (J,), or rows of them (K, 1, J) (a belief's
    particles); `exit_of`: i's exit in each state (issues.exit_state).  (O,), or (K, O)."""
    table, goals = game.issues, game.all_goals
    assert table is not None
    L = goals.scale
    s = scaled_satisfaction(goals, counts)
    realised = (s * g).sum(axis=-1)
    value = realised
    if not table.covered.all():  # goals of no option or exit: the paper's terms
        owing = owing_of(game, owes, i) if lens == "lower" else None
        _, second, factor = lens_terms(goals, rules, lens, counts, lost, g, owing, {"s": s})
        assert second is not None
        value = lens_sum(realised, (second * ~table.covered).sum(axis=-1), factor)
    holds = issues.settled(table, s, L)
    if lens == "upper":
        counted = issues.reachable(table, goals.d, goals.tau, lost)
    else:
        assert owes is not None
        counted = issues.credible(table, goals.tau, counts, owes, i)
    out = (value + L * issues.remainder(table, lens, holds, counted, issues.option_values(table, g))) / L
    if (exit_of == issues.NONE).all():
        return out
    x = int(table.exit_cell[i])
    left = (scaled_satisfaction(goals, counts + game.inc[x]) * g).sum(axis=-1) / L  # what leaving leaves it
    out = np.where(exit_of == issues.FREE, np.maximum(out, left), out)
    return np.where(exit_of == issues.LEFT, realised / L, out)


def owing_of(game: Game, owes: np.ndarray | None, i: int) -> Owing:
    """Owing seen by player i from every player's owed cells (O, N, J)."""
    assert owes is not None
    owing = owes > 0
    hostile = owing & (game.G.T < 0)
    return Owing(owes[:, i], owes.sum(axis=1) - owes[:, i], owing.sum(axis=1) - owing[:, i],
                 hostile.sum(axis=1) - hostile[:, i])
