"""What role sheets and the teaching note both say of a game: numbers, what a goal takes, how the turns
run, and what a scoresheet's game settled, in words people read on paper (names, never ids)."""

from __future__ import annotations

import re

import numpy as np

from negtui.engine.game import Game
from negtui.engine.payoff import satisfaction, state_info
from negtui.names import cut, goal_names
from negtui.scenario.model import Goal, Scenario
from negtui.scenario.scoresheets import Scoresheet, settlement_terms

NAME = 80  # characters of a player's name on a page (a name can be 100,000 long)
ACTION = 200  # of an action's words
GOAL = 300  # of a goal's label
TAKES = 1_000  # of what a goal takes, every commitment it needs said
ORDER_SHOWN = 24  # turns of an order without a pattern listed one by one
MAX_ROLES = 100  # roles of a case with printed sheets: each sheet names every party
MAX_GOALS = 500  # goals of a case with printed sheets: each sheet has a row for each


class TooLarge(ValueError):
    """A case too large to print for people: the message says what is over and the limit."""


def check_size(sc: Scenario, sheet: bool = False) -> None:
    """Refuse (TooLarge) a case whose pages would not be read on paper; `sheet`: a scoresheet's, whose pages list
    its options rather than its goals."""
    if len(sc.players) > MAX_ROLES:
        raise TooLarge(f"{sc.name}: {len(sc.players):,} roles; role sheets are printed for cases of at most "
                       f"{MAX_ROLES} roles")
    if len(sc.goals) > MAX_GOALS and not sheet:
        raise TooLarge(f"{sc.name}: {len(sc.goals):,} goals; role sheets list every goal, for cases of at most "
                       f"{MAX_GOALS}")


def number(v: float) -> str:
    """A value as a sheet prints it: an integer as one, else to 6 significant places (no float noise)."""
    v = float(v)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{v:z.6g}"


def share(part: float, whole: float | None) -> str:
    """`part` as a share of `whole` ("85%"), or "" where the whole is no number to divide by."""
    if whole is None or abs(whole) < 1e-9:
        return ""
    return f"{part / whole:.0%}"


def title(sc: Scenario) -> str:
    """The case's name as a title: a name written as an id ("private-car-sale") in words ("Private car sale")."""
    if re.fullmatch(r"[a-z0-9]+([-_][a-z0-9]+)+", sc.name):
        words = re.sub(r"[-_]+", " ", sc.name)
        return words[0].upper() + words[1:]
    return sc.name


def names(sc: Scenario) -> list[str]:
    """Every player by the name people call it (its id where it has none)."""
    return [cut(p.display, NAME) for p in sc.players]


def goal_labels(sc: Scenario, public: bool = False) -> list[str]:
    """Every goal as people read it (its label, else its id); `public`: as a seat that knows only its own
    values reads it."""
    return [cut(x, GOAL) for x in goal_names(sc, public)]


def action_words(sc: Scenario) -> list[list[str]]:
    """Per player, per action: its label in full (its id where it has none), as a page has room for."""
    return [[cut(" ".join(a.label.split()) or a.id, ACTION) for a in p.actions] for p in sc.players]


def takes(sc: Scenario, goal: Goal) -> str:
    """What a goal needs, in words: "all of: Buyer: pay 15; Seller: deliver the car"."""
    who = dict(zip(sc.player_ids, names(sc), strict=True))
    texts = action_words(sc)
    index = {(p.id, a.id): texts[i][k] for i, p in enumerate(sc.players) for k, a in enumerate(p.actions)}
    by_player: dict[str, list[str]] = {}
    for ref in goal.requires:
        by_player.setdefault(ref.player, []).append(index[(ref.player, ref.action)])
    listed = cut("; ".join(f"{who[pid]}: {', '.join(acts)}" for pid, acts in by_player.items()), TAKES)
    n = len(goal.requires)
    k = goal.threshold or n
    if goal.kind == "all_or_nothing":
        head = "all of" if k == n else f"any {k} of these {n}"
    else:
        head = "each counts in part" + ("" if k == n else f", in full with any {k} of these {n}")
    return f"{head}: {listed}" if n > 1 else listed


def turn_order(game: Game) -> str:
    """Who proposes when, by name: one round's order where every round repeats it, else the turns listed."""
    shown = names(game.scenario)
    order = [int(p) for p in game.schedule]
    n = game.n
    first = order[:n]
    if len(order) > n and all(order[k] == first[k % n] for k in range(len(order))):
        return (f"{len(order)} proposals, in {game.rounds} rounds of this order: "
                + ", ".join(shown[p] for p in first) + ".")
    listed = ", ".join(shown[p] for p in order[:ORDER_SHOWN])
    more = f", … ({len(order) - ORDER_SHOWN} more)" if len(order) > ORDER_SHOWN else ""
    return f"{len(order)} proposals, in this order: {listed}{more}."


def rules(game: Game, sheet: bool = False) -> list[str]:
    """How the game runs, a line each; `sheet`: a scoresheet's game, in its terms (options backed)."""
    out = [turn_order(game)]
    if game.simultaneous:
        out.append(f"The game has {game.T} turns; the proposers of a turn make their offers at once, and accepted "
                   "offers are applied in the order given (one that conflicts with an earlier one is void).")
    if sheet:
        out.append("On a turn the proposer picks a partner and proposes options for both to back (at most "
                   f"{game.budget} each); the partner accepts or rejects. Each party backs at most one option of "
                   "each issue, and backing binds for the rest of the game.")
    else:
        out.append("On a turn the proposer picks a partner and offers new commitments of both (at most "
                   f"{game.budget} each); the partner accepts or rejects. Accepted commitments bind for the rest of "
                   "the game; payoffs are paid at the end.")
    if not game.unilateral:
        out.append("Nobody may commit alone: every offer goes to another party.")
    for cells in [] if sheet else game.groups:
        bits = sum(1 << int(c) for c in cells)
        listed = cut("; ".join(f"{who}: {', '.join(acts)}" for who, acts in commitments(game, bits)), TAKES)
        out.append(f"At most one of these may ever be committed: {listed}.")
    return out


def commitments(game: Game, bits: int) -> list[tuple[str, list[str]]]:
    """Per player (by name) the commitments of `bits` it made, in full words; players who made none left out."""
    texts = action_words(game.scenario)
    who = names(game.scenario)
    out: dict[int, list[str]] = {}
    for c in game.cells_of(bits):
        i = int(game.owner[c])
        out.setdefault(i, []).append(texts[i][c - int(game.offset[i])])
    return [(who[i], out[i]) for i in sorted(out)]


def settled(sheet: Scoresheet, game: Game, bits: int) -> dict[str, str | None]:
    """Per issue id, the option id a scoresheet's game settled it on by the commitments `bits` (None: left
    open), read from its goals as the sheet compiles them: per option, the terms of the agreement rule in
    order, which add up to 1 exactly when the rule is met (scoresheets.compile)."""
    terms = settlement_terms(sheet.party_ids, list(sheet.agreement.vetoes), sheet.quorum)
    sat = satisfaction(game, state_info(game, bits).counts)
    coefficients = np.array([c for c, _, _ in terms], dtype=float)
    out: dict[str, str | None] = {}
    k = 0
    for issue in sheet.issues:
        out[issue.id] = None
        for option in issue.options:
            if float(coefficients @ sat[k * len(terms):(k + 1) * len(terms)]) > 0.5:
                out[issue.id] = option.id
            k += 1
    return out
