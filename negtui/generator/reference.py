"""The reference generator's arithmetic, draw for draw (docs/reference.md §2; every § below is its).

`generate_game_config` reproduces the public reference's `generate_game_config` bit for bit under
`rules="reference"`: one `numpy.random.default_rng(seed)` stream consumed in exactly the reference's
order, and a Python Mersenne Twister seeded with the same seed for the poison-pill refill. The Python
generator is a local `random.Random(seed)`, which yields the same sequence as `random.seed(seed)` on the
global one without touching anybody else's global state.

Under `rules="paper"` the same stream is consumed in the same order up to the poison-pill step, so a
paper game and a reference game with the same parameters share G, goal kinds and requirements; the
poison-pill step differs as described in `negtui.generator`.

Everything here returns plain arrays and indices; `negtui.generator.build` names them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from negtui.generator.params import SHIFT_RANGES, GeneratorError, check_counts, check_profile

Cell = tuple[int, int]


#: Mixed with the seed for the draw of zero values, a stream of its own.
ZERO_DRAW = 0x5A65726F

#: Requirement counts are capped at min(floor(0.6 S), MAX_REQUIREMENTS) (§2.5).
MAX_REQUIREMENTS = 10
#: Poison-pill value ranges, drawn uniformly, then rounded (§2.6).
BAIT_RANGE = (28, 32)
GAIN_RANGE = (8, 12)
HARM_RANGE = (-26, -20)
#: Goals the poison pill overwrites: the bait and the poison.
BAIT_GOAL, POISON_GOAL = 0, 1


@dataclass(frozen=True)
class PoisonPill:
    """Who the trap is laid for: the proposer gains from the poison, the receiver is harmed by it."""

    proposer: int
    receiver: int
    added_action: bool  # paper rules only: the receiver had one action and got the poison action added


@dataclass(frozen=True)
class GameArrays:
    """The generator's output, indexed as in the reference (goal-major G, players and actions from 0)."""

    actions: tuple[int, ...]  # m_i per player, including an action added by the paper poison pill
    G: np.ndarray  # int64, J x N: G[j, i] is player i's value for goal j
    requirements: list[list[Cell]]  # per goal, (player, action) cells in draw order
    binary_goals: list[int]  # ascending indices of all-or-nothing goals
    player_vectors: np.ndarray  # N x k latent factors (informational)
    goal_vectors: np.ndarray  # J x k latent factors (informational)
    poison_pill: PoisonPill | None


def generate_game_config(
    actions: Sequence[int],
    n_goals: int,
    k_factors: int,
    seed: int,
    structure: str = "adversarial",
    binary_fraction: float = 0.0,
    zipf_a: float = 1.6,
    payoff: str = "balanced",
    poison_pill: bool = False,
    rules: str = "reference",
    taste: tuple[float, float] | None = None,
    values: tuple[int, int] | None = None,
    zero_fraction: float = 0.0,
) -> GameArrays:
    """One random game. Player i has `actions[i]` actions; the player count is `len(actions)`.

    Raises GeneratorError for every input the reference rejects, and for the poison pill on a
    one-action receiver under reference rules (the reference cannot build that game).
    """
    counts = tuple(actions)
    check_counts(counts, n_goals, k_factors)
    check_profile(structure, payoff, binary_fraction, zipf_a)
    rng = np.random.default_rng(seed)
    player_vectors, goal_vectors, raw = _latent_values(rng, len(counts), n_goals, k_factors, structure, taste)
    G = np.round(_rescale(raw, values or SHIFT_RANGES[payoff]))
    if zero_fraction:  # a stream of its own: every other draw stays the paper's
        G[np.random.default_rng([seed, ZERO_DRAW]).random(G.shape) < zero_fraction] = 0
    binary = [j for j in range(n_goals) if rng.random() < binary_fraction]
    requirements = _draw_requirements(rng, counts, n_goals, set(binary), zipf_a)
    pill = None
    if poison_pill:
        counts, pill = _inject_poison_pill(rng, random.Random(seed), counts, G, requirements, binary, rules)
    return GameArrays(
        actions=counts,
        G=np.round(G).astype(np.int64),
        requirements=requirements,
        binary_goals=binary,
        player_vectors=player_vectors,
        goal_vectors=goal_vectors,
        poison_pill=pill,
    )


def _latent_values(
    rng: np.random.Generator, n_players: int, n_goals: int, k: int, structure: str,
    taste: tuple[float, float] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Player vectors, goal vectors and raw = V U^T + E, drawn in the reference's order (§2.3 steps 2-5).

    Cooperative players share a positive mean taste, adversarial ones are centred; both use the same
    underlying normal stream, which is what makes the sweep paired.  `taste` (mean, sd) replaces either.
    """
    if taste is not None:
        players = rng.normal(taste[0], taste[1], size=(n_players, k))
    elif structure == "cooperative":
        players = rng.normal(1.0, 0.3, size=(n_players, k))
    else:
        players = rng.normal(0.0, 1.0, size=(n_players, k))
    goals = rng.normal(0.0, 1.0, size=(n_goals, k))
    noise = rng.normal(0.0, 0.1, size=(n_goals, n_players))
    return players, goals, goals @ players.T + noise


def _rescale(raw: np.ndarray, value_range: tuple[int, int]) -> np.ndarray:
    """Global min-max rescale onto the payoff regime's range (§2.3 step 6), before rounding."""
    t_min, t_max = value_range
    lo, hi = raw.min(), raw.max()
    if hi == lo:
        raise GeneratorError("the generated value matrix is constant, so it cannot be rescaled")
    return (raw - lo) / (hi - lo) * (t_max - t_min) + t_min


def requirement_cap(total_slots: int) -> int:
    """Most cells a goal may require, min(floor(0.6 S), 10) (§2.5); binary goals still get at least 2."""
    return min(int(0.6 * total_slots), MAX_REQUIREMENTS)


def _draw_requirements(
    rng: np.random.Generator, counts: tuple[int, ...], n_goals: int, binary: set[int], zipf_a: float
) -> list[list[Cell]]:
    """Per goal a Zipf size, capped, then that many distinct cells (§2.5); one zipf and one choice per goal."""
    cells = [(i, a) for i, m in enumerate(counts) for a in range(m)]
    cap = requirement_cap(len(cells))
    out: list[list[Cell]] = []
    for j in range(n_goals):
        c = max(min(int(rng.zipf(zipf_a)), cap), 1)
        if j in binary:
            c = max(c, 2)
        idx = rng.choice(len(cells), size=c, replace=False)
        out.append([cells[int(x)] for x in idx])
    return out


def _inject_poison_pill(
    rng: np.random.Generator,
    py_rng: random.Random,
    counts: tuple[int, ...],
    G: np.ndarray,
    requirements: list[list[Cell]],
    binary: list[int],
    rules: str,
) -> tuple[tuple[int, ...], PoisonPill]:
    """Overwrite goals 0 and 1 with the bait and the poison, and clear the trap cells elsewhere (§2.6).

    Mutates G, requirements and binary in place, as the reference does; returns the (possibly widened)
    action counts and who the trap is for.
    """
    proposer, receiver = (int(x) for x in rng.choice(len(counts), size=2, replace=False))
    added = counts[receiver] < 2
    if added:
        if rules == "reference":
            raise GeneratorError(
                f"poison pill: receiver P{receiver} has a single action, which the reference generator cannot "
                "handle (it crashes or requires a missing action); use rules='paper' or give players 2 actions"
            )
        counts = (*counts[:receiver], 2, *counts[receiver + 1 :])
    trap = {(proposer, 0), (receiver, 0), (receiver, 1)}
    bait = rng.uniform(*BAIT_RANGE)
    G[BAIT_GOAL, :] = 0
    G[BAIT_GOAL, [proposer, receiver]] = bait
    requirements[BAIT_GOAL] = [(proposer, 0), (receiver, 0)]
    gain = rng.uniform(*GAIN_RANGE)
    harm = rng.uniform(*HARM_RANGE)
    G[POISON_GOAL, :] = 0
    G[POISON_GOAL, proposer] = gain
    G[POISON_GOAL, receiver] = harm
    requirements[POISON_GOAL] = [(receiver, 1)]
    binary[:] = [j for j in binary if j not in (BAIT_GOAL, POISON_GOAL)]
    others = [(i, a) for i, m in enumerate(counts) if i not in (proposer, receiver) for a in range(m)]
    for j in range(POISON_GOAL + 1, len(requirements)):
        kept = [cell for cell in requirements[j] if cell not in trap]
        if not kept and others:
            kept = _refill(rng, py_rng, others, rules)
        requirements[j] = kept
    return counts, PoisonPill(proposer, receiver, added)


def _refill(rng: np.random.Generator, py_rng: random.Random, others: list[Cell], rules: str) -> list[Cell]:
    """2 or 3 cells of the uninvolved players for a goal the trap emptied.

    The count always comes from `rng`; the cells come from Python's generator under reference rules
    (as the reference does) and from `rng` under paper rules, so one seed drives the whole game.
    """
    size = min(int(rng.integers(2, 4)), len(others))
    if rules == "reference":
        return py_rng.sample(others, size)
    return [others[int(x)] for x in rng.choice(len(others), size=size, replace=False)]
