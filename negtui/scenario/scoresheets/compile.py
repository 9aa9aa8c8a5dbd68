"""A scoresheet compiled into a scenario of the game family (docs/design.md §1).

The mapping, exactly:

- Players: one per party, with its id and name.
- Actions: a party owns one action per option X of each issue I, id `I.X`: "this party backs X on I".
  A party backs an option in any offer (alone too, unless `unilateral = false`); backing binds, as every
  commitment does.
- Exclusive sets: one per party per issue, its actions on that issue: a party backs at most one option.
- Goals: issue I is *settled on X* once the parties backing X meet the agreement rule: at least k of them
  (the quorum; unanimity by default) and every party with a veto among them.  Without a veto that is one
  all-or-nothing goal requiring every party's `I.X`, threshold k (omitted under unanimity).  "k of n, the
  vetoers among them" is not one threshold, so with vetoes the settlement is a short sum of all-or-nothing
  goals with integer coefficients, +1 and -1 under one veto (`settlement_terms`), that equals 1 exactly
  when the rule is met and 0 otherwise, for every set of backers.  One veto and a quorum of k = n - 1:
  `+[n-1 of all n back X] + [all n back X] - [all n-1 others back X]` (the others alone count for
  nothing); in general a telescoping sum.  Every payoff, the baseline and the welfare optimum are
  therefore exactly the scoresheet's.
- Values: a goal with coefficient c is worth c * (points of X to party i - share of I in i's reservation
  value) to party i.  A party's reservation value is split across the issues in proportion to its stakes
  in each (its best points on the issue; equally where it has none), in integers summing to it exactly
  when every number is an integer (largest remainder, ties to the earlier issue).
- So a party's payoff is the points of the options settled less the shares of the issues settled: with
  every issue settled, the package's points minus the reservation value; with none, 0, the game's
  No-Negotiation baseline, which is walking away.  A payoff reads "points above walking away".  An issue
  left open is worth neither its points nor its share, as if walked away from on its own; with shares in
  proportion to stakes, a party's best option on an issue is worth settling exactly when its best package
  beats walking away (up to the rounding of the shares).
- Walking away: a party with `walk_away = true` also owns the action `walk-away`, in each of its exclusive
  sets, so it may walk away only before it backs any option (backing binds: a party that has backed an
  option is in the deal) and backs nothing after.  Once it has walked away its payoff is 0, its reservation
  value, whatever the others settle: for each option, goals worth minus its value to it alone and
  satisfied exactly when it has walked away and the others settle the option without it (the agreement
  rule among the others with the walk-away as one more vetoer, `leaving_terms`) cancel the option's value
  to it.  A party every settlement needs (a veto, or unanimity) needs none: after it walks away nothing is
  settled, and it has backed nothing settled before.
- The scenario declares its issues (negtui.scenario.issues): each option's goals with their coefficients,
  and each issue's share of every reservation value; and each walk-away as an exit with its cancelling
  goals.  The lenses read an issue as one goal whose options exclude one another (negtui.engine.issues);
  people read the state as issues, options and points (negtui.coach.sheet).
- A quorum of more than half the parties, or a veto, keeps an issue from being settled two ways at once
  (the sheet is refused otherwise).  The protocol (rounds, budget, seed, schedule, unilateral) is the
  sheet's.  Reservation values and points appear nowhere but in the goals' values, so under private
  information a seat knows its own alone.
"""

from __future__ import annotations

import re
from collections import defaultdict
from fractions import Fraction

from negtui.scenario import limits as lim
from negtui.scenario.issues import Exit, IssueOption
from negtui.scenario.issues import Issue as Settled
from negtui.scenario.model import Action, CellRef, Goal, Player, Scenario, limit_problems
from negtui.scenario.scoresheets.model import Issue, Scoresheet
from negtui.scenario.scoresheets.table import Points

Term = tuple[int, tuple[str, ...], int]  # coefficient, the parties counted (in sheet order), threshold
WALK = "walk-away"  # the action of a party that may walk away (no option's action: those hold a dot)
WALK_LABEL = "Walk away and keep the reservation value"
LEAVES = " walks away"  # in leaving_terms, the walk-away as a member of the rule (no party id holds a space)


class TooLarge(ValueError):
    """A scoresheet whose game would break negtui's limits; `path` is where in the sheet to shrink it."""

    def __init__(self, message: str, path: str = "$"):
        super().__init__(message)
        self.path = path


def settlement_terms(parties: list[str], vetoes: list[str], quorum: int, cap: int = lim.MAX_GOALS) -> list[Term]:
    """Terms (c, S, t) with  sum of c * [at least t of S back X]  =  [every vetoer and at least `quorum` parties
    back X], for every set of backers.

    Peel one vetoer x off at a time: with c the count of backers in a set N (size m) and t >= 0,
        x * [c >= t] = sum_{u=t+1}^{m+1} [x + c >= u] - sum_{u=t+1}^{m} [c >= u]
    (for x = 1 both sums telescope to [c >= t], for x = 0 they cancel); the other vetoers' indicator just
    multiplies through.  Start from the non-vetoers with t = quorum - |vetoes|."""
    order = {p: k for k, p in enumerate(parties)}
    vetoers = sorted(set(vetoes), key=order.__getitem__)
    need = quorum - len(vetoers)
    if need <= 0:  # the vetoers alone make the quorum
        return [(1, tuple(vetoers), len(vetoers))]
    state: dict[tuple[frozenset[str], int], int] = {(frozenset(p for p in parties if p not in vetoers), need): 1}
    for x in vetoers:
        nxt: dict[tuple[frozenset[str], int], int] = defaultdict(int)
        for (members, t), c in state.items():
            m = len(members)
            for u in range(t + 1, m + 2):
                nxt[(members | {x}, u)] += c
            for u in range(t + 1, m + 1):
                nxt[(members, u)] -= c
        state = {key: c for key, c in nxt.items() if c}
        if len(state) > cap:
            raise TooLarge(f"{len(vetoers)} parties with a veto and a quorum of {quorum} make more than {cap:,} goals "
                           "per option; fewer vetoes", "$.agreement.vetoes")
    terms = [(c, tuple(sorted(members, key=order.__getitem__)), t) for (members, t), c in state.items()]
    return sorted(terms, key=lambda term: (term[0] < 0, -len(term[1]), term[2], [order[p] for p in term[1]]))


def reservation_shares(sheet: Scoresheet, points: Points) -> dict[str, dict[str, int | float]]:
    """Per party, per issue: the part of its reservation value that settling the issue gives up."""
    out: dict[str, dict[str, int | float]] = {}
    for party in sheet.parties:
        best = [max(points[(i.id, o.id)][party.id] for o in i.options) for i in sheet.issues]
        weights = [Fraction(max(b, 0)) for b in best]
        if sum(weights) == 0:
            weights = [Fraction(1)] * len(best)
        exact = [Fraction(party.reservation) * w / sum(weights) for w in weights]
        whole = isinstance(party.reservation, int) and all(isinstance(points[(i.id, o.id)][party.id], int)
                                                           for i in sheet.issues for o in i.options)
        shares: list[int | float] = [float(x) for x in exact]
        if whole:
            floors = [x.numerator // x.denominator for x in exact]
            left = int(party.reservation) - sum(floors)
            ranked = sorted(range(len(exact)), key=lambda k: (-(exact[k] - floors[k]), k))
            shares = [f + (k in ranked[:left]) for k, f in enumerate(floors)]
        out[party.id] = {i.id: s for i, s in zip(sheet.issues, shares)}
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[: lim.MAX_ID] or "scoresheet"


def _names(ids: tuple[str, ...] | list[str], display: dict[str, str]) -> str:
    names = [display[p] for p in ids]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _term_label(issue: Issue, option_label: str, term: Term, sheet: Scoresheet, display: dict[str, str]) -> str:
    c, members, t = term
    n = len(sheet.parties)
    if len(members) == n:
        who = f"all {n} parties back it" if t == n else f"{t} of the {n} parties back it"
    else:
        who = f"{'all of' if t == len(members) else f'{t} of'} {_names(members, display)} back it"
    text = f"{issue.label or issue.id}: {option_label} — {who}"
    missing = [p for p in sheet.agreement.vetoes if p not in members]
    if c != 1:
        text += f" (counts {c:+d}" + (f": the veto of {_names(missing, display)})" if missing else ")")
    return text


COMPILED = "Compiled from the scoresheet"  # the start of what compiling adds to a scenario's description


def settled_when(quorum: int, parties: list[str], vetoes: list[str]) -> str:
    """The agreement rule in words, the parties by name: "An issue is settled on an option once 3 of the 4
    parties back it, the Authority among them." """
    n = len(parties)
    who = "every party backs it" if quorum == n else f"{quorum} of the {n} parties back it"
    if not vetoes or quorum == n:
        return f"An issue is settled on an option once {who}."
    names = vetoes[0] if len(vetoes) == 1 else ", ".join(vetoes[:-1]) + " and " + vetoes[-1]
    return f"An issue is settled on an option once {who}, {names} among them."


def _rule(sheet: Scoresheet) -> str:
    display = {p.id: p.name or p.id for p in sheet.parties}
    said = settled_when(sheet.quorum, sheet.party_ids, [display[v] for v in sheet.agreement.vetoes])
    if not sheet.agreement.vetoes or sheet.quorum == len(sheet.parties):
        return said
    return (said.removesuffix(".") + ": each option has several goals, some valued with the opposite sign, which "
            "add up to its value exactly when that holds.")


def leaving_terms(sheet: Scoresheet, party: str) -> list[Term]:
    """The terms of "`party` has walked away and the others settle the option without it" (the agreement rule
    among the others, with the walk-away as one more vetoer: `LEAVES` stands for it); none for a party every
    settlement needs (a veto, or unanimity), after whose walk-away nothing is settled."""
    if party in sheet.agreement.vetoes or sheet.quorum == len(sheet.parties):
        return []
    others = [p for p in sheet.party_ids if p != party]
    return settlement_terms(others + [LEAVES], list(sheet.agreement.vetoes) + [LEAVES], sheet.quorum + 1)


def compile_sheet(sheet: Scoresheet, points: Points) -> Scenario:
    """The scenario of a validated scoresheet (its points given, by the options or a points table).
    Raises TooLarge where the game would break negtui's limits (limits.py), naming the limit."""
    n, ids = len(sheet.parties), sheet.party_ids
    display = {p.id: p.name or p.id for p in sheet.parties}
    options = sum(len(i.options) for i in sheet.issues)
    terms = settlement_terms(ids, list(sheet.agreement.vetoes), sheet.quorum)
    leaving = {p.id: leaving_terms(sheet, p.id) for p in sheet.parties if p.walk_away}
    count = options * (len(terms) + sum(map(len, leaving.values())))
    if count > lim.MAX_GOALS:
        walks = f" and {len(leaving)} walk-aways" if leaving else ""
        raise TooLarge(f"{options} options × the goals of the agreement rule{walks} make {count:,} goals; the limit "
                       f"is {lim.MAX_GOALS:,}")
    if n * len(sheet.issues) > lim.MAX_EXCLUSIVE:
        raise TooLarge(f"{n} parties × {len(sheet.issues)} issues make {n * len(sheet.issues):,} exclusive sets; "
                       f"the limit is {lim.MAX_EXCLUSIVE:,}")
    shares = reservation_shares(sheet, points)
    players = [Player(id=p.id, name=p.name, actions=[
        Action(id=f"{i.id}.{o.id}", label=f"Back {o.label or o.id} on {i.label or i.id}")
        for i in sheet.issues for o in i.options] + ([Action(id=WALK, label=WALK_LABEL)] if p.walk_away else []))
        for p in sheet.parties]
    goals: list[Goal] = []
    issues = []
    voids: dict[str, list[str]] = {pid: [] for pid in leaving}
    for issue in sheet.issues:
        settles = []
        for option in issue.options:
            net = {pid: points[(issue.id, option.id)][pid] - shares[pid][issue.id] for pid in ids}
            oid = f"{issue.id}.{option.id}"
            coefficients: dict[str, int] = {}
            for j, term in enumerate(terms, start=1):
                c, members, t = term
                coefficients[oid + (f".{j}" if j > 1 else "")] = c
                goals.append(Goal(
                    id=oid + (f".{j}" if j > 1 else ""),
                    label=_term_label(issue, option.label or option.id, term, sheet, display),
                    kind="all_or_nothing", threshold=None if t == len(members) else t,
                    requires=[CellRef(player=pid, action=oid) for pid in members],
                    values={pid: c * v for pid, v in net.items()}))
            settles.append(IssueOption(id=option.id, label=option.label, goals=coefficients))
            for pid, parts in leaving.items():
                for j, (c, members, t) in enumerate(parts, start=1):
                    gid = f"{oid}.{pid}-left" + (f".{j}" if len(parts) > 1 else "")
                    voids[pid].append(gid)
                    goals.append(Goal(
                        id=gid, label=_left_label(issue, option.label or option.id, display[pid], c, j, len(parts)),
                        kind="all_or_nothing", threshold=None if t == len(members) else t,
                        requires=[CellRef(player=pid, action=WALK) if m == LEAVES else CellRef(player=m, action=oid)
                                  for m in members],
                        values={pid: -c * net[pid]}))
        issues.append(Settled(id=issue.id, label=issue.label, options=settles,
                            reservation={pid: shares[pid][issue.id] for pid in ids}))
    exits = [Exit(player=pid, action=WALK, goals=voids[pid]) for pid in leaving]
    exclusive = [[CellRef(player=pid, action=f"{i.id}.{o.id}") for o in i.options]
                 + ([CellRef(player=pid, action=WALK)] if any(p.id == pid and p.walk_away for p in sheet.parties)
                    else []) for pid in ids for i in sheet.issues]
    walkers = [p.id for p in sheet.parties if p.walk_away]
    description = "\n\n".join(x for x in (sheet.description.strip(), (
        f"{COMPILED} “{sheet.title}”: {n} parties, {len(sheet.issues)} issues. "
        f"Each party backs at most one option of each issue. {_rule(sheet)} A payoff is the points of the "
        "options settled above the party's reservation value: 0 is walking away." + (
            f" {_names(walkers, display)} may walk away before backing any option, and then keep "
            f"{'its' if len(walkers) == 1 else 'their'} reservation value whatever the others settle."
            if walkers else ""))) if x)
    built = Scenario.model_construct(name=sheet.name or _slug(sheet.title), players=players, goals=goals,
                                     exclusive=exclusive, protocol=sheet.protocol)
    for path, message in limit_problems(built):
        raise TooLarge(f"the game it makes is too large for the offer search: {message}",
                       path if path.startswith("$.protocol") else "$")
    return Scenario(name=sheet.name or _slug(sheet.title), description=description, lesson=sheet.lesson,
                    players=players, goals=goals, exclusive=exclusive, protocol=sheet.protocol, issues=issues,
                    exits=exits, meta={"scoresheet": {"title": sheet.title, "issues": len(sheet.issues),
                                                      "quorum": sheet.quorum, "vetoes": list(sheet.agreement.vetoes)}})


def _left_label(issue: Issue, option_label: str, who: str, c: int, j: int, parts: int) -> str:
    part = f" (part {j} of {parts}, counts {c:+d})" if parts > 1 else ""
    return f"{issue.label or issue.id}: {option_label} — settled after {who} walked away: nothing to {who}{part}"
