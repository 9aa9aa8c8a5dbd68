"""The teaching note: everything about a case a trainer reads before and after the class.  Every role and its
values; the welfare optimum (utilitarian: the largest sum of payoffs, and whether the solver proved it
optimal within its time); the No-Negotiation baseline; the exact solution (subgame-perfect, by backward
induction) where the game is small enough; and the game each lens bot plays when it sits in every seat.
Each takes bounded time: the MILP has `WELFARE_SECONDS`, the exact solver refuses a game past
`EXACT_STATES`, and a lens game is as long as the scenario's limits allow."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from negtui.agents.options import AgentOptions
from negtui.agents.seating import Seating
from negtui.cases.roles import paragraphs
from negtui.cases.terms import commitments, goal_labels, names, number, rules, settled, title
from negtui.engine.baseline import no_negotiation
from negtui.engine.exact import ExactTooLarge, check_size
from negtui.engine.exact import solve as exact_solve
from negtui.engine.negotiation import Negotiation
from negtui.engine.outcome import AUTO_EXACT_LIMIT
from negtui.engine.payoff import payoffs
from negtui.engine.turns import TurnDriver
from negtui.engine.vocabulary import CLOSED_FORM_LENSES
from negtui.names import cut
from negtui.scenario.model import Scenario
from negtui.scenario.scoresheets import Scoresheet
from negtui.scenario.scoresheets.table import Points
from negtui.seats import Seat, default_seats

WELFARE_SECONDS = 30.0
LENS_SECONDS = 60.0  # a lens game's time; one still under way then is shown as it stands, and said to be
EXACT_STATES = AUTO_EXACT_LIMIT  # turns × 2^commitments the exact solver is asked to go through at most
LENS_WORDS = {
    "myopic": "counts only what is already committed",
    "upper": "expects every goal still in reach to be completed (optimistic)",
    "lower": "expects only what those who must act can be relied on to complete (cautious)",
}


@dataclass(frozen=True)
class Result:
    """One way the game can end: each player's payoff and what was committed."""

    title: str
    explains: str
    payoffs: list[float]
    bits: int
    commitments: list[tuple[str, list[str]]]
    stopped: str = ""  # a lens game that ran out of time: where it stood
    settled: list[tuple[str, str]] = field(default_factory=list)  # a scoresheet's: (issue, option or "left open")
    points: list[float] = field(default_factory=list)  # a scoresheet's: each party's points of the options settled

    @property
    def total(self) -> float:
        return sum(self.payoffs)


@dataclass(frozen=True)
class RoleValues:
    name: str
    values: list[tuple[str, float, str]]  # goal, value, the range published ("" where none)
    walk_away: float  # its No-Negotiation payoff
    reservation: float | None = None  # a scoresheet's party


@dataclass(frozen=True)
class SheetIssue:
    label: str
    rows: list[tuple[str, list[float]]]  # option, each party's points


@dataclass
class TeachingNote:
    case: str
    description: list[str]
    lesson: list[str]
    players: list[str]
    roles: list[RoleValues]
    rules: list[str]
    information: str
    baseline: Result
    optimum: Result | None
    optimum_words: str
    exact: Result | None
    exact_words: str
    lenses: list[Result]
    issues: list[SheetIssue] = field(default_factory=list)  # a scoresheet's points, every party's
    agreement: str = ""

    @property
    def results(self) -> list[Result]:
        return [r for r in (self.optimum, self.exact, self.baseline, *self.lenses) if r is not None]

    @property
    def short_players(self) -> list[str]:
        return [cut(p, 24) for p in self.players]


class _Words:
    """What a result settled, in a scoresheet's terms where the case is one."""

    def __init__(self, neg: Negotiation, sheet: Scoresheet | None, points: Points | None):
        self.neg, self.sheet, self.points = neg, sheet, points

    def result(self, title: str, explains: str, pay: list[float], bits: int, stopped: str = "") -> Result:
        game = self.neg.game
        if self.sheet is None or self.points is None:
            return Result(title, explains, pay, bits, commitments(game, bits), stopped)
        chosen = settled(self.sheet, game, bits)
        labels = {(i.id, o.id): o.label or o.id for i in self.sheet.issues for o in i.options}
        words = [(i.label or i.id, labels[(i.id, x)] if (x := chosen[i.id]) is not None else "left open")
                 for i in self.sheet.issues]
        got = [float(sum(self.points[(i, x)][p] for i, x in chosen.items() if x is not None))
               for p in self.sheet.party_ids]
        return Result(title, explains, pay, bits, commitments(game, bits), stopped, words, got)


def _roles(sc: Scenario, neg: Negotiation, sheet: Scoresheet | None) -> list[RoleValues]:
    base = no_negotiation(neg.game, neg.rules).payoffs
    labels = goal_labels(sc)
    out = []
    for i, p in enumerate(sc.players):
        values = []
        for j, goal in enumerate(sc.goals):
            v = goal.values.get(p.id, 0)
            low_high = goal.ranges.get(p.id)
            if v or low_high:
                told = "" if low_high is None else f"{number(low_high[0])} to {number(low_high[1])}"
                values.append((labels[j], float(v), told))
        reservation = float(sheet.parties[i].reservation) if sheet is not None else None
        out.append(RoleValues(names(sc)[i], values, float(base[i]), reservation))
    return out


def _optimum(neg: Negotiation, words: _Words) -> tuple[Result | None, str]:
    from negtui.welfare import WelfareOptions, solve_welfare

    res = solve_welfare(neg.game, neg.rules, 0, WelfareOptions(objective="utilitarian", time_limit=WELFARE_SECONDS))
    if res.payoffs is None or res.bits is None:
        return None, f"No welfare optimum: {res.message or res.status}."
    solver = {"highs": "HiGHS", "cbc": "CBC"}.get(res.solver, res.solver)
    proven = (f"proven optimal by the {solver} solver" if res.proven_optimal else
              f"the best the solver found in {WELFARE_SECONDS:g} s, not proven optimal")
    return (words.result("welfare optimum", "the largest sum of payoffs any play can reach", res.payoffs, res.bits),
            f"The largest sum of payoffs over every set of commitments the rules allow ({proven}); where several "
            "reach it, the commitments shown are one of them.")


def _exact(neg: Negotiation, words: _Words) -> tuple[Result | None, str]:
    game = neg.game
    try:
        check_size(game, EXACT_STATES)
        sol = exact_solve(game, neg.rules, linearise=neg.rules.exact_linearised, limit=EXACT_STATES)
    except ExactTooLarge as err:
        return None, f"No exact solution: {err}."
    path = sol.path()
    bits = path[-1].mask if path else 0
    return (words.result("exact solution", "every player looks ahead perfectly (subgame-perfect play)",
                         [float(v) for v in payoffs(game, bits)], bits),
            f"Subgame-perfect play, solved by backward induction over {sol.states:,} states: every player knows "
            "every value and looks ahead to the end of the game.")


def _lens_game(neg: Negotiation, lens: str, information: str, words: _Words) -> Result:
    seats = list(default_seats(neg.game.player_ids, Seat(), lens).values())
    deadline = time.monotonic() + LENS_SECONDS
    with Seating(neg, seats, AgentOptions(information=information)) as seating:
        final = TurnDriver(neg, seating.agents).play_out(cancelled=lambda: time.monotonic() > deadline)
    stopped = "" if final.t >= neg.game.T else (f"stopped after {LENS_SECONDS:g} s, {final.t} of {neg.game.T} turns "
                                                "played: the commitments and payoffs as they stood")
    article = "an" if lens[0] in "aeiou" else "a"
    return words.result(f"{lens} bots", f"every seat {article} {lens} bot, which {LENS_WORDS[lens]}",
                        [float(v) for v in neg.returns(final)], final.bits, stopped)


def teaching_note(neg: Negotiation, information: str = "private", sheet: Scoresheet | None = None,
                  points: Points | None = None) -> TeachingNote:
    """The note of the game `neg` (its full scenario: the note is the trainer's); its lens games played under
    `information`, as the class plays."""
    sc, game = neg.game.scenario, neg.game
    words = _Words(neg, sheet, points)
    base = no_negotiation(game, neg.rules)
    optimum, optimum_words = _optimum(neg, words)
    exact, exact_words = _exact(neg, words)
    issues, agreement = [], ""
    if sheet is not None and points is not None:
        from negtui.scenario.scoresheets.compile import settled_when

        issues = [SheetIssue(i.label or i.id, [(o.label or o.id, [float(points[(i.id, o.id)][p])
                                                                 for p in sheet.party_ids]) for o in i.options])
                  for i in sheet.issues]
        display = {p.id: p.name or p.id for p in sheet.parties}
        agreement = settled_when(sheet.quorum, [display[p] for p in sheet.party_ids],
                                 [display[v] for v in sheet.agreement.vetoes])
    return TeachingNote(
        case=sheet.title if sheet is not None else title(sc),
        description=paragraphs(sc.description, sheet is not None),
        lesson=paragraphs(sc.lesson), players=names(sc), roles=_roles(sc, neg, sheet),
        rules=rules(game, sheet is not None),
        information=information,
        baseline=words.result("No-Negotiation baseline", "each player commits alone what pays it on its own",
                              [float(v) for v in base.payoffs], base.bits),
        optimum=optimum, optimum_words=optimum_words, exact=exact, exact_words=exact_words,
        lenses=[_lens_game(neg, lens, information, words) for lens in CLOSED_FORM_LENSES],
        issues=issues, agreement=agreement)


__all__ = ["EXACT_STATES", "LENS_SECONDS", "LENS_WORDS", "WELFARE_SECONDS", "Result", "RoleValues", "TeachingNote",
           "teaching_note"]
