"""Games generated in the shape of another: its scale, its value range and share of zero values taken as
they are, and the players' latent tastes chosen so that the sign structure (negative value mass, mixed-sign
goals, sign agreement: negtui.scenario.shape) comes close to the target's.

The paper's generator cannot do this with its own axes: its regimes fix the value range, and its two
structures give players tastes so alike (cooperative) or so opposed (adversarial) that a game of the climate
game's scale came out with 1–5 % negative value mass and sign agreement of 0.94–0.98, against the climate
game's 16 % and 0.76.  The tastes are found by a small search: every (mean, sd) of a fixed grid is tried on
a few calibration seeds of its own, and the one whose average structure is closest to the target's (the
largest relative gap of the three measures, smallest) is kept; then, because one game's structure varies
much from seed to seed, the first seed of the game's own range whose game lies within a tolerance of the
target is drawn.  All of it depends on the target and the seed alone, so they always give the same game."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from negtui.generator.params import GeneratorError, GeneratorParams
from negtui.generator.reference import generate_game_config
from negtui.scenario.model import Scenario
from negtui.scenario.shape import Shape, shape, sign_structure

TASTE_MEANS = (0.0, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 1.0)
TASTE_SDS = (0.3, 0.45, 0.6, 0.8, 1.0)
CALIBRATION_SEEDS = tuple(range(900_000, 900_012))  # seeds of their own, apart from the games drawn after
SEARCH = 1000  # seeds tried for one game
TOLERANCE = 0.25  # how far each measure of the structure may lie from the target's, relative to it
FACTORS = 5
ZIPF = 1.6


def like_params(target: Scenario, seed: int, tolerance: float = TOLERANCE) -> GeneratorParams:
    """Generator parameters for a game of the target's scale and sign structure: the tastes calibrated, then
    the first of the seeds seed·SEARCH, seed·SEARCH + 1, … whose game's structure lies within `tolerance` of
    the target's on every measure (relative to the target's value).  One game's structure varies much from
    seed to seed (the value matrix is rescaled by its extremes), so the game is picked, not only its
    parameters; its meta says so."""
    s = shape(target)
    sized = (s.actions_max if s.actions_max > s.actions_min else None)
    base = GeneratorParams(
        players=s.players, actions=s.actions_min, actions_up_to=sized, goals=s.goals,
        factors=min(FACTORS, s.goals), structure="cooperative", payoff="balanced",
        all_or_nothing=round(s.all_or_nothing, 3), zipf=ZIPF, rounds=max(1, s.turns // s.players), budget=s.budget,
        seed=seed, rules="paper", values=(math.floor(s.value_min), math.ceil(s.value_max)),
        zero_fraction=round(1 - s.nonzero, 3), taste=(0.5, 0.5))
    base = replace(base, taste=calibrate(base, s))
    want = np.array(s.sign_structure())
    for k in range(seed * SEARCH, (seed + 1) * SEARCH):
        found = np.array(structure_of(replace(base, seed=k)))
        if np.all(np.abs(found - want) <= tolerance * np.abs(want)):
            return replace(base, seed=k)
    raise GeneratorError(f"no game of {SEARCH} seeds from {seed * SEARCH} comes within {tolerance:.0%} of "
                         f"{target.name}'s sign structure; try another seed")


def calibrate(base: GeneratorParams, target: Shape) -> tuple[float, float]:
    """The tastes of the grid whose games come closest to the target's sign structure."""
    want = np.array(target.sign_structure())
    best, best_gap = (TASTE_MEANS[0], TASTE_SDS[0]), math.inf
    for mean in TASTE_MEANS:
        for sd in TASTE_SDS:
            found = np.mean([structure_of(replace(base, taste=(mean, sd), seed=k)) for k in CALIBRATION_SEEDS], axis=0)
            gap = float(np.max(np.abs(found - want) / np.maximum(np.abs(want), 1e-9)))
            if gap < best_gap:
                best, best_gap = (mean, sd), gap
    return best


def structure_of(params: GeneratorParams) -> tuple[float, float, float]:
    """(negative value mass, mixed-sign goals, sign agreement) of the values these parameters draw."""
    arrays = generate_game_config(params.action_counts, params.goals, params.factors, params.seed,
                                  structure=params.structure, binary_fraction=params.all_or_nothing,
                                  zipf_a=params.zipf, payoff=params.payoff, rules=params.rules, taste=params.taste,
                                  values=params.values, zero_fraction=params.zero_fraction)
    _, _, mass, mixed, agreement = sign_structure(arrays.G.astype(float))
    return mass, mixed, agreement
