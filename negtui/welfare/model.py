"""The welfare MILP over all completions of a commitment state (docs/reference.md §7.1, with its
defects fixed: type-correct thresholds, no participation floor unless asked for, exclusive sets).

Variables: x_c ∈ {0,1} for every cell still free (committed cells are the constant 1, blocked cells
the constant 0); per goal the satisfaction s_j with exactly s_j = min(1, c_j/τ_j) for linear goals and
s_j = 1[c_j ≥ τ_j] for all-or-nothing goals; payoffs y_i = Σ_j G[j,i]·s_j.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulp

from negtui.engine.game import Game
from negtui.engine.payoff import state_info


@dataclass
class WelfareModel:
    prob: pulp.LpProblem
    x: dict[int, pulp.LpVariable]  # free cell -> variable
    fixed: int  # bitmask of committed cells
    y: list[pulp.LpAffineExpression]  # payoff of each player


def build_model(game: Game, bits: int = 0, name: str = "welfare") -> WelfareModel:
    """Feasible completions of the state `bits`, with payoff expressions; no objective yet."""
    info = state_info(game, bits)
    prob = pulp.LpProblem(name, pulp.LpMaximize)
    free = [c for c in range(game.n_cells) if not (bits >> c & 1) and not (info.blocked >> c & 1)]
    x = {c: prob.add_variable(f"x_{c}", cat=pulp.LpBinary) for c in free}

    def count(cells: list[int]) -> pulp.LpAffineExpression:
        return pulp.lpSum(x[c] for c in cells if c in x) + sum(1 for c in cells if bits >> c & 1)

    s: list[pulp.LpAffineExpression | float] = []
    for j in range(game.n_goals):
        cells = [int(c) for c in (game.inc[:, j] > 0).nonzero()[0]]
        c_j = count(cells)
        tau, d = int(game.tau[j]), int(game.d[j])
        if game.binary[j]:
            z = prob.add_variable(f"z_{j}", cat=pulp.LpBinary)
            prob += c_j >= tau * z, f"aon_low_{j}"
            prob += c_j <= tau - 1 + (d - tau + 1) * z, f"aon_high_{j}"
            s.append(z)
        elif tau == d:
            s.append((1.0 / tau) * c_j)
        else:
            # s = min(1, c/τ): u marks saturation (c ≥ τ)
            sj = prob.add_variable(f"s_{j}", 0, 1)
            u = prob.add_variable(f"u_{j}", cat=pulp.LpBinary)
            prob += sj <= (1.0 / tau) * c_j, f"lin_le_{j}"
            prob += sj >= (1.0 / tau) * c_j - (d / tau - 1.0) * u, f"lin_ge_{j}"
            prob += sj >= u, f"sat_{j}"
            prob += c_j >= tau * u, f"sat_count_{j}"
            s.append(sj)
    for g, group in enumerate(game.groups):
        members = [int(c) for c in group]
        if any(c in x for c in members):
            prob += count(members) <= 1, f"exclusive_{g}"
    y = [pulp.lpSum(float(game.G[j, i]) * s[j] for j in range(game.n_goals) if game.G[j, i] != 0)
         for i in range(game.n)]
    return WelfareModel(prob, x, bits, [pulp.LpAffineExpression(e) for e in y])


def chosen_bits(model: WelfareModel) -> int:
    bits = model.fixed
    for c, v in model.x.items():
        if v.value() is not None and v.value() > 0.5:
            bits |= 1 << c
    return bits
