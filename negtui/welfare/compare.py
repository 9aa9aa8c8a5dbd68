"""A negotiated outcome beside a welfare optimum: its welfare, efficiency, and who gains or loses."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from negtui.engine.game import Game
from negtui.engine.outcome import commitments, rounded
from negtui.welfare.options import WelfareResult, efficiency, welfare_of


def compare(game: Game, res: WelfareResult, negotiated: Sequence[float] | np.ndarray, negotiated_bits: int,
            source: dict | None = None) -> dict:
    """`negotiated` (payoffs, commitments, its welfare), `efficiency`, `per_player_gap` (optimum minus
    negotiated), `gainers` and `losers` (who would be better or worse off at the optimum)."""
    if res.payoffs is None:
        raise ValueError(f"no {res.objective} optimum to compare with: {res.status}")
    base = None if res.objective == "nash" else res.disagreement
    won = welfare_of(res.objective, negotiated, res.included, base)
    gap = [round(o - n, 10) + 0.0 for o, n in zip(res.payoffs, negotiated)]
    return {
        "negotiated": {**(source or {}), "payoffs": rounded(negotiated), "welfare": won,
                       "commitments": commitments(game, negotiated_bits)},
        "efficiency": efficiency(res.objective, won, res.welfare, len(res.included)),
        "per_player_gap": gap,
        "gainers": [game.player_ids[i] for i, g in enumerate(gap) if g > 1e-9],
        "losers": [game.player_ids[i] for i, g in enumerate(gap) if g < -1e-9],
    }
