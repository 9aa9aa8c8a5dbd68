"""Loading records: every complete line is kept, a line cut off at the end is reported, anything else
wrong is a `RecordError` naming the file, the line and the JSON path."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from negtui.engine.rules import get_rules, name_mismatch
from negtui.record.format import FORMAT_1, KNOWN_FORMATS, Header, MessageLine, ResultLine, TurnLine
from negtui.scenario import untrusted
from negtui.scenario.io import ScenarioError, listed, parse_scenario, problems_from_validation
from negtui.scenario.limits import MAX_RECORD_BYTES
from negtui.scenario.model import Scenario
from negtui.scenario.untrusted import printable


class RecordError(Exception):
    def __init__(self, source: str, line: int | None, problems: list[tuple[str, str]]):
        self.source, self.line, self.problems = source, line, problems
        super().__init__(self.render())

    def render(self) -> str:
        where = f"{self.source}" + (f", line {self.line}" if self.line else "")
        out = [f"{where}: invalid record"]
        out += listed([f"  {path}: {msg}" for path, msg in self.problems])
        return printable("\n".join(out))


@dataclass
class Record:
    source: str
    header: Header
    scenario: Scenario
    turns: list[TurnLine] = field(default_factory=list)
    result: ResultLine | None = None
    messages: list[MessageLine] = field(default_factory=list)  # what was said at the table, in order
    numbers: dict[str, list[int]] = field(default_factory=dict, repr=False)  # line numbers per line type
    stopped: str | None = None  # why loading stopped early (a line cut off mid-way)
    lines: list[dict] = field(default_factory=list, repr=False)  # every complete line as decoded (signatures)

    @property
    def complete(self) -> bool:
        return self.result is not None


def _validate(model, data: object, source: str, line: int):
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise RecordError(source, line, [(p.path, p.message) for p in problems_from_validation(err)]) from None


def _from_format_1(head: dict, source: str) -> dict:
    """Format 1 named its rule set; format 2 carries every switch."""
    rules = head.get("rules")
    if isinstance(rules, str):
        try:
            # the rule set as it was when format 1 was written: before the realised-payoff tie rule
            head = {**head, "rules": get_rules(rules).with_(offer_ties_realised=False,
                                                            exact_ties_realised=False).as_dict()}
        except ValueError as err:
            raise RecordError(source, 1, [("$.rules", str(err))]) from None
    return head


def _not_a_record(text: str, first: str, src: str) -> None:
    """A JSON document spread over lines (a scenario file, say) is named for what it is, not reported as
    a first line that is not valid JSON."""
    try:
        json.loads(first, parse_constant=untrusted.reject_constant)
        return  # a line of its own: read on as a record
    except (ValueError, RecursionError):
        pass
    try:
        whole = untrusted.loads(text)
    except untrusted.Untrusted:
        return  # not JSON at all: the first line's own error says where
    if isinstance(whole, dict) and str(whole.get("format", "")).startswith("negtui-scenario"):
        raise RecordError(src, None, [("$", "this is a scenario file, not a game record: play it with negtui play "
                                            "or negtui autoplay (--record FILE writes a record)")])
    raise RecordError(src, None, [("$", "valid JSON, but not a game record: a record is JSON Lines, one object "
                                        "per line, the header first (negtui play or autoplay --record write one)")])


def load_record(path: str | os.PathLike[str]) -> Record:
    p = Path(path)
    src = str(p)
    try:
        text = untrusted.read_text(p, MAX_RECORD_BYTES)
    except untrusted.Untrusted as err:
        raise RecordError(src, None, [(err.path, str(err))]) from None
    lines = text.split("\n")
    ends_cleanly = text.endswith("\n")
    if not lines or not lines[0].strip():
        raise RecordError(src, 1, [("$", "empty record: no header line")])
    _not_a_record(text, lines[0], src)
    head = _decode(lines[0], src, 1)
    if isinstance(head, dict) and head.get("format") not in KNOWN_FORMATS:
        raise RecordError(src, 1, [("$.format", f"unknown record format {head.get('format')!r}; "
                                                f"this negtui reads {', '.join(KNOWN_FORMATS)}")])
    raw_head = head
    if isinstance(head, dict) and head.get("format") == FORMAT_1:
        head = _from_format_1(head, src)
    header = _validate(Header, head, src, 1)
    mismatch = name_mismatch(header.rules)
    if mismatch is not None:
        raise RecordError(src, 1, [("$.rules.name", mismatch)])
    try:
        scenario = parse_scenario(header.scenario, src)
    except ScenarioError as err:
        raise RecordError(src, 1, [(f"$.scenario{pr.path[1:]}", pr.message) for pr in err.problems]) from None
    turns = scenario.turns(header.rules.max_rounds)
    if not 0 <= header.start_turn <= turns:
        raise RecordError(src, 1, [("$.start_turn", f"turn {header.start_turn} is outside the game's 0..{turns}")])
    rec = Record(src, header, scenario, lines=[raw_head if isinstance(raw_head, dict) else {}])
    body = lines[1:]
    for k, raw in enumerate(body):
        n = k + 2
        last = k == len(body) - 1
        if not raw.strip():
            if last:
                break
            raise RecordError(src, n, [("$", "empty line inside the record")])
        if rec.result is not None:
            raise RecordError(src, n, [("$", "line after the result line")])
        try:
            data = json.loads(raw, parse_constant=untrusted.reject_constant)
        except json.JSONDecodeError as err:
            if last and not ends_cleanly:
                rec.stopped = f"line {n} is cut off; loaded the {len(rec.turns)} complete turn(s) before it"
                break
            raise RecordError(src, n, [("$", f"not valid JSON: {err.msg}")]) from None
        except (RecursionError, ValueError):
            data = _decode(raw, src, n)  # reports it with the reason
        _check(data, src, n)
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "turn":
            turn = _validate(TurnLine, data, src, n)
            expected = header.start_turn + len(rec.turns)
            if turn.t != expected:
                raise RecordError(src, n, [("$.t", f"{turn.t} where {expected} was expected (t counts turns from 0)")])
            rec.turns.append(turn)
        elif kind == "result":
            rec.result = _validate(ResultLine, data, src, n)
        elif kind == "message":
            said = _validate(MessageLine, data, src, n)
            expected = header.start_turn + len(rec.turns)
            if said.t != expected:
                raise RecordError(src, n, [("$.t", f"{said.t}, but the message was sent while t = {expected} was "
                                                   "under way (t counts turns from 0)")])
            rec.messages.append(said)
        else:
            raise RecordError(src, n, [("$.type", f"unknown line type {kind!r}")])
        rec.lines.append(data)
        rec.numbers.setdefault(str(kind), []).append(n)
    return rec


def line_of(rec: Record, kind: str, k: int) -> int:
    """The file's line number of the k-th line of a type ("turn", "message", "result")."""
    found = rec.numbers.get(kind, [])
    return found[k] if k < len(found) else 2 + len(rec.lines)


def _decode(raw: str, src: str, n: int) -> object:
    try:
        return untrusted.loads(raw)
    except untrusted.Untrusted as err:
        raise RecordError(src, n, [(err.path, str(err))]) from None


def _check(data: object, src: str, n: int) -> None:
    try:
        untrusted.check(data)
    except untrusted.Untrusted as err:
        raise RecordError(src, n, [(err.path, str(err))]) from None
