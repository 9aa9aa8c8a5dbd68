"""A scenario compiled once into arrays.

Cells (player, action) are numbered player-major; a commitment state is a Python int bitmask over the
cells (bit c set = cell c committed).  Every per-offer computation is then a handful of numpy
operations over precomputed per-player option tables, instead of deep copies and Python loops.
Section numbers (§) are docs/reference.md's.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations, pairwise

import numpy as np

from negtui.engine.cache import MB, BoundedCache, nbytes
from negtui.engine.issues import IssueTable, compile_issues
from negtui.engine.rules import Rules
from negtui.scenario.model import Scenario

INFO_CACHE_BYTES = 256 * MB  # per game: what every evaluation at a state needs (payoff.StateInfo)
VIEW_CACHE_BYTES = 128 * MB  # per game: the goals each pair of players can touch


def _info_bytes(info) -> int:
    # the lower lens adds four (N, J) arrays of who still owes what to the entry's memo later, the
    # offer search two (N, J) arrays of lens terms per lens, and a learned forecast 21 floats a player
    return nbytes(info.x, info.counts, info.lost) + 9 * info.owes.nbytes + 21 * 8 * len(info.owes)


def _views_bytes(views) -> int:
    return sum(nbytes(v.index, v.d, v.tau, v.binary, v.G, v.mult_tau, v.mult_d) for v in views)


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
    position: dict[int, int]  # local bitmask -> index of that option


@dataclass(frozen=True)
class GoalView:
    """Goal parameters of a subset of goals; offer search works on the goals an offer can touch."""

    index: np.ndarray  # (J',) goal indices
    d: np.ndarray
    tau: np.ndarray
    binary: np.ndarray
    any_binary: bool
    G: np.ndarray  # (J', N)
    scale: float  # Game.scale
    mult_tau: np.ndarray  # scale / tau
    mult_d: np.ndarray  # scale / d


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
    schedule: np.ndarray  # proposer per turn; under simultaneous rules, every proposal in order (the turns take
    # them `starts[t]:starts[t+1]`)
    budget: int
    unilateral: bool
    options: list[PlayerOptions] = field(repr=False)
    info_cache: BoundedCache = field(default_factory=lambda: BoundedCache(INFO_CACHE_BYTES, _info_bytes),
                                     repr=False)  # bits -> payoff.StateInfo
    view_cache: BoundedCache = field(default_factory=lambda: BoundedCache(VIEW_CACHE_BYTES, _views_bytes),
                                     repr=False)  # (p, q) -> goal views
    exclusion_index: object = field(default=None, repr=False)  # exclusion.Exclusions, built on first use
    # simultaneous turns (engine/simultaneous.py): where each turn's proposers begin in `schedule`, and the end;
    # None: one proposer a turn
    starts: np.ndarray | None = field(default=None, repr=False)
    # the issues the goals settle (engine/issues.py), read by the lenses; None: the scenario declares none
    issues: IssueTable | None = field(default=None, repr=False)

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
        return len(self.schedule) if self.starts is None else len(self.starts) - 1

    @property
    def simultaneous(self) -> bool:
        return self.starts is not None

    def proposer(self, t: int) -> int:
        """Who proposes at turn t (0 <= t < T): the one place the schedule is read by turn (under simultaneous
        rules, the turn's first proposer: `proposers` gives them all)."""
        return int(self.schedule[t if self.starts is None else int(self.starts[t])])

    def proposers(self, t: int) -> tuple[int, ...]:
        """Every proposer of turn t, in the order their accepted offers are applied."""
        if self.starts is None:
            return (int(self.schedule[t]),)
        return self._turn_proposers[t]

    @cached_property
    def _turn_proposers(self) -> tuple[tuple[int, ...], ...]:
        """Each simultaneous turn's proposers, read from the schedule once (a turn's search asks for them at
        every step)."""
        assert self.starts is not None
        starts = [int(x) for x in self.starts]
        return tuple(tuple(int(p) for p in self.schedule[a:b]) for a, b in pairwise(starts))

    def position(self, t: int) -> int:
        """Proposals made before turn t (t itself with one proposer a turn): where a turn stands in the
        order every player proposes in, which rounds are counted in."""
        if self.starts is None:
            return min(t, len(self.schedule))
        return int(self.starts[min(t, len(self.starts) - 1)])

    @property
    def rounds(self) -> int:
        """Rounds of the schedule, the last one possibly short (an explicit schedule)."""
        return -(-len(self.schedule) // self.n) if self.n else 0

    def round_of(self, t: int) -> int:
        """The round (from 1) that turn t belongs to; the last round for the end of the game."""
        return min(self.position(t) // self.n + 1, self.rounds) if self.n else 0

    @cached_property
    def owner(self) -> np.ndarray:
        return np.repeat(np.arange(self.n), self.m)

    @cached_property
    def cell_groups(self) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in range(self.n_cells)]
        for g, cells in enumerate(self.groups):
            for c in cells:
                out[int(c)].append(g)
        return out

    @cached_property
    def any_binary(self) -> bool:
        return bool(self.binary.any())

    @cached_property
    def scale(self) -> float:
        """A common multiple L of every threshold and requirement count.

        Satisfaction is computed as L·s_j, an integer for integer counts, so payoffs and lens values of
        integer-valued games are sums of integers: exact in float64, independent of summation order
        and BLAS build, and mathematically equal values compare equal.  Values are divided by L once,
        at the end.  Beyond 1e9 (huge goals) plain floats are used."""
        L = 1
        for v in set(self.tau.tolist()) | set(self.d.tolist()):
            L = math.lcm(L, max(int(v), 1))
        return float(L) if L <= 1_000_000_000 else 1.0

    @cached_property
    def mult_tau(self) -> np.ndarray:
        return self.scale / self.tau

    @cached_property
    def mult_d(self) -> np.ndarray:
        return self.scale / self.d

    def view(self, index: np.ndarray) -> GoalView:
        return GoalView(index, self.d[index], self.tau[index], self.binary[index], bool(self.binary[index].any()),
                        self.G[index], self.scale, self.mult_tau[index],
                        self.mult_d[index])

    @cached_property
    def all_goals(self) -> GoalView:
        return self.view(np.arange(self.n_goals))

    def pair_views(self, p: int, q: int) -> tuple[GoalView, GoalView]:
        """Goals an offer between p and q can change (own cells, or cells sharing an exclusive set
        with theirs), and the rest, whose lens terms are the same for every such offer."""
        key = (min(p, q), max(p, q))
        hit = self.view_cache.get(key)
        if hit is None:
            cells = [c for c in range(self.n_cells) if int(self.owner[c]) in (p, q)]
            touched = set(cells)
            for c in cells:
                for g in self.cell_groups[c]:
                    touched.update(int(x) for x in self.groups[g])
            rel = self.inc[sorted(touched)].any(axis=0)
            hit = self.view_cache.put(key, (self.view(np.flatnonzero(rel)), self.view(np.flatnonzero(~rel))))
        return hit

    def cell_pair(self, c: int) -> tuple[str, str]:
        """(player id, action id): how records and agents name a commitment, unambiguous whatever the ids hold."""
        i = int(self.owner[c])
        return self.player_ids[i], self.scenario.players[i].actions[c - int(self.offset[i])].id

    def cell_name(self, c: int) -> str:
        """'PLAYER.ACTION', for people to read (not unique when ids contain dots)."""
        return ".".join(self.cell_pair(c))

    @cached_property
    def cell_index(self) -> dict[tuple[str, str], int]:
        return {self.cell_pair(c): c for c in range(self.n_cells)}

    @cached_property
    def _by_name(self) -> dict[str, int | None]:
        """'PLAYER.ACTION' -> cell, None where two cells read the same (format 1 records used these names)."""
        out: dict[str, int | None] = {}
        for c in range(self.n_cells):
            name = self.cell_name(c)
            out[name] = None if name in out else c
        return out

    def bits_of(self, cells) -> int:
        """Bitmask of cells given as [player, action] pairs (or, from format 1 records, 'PLAYER.ACTION'
        names); raises GameError naming the first unknown or ambiguous one."""
        bits = 0
        for cell in cells:
            if isinstance(cell, str):
                c = self._by_name.get(cell, -1)
                if c is None:
                    raise GameError(f"the commitment name {cell!r} is ambiguous in this scenario")
            else:
                c = self.cell_index.get(tuple(cell), -1)
            if c < 0:
                raise GameError(f"unknown commitment {'.'.join(cell) if not isinstance(cell, str) else cell!r}")
            bits |= 1 << c
        return bits

    def pairs_of(self, bits: int) -> list[list[str]]:
        """The cells of a bitmask as [player, action] lists, as JSON writes them."""
        return [list(self.cell_pair(c)) for c in self.cells_of(bits)]

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


def turn_starts(schedule: Sequence[int], k: int) -> list[int]:
    """Where each simultaneous turn begins in the sequential schedule, and the end: the schedule is read in
    order and a turn takes the next proposers until it has k, or until the next one already proposes in it
    (an explicit schedule may name a player twice in a row), so every player proposes as often as in the
    sequential game, and in the same order.  With k = 1 every turn is the sequential game's turn."""
    starts = [0]
    current: set[int] = set()
    for pos, p in enumerate(schedule):
        if len(current) == k or p in current:
            starts.append(pos)
            current = set()
        current.add(int(p))
    starts.append(len(schedule))
    return starts if schedule else [0]


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
    position = {int(b): x for x, b in enumerate(local)}
    return PlayerOptions(local, bits64, tuple(bits), size, delta, member, consistent, position)


def _check_budget(sc: Scenario, budget: int) -> None:
    from pydantic import ValidationError

    from negtui.scenario.io import problems_from_validation

    data = sc.model_dump(mode="json")
    data["protocol"]["budget"] = budget
    try:
        Scenario.model_validate(data)
    except ValidationError as err:
        raise GameError(f"budget {budget}: {problems_from_validation(err)[0].message}") from None


def compile_game(sc: Scenario, rules: Rules, budget: int | None = None) -> Game:
    """Arrays for the engine.  `budget` overrides the scenario's protocol (within the same limits)."""
    if budget is not None and budget != sc.protocol.budget:
        _check_budget(sc, budget)
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
    if (refusal := rules.refusal(sc)) is not None:
        raise GameError(refusal)
    proto = sc.protocol
    k = budget if budget is not None else proto.budget
    if proto.schedule is not None:
        sched = [index[p] for p in proto.schedule]
    else:
        sched = round_robin(N, sc.rounds_played(rules.max_rounds), proto.seed)
    cell_groups: list[list[int]] = [[] for _ in range(S)]
    for gi, cells in enumerate(groups):
        for c in cells:
            cell_groups[int(c)].append(gi)
    options = [_player_options(S, int(m[i]), int(offset[i]), k, inc, groups, cell_groups) for i in range(N)]
    starts = None
    if rules.simultaneous:
        starts = np.array(turn_starts(sched, rules.proposers_for(N)), dtype=np.int64)
    return Game(
        scenario=sc, player_ids=pid, m=m, offset=offset, G=G, inc=inc, d=d, tau=tau, binary=binary,
        groups=groups, schedule=np.array(sched, dtype=np.int64), budget=k, unilateral=proto.unilateral,
        options=options, starts=starts, issues=compile_issues(sc, cell, G),
    )
