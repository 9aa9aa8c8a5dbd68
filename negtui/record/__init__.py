"""Game records (JSON Lines): writing turn by turn, loading with located errors, replay, verification
and forking."""

from negtui.record.digest import state_digest
from negtui.record.fork import Fork, fork, parent_at
from negtui.record.format import FORMAT, Header, Parent, ResultLine, TurnLine
from negtui.record.reader import Record, RecordError, load_record
from negtui.record.replay import Divergence, Replay, Seating, verify
from negtui.record.writer import RecordWriter, forecasts

__all__ = [
    "FORMAT", "Divergence", "Fork", "Header", "Parent", "Record", "RecordError", "RecordWriter", "Replay",
    "ResultLine", "Seating", "TurnLine", "forecasts", "fork", "load_record", "parent_at", "state_digest", "verify",
]
