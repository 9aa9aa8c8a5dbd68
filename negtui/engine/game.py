"""A scenario compiled once into arrays.

Cells (player, action) are numbered player-major; a commitment state is a Python int bitmask over the
cells (bit c set = cell c committed).  Every per-offer computation is then a handful of numpy
operations over precomputed per-player option tables, instead of deep copies and Python loops.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations

import numpy as np

from negtui.engine.rules import Rules
from negtui.scenario.model import Scenario


class GameError(ValueError):
    """A scenario the engine cannot play under the chosen rules."""


@dataclass(frozen=True)
class PlayerOptions:
    """Every subset of a player's own cells of size <= budget, in the reference enumeration order.

    The order is ascending binary value of the player's row with action 0 as most significant bit,
    which equals the lexicographic order of the absolute rows the reference enumerates (§3.5), and
    is also the order restricted to any set of still-free cells.
    """

    local: np.ndarray  # (K,) int64: bitmask over the player's own actions (bit a = action a)
    bits64: np.ndarray | None  # (K,) int64 global bitmasks when the game has at most 62 cells
    bits: tuple[int, ...]  # (K,) global bitmasks (Python ints; games may exceed 64 cells)
    size: np.ndarray  # (K,) number of cells
    delta: np.ndarray  # (K, J) float: required cells of each goal this subset adds
    group_member: np.ndarray  # (K, L) int: 1 + index within the group of the cell it commits, 0 if none
    consistent: np.ndarray  # (K,) bool: at most one cell per exclusive group


@dataclass(eq=False)
class Game:
    scenario: Scenario
    player_ids: list[str]
    m: np.ndarray  # (N,) actions per player
    offset: np.ndarray  # (N+1,) first cell of each player
    G: np.ndarray  # (J, N) float64 goal values
    inc: np.ndarray  # (S, J) float64 0/1 cell-goal incidence
    d: np.ndarray  # (J,) required cells per goal
    tau: np.ndarray  # (J,) threshold per goal
    binary: np.ndarray  # (J,) bool all-or-nothing
    groups: list[np.ndarray]  # exclusive sets, as arrays of cells
    schedule: np.ndarray  # (T,) proposer per turn
    budget: int
    unilateral: bool
    options: list[PlayerOptions] = field(repr=False)
    info_cache: dict = field(default_factory=dict, repr=False)  # bits -> payoff.StateInfo

    @property
    def n(self) -> int:
        return len(self.m)

    @property
    def n_cells(self) -> int:
        return int(self.offset[-1])

    @property
    def n_goals(self) -> int:
        return self.G.shape[0]

    @property
    def T(self) -> int:
        return len(self.schedule)

    @cached_property
    def owner(self) -> np.ndarray:
        return np.repeat(np.arange(self.n), self.m)

    @cached_property
    def player_mask(self) -> list[int]:
        return [((1 << int(self.m[i])) - 1) << int(self.offset[i]) for i in range(self.n)]

    @cached_property
    def owner_inc(self) -> np.ndarray:
        """(N, J): required cells of each goal owned by each player."""
        out = np.zeros((self.n, self.n_goals))
        np.add.at(out, self.owner, self.inc)
        return out

    @cached_property
    def cell_groups(self) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in range(self.n_cells)]
        for g, cells in enumerate(self.groups):
            for c in cells:
                out[int(c)].append(g)
        return out

    @cached_property
    def group_lost(self) -> list[np.ndarray]:
        """Per group, (members+1, J): required cells of each goal made uncommittable by the group's
        state (row 0: group open, so all but one of its cells in a goal; row k: member k-1 committed)."""
        out = []
        for cells in self.groups:
            r = self.inc[cells]  # (members, J)
            per_goal = r.sum(axis=0)
            rows = [np.maximum(per_goal - 1, 0)] + [per_goal - r[k] for k in range(len(cells))]
            out.append(np.array(rows))
        return out

    def cell_name(self, c: int) -> str:
        i = int(self.owner[c])
        a = c - int(self.offset[i])
        return f"{self.player_ids[i]}.{self.scenario.players[i].actions[a].id}"

    def cells_of(self, bits: int) -> list[int]:
        out, c = [], 0
        while bits:
            if bits & 1:
                out.append(c)
            bits >>= 1
            c += 1
        return out

    def row(self, bits: int, i: int) -> int:
        return (bits >> int(self.offset[i])) & ((1 << int(self.m[i])) - 1)

    def index_of(self, player_id: str) -> int:
        try:
            return self.player_ids.index(player_id)
        except ValueError:
            raise GameError(f"unknown player {player_id!r}; players are {', '.join(self.player_ids)}") from None


def round_robin(n: int, rounds: int, seed: int) -> list[int]:
    """The reference turn order: one seeded shuffle of 0..n-1, repeated every round (§3.1)."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return order * rounds


def _player_options(S_total: int, m: int, offset: int, budget: int, inc: np.ndarray,
                    groups: list[np.ndarray], cell_groups: list[list[int]]) -> PlayerOptions:
    subsets: list[tuple[int, ...]] = []
    for r in range(min(budget, m) + 1):
        subsets.extend(combinations(range(m), r))
    # ascending binary value with action 0 as the most significant bit
    subsets.sort(key=lambda s: sum(1 << (m - 1 - a) for a in s))
    k, J, L = len(subsets), inc.shape[1], len(groups)
    local = np.zeros(k, dtype=np.int64)
    size = np.zeros(k, dtype=np.int64)
    delta = np.zeros((k, J))
    member = np.zeros((k, L), dtype=np.int64)
    consistent = np.ones(k, dtype=bool)
    bits = []
    for x, s in enumerate(subsets):
        b = 0
        for a in s:
            c = offset + a
            b |= 1 << c
            local[x] |= 1 << a
            delta[x] += inc[c]
            for g in cell_groups[c]:
                if member[x, g]:
                    consistent[x] = False
                member[x, g] = int(np.flatnonzero(groups[g] == c)[0]) + 1
        bits.append(b)
        size[x] = len(s)
    bits64 = np.array(bits, dtype=np.int64) if offset + m <= 62 and S_total <= 62 else None
    return PlayerOptions(local, bits64, tuple(bits), size, delta, member, consistent)


def compile_game(sc: Scenario, rules: Rules, budget: int | None = None) -> Game:
    """Arrays for the engine.  `budget` overrides the scenario's protocol."""
    pid = [p.id for p in sc.players]
    index = {p: i for i, p in enumerate(pid)}
    m = np.array([len(p.actions) for p in sc.players], dtype=np.int64)
    offset = np.concatenate([[0], np.cumsum(m)]).astype(np.int64)
    cell = {(p.id, a.id): int(offset[i]) + k for i, p in enumerate(sc.players) for k, a in enumerate(p.actions)}
    S, J, N = int(offset[-1]), len(sc.goals), len(pid)
    inc = np.zeros((S, J))
    G = np.zeros((J, N))
    tau = np.zeros(J, dtype=np.int64)
    binary = np.zeros(J, dtype=bool)
    for j, g in enumerate(sc.goals):
        for ref in g.requires:
            inc[cell[(ref.player, ref.action)], j] = 1.0
        for p, v in g.values.items():
            G[j, index[p]] = v
        tau[j] = g.threshold if g.threshold is not None else len(g.requires)
        binary[j] = g.kind == "all_or_nothing"
    d = inc.sum(axis=0).astype(np.int64)
    groups = [np.array([cell[(r.player, r.action)] for r in grp], dtype=np.int64) for grp in sc.exclusive]
    if not rules.allows_thresholds_and_exclusions:
        if groups:
            raise GameError("the reference rule set has no exclusive sets; play this scenario with --rules paper")
        if np.any(tau != d):
            raise GameError("the reference rule set has no goal thresholds; play this scenario with --rules paper")
    proto = sc.protocol
    k = budget if budget is not None else proto.budget
    if proto.schedule is not None:
        sched = [index[p] for p in proto.schedule]
    else:
        r = proto.rounds
        if rules.max_rounds is not None:
            r = min(r, rules.max_rounds)
        sched = round_robin(N, r, proto.seed)
    cell_groups: list[list[int]] = [[] for _ in range(S)]
    for gi, cells in enumerate(groups):
        for c in cells:
            cell_groups[int(c)].append(gi)
    options = [_player_options(S, int(m[i]), int(offset[i]), k, inc, groups, cell_groups) for i in range(N)]
    return Game(
        scenario=sc, player_ids=pid, m=m, offset=offset, G=G, inc=inc, d=d, tau=tau, binary=binary,
        groups=groups, schedule=np.array(sched, dtype=np.int64), budget=k, unilateral=proto.unilateral,
        options=options,
    )
