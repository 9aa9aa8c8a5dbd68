"""The results file: one tidy table, one row per (game, method), as Parquet (default) or CSV.

One writer: a lock file beside it is held for the whole sweep.  The file is rewritten whole, through
a temporary file and a rename, every few seconds and at the end, so at any moment it is a valid table
holding every task finished by its last write: a crash or Ctrl-C loses at most the tasks since then,
and a re-run reads it back and skips what it holds.  Rows wait in memory as Arrow record batches
(columns, not Python dicts), so a long sweep's memory stays small."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow as pa

from negtui.locks import Busy, lock_or_close

FORMATS = ("parquet", "csv")

SCHEMA = pa.schema([
    ("sweep", pa.string()), ("task", pa.string()), ("scenario", pa.string()), ("scenario_file", pa.string()),
    ("actions", pa.int64()), ("goals", pa.int64()), ("rounds", pa.int64()), ("budget", pa.int64()),
    ("factors", pa.int64()), ("structure", pa.string()), ("all_or_nothing", pa.float64()), ("zipf", pa.float64()),
    ("payoff", pa.string()), ("seed", pa.int64()), ("rules", pa.string()), ("negtui", pa.string()),
    ("players", pa.int64()), ("method", pa.string()), ("payoffs", pa.list_(pa.float64())), ("sum", pa.float64()),
    ("baseline_sum", pa.float64()), ("improvement", pa.float64()), ("improvement_min", pa.float64()),
    ("fraction_improved", pa.float64()), ("l1_exact", pa.float64()), ("welfare_optimum", pa.float64()),
    ("efficiency", pa.float64()), ("nash_optimum", pa.float64()), ("nash_efficiency", pa.float64()),
    ("turns", pa.int64()), ("seconds", pa.float64()),
])
TIMING = ("seconds",)  # the only columns that differ between two runs of the same task


class ResultsError(Exception):
    """A results file that cannot be written or resumed; the message says which and why."""


def format_of(path: Path, given: str | None) -> str:
    if given is not None:
        if given not in FORMATS:
            raise ResultsError(f"--format is parquet or csv, not {given!r}")
        return given
    return "csv" if path.suffix.lower() == ".csv" else "parquet"


def read_table(path: Path | str, fmt: str | None = None) -> pa.Table:
    """A results file as an Arrow table with the sweep's schema (CSV payoffs are JSON lists)."""
    path = Path(path)
    fmt = format_of(path, fmt)
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(path)
        else:
            import pyarrow.csv as pacsv

            types = {f.name: (pa.string() if f.name == "payoffs" else f.type) for f in SCHEMA}
            table = pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types=types))
            payoffs = pa.array([None if v is None else json.loads(v) for v in table.column("payoffs").to_pylist()],
                               type=pa.list_(pa.float64()))
            table = table.set_column(table.schema.get_field_index("payoffs"), "payoffs", payoffs)
    except (OSError, pa.ArrowException, json.JSONDecodeError, KeyError) as err:
        raise ResultsError(f"{path}: not a results table negtui can read ({err})") from None
    missing = [f.name for f in SCHEMA if f.name not in table.column_names]
    if missing:
        raise ResultsError(f"{path}: not a sweep's results (missing columns: {', '.join(missing)})")
    try:
        return table.select([f.name for f in SCHEMA]).cast(SCHEMA)
    except (pa.ArrowException, ValueError) as err:
        raise ResultsError(f"{path}: a column has the wrong type ({err})") from None


class Results:
    """The table being written: what the file held before (a resumed sweep) and what came since."""

    def __init__(self, path: Path, fmt: str | None = None, resume: bool = True) -> None:
        self.path = path
        self.fmt = format_of(path, fmt)
        self._lock = _lock(path)
        self.batches: list[pa.RecordBatch] = []
        self._pending: list[dict] = []
        self.done: set[str] = set()
        try:
            if path.exists() and resume:
                table = read_table(path, self.fmt)
                self.batches = table.to_batches()
                self.done = set(table.column("task").to_pylist())
        except BaseException:
            self.close()
            raise

    @property
    def rows(self) -> int:
        return sum(b.num_rows for b in self.batches) + len(self._pending)

    def add(self, rows: list[dict]) -> None:
        """One task's rows (all of them, or none: a task is kept whole or run again)."""
        self._pending.extend(rows)
        if rows:
            self.done.add(rows[0]["task"])

    def table(self) -> pa.Table:
        if self._pending:
            self.batches.append(pa.RecordBatch.from_pylist(self._pending, schema=SCHEMA))
            self._pending = []
        return pa.Table.from_batches(self.batches, schema=SCHEMA)

    def write(self) -> None:
        """The whole table, atomically: a reader sees the old file or the new one, never half of one."""
        table = self.table()
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            if self.fmt == "parquet":
                import pyarrow.parquet as pq

                pq.write_table(table, tmp, compression="zstd")
            else:
                import pyarrow.csv as pacsv

                col = pa.array([None if v is None else json.dumps(v) for v in table.column("payoffs").to_pylist()],
                               type=pa.string())
                pacsv.write_csv(table.set_column(table.schema.get_field_index("payoffs"), "payoffs", col), tmp)
            os.replace(tmp, self.path)
        except OSError as err:
            tmp.unlink(missing_ok=True)
            raise ResultsError(f"cannot write {self.path}: {err.strerror or err}") from None

    def close(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # releases the lock
            self._lock = None


def _lock(path: Path) -> int:
    """Hold `.<name>.lock` beside the results for the whole sweep: a second sweep writing the same file
    is refused instead of the two overwriting each other's rows."""
    if not path.parent.is_dir():
        raise ResultsError(f"cannot write {path}: {path.parent} is not a directory")
    if path.is_dir():
        raise ResultsError(f"cannot write {path}: it is a directory")
    lock = path.with_name(f".{path.name}.lock")
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT, 0o644)
    except OSError as err:
        raise ResultsError(f"cannot write {path}: {err.strerror}") from None
    try:
        lock_or_close(fd)
    except Busy:
        raise ResultsError(f"{path} is being written by another sweep; choose another file") from None
    except OSError as err:
        raise ResultsError(f"cannot lock {lock}: {err.strerror}") from None
    return fd
