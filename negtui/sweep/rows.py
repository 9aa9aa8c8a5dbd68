"""Results rows as Arrow columns, so that the report's aggregates read as group-bys.

The report walks rows as dicts (a row is what a reader of results.py's table expects), but most of what it
computes is "these rows, grouped by these columns, this column's values": Arrow's `Table.group_by` says
that in one line.  A section's rows are handed around as `Rows`, which builds each column the first time a
group-by asks for it and keeps it, so the dozens of group-bys of one section convert a column once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from negtui.sweep.results import SCHEMA

GAME = "game"  # a derived column: one play of a game (report.game_key), the task and the model's sample


class Rows(list[dict]):
    """Rows that nobody changes once made, with their Arrow columns built on demand and kept."""

    def __init__(self, rows: Iterable[dict] = ()) -> None:
        super().__init__(rows)
        self._columns: dict[str, pa.Array] = {}
        self._built_for = len(self)

    def column(self, name: str) -> pa.Array:
        if self._built_for != len(self):  # grown since (rows are added, never replaced): build afresh
            self._columns, self._built_for = {}, len(self)
        if name not in self._columns:
            self._columns[name] = _column(self, name)
        return self._columns[name]

    def table(self, columns: Iterable[str]) -> pa.Table:
        names = list(dict.fromkeys(columns))
        return pa.table([self.column(n) for n in names], names=names)


def table_of(rows: Iterable[dict], columns: Iterable[str]) -> pa.Table:
    """`columns` of the rows as an Arrow table (kept with them when they are `Rows`)."""
    return (rows if isinstance(rows, Rows) else Rows(rows)).table(columns)


def _column(rows: Sequence[dict], name: str) -> pa.Array:
    if name == GAME:
        task, sample = _column(rows, "task"), _column(rows, "sample")
        return pc.if_else(pc.is_null(sample), task,
                          pc.binary_join_element_wise(task, pc.cast(sample, pa.string()), "#"))
    values = [r.get(name) for r in rows]
    if name in SCHEMA.names:
        return pa.array(values, type=SCHEMA.field(name).type)
    return pa.array(values)


def finite(table: pa.Table, column: str) -> pa.ChunkedArray:
    """Where `column` holds a finite number (an empty cell or a NaN is no value)."""
    return pc.fill_null(pc.is_finite(table[column]), False)


def one_of(table: pa.Table, column: str, wanted: object) -> pa.ChunkedArray:
    """Where `column` equals `wanted`, or is one of a tuple of values (an empty cell matches None)."""
    values = list(wanted) if isinstance(wanted, tuple) else [wanted]
    return pc.is_in(table[column], value_set=pa.array(values, type=table.schema.field(column).type))


def aggregation(column: str, how: str) -> tuple:
    """An aggregation for `Table.group_by().aggregate`; "first" and "last" mean the first and last row's value,
    an empty cell included (Arrow's default skips empty cells)."""
    if how in ("first", "last"):
        return (column, how, pc.ScalarAggregateOptions(skip_nulls=False))
    return (column, how)


def grouped(table: pa.Table, keys: Sequence[str], column: str, how: str = "list") -> dict[tuple, Any]:
    """key tuple -> the aggregate of `column` over the key's rows (default: their values in row order), keys in
    the order they first appear."""
    out = table.group_by(list(keys), use_threads=False).aggregate([aggregation(column, how)])
    return dict(zip(zip(*(out[k].to_pylist() for k in keys), strict=True), out[f"{column}_{how}"].to_pylist(),
                    strict=True))
