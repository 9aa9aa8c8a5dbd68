"""A decoded scoresheet checked and compiled, its problems as (path, message) pairs.

`negtui.scenario.io` reads the file and turns what is refused here into a ScoresheetError (a ScenarioError
that every caller already reports, with exit status 2), so a scoresheet is read wherever a scenario is
through the one loading function.  Nothing here imports io: io imports this.
"""

from __future__ import annotations

from pathlib import Path

from negtui.scenario.model import Scenario
from negtui.scenario.scoresheets.compile import TooLarge, compile_sheet
from negtui.scenario.scoresheets.model import FORMAT, Scoresheet
from negtui.scenario.scoresheets.table import Points, read_points_table


class SheetRefused(ValueError):
    """A scoresheet that validates but cannot be used: its points table's problems, or a game too large."""

    def __init__(self, problems: list[tuple[str, str]]):
        super().__init__("; ".join(f"{path}: {message}" for path, message in problems))
        self.problems = problems


def validate_sheet(data: object, base: Path | None = None) -> tuple[Scoresheet, Points]:
    """The sheet and its points (from its options, or its points table found relative to `base`).  Raises
    pydantic's ValidationError for the sheet's own problems, SheetRefused for the table's."""
    sheet = Scoresheet.model_validate(data)
    if sheet.points_table is None:
        return sheet, {(i.id, o.id): dict(o.points or {}) for i in sheet.issues for o in i.options}
    points, found = read_points_table(sheet, base)
    if found:
        raise SheetRefused(found)
    return sheet, points


def sheet_scenario(data: object, base: Path | None = None) -> Scenario:
    """The scenario a decoded scoresheet compiles to (negtui.scenario.scoresheets.compile)."""
    sheet, points = validate_sheet(data, base)
    try:
        return compile_sheet(sheet, points)
    except TooLarge as err:
        raise SheetRefused([(err.path, str(err))]) from None


def not_a_sheet(data: object) -> str:
    """Why decoded data is not a scoresheet, in words that say what it is instead."""
    shown = data.get("format") if isinstance(data, dict) else None
    if shown == "negtui-course/1":
        return "this is a course (negtui serve --course reads it), not a scoresheet"
    if shown is None:
        return f'a scoresheet says what it is: format = "{FORMAT}"'
    return f'format {str(shown)[:60]!r} is not a scoresheet\'s ("{FORMAT}")'
