"""Games in words and in JSON: turn lines, commitment lists, result objects.

Shared by the command line, and later the app and game records, so a turn reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from negtui.engine.game import Game
from negtui.engine.protocol import TurnEvent


def cell_label(game: Game, c: int) -> str:
    i = int(game.owner[c])
    act = game.scenario.players[i].actions[c - int(game.offset[i])]
    return act.id


def offer_words(game: Game, bits: int, proposer: int, partner: int) -> str:
    """'Brazil commits X, Y; India commits Z' (or 'nothing')."""
    parts = []
    for i in dict.fromkeys((proposer, partner)):
        own = [cell_label(game, c) for c in game.cells_of(bits) if int(game.owner[c]) == i]
        if own:
            parts.append(f"{game.player_ids[i]} commits {', '.join(own)}")
    return "; ".join(parts) or "nothing"


def turn_line(game: Game, ev: TurnEvent) -> str:
    p, q = game.player_ids[ev.proposer], game.player_ids[ev.partner]
    n = game.n
    rnd = ev.t // n + 1 if n else 1
    who = f"{p} → {q}" if ev.partner != ev.proposer else f"{p} alone"
    if ev.offer.is_noop:
        outcome = "no deal (nothing worth offering)" if not ev.accepted else "empty deal"
    else:
        outcome = "accepted" if ev.accepted else "rejected"
    return f"t{ev.t:>3} r{rnd:<2} {who}: {offer_words(game, ev.offer.bits, ev.proposer, ev.partner)} — {outcome}"


def commitments(game: Game, bits: int) -> list[list[int]]:
    """Per player, 0/1 per action."""
    return [[(bits >> (int(game.offset[i]) + a)) & 1 for a in range(int(game.m[i]))] for i in range(game.n)]


def event_json(game: Game, ev: TurnEvent) -> dict:
    return {
        "t": ev.t,
        "proposer": game.player_ids[ev.proposer],
        "partner": game.player_ids[ev.partner],
        "offer": [game.cell_name(c) for c in game.cells_of(ev.offer.bits)],
        "accepted": ev.accepted,
        "decided_by": ev.decided_by,
    }


def rounded(values: Sequence[float] | np.ndarray, digits: int = 10) -> list[float]:
    """Plain floats without float noise in the last digits."""
    return [round(float(v), digits) + 0.0 for v in values]
