"""Game records (JSON Lines): writing turn by turn, loading with located errors, replay, verification
and forking."""

from negtui.record.digest import state_digest
from negtui.record.format import FORMAT, Header, Parent, ResultLine, SeatSpec, TurnLine
from negtui.record.reader import Record, RecordError, load_record
from negtui.record.replay import Divergence, Replay, verify
from negtui.record.writer import RecordWriter, forecasts, seat_spec

__all__ = [
    "FORMAT", "Divergence", "Header", "Parent", "Record", "RecordError", "RecordWriter", "Replay", "ResultLine",
    "SeatSpec", "TurnLine", "forecasts", "load_record", "seat_spec", "state_digest", "verify",
]
