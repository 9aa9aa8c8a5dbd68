"""The lenses on a game that declares its issues (negtui.scenario.issues): an issue read as one goal whose
options exclude one another, instead of its settling goals read one by one.

Goal by goal, the optimistic lens counts every reachable option of an issue as won, and each goal of an
option with a positive coefficient once more: on a scoresheet's quorum with a veto it forecast 165 where
the best package is worth 60.  Here, for player i at a state P (docs/design.md §2, with a goal read as an
issue):

- `upper` (optimistic completion): R_i(P) plus, for every issue not yet settled, the most i can still get
  from it: the best value to i of the options still reachable (an option is reachable if committing every
  cell of its goals not ruled out settles it), or nothing where every one is a loss.
- `lower` (credible threats): R_i(P) plus, for every issue not yet settled, the worst harm to i that is
  credible: an option worth less than nothing to i that the other players who value it at 0 or more settle
  without i (i's own cells left open, those who would lose by it never joining).

An issue is worth, under either lens, the value of one of its options or nothing, so a forecast lies
between the worst and the best that the options still open allow: never above the best package.  Goals
that are part of no option or exit keep the paper's terms.  A player with an exit (a walk-away) that has
left forecasts its payoff as it is (it no longer changes); while it can still leave, its forecast is at
least what leaving would leave it.  The myopic and exact lenses, payoffs and every solver are unchanged.

The per-goal arrays are the same as the closed-form lenses' (counts, required cells ruled out, cells each
player still owes), for one state or a batch of candidate offers, so the forecasts and the offer search
read one formula.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from negtui.scenario.model import Scenario

NONE, FREE, LEFT = 0, 1, 2  # a player's exit: none or blocked, still open, taken


@dataclass(frozen=True)
class IssueTable:
    C: np.ndarray  # (J, E) each goal's coefficient in the settling of each option (0: not one of its goals)
    V: np.ndarray  # (E, N) what each option, settled, is worth to each player
    lead: np.ndarray  # (E,) one goal of each option, whose values over its coefficient are the option's
    lead_coef: np.ndarray  # (E,)
    starts: np.ndarray  # (I,) the first option of each issue (options are numbered issue by issue)
    covered: np.ndarray  # (J,) goals that settle an option or keep an exit's payoff fixed
    willing: np.ndarray  # (N, J) whether each player values the option a goal settles at 0 or more
    exit_cell: np.ndarray  # (N,) each player's exit, -1 where it has none
    issue_ids: tuple[str, ...]
    option_ids: tuple[tuple[str, str], ...]  # (issue id, option id) per option


def compile_issues(sc: Scenario, cell: dict[tuple[str, str], int], G: np.ndarray) -> IssueTable | None:
    """The issue table of a scenario that declares issues (validated: every goal all-or-nothing, its values
    its coefficient times the option's), else None."""
    if not sc.issues and not sc.exits:
        return None
    index = {g.id: j for j, g in enumerate(sc.goals)}
    J, N = G.shape
    options = [(issue, option) for issue in sc.issues for option in issue.options]
    C = np.zeros((J, len(options)))
    lead = np.zeros(len(options), dtype=np.int64)
    lead_coef = np.ones(len(options))
    for e, (_, option) in enumerate(options):
        for k, (gid, c) in enumerate(option.goals.items()):
            C[index[gid], e] = c
            if k == 0:
                lead[e], lead_coef[e] = index[gid], c
    V = G[lead] / lead_coef[:, None] if options else np.zeros((0, N))
    starts = np.cumsum([0] + [len(issue.options) for issue in sc.issues])[:len(sc.issues)].astype(np.int64)
    covered = (C != 0).any(axis=1)
    for ex in sc.exits:
        covered[[index[gid] for gid in ex.goals]] = True
    willing = np.ones((N, J), dtype=bool)
    if options:
        settling = (C != 0).any(axis=1)
        willing[:, settling] = (V[np.argmax(C[settling] != 0, axis=1)] >= 0).T
    players = [p.id for p in sc.players]
    exit_cell = np.full(N, -1, dtype=np.int64)
    for ex in sc.exits:
        exit_cell[players.index(ex.player)] = cell[(ex.player, ex.action)]
    return IssueTable(C, V, lead, lead_coef, starts, covered, willing, exit_cell,
                      tuple(i.id for i in sc.issues), tuple((i.id, o.id) for i, o in options))


def settled(table: IssueTable, scaled_s: np.ndarray, scale: float) -> np.ndarray:
    """(..., E) whether each option is settled, from the goals' scaled satisfactions (..., J)."""
    return np.rint(scaled_s @ table.C / scale) >= 1


def option_values(table: IssueTable, g: np.ndarray) -> np.ndarray:
    """What each option is worth to a player whose goal values are `g` (..., J): (..., E)."""
    return g[..., table.lead] / table.lead_coef


def remainder(table: IssueTable, lens: str, holds: np.ndarray, reach: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The issues' part of a lens value beyond the realised payoff: (…, O), for options settled `holds`
    (O, E), options `reach` (O, E) the lens may count (reachable; credible harms), and the option values `v`
    (…, 1, E) or (E,) of the player."""
    if table.starts.size == 0:
        return np.zeros(np.broadcast_shapes(holds.shape, np.shape(v))[:-1])
    decided = np.maximum.reduceat(holds, table.starts, axis=-1)  # (O, I)
    if lens == "upper":
        best = np.maximum.reduceat(np.where(reach, np.maximum(v, 0.0), 0.0), table.starts, axis=-1)
        return (best * ~decided).sum(axis=-1)
    worst = np.minimum.reduceat(np.where(reach & (v < 0), v, 0.0), table.starts, axis=-1)
    return (worst * ~decided).sum(axis=-1)


def credible(table: IssueTable, tau: np.ndarray, counts: np.ndarray, owes: np.ndarray, i: int) -> np.ndarray:
    """(O, E) whether each option would be settled if every other player that values it at 0 or more
    committed its cells of it still free, for counts (O, J) and every player's owed cells (O, N, J)."""
    willing = table.willing.copy()
    willing[i] = False
    completed = counts + np.einsum("onj,nj->oj", owes, willing.astype(float))
    return np.rint((completed >= tau) @ table.C) >= 1


def reachable(table: IssueTable, d: np.ndarray, tau: np.ndarray, lost: np.ndarray) -> np.ndarray:
    """(O, E) whether each option can still be settled: committing every cell of its goals not ruled out."""
    return np.rint(((d - lost) >= tau) @ table.C) >= 1


def exit_state(table: IssueTable, i: int, committed: np.ndarray, blocked: np.ndarray) -> np.ndarray:
    """Player i's exit for states whose exit cell is `committed` / `blocked` (arrays of bools)."""
    if table.exit_cell[i] < 0:
        return np.zeros(np.shape(committed), dtype=np.int8)
    return np.where(committed, LEFT, np.where(blocked, NONE, FREE)).astype(np.int8)
