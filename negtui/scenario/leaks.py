"""Words that give values away: a goal's label, an action's label (or the scenario's description) that names a
player together with what the goal does to it ("poison: P2 gains, P1 is harmed", "Alice values a book at 2",
"P0 action 1 (added for the poison pill)").  Under private
information every seat reads a goal's public label (or its label when it has none), so `negtui validate` warns
where one could tell a seat another player's values; a description that does is left out of what such a seat
reads (engine.knowledge)."""

from __future__ import annotations

import re

from negtui.scenario.model import Scenario

VALUE_WORDS = re.compile(
    r"\b(gain|gains|gained|benefit|benefits|benefited|harm|harms|harmed|hurt|hurts|lose|loses|profit|profits|pays|"
    r"suffer|suffers|wins|wants|fears|values|valued|likes|hates|favou?rs|payoff|payoffs)\b", re.IGNORECASE)
# words of a game's design that say whom it harms: an action "added for the poison pill" names the pill's receiver
DESIGN_WORDS = re.compile(r"\b(poison|poisons|bait|baits|trap|traps|trapped)\b", re.IGNORECASE)
CLAUSE = re.compile(r"[.;:!?]\s")


def _names(sc: Scenario) -> list[str]:
    return sorted({p.id for p in sc.players} | {p.name for p in sc.players if p.name}, key=len, reverse=True)


def tells(sc: Scenario, text: str) -> str | None:
    """The player a clause of `text` names beside a word of gain or harm, if one does."""
    names = _names(sc)
    for clause in CLAUSE.split(text):
        if VALUE_WORDS.search(clause):
            who = next((n for n in names if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", clause)), None)
            if who is not None:
                return who
    return None


def action_tells(sc: Scenario, owner: str, text: str) -> str | None:
    """The player an action's label gives away: one named beside a word of the game's design (a pill, a
    bait, a trap), or another player than the owner named beside a gain or harm ("A pays its share" says
    only what A's action is)."""
    names = _names(sc)
    for clause in CLAUSE.split(text):
        design, value = DESIGN_WORDS.search(clause), VALUE_WORDS.search(clause)
        if not (design or value):
            continue
        own = {owner} | _own(sc, owner)
        for n in names:
            if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", clause) and (design or n not in own):
                return n
    return None


def _own(sc: Scenario, owner: str) -> set[str]:
    return {p.name for p in sc.players if p.id == owner and p.name}


def leaks(sc: Scenario) -> list[tuple[str, str]]:
    """(JSON path, warning) for each text a seat reads under private information that names a player beside a
    word of gain or harm."""
    out = []
    for j, goal in enumerate(sc.goals):
        if not goal.public_label and (who := tells(sc, goal.label)):
            out.append((f"$.goals[{j}].label", f"{goal.label!r} names {who} beside a gain or harm, and under private "
                                               "information every seat reads it: give the goal a public_label"))
        elif goal.public_label and (who := tells(sc, goal.public_label)):
            out.append((f"$.goals[{j}].public_label", f"{goal.public_label!r} names {who} beside a gain or harm"))
    for i, player in enumerate(sc.players):
        for k, action in enumerate(player.actions):
            if (who := action_tells(sc, player.id, action.label)):
                out.append((f"$.players[{i}].actions[{k}].label",
                            f"{action.label!r} names {who} beside a gain, harm or trap, which every seat would read: "
                            "under private information it is shown as "
                            f"'{player.id} action {k}'"))
    if (who := tells(sc, sc.description)):
        out.append(("$.description", f"names {who} beside a gain or harm: under private information no seat is "
                                     "shown it"))
    return out
