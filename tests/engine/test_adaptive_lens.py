"""The adaptive lens: which lens it picks from what a player can see (its values' sign mix, how much of
its value is all-or-nothing, the turn), and that a bot with it plays exactly as one with the lens it picks."""

from __future__ import annotations

import numpy as np
import pytest

from negtui.agents import LensBot
from negtui.engine import PAPER, Negotiation, TurnDriver, Valuation
from negtui.engine.lenses import adaptive_lens
from negtui.scenario import parse_scenario


def game_with(values: dict[str, list[float]], kinds: list[str], rounds: int = 3) -> Negotiation:
    """Three players with one action each; goal j requires every player's action; `values[pid][j]`."""
    players = [{"id": pid, "actions": [{"id": "a"}]} for pid in values]
    goals = [{"id": f"g{j}", "kind": kind, "requires": [{"player": pid, "action": "a"} for pid in values],
              "values": {pid: v[j] for pid, v in values.items() if v[j]}} for j, kind in enumerate(kinds)]
    sc = parse_scenario({"format": "negtui-scenario/1", "name": "adaptive", "players": players, "goals": goals,
                         "protocol": {"rounds": rounds, "budget": 1}})
    return Negotiation.from_scenario(sc, PAPER)


def test_the_lens_follows_the_sign_mix_the_goal_kinds_and_the_turn():
    neg = game_with({"A": [-9, -3, 2], "B": [9, 3, -2], "C": [5, -5, 0]}, ["linear", "linear", "linear"])
    g = neg.game
    assert adaptive_lens(g, 0, 0) == "upper"  # 12 of 14 negative
    assert adaptive_lens(g, 1, 0) == "lower"  # 12 of 14 positive
    assert adaptive_lens(g, 2, 0) == "myopic"  # balanced, all linear
    assert [adaptive_lens(g, 0, t) for t in range(g.T)] == ["upper"] * (g.T - 3) + ["myopic"] * 3  # the last round
    binary = game_with({"A": [-9, -3, 2], "B": [9, 3, -2], "C": [5, -5, 0]}, ["all_or_nothing", "linear", "linear"])
    assert adaptive_lens(binary.game, 2, 0) == "lower"  # balanced, half its value all-or-nothing
    nothing = game_with({"A": [1, 0, 0], "B": [1, 0, 0], "C": [0, 0, 0]}, ["linear"] * 3)
    assert adaptive_lens(nothing.game, 2, 0) == "myopic"  # values nothing


@pytest.mark.parametrize("turn", [0, 5, 16])
def test_an_adaptive_bot_decides_as_the_lens_it_picks(turn):
    """A balanced game of six players who pick lower, myopic and upper: at each turn the adaptive search
    and forecast are those of each player's picked lens."""
    from negtui.generator import GeneratorParams, generate

    neg = Negotiation.from_scenario(generate(GeneratorParams(players=6, actions=2, goals=10, payoff="balanced",
                                                             all_or_nothing=0.3, seed=2, rounds=3)), PAPER)
    val = Valuation(neg)
    s = TurnDriver(neg, [LensBot(val, "myopic", "myopic", "greedy") for _ in range(neg.game.n)]).play_out(until=turn)
    p = neg.proposer(s)
    picks = [adaptive_lens(neg.game, i, s.t) for i in range(neg.game.n)]
    assert set(picks) == ({"myopic"} if turn >= 12 else {"lower", "myopic", "upper"})
    for q in neg.legal_partners(s):
        assert val.best_offer(s, q, "adaptive", "adaptive") == val.best_offer(s, q, picks[p], picks[q])
    forecast = val.forecast(s, "adaptive")
    assert np.array_equal(forecast, [val.forecast(s, picks[i])[i] for i in range(neg.game.n)])
