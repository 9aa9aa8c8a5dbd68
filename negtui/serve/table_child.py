"""One table of a course: `python -I -m negtui.serve.table_child`, started by the training server when
trainees open a table, one process per table.

It runs the table (negtui.table.host) and is the only writer of what the table leaves: its record, and
through negtui.classroom.table_results its row in the results database (who sits where, the turn, how it
ended) and each trainee's game at it, with the debrief's numbers for every person's seat once the game is
over."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

from negtui.classroom.course import LoadedCourse
from negtui.classroom.course_loading import CourseError, load_course
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import DBError, table_called
from negtui.classroom.seatbook import seat_rules
from negtui.classroom.table_results import TableResults
from negtui.datadir import default_record_path
from negtui.record.signing import KEY_FILE, data_dir_key
from negtui.serve.tables import READY
from negtui.table.host import TableHost


class ServedTable(TableResults):
    """The table's results, and the line the training server waits for once the table's socket is open."""

    def listening(self) -> None:
        print(READY, flush=True)


def run(data_dir: Path, course: LoadedCourse, exercise: str, table_id: int, socket: Path,
        reserved: dict[str, str] | None = None, by_trainer: bool = False) -> str | None:
    """Run one table to its end; why it closed early, if it did.  `reserved`: seats the trainer kept (player
    id -> trainee) from the moment it opens; `by_trainer`: the trainer opened it (it waits for people)."""
    ex = course.exercise(exercise)
    records = data_dir / "records" / "tables"
    records.mkdir(parents=True, exist_ok=True)
    data_dir_key(data_dir)
    log = lambda line: print(f"table {table_id}: {line}", file=sys.stderr, flush=True)  # noqa: E731
    with ResultsDB.open(data_dir) as db:
        row = db.tables.get(table_id)
        called = row.called if row is not None else table_called(table_id, None)  # the trainer's name for it
        spec = course.table_spec(exercise, title=f"{ex.title} · {called}",
                                 record=default_record_path(f"table{table_id}-{ex.id}", records),
                                 key_file=data_dir / KEY_FILE)
        spec = spec.model_copy(update={"reserved": _keepable(db, course, exercise, table_id, reserved or {}, log),
                                       "opened_by_trainer": by_trainer})
        results = ServedTable(db, course, exercise, table_id, log)
        host = TableHost(spec, socket, log=log, events=results)

        async def main() -> None:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
                loop.add_signal_handler(sig, host.end, "the training server stopped")
            await host.run()

        try:
            asyncio.run(main())
        finally:
            results.close()
    return host.ended


def _keepable(db: ResultsDB, course: LoadedCourse, exercise: str, table_id: int, reserved: dict[str, str],
              log: Any) -> dict[str, str]:
    """The seats the trainer asked to keep that may be their trainees' (as a seat kept at the console must be);
    each other one is left free, and the table's log says why."""
    rules = seat_rules(course, exercise)
    out = {}
    for pid, name in reserved.items():
        try:
            db.seats.may_keep(table_id, name, pid, rules)
        except DBError as err:
            log(f"{pid} is not kept for {name}: {err}")
            continue
        out[pid] = name
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="negtui-table")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--course", type=Path, required=True)
    parser.add_argument("--exercise", required=True)
    parser.add_argument("--table", type=int, required=True)
    parser.add_argument("--socket", type=Path, required=True)
    parser.add_argument("--reserve", default="{}", help="seats kept for trainees, as JSON: {player id: name}")
    parser.add_argument("--by-trainer", action="store_true", help="the trainer opened it: it waits for people")
    args = parser.parse_args(argv)
    try:
        course = load_course(args.course)
        course.exercise(args.exercise)
    except (CourseError, KeyError) as err:
        print(err.render() if isinstance(err, CourseError) else str(err), file=sys.stderr)
        return 2
    try:
        reserved = json.loads(args.reserve)
        spec = course.table_spec(args.exercise, title="", record=None, key_file=None)
        spec.model_validate({**spec.model_dump(), "reserved": reserved})  # checked as the table would keep them
    except (ValueError, TypeError) as err:
        print(f"--reserve: {err}", file=sys.stderr)
        return 2
    run(args.data_dir, course, args.exercise, args.table, args.socket, reserved, args.by_trainer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
