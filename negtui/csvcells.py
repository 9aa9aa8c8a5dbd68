"""The cells of every CSV file negtui writes, safe to open in a spreadsheet.

A spreadsheet runs a cell that starts with `=`, `+`, `-` or `@` (or a tab or a carriage return, which some
strip first) as a formula, so a scenario's player id such as `=HYPERLINK("http://…", "look")` would be a
live link in a trainer's gradebook.  Every text cell that starts so is written with a `'` in front, as OWASP
advises (the spreadsheet shows the rest as text), and so is a text that starts with `'` itself, which keeps
the rule reversible: `plain` gives back the text written (the sweep reads its CSV results back).  Numbers
are left alone, and so is a text that is a plain number ("-3.5"): pandas and spreadsheets read both as
numbers.

The rule is also given as two regular expressions (`STARTS`, `NUMBER`), which Python and Arrow read
alike, so a writer of Arrow batches applies this very rule column by column."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO

QUOTE = "'"
STARTS = r"[=+\-@\t\r\n']"  # the first characters a text cell is quoted for (the quote itself: reversible)
NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"  # a plain number, "-3.5", "1e-3"
_STARTS = re.compile(STARTS)
_NUMBER = re.compile(NUMBER)


def cell(value: Any) -> Any:
    """The value as a CSV cell may hold it: a text that a spreadsheet would run, quoted; a carriage return
    inside a text made a line break (Python's writer, ending lines with a line feed, leaves a field holding
    one unquoted, and every reader then splits the row there); anything else as it is."""
    if not isinstance(value, str):
        return value
    if "\r" in value:
        value = value.replace("\r\n", "\n").replace("\r", "\n")
    if _STARTS.match(value) and not _NUMBER.fullmatch(value):
        return QUOTE + value
    return value


def plain(text: str) -> str:
    """The text `cell` was given (one leading quote taken off)."""
    return text[1:] if text.startswith(QUOTE) else text


def write_rows(out: TextIO, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """A header and one line per row, every cell through `cell`; a row's keys beyond `columns` are left out,
    a column a row lacks is empty."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([cell(c) for c in columns])
    writer.writerows([cell(row.get(c)) for c in columns] for row in rows)
