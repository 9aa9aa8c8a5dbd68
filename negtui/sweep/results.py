"""The results file: one tidy table, one row per (game, method), as Parquet (default) or CSV.

One writer: a lock file beside it is held for the whole sweep.  The file is rewritten whole, through
a temporary file and a rename, every few seconds and at the end, so at any moment it is a valid table
holding every task finished by its last write: a crash or Ctrl-C loses at most the tasks since then,
and a re-run reads it back and skips what it holds.  A rewrite streams the old file into the new one
batch by batch, so memory stays flat however long the sweep."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import pyarrow as pa

from negtui.csvcells import NUMBER, QUOTE, STARTS
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
    ("turns", pa.int64()), ("seconds", pa.float64()), ("improvement_var", pa.float64()),
    ("l1_normalised", pa.float64()), ("actions_up_to", pa.int64()), ("exact_solved", pa.bool_()),
    ("information", pa.string()), ("regret", pa.float64()), ("l1_true", pa.float64()),
    ("negative_mass", pa.float64()), ("mixed_sign_goals", pa.float64()), ("sign_agreement", pa.float64()),
    ("sample", pa.int64()), ("sample_seed", pa.int64()), ("notes", pa.string()), ("void", pa.int64()),
    ("game_void", pa.bool_()), ("generated", pa.bool_()), ("llm_model", pa.string()), ("llm_prompt", pa.string()),
    ("llm_offers", pa.string()), ("llm_responder", pa.string()), ("llm_samples", pa.int64()),
    ("llm_temperature", pa.float64()),
])
# columns added since the first results files: a file without them reads them as empty
ADDED = ("improvement_var", "l1_normalised", "actions_up_to", "exact_solved", "information", "regret", "l1_true",
         "negative_mass", "mixed_sign_goals", "sign_agreement", "sample", "sample_seed", "notes", "void", "game_void",
         "generated", "llm_model", "llm_prompt", "llm_offers", "llm_responder", "llm_samples", "llm_temperature")
TIMING = ("seconds",)  # the only columns that differ between two runs of the same task


class ResultsError(Exception):
    """A results file that cannot be written or resumed; the message says which and why."""


def format_of(path: Path, given: str | None) -> str:
    if given is not None:
        if given not in FORMATS:
            raise ResultsError(f"--format is parquet or csv, not {given!r}")
        return given
    return "csv" if path.suffix.lower() == ".csv" else "parquet"


ROW_GROUP = 16_384  # rows per Parquet row group, and at most what a rewrite holds in memory at once


CSV_SCHEMA = pa.schema([(f.name, pa.string() if f.name == "payoffs" else f.type) for f in SCHEMA])  # payoffs: JSON


def _stored_batches(path: Path, fmt: str, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    """The file's rows as stored, in batches of at most ROW_GROUP rows (CSV payoffs stay JSON text):
    a rewrite copies them without holding the whole table.  `columns`: only these (resuming needs
    just the task keys)."""
    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq

            stored = pq.ParquetFile(path)
            present = set(stored.schema_arrow.names)
            _check_columns(path, present)
            schema = SCHEMA
            # one thread: the workers have the cores, and each reader thread keeps buffers of its own
            batches = (_filled(b, schema) for b in stored.iter_batches(
                batch_size=ROW_GROUP, columns=[n for n in columns or SCHEMA.names if n in present], use_threads=False))
        else:
            import pyarrow.csv as pacsv

            with path.open(encoding="utf-8") as f:
                header = f.readline()
            _check_columns(path, set(header.strip().replace('"', "").split(",")))
            schema = CSV_SCHEMA
            types = dict(zip(CSV_SCHEMA.names, CSV_SCHEMA.types, strict=True))
            batches = pacsv.open_csv(path, read_options=pacsv.ReadOptions(block_size=1 << 22),
                                     convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=True,
                                                                          include_columns=columns or SCHEMA.names,
                                                                          include_missing_columns=True))
        if columns:
            schema = pa.schema([schema.field(n) for n in columns])
        for batch in batches:
            yield pa.RecordBatch.from_arrays([batch.column(n).cast(schema.field(n).type) for n in schema.names],
                                             schema=schema)
    except (OSError, UnicodeDecodeError, pa.ArrowException, ValueError) as err:
        raise ResultsError(f"{path}: not a results table negtui can read ({err})") from None


def _check_columns(path: Path, present: set[str]) -> None:
    """Refuse a file without a column every results file has (those ADDED later may be missing)."""
    missing = [f.name for f in SCHEMA if f.name not in present and f.name not in ADDED]
    if missing:
        raise ResultsError(f"{path}: not a sweep's results (missing columns: {', '.join(missing)})")


def _filled(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """A stored batch with the columns added since it was written, empty."""
    names = set(batch.schema.names)
    wanted = [f for f in schema if f.name in names or f.name in ADDED]
    return pa.RecordBatch.from_arrays([batch.column(f.name) if f.name in names else pa.nulls(batch.num_rows, f.type)
                                       for f in wanted], names=[f.name for f in wanted])


def _decoded(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A stored CSV batch with its payoffs parsed back into lists and its texts as they were before
    `_encoded` quoted them."""
    if batch.schema.field("payoffs").type != pa.string():
        return batch
    try:
        payoffs = pa.array([None if v is None else json.loads(v) for v in batch.column("payoffs").to_pylist()],
                           type=pa.list_(pa.float64()))
    except (ValueError, pa.ArrowException, TypeError, RecursionError) as err:  # JSONDecodeError is a ValueError
        raise ResultsError(f"a payoffs cell is not a list of numbers ({err})") from None
    return pa.RecordBatch.from_arrays([payoffs if n == "payoffs" else _plain(batch.column(n)) for n in SCHEMA.names],
                                      schema=SCHEMA)


def _cells(column: pa.Array) -> pa.Array:
    """A text column as a spreadsheet may open it: csvcells' rule, on the whole column at once."""
    if not pa.types.is_string(column.type):
        return column
    import pyarrow.compute as pc

    quoted = pc.and_(pc.match_substring_regex(column, f"^{STARTS}"),
                     pc.invert(pc.match_substring_regex(column, f"^{NUMBER}$")))
    return pc.if_else(pc.fill_null(quoted, False), pc.utf8_replace_slice(column, 0, 0, QUOTE), column)


def _plain(column: pa.Array) -> pa.Array:
    """A text column read from CSV as it was before `_cells` (csvcells.plain, on the whole column)."""
    if not pa.types.is_string(column.type):
        return column
    import pyarrow.compute as pc

    quoted = pc.fill_null(pc.starts_with(column, QUOTE), False)
    return pc.if_else(quoted, pc.utf8_slice_codeunits(column, 1), column)


def read_table(path: Path | str, fmt: str | None = None, max_rows: int | None = None) -> pa.Table:
    """A results file as an Arrow table with the sweep's schema (CSV payoffs are JSON lists); more than
    `max_rows` rows are refused as they are read, before they all take memory."""
    path = Path(path)
    fmt = format_of(path, fmt)
    try:
        batches, rows = [], 0
        for batch in _stored_batches(path, fmt):
            rows += batch.num_rows
            if max_rows is not None and rows > max_rows:
                raise ResultsError(f"{path}: more than {max_rows:,} rows; a report reads at most {max_rows:,}")
            batches.append(_decoded(batch))
        return pa.Table.from_batches(batches, schema=SCHEMA)
    except ResultsError as err:
        raise ResultsError(str(err) if str(err).startswith(str(path)) else f"{path}: {err}") from None


class Results:
    """The table being written.  Only the task keys it holds and the rows since the last write stay in
    memory: each write copies the file as it stands, batch by batch, into a new one followed by the new
    rows, so a sweep of any length runs in flat memory."""

    def __init__(self, path: Path, fmt: str | None = None, resume: bool = True) -> None:
        self.path = path
        self.fmt = format_of(path, fmt)
        self._lock: int | None = _lock(path)
        self._pending: list[dict] = []
        self._stored = 0  # rows in the file
        self._have_file = False  # the file holds rows of this table (resumed, or written since)
        self.done: set[str] = set()
        try:
            if path.exists() and resume:
                for batch in _stored_batches(path, self.fmt, ["task"]):
                    self.done.update(batch.column("task").to_pylist())
                    self._stored += batch.num_rows
                self._have_file = True
        except BaseException:
            self.close()
            raise

    over_exact_limit = 0  # games added whose exact solution was asked for but over the size limit
    void_games = 0  # plays added in which a language model's seat never got an answer from its server

    @property
    def rows(self) -> int:
        return self._stored + len(self._pending)

    def add(self, rows: list[dict]) -> None:
        """One task's rows (all of them, or none: a task is kept whole or run again)."""
        self._pending.extend(rows)
        if rows:
            self.done.add(rows[0]["task"])
            self.over_exact_limit += rows[0].get("exact_solved") is False  # asked for, too large to solve
            self.void_games += sum(bool(r.get("game_void")) for r in rows)

    def write(self) -> None:
        """The whole table, atomically: a reader sees the old file or the new one, never half of one."""
        if self._have_file and not self._pending:
            return
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            with _Writer(tmp, self.fmt) as out:
                if self._have_file:
                    for batch in _stored_batches(self.path, self.fmt):
                        out.add(batch)
                if self._pending:
                    out.add(pa.RecordBatch.from_pylist(self._pending, schema=SCHEMA))
            os.replace(tmp, self.path)
        except OSError as err:
            tmp.unlink(missing_ok=True)
            raise ResultsError(f"cannot write {self.path}: {err.strerror or err}") from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        self._stored += len(self._pending)
        self._pending = []
        self._have_file = True

    def close(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # releases the lock
            self._lock = None


class _Writer:
    """Batches out to a Parquet file in row groups of ROW_GROUP rows, or to a CSV file."""

    def __init__(self, path: Path, fmt: str) -> None:
        self.fmt = fmt
        self._buffer: list[pa.RecordBatch] = []
        self._buffered = 0
        if fmt == "parquet":
            import pyarrow.parquet as pq

            self._out = pq.ParquetWriter(path, SCHEMA, compression="zstd")
        else:
            import pyarrow.csv as pacsv

            self._out = pacsv.CSVWriter(path, CSV_SCHEMA)

    def __enter__(self) -> _Writer:
        return self

    def add(self, batch: pa.RecordBatch) -> None:
        if self.fmt == "csv":
            self._out.write_batch(_encoded(batch))
            return
        self._buffer.append(batch)
        self._buffered += batch.num_rows
        if self._buffered >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        if self._buffer:
            self._out.write_table(pa.Table.from_batches(self._buffer, schema=SCHEMA), row_group_size=ROW_GROUP)
            self._buffer, self._buffered = [], 0

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            if kind is None:
                self._flush()
        finally:
            self._out.close()


def _encoded(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A batch ready for CSV: payoffs as JSON text, and no text a spreadsheet would run as a formula (a stored
    CSV batch already is ready: it is copied as it was read)."""
    if batch.schema.field("payoffs").type == pa.string():
        return batch
    col = pa.array([None if v is None else json.dumps(v) for v in batch.column("payoffs").to_pylist()],
                   type=pa.string())
    return pa.RecordBatch.from_arrays([col if n == "payoffs" else _cells(batch.column(n)) for n in SCHEMA.names],
                                      schema=CSV_SCHEMA)


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
