"""Goal satisfaction and payoffs, for one state or a batch of candidate states.

Satisfaction is computed from per-goal counts c_j = |R_j ∩ P|: linear goals give min(1, c/τ),
all-or-nothing goals 1[c ≥ τ].  `linear=True` treats every goal as linear with τ = |R_j| — the
reference's linearised evaluation (its baseline, exact "True solution" and regret).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from negtui.engine.game import Game, GoalView


def committed_vector(game: Game, bits: int) -> np.ndarray:
    """(S,) bool: which cells the bitmask commits."""
    S = game.n_cells
    raw = np.frombuffer(bits.to_bytes((S + 7) // 8 or 1, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:S].astype(bool)


def scaled_satisfaction(goals: Game | GoalView, counts: np.ndarray, linear: bool = False) -> np.ndarray:
    """L·s for counts of shape (..., J); integers for integer counts (see Game.scale)."""
    if linear:
        return counts * goals.mult_d
    lin = np.minimum(counts, goals.tau) * goals.mult_tau
    if not goals.any_binary:
        return lin
    return np.where(goals.binary & (counts < goals.tau), 0.0, lin)


def satisfaction(goals: Game | GoalView, counts: np.ndarray, linear: bool = False) -> np.ndarray:
    """Satisfaction s_j in [0, 1] for counts of shape (..., J)."""
    return scaled_satisfaction(goals, counts, linear) / goals.scale


def payoffs_from_counts(game: Game | GoalView, counts: np.ndarray, linear: bool = False) -> np.ndarray:
    """R = sᵀG, summed on the integer scale and divided once."""
    return (scaled_satisfaction(game, counts, linear) @ game.G) / game.scale


@dataclass(frozen=True)
class StateInfo:
    """What every evaluation at one commitment state needs, computed once per state."""

    bits: int
    x: np.ndarray  # (S,) committed
    counts: np.ndarray  # (J,)
    blocked: int  # bitmask of cells no longer committable because of an exclusive set
    owes: np.ndarray  # (N, J) required cells each player could still commit (uncommitted, unblocked)
    lost: np.ndarray  # (J,) required cells no longer committable
    memo: dict = field(default_factory=dict, repr=False, compare=False)  # derived per-state arrays



def state_info(game: Game, bits: int) -> StateInfo:
    """Cached per game (within a memory budget): MCTS and the turn loop revisit the same states."""
    info = game.info_cache.get(bits)
    if info is None:
        info = game.info_cache.put(bits, _compute_state_info(game, bits))
    return info


def _compute_state_info(game: Game, bits: int) -> StateInfo:
    x = committed_vector(game, bits)
    counts = x.astype(float) @ game.inc
    blocked = 0
    lost = np.zeros(game.n_goals)
    if game.groups:
        from negtui.engine.exclusion import exclusions

        ex = exclusions(game)
        blocked = ex.blocked_by(bits)
        lost = ex.lost(bits, blocked)
    avail = ~x
    if blocked:
        avail &= ~committed_vector(game, blocked)
    owes = np.zeros((game.n, game.n_goals))
    np.add.at(owes, game.owner[avail], game.inc[avail])
    return StateInfo(bits, x, counts, blocked, owes, lost)


def payoffs(game: Game, bits: int, linear: bool = False) -> np.ndarray:
    """(N,) payoff vector R(P)."""
    return payoffs_from_counts(game, state_info(game, bits).counts, linear)
