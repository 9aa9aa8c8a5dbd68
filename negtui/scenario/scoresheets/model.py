"""Pydantic models of a scoresheet, and the checks between their parts.

A trainer writes a scoresheet by hand, and a half-checked one would surface as a game that plays wrongly,
so every mistake is found in one run: the models check each field, `sheet_problems` checks the parts
against each other (ids, points for every party, the agreement rule, the size of the game it makes), and
where a field fails the parts that did validate are still checked against each other (`salvaged_problems`,
as negtui.scenario.salvage does for scenarios).  Ids are restricted to letters, digits, `-` and `_`: they
become player, action and goal ids, and people type party ids in `--seat ID=LENS` and course files.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from negtui.scenario import limits as lim
from negtui.scenario.model import Protocol, Text, Value

FORMAT: Final = "negtui-scoresheet/1"
MAX_SHEET_BYTES: Final = 4 * 2**20  # a scoresheet is a page or two (its points table: limits.MAX_TABLE_BYTES)
MAX_ISSUES: Final = lim.MAX_ACTIONS  # every option of every issue is an action of every party
SheetId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,64}$",
                               description="1 to 64 letters, digits, '-' or '_'.")]
Label = Annotated[str, Field(max_length=200)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Party(_Strict):
    id: SheetId = Field(description="The party's id: its player id in the game.")
    name: Label = Field(default="", description="Display name; defaults to the id.")
    reservation: Value = Field(default=0, description="Points the party has if there is no deal (its BATNA).")
    walk_away: bool = Field(default=False, description="Whether the party may leave the table, before it backs "
                                                       "any option, and take its reservation value.")


class Option(_Strict):
    id: SheetId = Field(description="Unique within its issue.")
    label: Label = ""
    points: dict[str, Value] | None = Field(
        default=None, description="Points of this option to every party (by party id), unless a points table "
                                  "gives them.")


class Issue(_Strict):
    id: SheetId
    label: Label = ""
    options: list[Option] = Field(min_length=2, max_length=lim.MAX_ACTIONS,
                                  description="The ways the issue can be settled; a party backs at most one.")


class Agreement(_Strict):
    quorum: int | None = Field(default=None, ge=1, le=lim.MAX_PLAYERS,
                               description="How many parties must back an option to settle its issue "
                                           "(default: every party).")
    vetoes: list[SheetId] = Field(default_factory=list, max_length=lim.MAX_PLAYERS,
                                  description="Parties that must be among those backing it.")


class Scoresheet(_Strict):
    format: Literal["negtui-scoresheet/1"]
    name: Annotated[str, Field(min_length=1, max_length=lim.MAX_ID)] | None = Field(
        default=None, description="The scenario's name (default: made from the title).")
    title: Annotated[str, Field(min_length=1, max_length=200)]
    description: Text = ""
    lesson: Text = ""
    parties: list[Party] = Field(min_length=2, max_length=lim.MAX_PLAYERS)
    issues: list[Issue] = Field(min_length=1, max_length=MAX_ISSUES)
    agreement: Agreement = Field(default_factory=Agreement)
    protocol: Protocol = Field(default_factory=Protocol)
    points_table: Annotated[str, Field(min_length=1, max_length=1000)] | None = Field(
        default=None, description="A CSV file of the points (issue, option, one column per party), in the "
                                  "scoresheet's folder or below it.")

    @model_validator(mode="after")
    def _check_parts(self) -> Scoresheet:
        problems = sheet_problems(list(self.parties), list(self.issues), self.agreement, self.protocol.schedule,
                                  self.points_table is not None)
        if problems:
            raise ValueError("\n".join(f"{path}: {message}" for path, message in problems))
        return self

    @property
    def party_ids(self) -> list[str]:
        return [p.id for p in self.parties]

    @property
    def quorum(self) -> int:
        return self.agreement.quorum if self.agreement.quorum is not None else len(self.parties)


def _duplicates(ids: list[str | None], path: str, what: str) -> list[tuple[str, str]]:
    seen: set[str] = set()
    out = []
    for k, x in enumerate(ids):
        if x is not None and x in seen:
            out.append((path.format(k), f"duplicate {what} id {x!r}"))
        if x is not None:
            seen.add(x)
    return out


def sheet_problems(parties: list[Party | None], issues: list[Issue | None], agreement: Agreement | None,
                   schedule: list[str] | None, tabled: bool, unsure: frozenset[str] = frozenset(),
                   ) -> list[tuple[str, str]]:
    """(JSON path, message) of every problem between the parts, in file order.  None stands for a part that
    did not validate (reported already); references to the parties in `unsure` (present, but invalid) are not
    judged; `tabled`: the points come from a points table, not from the options."""
    out = _duplicates([p.id if p else None for p in parties], "$.parties[{}].id", "party")
    known = {p.id for p in parties if p is not None}
    out += _duplicates([i.id if i else None for i in issues], "$.issues[{}].id", "issue")
    for i, issue in enumerate(issues):
        if issue is None:
            continue
        options: list[Option | None] = list(issue.options)
        out += _duplicates([o.id if o else None for o in options], f"$.issues[{i}].options[{{}}].id", "option")
        for o, option in enumerate(options):
            if option is not None:
                out += _points_problems(option, f"$.issues[{i}].options[{o}].points", known, unsure, tabled)
    if agreement is not None:
        out += _agreement_problems(agreement, len(parties), known, unsure)
    for t, pid in enumerate(schedule or []):
        if pid not in known and pid not in unsure:
            out.append((f"$.protocol.schedule[{t}]", f"unknown party {pid!r}"))
    actions = sum(len(i.options) for i in issues if i is not None)
    if actions > lim.MAX_ACTIONS:
        out.append(("$.issues", f"{actions} options in all make {actions} actions for each party (one per option "
                                f"it can back); the limit is {lim.MAX_ACTIONS}"))
    return out


def _points_problems(option: Option, path: str, known: set[str], unsure: frozenset[str], tabled: bool,
                     ) -> list[tuple[str, str]]:
    if tabled:
        return [] if option.points is None else [(path, "the points table gives the points: give them in one place")]
    if option.points is None:
        return [(path, "no points: give every party's points for this option (or a points_table)")]
    out = [(f"{path}.{pid}", f"unknown party {pid!r}") for pid in option.points if pid not in known | unsure]
    missing = sorted(known - set(option.points))
    if missing:
        out.append((path, f"no points for {', '.join(map(repr, missing))}: give every party's points (0 counts)"))
    return out


def _agreement_problems(agreement: Agreement, n: int, known: set[str], unsure: frozenset[str],
                        ) -> list[tuple[str, str]]:
    out = [(f"$.agreement.vetoes[{k}]", f"unknown party {pid!r}")
           for k, pid in enumerate(agreement.vetoes) if pid not in known | unsure]
    out += _duplicates(list(agreement.vetoes), "$.agreement.vetoes[{}]", "veto party")
    k, v = agreement.quorum, len(set(agreement.vetoes))
    if k is None:
        return out
    if k > n:
        out.append(("$.agreement.quorum", f"a quorum of {k} out of {n} parties can never be reached"))
    elif k < v:
        out.append(("$.agreement.quorum", f"a quorum of {k} is smaller than the {v} parties with a veto, who must "
                                          f"all agree anyway: make it at least {v}"))
    elif v == 0 and 2 * k <= n:
        out.append(("$.agreement.quorum", f"{k} of {n} parties could settle an issue one way and {k} others another "
                                          f"way at once: a quorum must be more than half the parties ({n // 2 + 1} "
                                          "or more), or name a party with a veto"))
    return out


_PARTY: TypeAdapter[Party] = TypeAdapter(Party)
_ISSUE: TypeAdapter[Issue] = TypeAdapter(Issue)
_OPTION: TypeAdapter[Option] = TypeAdapter(Option)
_AGREEMENT: TypeAdapter[Agreement] = TypeAdapter(Agreement)
_SCHEDULE: TypeAdapter[list[str]] = TypeAdapter(list[str])
_ID: TypeAdapter[str] = TypeAdapter(SheetId)


def _valid(adapter: TypeAdapter[Any], raw: object) -> Any:
    try:
        return adapter.validate_python(raw)
    except ValidationError:
        return None


def _issue(raw: object) -> Issue | None:
    """An issue, or where it does not validate, its id and the options that do (their points are still
    checked against the parties)."""
    whole = _valid(_ISSUE, raw)
    if whole is not None or not isinstance(raw, dict) or not isinstance(raw.get("options"), list):
        return whole
    options = [_valid(_OPTION, x) for x in raw["options"]]  # None where one does not: paths keep their indices
    return Issue.model_construct(id=_valid(_ID, raw.get("id")), label="", options=options)


def salvaged_problems(data: object) -> list[tuple[str, str]]:
    """The problems between the parts of `data` that validate alone, for a sheet whose fields did not all
    validate (pydantic then skips the checks between them)."""
    if not isinstance(data, dict):
        return []
    raw = data.get("parties")
    raw_parties: list[Any] = raw if isinstance(raw, list) else []
    parties = [_valid(_PARTY, x) for x in raw_parties]
    unsure = frozenset(x["id"] for x, p in zip(raw_parties, parties, strict=True)
                       if p is None and isinstance(x, dict) and isinstance(x.get("id"), str))
    raw_issues = data.get("issues")
    issues = [_issue(x) for x in raw_issues] if isinstance(raw_issues, list) else []
    agreement = _valid(_AGREEMENT, data.get("agreement", {}))
    protocol = data.get("protocol")
    schedule = _valid(_SCHEDULE, protocol.get("schedule")) if isinstance(protocol, dict) else None
    return sheet_problems(parties, issues, agreement, schedule, data.get("points_table") is not None, unsure)


def is_scoresheet(data: object) -> bool:
    """Whether decoded TOML or JSON is a scoresheet: recognised by its own format key, by content alone."""
    return isinstance(data, dict) and data.get("format") == FORMAT


# a TOML line `format = "negtui-scoresheet/1"`, or JSON's `"format": "negtui-scoresheet/1"`
_FORMAT_LINE = re.compile(r'^[ \t]*format[ \t]*=[ \t]*["\']negtui-scoresheet/1["\']'
                          r'|"format"\s*:\s*"negtui-scoresheet/1"', re.MULTILINE)


def says_scoresheet(text: str) -> bool:
    """Whether TOML or JSON text that does not decode (or is over a limit) means to be a scoresheet: it has
    the format line of one (so that its mistakes are reported as a scoresheet's, not a course's or a
    scenario's)."""
    return _FORMAT_LINE.search(text) is not None
