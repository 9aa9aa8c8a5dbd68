"""The two rule sets, and variants of them.

Every place where negtui's default rules (`paper`) and the reproduction of the public reference
implementation (`reference`) differ is one named switch here, so engine code reads
``if rules.offer_ties_last:`` rather than ``if compat:``.  The switches are documented where they are
declared; docs/reference.md gives the background of each (the section numbers below are its).

A variant turns switches on or off by name, for ablations: ``paper+lower_reference_credibility`` is the
`paper` rules with the reference's credibility rule for the lower lens, ``reference-mcts_leaf_myopic``
the reference with the searcher's lens value at MCTS leaves.  `get_rules` reads that spelling anywhere
a rule set is named (the command line, sweep specs, courses); the variant's name is its canonical
spelling (switches that change something, sorted), and records carry the whole rule set as always.

One setting is not a difference between the two rule sets but another protocol, spelled the same way:
``paper+simultaneous`` plays several proposers in each turn (docs/simultaneous.md), half the players
rounded down and at least two; ``paper+simultaneous=3`` three of them.  The reference implementation has
no such turns, so `reference+simultaneous` is refused.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict

if TYPE_CHECKING:
    from negtui.scenario.model import Scenario

RuleName = Literal["paper", "reference"]


@dataclass(frozen=True)
class Rules:
    """A rule set: its name and every switch.  Records and bot processes carry the whole object
    (`as_dict`, validated back by pydantic), so a variant made with `with_` plays the same anywhere."""

    __pydantic_config__ = ConfigDict(extra="forbid")

    name: str
    # --- lenses -------------------------------------------------------------------------------------
    # upper: remaining value uses the linear progress c/d for every goal and ignores reachability
    # (§4 note 1), instead of the type-correct satisfaction of reachable goals.
    upper_linear_remainder: bool
    # lower: the reference's "lower_tighter": adds the full G[j,i] of every credible harm, counts
    # harms only the player itself can complete as credible, ignores committed and zero-valued
    # contributors (§4 note 3).  Off: credible threats per docs/design.md §2.
    lower_reference_credibility: bool
    # --- offers ---------------------------------------------------------------------------------------
    # Ties between proposer values go to the LAST acceptable offer in enumeration order, compared with
    # a 1e-10 slack that drifts (§3.4).  Off: `offer_ties_realised`, then fewer new cells,
    # then lowest index.
    offer_ties_last: bool
    # Slack allowed when the partner compares an offer with rejecting (reference: exact float >=).
    accept_tolerance: float
    # The no-op offer counts as an accepted deal (reference: rejections never happen).
    noop_is_deal: bool
    # --- partner search -------------------------------------------------------------------------------
    # MCTS leaf value is the myopic payoff R(P) rather than the searcher's lens vector.
    mcts_leaf_myopic: bool
    # MCTS expands partners N-1 first, so ties go to the highest partner index.
    mcts_expand_descending: bool
    # --- exact solver, baseline, metrics ----------------------------------------------------------------
    # `negtui solve` treats every goal as linear (main.py's "True solution", §5.1).
    exact_linearised: bool
    # Exact solver ties: reject, then lowest partner, then first offer in enumeration order, all by
    # exact float comparison.  Off: the offer-search tie rules (tolerance, fewer cells, lowest index).
    exact_reference_ties: bool
    # No-Negotiation baseline: one accumulating linear pass with strict float > (§6).
    baseline_linear_accumulating: bool
    # Regret toggles cells both ways with linear goals (§5.2) instead of adding one more
    # own commitment with type-correct goals.
    regret_linear_toggle: bool
    # Rounds are capped at 10, as in the reference runner.
    max_rounds: int | None
    # The reference knows neither thresholds below |R_j| nor exclusive sets.
    allows_thresholds_and_exclusions: bool
    # --- generator ------------------------------------------------------------------------------------
    generator: Literal["paper", "reference"]
    # --- added later (a default keeps the rules of records written before them) --------------------------
    # Offers of equal lens value to the proposer: the higher realised (myopic) payoff to the proposer
    # first, then fewer new cells, then the lowest index (paper since negtui 0.3.0).  Off: fewer
    # cells first, with which an `upper` proposer never gains from a deal and offers nothing.
    offer_ties_realised: bool = False
    # The exact solver breaks ties as the offer search does under `offer_ties_realised`: equal values go to
    # the proposer's higher payoff right after the deal (paper since negtui 0.3.0).  Off: fewer
    # cells first, so that part of a lens's L1 error against the solution was the two tie rules differing.
    exact_ties_realised: bool = False
    # --- protocol (not a difference between paper and reference: PROTOCOL_SETTINGS) ----------------------
    # Several proposers per turn, each offering against the commitments at the start of the turn; the
    # accepted offers are applied in proposer order and one that conflicts with an earlier one is void
    # (engine/simultaneous.py, docs/simultaneous.md).  Off in every record written before it.
    simultaneous: bool = False
    # Proposers per simultaneous turn; None: half the players, rounded down, at least two.
    proposers_per_turn: int | None = None

    def __post_init__(self) -> None:
        if not 0.0 <= self.accept_tolerance < 1.0:  # also refuses NaN
            raise ValueError(f"accept_tolerance must be in [0, 1), not {self.accept_tolerance!r}")
        if self.max_rounds is not None and self.max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, not {self.max_rounds!r}")
        if self.proposers_per_turn is not None and (not self.simultaneous or self.proposers_per_turn < 1):
            raise ValueError("proposers_per_turn is a number of at least 1, and only with simultaneous turns")
        if self.simultaneous and self.name.startswith("reference"):
            raise ValueError(REFERENCE_NOT_SIMULTANEOUS)

    def with_(self, **changes: object) -> Rules:
        return replace(self, **changes)  # type: ignore[arg-type]

    def accepts(self, accept, reject):
        """The partner's acceptance rule: an offer worth at least rejecting, within the tolerance
        (works on arrays of values too)."""
        return accept >= reject - self.accept_tolerance

    def as_dict(self) -> dict[str, object]:
        """Every switch; the protocol settings only where they are on, so that the rule sets of games with one
        proposer a turn are written as they always were (records, bot processes, outside agents' hello)."""
        out = asdict(self)
        for name, default in PROTOCOL_SETTINGS.items():
            if out[name] == default:
                del out[name]
        return out

    def proposers_for(self, n: int) -> int:
        """Proposers in each turn of an n-player game: 1 in a sequential game."""
        if not self.simultaneous:
            return 1
        return self.proposers_per_turn if self.proposers_per_turn is not None else max(2, n // 2)

    def refusal(self, sc: Scenario) -> str | None:
        """Why this rule set cannot play a scenario, or None.  Read from the scenario alone, so a command
        or the app refuses before compiling anything."""
        n = len(sc.players)
        if self.simultaneous and self.proposers_for(n) > n:
            return (f"the {self.name} rules have {self.proposers_for(n)} proposers in each turn, and this scenario "
                    f"has {n} player{'s' * (n != 1)}; simultaneous turns need at least two players, and at most one "
                    "proposer per player (give fewer with +simultaneous=K)")
        if self.allows_thresholds_and_exclusions:
            return None
        if sc.exclusive:
            return f"the {self.name} rule set has no exclusive sets; play this scenario with --rules paper"
        if any(g.threshold is not None and g.threshold != len(g.requires) for g in sc.goals):  # no cell twice
            return f"the {self.name} rule set has no goal thresholds; play this scenario with --rules paper"
        return None


PAPER = Rules(
    name="paper",
    upper_linear_remainder=False,
    lower_reference_credibility=False,
    offer_ties_last=False,
    accept_tolerance=1e-9,
    noop_is_deal=False,
    mcts_leaf_myopic=False,
    mcts_expand_descending=False,
    exact_linearised=False,
    exact_reference_ties=False,
    baseline_linear_accumulating=False,
    regret_linear_toggle=False,
    max_rounds=None,
    allows_thresholds_and_exclusions=True,
    generator="paper",
    offer_ties_realised=True,
    exact_ties_realised=True,
)

REFERENCE = Rules(
    name="reference",
    upper_linear_remainder=True,
    lower_reference_credibility=True,
    offer_ties_last=True,
    accept_tolerance=0.0,
    noop_is_deal=True,
    mcts_leaf_myopic=True,
    mcts_expand_descending=True,
    exact_linearised=True,
    exact_reference_ties=True,
    baseline_linear_accumulating=True,
    regret_linear_toggle=True,
    max_rounds=10,
    allows_thresholds_and_exclusions=False,
    generator="reference",
)

RULES: dict[str, Rules] = {"paper": PAPER, "reference": REFERENCE}

# Slack within which two proposer values count as tied (paper rules).
VALUE_TIE = 1e-9
# The reference offer search's slack on the proposer's running maximum.
REFERENCE_SLACK = 1e-10


# settings of the protocol that a variant turns on like a switch, and their values when off
PROTOCOL_SETTINGS: dict[str, object] = {"simultaneous": False, "proposers_per_turn": None}
SIMULTANEOUS = "simultaneous"
# the boolean switches where the rule sets differ (a variant's switches)
SWITCHES: tuple[str, ...] = tuple(f.name for f in fields(Rules) if f.type in (bool, "bool")
                                  and f.name not in PROTOCOL_SETTINGS)
_VARIANT = re.compile(r"([+-])([a-z_]+)(?:=([0-9]+))?")
REFERENCE_NOT_SIMULTANEOUS = ("the reference rule set reproduces the reference implementation bit for bit, which has "
                              "one proposer a turn: simultaneous turns play under paper (paper+simultaneous)")


def get_rules(name: str) -> Rules:
    """A rule set by name: `paper`, `reference`, or a variant of either (module docstring)."""
    if name in RULES:
        return RULES[name]
    base_name = next((b for b in RULES if name.startswith(b) and name[len(b):len(b) + 1] in ("+", "-")), None)
    rest = name[len(base_name):] if base_name else ""
    if base_name is None or _VARIANT.sub("", rest):
        raise ValueError(f"unknown rule set {name!r}; choose from {', '.join(RULES)}, or one of them with switches "
                         f"turned on (+) or off (-), e.g. paper+lower_reference_credibility")
    base, changes = RULES[base_name], {}
    for sign, switch, number in _VARIANT.findall(rest):
        if switch == SIMULTANEOUS:
            changes.update(_simultaneous(name, sign, number))
            continue
        if switch not in SWITCHES:
            raise ValueError(f"unknown switch {switch!r} in rule set {name!r}; switches: {', '.join(SWITCHES)}, "
                             f"and the setting {SIMULTANEOUS} (+{SIMULTANEOUS}, +{SIMULTANEOUS}=K)")
        if number:
            raise ValueError(f"the switch {switch!r} in rule set {name!r} takes no number: turn it on (+) or off (-)")
        changes[switch] = sign == "+"
    changed = {k: v for k, v in changes.items() if getattr(base, k) != v}
    if changed.get(SIMULTANEOUS) and base_name == "reference":
        raise ValueError(f"{name}: {REFERENCE_NOT_SIMULTANEOUS}")
    if not changed:
        return base
    names = [("+" if v else "-") + k for k, v in changed.items() if k not in PROTOCOL_SETTINGS]
    if changed.get(SIMULTANEOUS):
        k = changed.get("proposers_per_turn")
        names.append(f"+{SIMULTANEOUS}" + (f"={k}" if k is not None else ""))
    canonical = base_name + "".join(sorted(names, key=lambda x: x[1:]))
    return base.with_(name=canonical, **changed)


def _simultaneous(name: str, sign: str, number: str) -> dict[str, object]:
    """`+simultaneous`, `+simultaneous=K` (K proposers a turn) or `-simultaneous` (one proposer a turn)."""
    if sign == "-":
        if number:
            raise ValueError(f"{name}: a number of proposers goes with +{SIMULTANEOUS}=K")
        return dict(PROTOCOL_SETTINGS)
    k = int(number) if number else None
    if k is not None and k < 1:
        raise ValueError(f"{name}: a simultaneous turn has at least one proposer")
    return {SIMULTANEOUS: True, "proposers_per_turn": k}


def rule_set_name(name: str) -> str:
    """The canonical name of a rule set or variant (ValueError for an unknown one)."""
    return get_rules(name).name


def rules_from(value: str | dict) -> Rules:
    """Rules from a rule-set name or from `Rules.as_dict()`; raises ValueError when invalid."""
    if isinstance(value, str):
        return get_rules(value)
    from pydantic import TypeAdapter, ValidationError

    from negtui.scenario.io import first_problem

    try:
        return TypeAdapter(Rules).validate_python(value)
    except ValidationError as err:
        raise ValueError(f"invalid rules: {first_problem(err, 'rules')}") from None


# switches added after records were first written: a record of a rule set may have them off where the rule set
# has them on today (it was played before they existed), never the other way round
LATER_SWITCHES: tuple[str, ...] = ("offer_ties_realised", "exact_ties_realised")


def name_mismatch(rules: Rules) -> str | None:
    """Why a rule set's name does not say what its switches are, or None.  A record carries both, and
    readers (`replay --print`, reports, comparisons) go by the name: a record named `reference` that plays
    by the paper's switches would be taken for a reference game."""
    try:
        named = get_rules(rules.name)
    except ValueError as err:
        return str(err)
    differ = [f.name for f in fields(Rules) if f.name != "name" and getattr(rules, f.name) != getattr(named, f.name)
              and not (f.name in LATER_SWITCHES and getattr(rules, f.name) is False)]
    if not differ:
        return None
    shown = ", ".join(f"{k}={getattr(rules, k)!r}" for k in differ[:4]) + (" …" if len(differ) > 4 else "")
    return (f"the rule set is named {rules.name!r}, but its switches are not that rule set's ({shown}); the name "
            "of a variant lists its switches, e.g. paper+lower_reference_credibility")
