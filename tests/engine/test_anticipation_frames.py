"""The anticipating reading groups a proposer's offers by how the turn settles around them (anticipation.py).

It settles one offer per footprint (the cells the later predicted deals could conflict with, and how many cells
it adds for a player who commits in them), not every offer.  Brute force: on generated games with exclusive
sets, at random commitments and every turn, proposer and partner, settling each offer on its own among the
predicted deals groups the offers exactly as the frames do.
"""

from __future__ import annotations

import numpy as np
import pytest

from negtui.engine import Negotiation, State, Valuation, get_rules
from negtui.engine.anticipation import _Frames, expected, settled
from negtui.engine.simultaneous import Flight
from negtui.generator import GeneratorParams, generate
from negtui.scenario import Scenario, parse_scenario


def game_with_sets(seed: int) -> Scenario:
    sc = generate(GeneratorParams(players=6, actions=3, goals=8, factors=3, all_or_nothing=0.3, rounds=2,
                                  budget=1 + seed % 2, seed=seed))
    raw = sc.model_dump(mode="json")
    cells = [{"player": p.id, "action": a.id} for p in sc.players for a in p.actions]
    rng = np.random.default_rng(seed)
    picked = rng.choice(len(cells), size=7, replace=False)
    raw["exclusive"] = [[cells[int(c)] for c in picked[:3]], [cells[int(c)] for c in picked[3:]]]
    return parse_scenario(raw)


def random_commitments(neg: Negotiation, rng: np.random.Generator) -> int:
    """A few commitments that keep every exclusive set (at most one cell of each)."""
    game, bits = neg.game, 0
    for c in rng.permutation(len(game.owner))[: int(rng.integers(0, 6))]:
        if all(not (bits >> int(x) & 1) for g in game.cell_groups[int(c)] for x in game.groups[g]):
            bits |= 1 << int(c)
    return bits


@pytest.mark.parametrize("seed", range(6))
def test_offers_are_grouped_as_settling_each_on_its_own_groups_them(seed: int):
    neg = Negotiation.from_scenario(game_with_sets(seed), get_rules("paper+simultaneous"))
    game, rng = neg.game, np.random.default_rng(seed)
    grouped = several = 0
    for t in range(game.T):
        val = Valuation(neg)
        start = State(t, random_commitments(neg, rng))
        proposers = game.proposers(t)
        for slot, p in enumerate(proposers):
            s = State(t, start.bits, None, Flight.start(len(proposers)).focused(slot))
            ex = expected(val, s, p)
            for q in val.neg.legal_partners(s):
                frames = _Frames(val, s, q)
                by_hand: dict[int, list[int]] = {}
                for row in range(len(frames.cand)):
                    bits = frames.cand.bits(game, row)
                    by_hand.setdefault(settled(game, ex, bits)[0] & ~bits, []).append(row)
                assert {bg: rows.tolist() for bg, rows in frames.groups.items()} == by_hand, (t, p, q)
                grouped += 1
                several += len(by_hand) > 1
    assert grouped > 20 and several > 0  # the later deals did split some partner's offers
