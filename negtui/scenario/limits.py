"""negtui's documented size limits, checked when a scenario (or a record's) is validated.

They keep every game negtui accepts playable in bounded time and memory on an ordinary machine: the
offer search evaluates every joint offer of two players on the goals they touch at once, so its
arrays grow with (options of p) × (options of q) × goals (× players where exclusive sets are).
A file that breaks a limit is refused with the limit named, never half-played."""

from __future__ import annotations

from math import comb

MAX_PLAYERS = 500
MAX_ACTIONS = 64  # per player
MAX_GOALS = 5_000
MAX_EXCLUSIVE = 10_000  # exclusive sets
MAX_ROUNDS = 10_000
MAX_TURNS = 100_000  # rounds × players, or the length of an explicit schedule
MAX_BUDGET = 64
MAX_SEED = 2**63 - 1  # a 64-bit integer, as numpy and every reader of a file take it
MAX_ABS_VALUE = 1e12  # a goal's value to a player
MAX_OPTIONS = 50_000  # one player's possible new-commitment sets in one offer
# (offers between the two players with most options) × goals (× players with exclusive sets)
MAX_OFFER_WORK = 10_000_000
MAX_ID = 200  # characters of an id
MAX_TEXT = 100_000  # characters of a name, label, description or lesson

# files
MAX_SCENARIO_BYTES = 32 * 2**20
MAX_RECORD_BYTES = 512 * 2**20
MAX_DEPTH = 64  # JSON nesting
MAX_TABLE_BYTES = 4 * 2**20  # a CSV table beside a scoresheet (its points)
MAX_CELL = 1_000  # characters of one cell of a CSV table (a points table, a roster): an id, a name, a number


def options(actions: int, budget: int) -> int:
    """How many sets of at most `budget` new commitments a player with `actions` actions can offer."""
    return sum(comb(actions, r) for r in range(min(budget, actions) + 1))


def offer_work(action_counts: list[int], budget: int, goals: int, exclusive: bool) -> int:
    top = sorted((options(m, budget) for m in action_counts), reverse=True)[:2]
    pair = top[0] * (top[1] if len(top) > 1 else 1)
    return pair * goals * (len(action_counts) if exclusive else 1)
