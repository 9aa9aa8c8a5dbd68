"""Reading and writing scenario files, with errors that name the file and the JSON path."""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from negtui.scenario import untrusted
from negtui.scenario.limits import MAX_SCENARIO_BYTES
from negtui.scenario.model import Scenario, reference_problems
from negtui.scenario.untrusted import printable

if TYPE_CHECKING:
    from negtui.scenario.hnc import HncTopfile
    from negtui.scenario.scoresheets.model import Scoresheet
    from negtui.scenario.scoresheets.table import Points


@dataclass(frozen=True)
class Problem:
    path: str
    message: str


MAX_LISTED = 50  # problems printed for one file; a hostile file can hold a hundred thousand


def listed(lines: list[str], most: int = MAX_LISTED) -> list[str]:
    """The first `most` lines of a list of problems, and a line saying how many more there are: every list
    of problems negtui prints goes through here."""
    if len(lines) <= most:
        return lines
    return [*lines[:most], f"  … and {len(lines) - most:,} more"]


class FileProblems(Exception):
    """A file that cannot be used; carries every problem found, not just the first, each at its JSON path."""

    kind = "file"  # what the file should have been, for the first line

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = problems
        super().__init__(self.render())

    def render(self) -> str:
        n = len(self.problems)
        lines = [f"{self.source}: invalid {self.kind} ({n:,} problem{'s' * (n != 1)})"]
        lines += listed([f"  {p.path}: {p.message}" for p in self.problems])
        return printable("\n".join(lines))


class ScenarioError(FileProblems):
    """A scenario file that cannot be used."""

    kind = "scenario"


def _json_path(loc: tuple[int | str, ...]) -> str:
    out = "$"
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}"
        else:
            out += f"[{json.dumps(part)}]"
    return out


def first_problem(err: ValidationError, root: str = "$") -> str:
    """The first problem as 'PATH: message', its JSON path starting at `root`."""
    p = problems_from_validation(err)[0]
    return f"{root}{p.path[1:]}: {p.message}"


# errors that say a union's branch is of the wrong type (rather than the right type, out of range)
MISMATCH = frozenset({"int_parsing", "int_type", "int_from_float", "float_parsing", "float_type", "string_type",
                      "literal_error", "bool_parsing", "bool_type"})


def problems_from_validation(err: ValidationError) -> list[Problem]:
    out = _Problems()
    branches: dict[tuple, list[str]] = {}  # a union's failed branches, by the value's location
    decided: set[tuple] = set()  # unions whose value had the right type but failed a check
    for e in err.errors(include_url=False):
        msg = e["msg"]
        if e["type"] == "value_error" and msg.startswith("Value error, $"):
            # our cross-reference check: the message carries its own path(s)
            for line in msg.removeprefix("Value error, ").splitlines():
                path, _, text = line.partition(": ")
                out.add(Problem(path, text), again=True)
            continue
        if e["type"] == "extra_forbidden":
            msg = "unknown field"
        loc = tuple(e["loc"])
        branch = _branch(loc[-1]) if loc else None
        if branch is not None and e["type"] not in MISMATCH:  # the value's branch, failing its own check: say that
            loc = loc[:-1]
            decided.add(loc)
            out.drop(_json_path(loc))
        elif branch is not None:  # a union's value (int | float, 'all' | 'linear' | int): one problem, not one each
            loc = loc[:-1]
            if loc in decided:
                continue
            shown = json.dumps(e.get("input"), default=str)
            seen = branches.setdefault(loc, [])
            if branch not in seen:
                seen.append(branch)
            kinds = ["a number"] if set(seen) <= {"a whole number", "a number"} else seen
            msg = f"should be {' or '.join(kinds)}, not {shown if len(shown) <= 40 else shown[:39] + '…'}"
            out.drop(_json_path(loc))
        out.add(Problem(_json_path(loc), msg.removeprefix("Value error, ")))
    return out.listed()


class _Problems:
    """Problems in the order found, each once, those at a path dropped at once: a hostile file can hold a
    hundred thousand, so neither is a scan of the list."""

    def __init__(self) -> None:
        self._found: list[Problem | None] = []
        self._at: dict[str, list[int]] = {}
        self._kept: set[Problem] = set()

    def add(self, problem: Problem, again: bool = False) -> None:
        """Keep `problem`, unless it is kept already (`again`: keep it even so)."""
        if problem in self._kept and not again:
            return
        self._kept.add(problem)
        self._at.setdefault(problem.path, []).append(len(self._found))
        self._found.append(problem)

    def drop(self, path: str) -> None:
        for k in self._at.pop(path, []):
            found = self._found[k]
            if found is not None:
                self._kept.discard(found)
                self._found[k] = None

    def listed(self) -> list[Problem]:
        return [p for p in self._found if p is not None]


def _branch(tag: object) -> str | None:
    """What a union's branch, as pydantic names it in an error's location, asks for in words (None: the
    location's last step is a field, not a branch)."""
    if tag in ("int", "float", "str", "bool"):
        return {"int": "a whole number", "float": "a number", "str": "text", "bool": "true or false"}[str(tag)]
    if isinstance(tag, str) and tag.startswith("literal[") and tag.endswith("]"):
        return " or ".join(tag.removeprefix("literal[").removesuffix("]").split(","))
    return None


def parse_scenario(data: object, source: str = "<scenario>", base: Path | None = None) -> Scenario:
    """Validate already-decoded JSON — a scenario, an HNC topfile (recognised by its `countries`) or a
    scoresheet (by its `format`, compiled; a points table it names is found in `base`, its file's folder);
    structural errors first, then every dangling reference."""
    from negtui.scenario.hnc import HncTopfile, is_topfile, to_scenario
    from negtui.scenario.scoresheets.model import is_scoresheet

    if is_scoresheet(data):
        return parse_scoresheet(data, source, base)
    try:
        if is_topfile(data):
            return to_scenario(HncTopfile.model_validate(data))
        return Scenario.model_validate(data)
    except ValidationError as err:
        problems = problems_from_validation(err)
        # a field failed, so the reference check did not run: run it on what did pass
        from negtui.scenario.salvage import salvaged_problems, salvaged_topfile_problems

        seen = {p.path for p in problems}
        salvaged = salvaged_topfile_problems(data) if is_topfile(data) else salvaged_problems(data)
        problems += [Problem(path, text) for path, text in salvaged if path not in seen]
        raise ScenarioError(source, problems) from None


class ScoresheetError(ScenarioError):
    """A scoresheet that cannot be used (a ScenarioError: it is read wherever a scenario is)."""

    kind = "scoresheet"


def parse_scoresheet(data: object, source: str = "<scoresheet>", base: Path | None = None) -> Scenario:
    """A decoded scoresheet compiled into its scenario (negtui.scenario.scoresheets), or every problem in it
    and in its points table at once, each at its path."""
    from negtui.scenario.scoresheets import SheetRefused, salvaged_problems, sheet_scenario

    try:
        return sheet_scenario(data, base)
    except ValidationError as err:  # pydantic skips the checks between parts when a field fails: run them here
        problems = problems_from_validation(err)
        seen = {p.path for p in problems}
        problems += [Problem(path, text) for path, text in salvaged_problems(data) if path not in seen]
    except SheetRefused as err:
        problems = [Problem(path, text) for path, text in err.problems]
    raise ScoresheetError(source, problems) from None


def load_scoresheet(path: str | os.PathLike[str]) -> Scenario:
    """A scoresheet file (TOML or JSON, under the scoresheet's size limit) compiled; one that is not a
    scoresheet is refused, saying what it is."""
    p = Path(path)
    return parse_scoresheet(_sheet_document(p), str(p), p.parent)


def _sheet_document(p: Path) -> object:
    from negtui.scenario.scoresheets import MAX_SHEET_BYTES, is_scoresheet, not_a_sheet

    try:
        data = untrusted.load_document(p, MAX_SHEET_BYTES, "a scoresheet")
    except untrusted.Untrusted as err:
        raise ScoresheetError(str(p), [Problem(err.path, str(err))]) from None
    if not is_scoresheet(data):
        raise ScoresheetError(str(p), [Problem("$.format", not_a_sheet(data))])
    return data


@dataclass(frozen=True)
class Case:
    """A scenario as its file gives it, and the scoresheet it compiles from where the file is one: what is
    written for people in a sheet's own terms needs its issues, options and points, which the scenario holds
    only inside goal values."""

    scenario: Scenario
    sheet: Scoresheet | None = None
    points: Points | None = None


def load_case(path: str | os.PathLike[str]) -> Case:
    """A scenario file read as `load_scenario` reads it, a scoresheet kept beside its scenario."""
    from negtui.scenario.scoresheets import is_scoresheet, validate_sheet

    p = Path(path)
    data = _sheet_document(p) if p.suffix.lower() == ".toml" else _read_json(p)
    if not is_scoresheet(data):
        return Case(parse_scenario(data, str(p), p.parent))
    sc = parse_scoresheet(data, str(p), p.parent)  # every problem of the sheet reported, as everywhere
    sheet, points = validate_sheet(data, p.parent)
    return Case(sc, sheet, points)


def load_topfile(path: str | os.PathLike[str]) -> HncTopfile:
    """An HNC topfile as its model (for export round trips); errors as for scenarios."""
    from negtui.scenario.hnc import HncTopfile

    p = Path(path)
    data = _read_json(p)
    try:
        return HncTopfile.model_validate(data)
    except ValidationError as err:
        raise ScenarioError(str(p), problems_from_validation(err)) from None


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """The one way a scenario file is read: JSON (a scenario, a topfile or a scoresheet), or a TOML
    scoresheet (negtui.scenario.scoresheets)."""
    p = Path(path)
    if p.suffix.lower() == ".toml":
        return load_scoresheet(p)
    return parse_scenario(_read_json(p), str(p), p.parent)


def _read_json(p: Path) -> object:
    try:
        return untrusted.load(p, MAX_SCENARIO_BYTES)
    except untrusted.Untrusted as err:
        kind = ScoresheetError if begins_as_scoresheet(p) else ScenarioError  # named for what it means to be
        raise kind(str(p), [Problem(err.path, str(err))]) from None


def begins_as_scoresheet(p: Path) -> bool:
    """Whether a file that could not be read as JSON begins as a scoresheet does (its first 64 KiB)."""
    from negtui.scenario.scoresheets import says_scoresheet

    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the error's wording
    except (OSError, ValueError):
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        return says_scoresheet(os.read(fd, 1 << 16).decode("utf-8", "replace"))
    except OSError:
        return False
    finally:
        os.close(fd)


def dump_scenario(sc: Scenario) -> str:
    return json.dumps(sc.model_dump(mode="json", exclude_defaults=False), indent=1) + "\n"


class WriteError(OSError):
    """An output file that cannot be written; the message says which and why."""


def _write_new(path: str | os.PathLike[str], text: str, force: bool) -> None:
    """Write a file, never replacing an existing one unless forced (created exclusively: two writers
    never both succeed), never creating missing directories."""
    p = Path(path)
    if p.is_dir():
        raise WriteError(f"cannot write {p}: it is a directory")
    if not p.parent.is_dir():
        raise WriteError(f"cannot write {p}: there is no directory {p.parent}")
    try:
        with open(p, "w" if force else "x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        raise FileExistsError(f"{p} exists; pass --force to overwrite") from None
    except OSError as err:
        raise WriteError(f"cannot write {p}: {err.strerror or err}") from None


def write_scenario(sc: Scenario, path: str | os.PathLike[str], force: bool = False) -> None:
    _write_new(path, dump_scenario(sc), force)


def write_json(obj: object, path: str | os.PathLike[str], force: bool = False) -> None:
    _write_new(path, json.dumps(obj, indent=1, ensure_ascii=False) + "\n", force)


def write_text(text: str, path: str | os.PathLike[str], force: bool = False) -> None:
    """Any other output file (a page), written as scenarios are."""
    _write_new(path, text, force)


__all__ = ["Case", "Problem", "ScenarioError", "ScoresheetError", "WriteError", "dump_scenario", "load_case",
           "load_scenario", "load_scoresheet", "load_topfile", "parse_scenario", "parse_scoresheet",
           "reference_problems", "write_json", "write_scenario", "write_text"]
