"""Value-function lenses: a player's estimate of its end-of-game payoff from a commitment state.

One core formula serves both uses: a batch of candidate successor states seen by one player (offer
search) and one state seen by every player (forecasts, MCTS leaves).  `paper` and `reference`
formulas differ only through the switches of `Rules` (DESIGN §2, reference-benchmark §4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from negtui.engine.game import Game
from negtui.engine.payoff import StateInfo, satisfaction
from negtui.engine.rules import Rules

Lens = Literal["myopic", "upper", "lower", "exact"]
LENSES: tuple[str, ...] = ("myopic", "upper", "lower", "exact")
LENS_HELP = {
    "myopic": "payoff if the game ended now (the reference's 'reward')",
    "upper": "optimistic: every reachable goal the player values is completed",
    "lower": "pessimistic: credible threats (harms others want completed) are completed",
    "exact": "subgame-perfect continuation value (small games only)",
}


def check_lens(name: str) -> str:
    if name not in LENSES:
        raise ValueError(f"unknown lens {name!r}; choose from {', '.join(LENSES)}")
    return name


@dataclass(frozen=True)
class Owing:
    """Who still owes required cells, seen by one player, for a batch of states (arrays (O, J))."""

    own: np.ndarray  # cells of each goal the player itself could still commit
    others: np.ndarray  # cells other players could still commit
    others_owing: np.ndarray  # number of other players still owing a cell
    others_hostile: np.ndarray  # of those, players that value the goal negatively


def owing_all(game: Game, info: StateInfo) -> Owing:
    """Per player at one state: arrays of shape (N, J)."""
    owes = info.owes
    owing = owes > 0
    hostile = owing & (game.G.T < 0)
    return Owing(
        own=owes,
        others=owes.sum(axis=0) - owes,
        others_owing=owing.sum(axis=0) - owing,
        others_hostile=hostile.sum(axis=0) - hostile,
    )


def lens_core(game: Game, rules: Rules, lens: str, counts: np.ndarray, lost: np.ndarray, g: np.ndarray,
              owing: Owing | None) -> np.ndarray:
    """Lens value of states with goal counts `counts` (O, J) for a player valuing goals `g` ((J,) or (O, J))."""
    s = satisfaction(game, counts)
    R = (s * g).sum(axis=-1)
    if lens == "myopic":
        return R
    if lens == "upper":
        if rules.upper_linear_remainder:
            remainder = 1.0 - counts / game.d
        else:
            remainder = (1.0 - s) * ((game.d - lost) >= game.tau)
        return R + (remainder * np.maximum(g, 0.0)).sum(axis=-1)
    if lens == "lower":
        assert owing is not None
        harm = g < 0
        if rules.lower_reference_credibility:
            credible = harm & (counts < game.d) & (owing.others_hostile == 0)
            return R + (credible * g).sum(axis=-1)
        credible = harm & (owing.others_owing > 0) & (owing.others_hostile == 0)
        completed = satisfaction(game, np.minimum(counts + owing.others, game.d - lost))
        return R + (credible * (completed - s) * g).sum(axis=-1)
    raise ValueError(f"lens {lens!r} has no closed form")


def lens_vector(game: Game, rules: Rules, lens: str, info: StateInfo, t: int, exact_values=None) -> np.ndarray:
    """(N,) every player's lens value at state (t, P)."""
    if lens == "exact":
        if exact_values is None:
            raise ValueError("the exact lens needs the exact solution of the game")
        return exact_values(t, info.bits)
    s_counts = info.counts[None, :]
    if t >= game.T or lens == "myopic":
        return (satisfaction(game, info.counts) @ game.G)
    owing = owing_all(game, info) if lens == "lower" else None
    return lens_core(game, rules, lens, s_counts, info.lost[None, :], game.G.T, owing)
