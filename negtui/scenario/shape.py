"""A scenario's scale and sign structure, measured: what makes two games alike enough for one to stand in
for the other.

Scale is counted (players, commitments, goals, turns, all-or-nothing goals, exclusive sets).  Sign
structure is what separates the lenses: how much of the value at stake is negative, how many goals some
players want and others fear, and how often two players who both care about a goal care in the same
direction.  Written down once here, because a stand-in for a real game is only honest if it is measured
on the same rulers as the game it stands in for:

- *non-zero values*: the share of (goal, player) values that are not zero;
- *positive*: the share of non-zero values above zero;
- *negative value mass*: Σ|negative values| ÷ Σ|values|;
- *mixed-sign goals*: the share of goals with at least one positive and one negative value;
- *sign agreement*: over every pair of players, the share of the goals both value (non-zero) on which their
  values have the same sign, averaged over the pairs that share at least one such goal.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from itertools import combinations

import numpy as np

from negtui.scenario.model import Scenario


@dataclass(frozen=True)
class Shape:
    name: str
    players: int
    commitments: int
    actions_min: int
    actions_max: int
    goals: int
    all_or_nothing: float  # share of goals
    turns: int
    budget: int
    exclusive_sets: int
    value_min: float
    value_max: float
    nonzero: float
    positive: float
    negative_mass: float
    mixed_sign_goals: float
    sign_agreement: float

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def sign_structure(self) -> tuple[float, float, float]:
        return (self.negative_mass, self.mixed_sign_goals, self.sign_agreement)


def values_matrix(sc: Scenario) -> np.ndarray:
    """G as a goals × players array (a player that does not list a goal values it 0)."""
    ids = [p.id for p in sc.players]
    return np.array([[g.values.get(i, 0.0) for i in ids] for g in sc.goals], dtype=float)


def sign_structure(G: np.ndarray) -> tuple[float, float, float, float, float]:
    """(non-zero share, positive share, negative value mass, mixed-sign goals, sign agreement) of G."""
    nonzero = G[G != 0]
    if not nonzero.size:
        return 0.0, 0.0, 0.0, 0.0, 1.0
    mass = float(-nonzero[nonzero < 0].sum() / np.abs(nonzero).sum())
    mixed = float(np.mean([(row > 0).any() and (row < 0).any() for row in G]))
    signs = np.sign(G)
    agree = []
    for a, b in combinations(range(G.shape[1]), 2):
        both = (signs[:, a] != 0) & (signs[:, b] != 0)
        if both.any():
            agree.append(float(np.mean(signs[both, a] == signs[both, b])))
    return (float(nonzero.size / G.size), float(np.mean(nonzero > 0)), mass, mixed,
            float(np.mean(agree)) if agree else 1.0)


def shape(sc: Scenario) -> Shape:
    G = values_matrix(sc)
    nonzero, positive, mass, mixed, agreement = sign_structure(G)
    counts = [len(p.actions) for p in sc.players]
    return Shape(
        name=sc.name, players=len(sc.players), commitments=sum(counts), actions_min=min(counts),
        actions_max=max(counts), goals=len(sc.goals),
        all_or_nothing=sum(g.kind == "all_or_nothing" for g in sc.goals) / len(sc.goals), turns=sc.turns(),
        budget=sc.protocol.budget, exclusive_sets=len(sc.exclusive), value_min=float(G.min()),
        value_max=float(G.max()), nonzero=nonzero, positive=positive, negative_mass=mass, mixed_sign_goals=mixed,
        sign_agreement=agreement)


def within_half(found: Shape, target: Shape) -> dict[str, bool]:
    """Whether each measure of the sign structure lies within half of the target's own value of it."""
    return {name: abs(getattr(found, name) - getattr(target, name)) <= 0.5 * abs(getattr(target, name))
            for name in ("negative_mass", "mixed_sign_goals", "sign_agreement")}
