"""What one seat knows of a game's values: the one place that decides it.

Under public information (the paper's game) every player knows every value.  Under private
information a seat knows its own values, and of another player's value only the range its goal
publishes (`Goal.ranges`), or nothing.  Everything else is public: who owns which action, what each
goal requires, every commitment.

A seat's picture of the game is the scenario with every value it does not know replaced by its
estimate (the middle of the published range, or 0: neither for nor against).  A game compiled from
that picture has the same players, cells and turn order as the real one, so states and offers pass
between the two unchanged, and every number computed on it (forecasts, offer previews, the coach, a
bot's choices) is computed from what the seat knows and nothing more.
"""

from __future__ import annotations

from typing import Final

from negtui.engine.negotiation import Negotiation
from negtui.scenario.model import Goal, Scenario

INFORMATION: Final = ("public", "private")


def check_information(name: str) -> str:
    if name not in INFORMATION:
        raise ValueError(f"unknown information {name!r}; choose from {', '.join(INFORMATION)}")
    return name


def estimate(goal: Goal, pid: str) -> float:
    """What the other players take `pid`'s value of `goal` to be."""
    if pid in goal.ranges:
        low, high = goal.ranges[pid]
        return (low + high) / 2
    return 0.0


def seat_scenario(sc: Scenario, seat: str) -> Scenario:
    """The scenario as `seat` knows it under private information."""
    goals = []
    for goal in sc.goals:
        values = {pid: estimate(goal, pid) for pid in sc.player_ids if pid != seat}
        values = {pid: v for pid, v in values.items() if v != 0}
        if seat in goal.values:
            values[seat] = goal.values[seat]
        goals.append(goal.model_copy(update={"values": values}))
    return sc.model_copy(update={"goals": goals})


def seat_negotiation(neg: Negotiation, player: int, information: str) -> Negotiation:
    """The game as `player` knows it: `neg` itself under public information; else its picture, compiled
    once per player and kept with `neg`."""
    if information == "public":
        return neg
    hit = neg.pictures.get(player)
    if hit is None:
        sc = seat_scenario(neg.game.scenario, neg.game.player_ids[player])
        hit = neg.pictures[player] = Negotiation.from_scenario(sc, neg.rules, budget=neg.game.budget)
    return hit


def knows(information: str, seat: int | None, player: int) -> bool:
    """Whether `seat` (None: an onlooker after the game, or the whole table's owner) knows `player`'s values."""
    return information == "public" or seat is None or seat == player
