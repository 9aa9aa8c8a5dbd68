"""One role's confidential instructions: what its seat knows under private information, as a page to hand
out.  Everything here is read from the engine's observation of the seat at the start of the game and from
the seat's picture of the game (engine.knowledge), and from the party's own scoresheet where the case is one:
never from the game itself, so nothing of another role's values can reach the page."""

from __future__ import annotations

from dataclasses import dataclass, replace

from negtui.cases.terms import GOAL, NAME, action_words, names, number, rules, takes, title
from negtui.engine.baseline import no_negotiation
from negtui.engine.knowledge import SeatSheet, seat_negotiation
from negtui.engine.negotiation import Negotiation
from negtui.engine.observation import observation
from negtui.names import cut
from negtui.scenario.scoresheets.compile import COMPILED, settled_when

PRIVATE = "private"  # a role sheet is what its seat knows when information is private, whatever the class plays


@dataclass(frozen=True)
class ValueRow:
    goal: str  # its label as the seat reads it (the public label, where the scenario gives one)
    takes: str
    yours: float
    published: list[tuple[str, str]]  # (whose value, "between a and b"): what every party is told


@dataclass(frozen=True)
class Party:
    name: str
    you: bool
    actions: list[str]


@dataclass(frozen=True)
class RoleSheet:
    case: str  # the case's title
    role: str  # the seat's name
    description: list[str]  # paragraphs
    walk_away: float  # the seat's payoff if nobody negotiates, as far as it can tell
    values: list[ValueRow]
    parties: list[Party]
    rules: list[str]
    sheet: SeatSheet | None = None  # a scoresheet's party: its issues, options, points, reservation value
    agreement: str = ""  # a scoresheet's rule, in words


def paragraphs(text: str, sheet: bool = False) -> list[str]:
    """A description's paragraphs, each on one line; `sheet`: a scoresheet's scenario's, without the paragraph
    compiling adds (how goals model the agreement rule: the pages say the rule in the sheet's terms)."""
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()
            and not (sheet and p.startswith(COMPILED))]


def _range(low: float, high: float) -> str:
    return f"between {number(low)} and {number(high)}"


def role_sheet(neg: Negotiation, player: int, sheet: SeatSheet | None = None) -> RoleSheet:
    """The sheet of `player`'s role; `sheet`: the party's own scoresheet (`knowledge.seat_sheet`), for a case
    written as one (its page lists the sheet's options, not the goals they compile to)."""
    picture = seat_negotiation(neg, player, PRIVATE).game
    sc = picture.scenario
    shown = names(sc)
    you = sc.player_ids[player]
    texts = action_words(sc)
    parties = [Party(shown[i], i == player, texts[i]) for i in range(len(sc.players))]
    page = RoleSheet(case=title(sc), role=shown[player], description=paragraphs(sc.description, sheet is not None),
                     walk_away=float(no_negotiation(picture, neg.rules).payoffs[player]), values=[], parties=parties,
                     rules=rules(picture, sheet is not None))
    if sheet is not None:
        named = {pid: cut(name, NAME) for pid, name in sheet.parties}
        agreement = settled_when(sheet.quorum, list(named.values()), [named[v] for v in sheet.vetoes])
        return replace(page, case=sheet.title, sheet=sheet, agreement=agreement)
    seen = observation(neg, neg.initial_state(), player, PRIVATE)
    who = dict(zip(sc.player_ids, shown, strict=True))
    values = []
    for goal, known in zip(sc.goals, seen["goals"], strict=True):
        published = [(who[pid], _range(low, high)) for pid, (low, high) in known.get("ranges", {}).items()]
        if you in goal.ranges:
            published.insert(0, ("you", _range(*goal.ranges[you])))
        values.append(ValueRow(cut(known["label"] or goal.id, GOAL), takes(sc, goal), known["values"].get(you, 0.0),
                               published))
    return replace(page, values=values)
