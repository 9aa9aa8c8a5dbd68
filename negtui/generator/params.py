"""Parameters of the random game generator, checked once when they are built.

The checks mirror the reference generator's (docs/reference.md §2.2; every § below is its) so that a
parameter set the reference rejects is rejected here too, with a one-line message that names the
parameter, plus the checks for the fields the reference does not have (payoff name, rounds, budget, rules,
seed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from negtui.scenario import limits as lim

Structure = Literal["cooperative", "adversarial"]
Payoff = Literal["balanced", "positive", "negative"]
Rules = Literal["paper", "reference"]

STRUCTURES: tuple[str, ...] = ("cooperative", "adversarial")
PAYOFFS: tuple[str, ...] = ("balanced", "positive", "negative")
RULES: tuple[str, ...] = ("paper", "reference")
MAX_TASTE = 1e6  # latent tastes this large already make every value an extreme; larger ones overflow
ACTION_DRAW = 0x41637473  # mixed with the seed for the draw of action counts, a stream of its own
#: Target range [t_min, t_max] of G for each payoff shift (§2.3 step 1).
SHIFT_RANGES: dict[str, tuple[int, int]] = {
    "balanced": (-20, 20),
    "positive": (-8, 30),
    "negative": (-30, 8),
}


class GeneratorError(ValueError):
    """Parameters the generator cannot turn into a game; the message is one line meant for the user.
    `option` is the parameter at fault where one is (then the message reads "budget: must be …" and `words`
    is what follows the name), so a command line and a form can each name it as they spell it."""

    def __init__(self, message: str, option: str | None = None):
        super().__init__(f"{option}: {message}" if option else message)
        self.option, self.words = option, message


@dataclass(frozen=True)
class GeneratorParams:
    """Every axis of the paper's generator, plus the protocol the generated scenario carries.

    Defaults are the reference sweep's small games (main.py: N = 10, J = 15, one action each, R = 5, k = 2).
    `actions` is one count for every player or one count per player; a list is stored as a tuple so the
    parameters stay hashable.  With `actions_up_to`, each player's count is drawn uniformly from
    `actions`…`actions_up_to` by the seed (the paper's "1–2 actions" small games), from a stream of its
    own: the game's values and goal kinds are drawn as with fixed counts.
    """

    players: int = 10
    actions: int | tuple[int, ...] = 1
    actions_up_to: int | None = None
    goals: int = 15
    factors: int = 5
    structure: Structure = "adversarial"
    payoff: Payoff = "balanced"
    all_or_nothing: float = 0.0
    zipf: float = 1.6
    poison_pill: bool = False
    rounds: int = 5
    budget: int = 2
    seed: int = 0
    rules: Rules = "paper"
    # beyond the paper's axes (None / 0: the paper's generator, draw for draw): the players' latent tastes
    # N(mean, sd) instead of the structure's, the value range instead of the payoff regime's, and the share of
    # values set to zero (from a stream of its own), so that a game can take the sign structure of another
    taste: tuple[float, float] | None = None
    values: tuple[int, int] | None = None
    zero_fraction: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.actions, int):
            object.__setattr__(self, "actions", tuple(self.actions))
        for name in ("taste", "values"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, tuple(getattr(self, name)))
        check_params(self)

    @property
    def value_range(self) -> tuple[int, int]:
        return self.values if self.values is not None else SHIFT_RANGES[self.payoff]

    @property
    def shaped(self) -> bool:
        """Whether a parameter beyond the paper's axes is set."""
        return self.taste is not None or self.values is not None or self.zero_fraction > 0

    @property
    def action_counts(self) -> tuple[int, ...]:
        """m_i for every player, in player order (the reference's dict insertion order)."""
        if isinstance(self.actions, int):
            if self.actions_up_to is not None:
                draw = np.random.default_rng([self.seed, ACTION_DRAW])
                return tuple(int(m) for m in draw.integers(self.actions, self.actions_up_to + 1, size=self.players))
            return (self.actions,) * self.players
        return tuple(self.actions)

    @property
    def actions_text(self) -> str:
        """How the command line spells `actions`: 1, 1-2, or 1,2,1."""
        if isinstance(self.actions, int):
            return f"{self.actions}" if self.actions_up_to is None else f"{self.actions}-{self.actions_up_to}"
        return ",".join(map(str, self.actions))

    def as_dict(self) -> dict[str, object]:
        """JSON-ready copy, for the scenario's provenance (`meta.generator`)."""
        out: dict[str, object] = {
            "players": self.players,
            "actions": self.actions if isinstance(self.actions, int) else list(self.actions),
            "goals": self.goals,
            "factors": self.factors,
            "structure": self.structure,
            "payoff": self.payoff,
            "all_or_nothing": self.all_or_nothing,
            "zipf": self.zipf,
            "poison_pill": self.poison_pill,
            "rounds": self.rounds,
            "budget": self.budget,
            "seed": self.seed,
            "rules": self.rules,
        }
        if self.actions_up_to is not None:  # only then: the provenance of fixed counts stays as it was
            out["actions_up_to"] = self.actions_up_to
            out["action_counts"] = list(self.action_counts)
        if self.taste is not None:  # likewise: set only beyond the paper's axes
            out["taste"] = list(self.taste)
        if self.values is not None:
            out["values"] = list(self.values)
        if self.zero_fraction:
            out["zero_fraction"] = self.zero_fraction
        return out


def parse_actions(text: str) -> tuple[int | tuple[int, ...], int | None]:
    """`actions` and `actions_up_to` from their spelling: 5, 1,2,1 or 1-2; ValueError for anything else."""
    text = text.strip()
    if "," in text:
        return tuple(int(a) for a in text.split(",")), None
    low, dash, high = text.partition("-")
    if dash:
        if not (low.strip().isdigit() and high.strip().isdigit()):
            raise ValueError(f"not LOW-HIGH: {text!r}")
        return int(low), int(high)
    return int(text), None


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def check_counts(actions: Sequence[int], n_goals: int, k_factors: int) -> None:
    """Sizes, in the reference's order: action counts, players, factors, goals (§2.2 steps 1, 3-5)."""
    if any(not _is_int(m) or m < 1 for m in actions):
        raise GeneratorError(f"every player needs at least 1 action (got action counts {list(actions)})")
    if len(actions) < 3:
        raise GeneratorError(f"a generated game needs at least 3 players (got {len(actions)})")
    if not _is_int(k_factors) or not 1 <= k_factors <= n_goals:
        raise GeneratorError(f"factors must be between 1 and the number of goals {n_goals} (got {k_factors})")
    if not _is_int(n_goals) or n_goals < 3:
        raise GeneratorError(f"a generated game needs at least 3 goals (got {n_goals})")


def check_profile(structure: str, payoff: str, binary_fraction: float, zipf_a: float) -> None:
    """The profile fields: names and ranges (§2.2 step 6; the reference maps unknown shifts to balanced,
    we refuse them so that a typo is not silently a different game)."""
    if structure not in STRUCTURES:
        raise GeneratorError(f"structure must be one of {', '.join(STRUCTURES)} (got {structure!r})")
    if payoff not in PAYOFFS:
        raise GeneratorError(f"payoff must be one of {', '.join(PAYOFFS)} (got {payoff!r})")
    if not 0.0 <= binary_fraction <= 1.0:  # also rejects NaN
        raise GeneratorError(f"all_or_nothing is a fraction of goals and must be in [0, 1] (got {binary_fraction})")
    if not zipf_a > 1.0 or math.isinf(zipf_a):  # also rejects NaN
        raise GeneratorError(f"zipf must be a finite number greater than 1 (got {zipf_a})")


def check_params(p: GeneratorParams) -> None:
    """All checks for a parameter set; the generator's own checks first, in the reference's order, except
    that the sizes past negtui's limits are refused before anything is drawn for them."""
    if not _is_int(p.players) or p.players < 1:
        raise GeneratorError(f"players must be a positive integer (got {p.players!r})")
    _within("players", p.players, 3, lim.MAX_PLAYERS, low_checked=True)
    ranged = p.actions_up_to is not None
    if ranged and not (_is_int(p.actions) and _is_int(p.actions_up_to) and 1 <= p.actions <= p.actions_up_to):  # type: ignore[operator]
        raise GeneratorError(f"a range of actions is LOW-HIGH with 1 <= LOW <= HIGH (got {p.actions_text})")
    given = [p.actions, p.actions_up_to] if isinstance(p.actions, int) else list(p.actions)
    for m in given:
        if _is_int(m) and m > lim.MAX_ACTIONS:  # type: ignore[operator]
            raise GeneratorError(f"must be between 1 and {lim.MAX_ACTIONS} per player (got {m})", "actions")
    counts = p.action_counts
    if len(counts) != p.players:
        raise GeneratorError(f"actions lists {len(counts)} counts but there are {p.players} players")
    _within("goals", p.goals, 3, lim.MAX_GOALS, low_checked=True)
    check_counts(counts, p.goals, p.factors)
    check_profile(p.structure, p.payoff, p.all_or_nothing, p.zipf)
    if p.rules not in RULES:
        raise GeneratorError(f"rules must be one of {', '.join(RULES)} (got {p.rules!r})")
    _within("rounds", p.rounds, 1, lim.MAX_ROUNDS)
    _within("budget", p.budget, 1, lim.MAX_BUDGET)
    if not _is_int(p.seed) or not 0 <= p.seed <= lim.MAX_SEED:
        raise GeneratorError(f"must be a whole number from 0 to {lim.MAX_SEED} (got {p.seed!r})", "seed")
    check_shape(p.taste, p.values, p.zero_fraction)
    check_size(counts, p.goals, p.rounds, p.budget)


def _within(option: str, value: object, low: int, high: int, low_checked: bool = False) -> None:
    """A whole number in [low, high], or a GeneratorError naming the option and the range (`low_checked`: a
    value below is left to the reference's own check and message, which comes later)."""
    if not _is_int(value) or value > high or (value < low and not low_checked):  # type: ignore[operator]
        raise GeneratorError(f"must be between {low} and {high} (got {value!r})", option)


def check_size(counts: Sequence[int], goals: int, rounds: int, budget: int) -> None:
    """The limits that depend on several parameters (negtui.scenario.limits, as a scenario file is checked):
    the game's length and the offer search's size, so that a game past them is refused before it is made."""
    turns = rounds * len(counts)
    if turns > lim.MAX_TURNS:
        raise GeneratorError(f"{rounds} rounds of {len(counts)} players make {turns:,} turns; the limit is "
                             f"{lim.MAX_TURNS:,}: fewer rounds or players", "rounds")
    sets = lim.options(max(counts), budget)
    if sets > lim.MAX_OPTIONS:
        raise GeneratorError(f"{max(counts)} actions with a budget of {budget} give {sets:,} possible sets in one "
                             f"offer; the limit is {lim.MAX_OPTIONS:,}: a smaller budget or fewer actions", "budget")
    work = lim.offer_work(list(counts), budget, goals, exclusive=False)  # generated games have no exclusive sets
    if work > lim.MAX_OFFER_WORK:
        raise GeneratorError(f"the offer search would evaluate {work:,} offer × goal terms for one pair of players "
                             f"(the limit is {lim.MAX_OFFER_WORK:,}): fewer actions, a smaller budget or fewer goals")


def check_shape(taste: tuple[float, float] | None, values: tuple[int, int] | None, zero_fraction: float) -> None:
    """The parameters beyond the paper's axes."""
    if taste is not None and (len(taste) != 2 or not all(math.isfinite(x) and abs(x) <= MAX_TASTE for x in taste)
                              or not taste[1] > 0):
        raise GeneratorError(f"MEAN,SD of the players' latent tastes, with SD above 0, both within ±{MAX_TASTE:g} "
                             f"(got {taste})", "taste")
    if values is not None and (len(values) != 2 or not all(_is_int(v) for v in values) or not values[0] < values[1]
                               or max(abs(v) for v in values) > 10_000):
        raise GeneratorError(f"LOW,HIGH, integers with LOW < HIGH, within ±10000 (got {values})", "values")
    if not 0.0 <= zero_fraction < 1.0:  # also rejects NaN
        raise GeneratorError(f"the share of values set to zero, in [0, 1) (got {zero_fraction})", "zero_fraction")
