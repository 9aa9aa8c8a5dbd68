"""The lines a table and its clients exchange: one JSON object per line, bounded in size, decoded under
the same guards as every untrusted document (depth, huge integers, NaN).

A client's lines are small (a move, a message of a few hundred characters); a table's first line to a
client carries the game, a scenario-sized document."""

from __future__ import annotations

import json
from typing import Any

from negtui.scenario import untrusted
from negtui.scenario.limits import MAX_SCENARIO_BYTES

FROM_CLIENT = 16 * 1024  # bytes of one line from a client
FROM_TABLE = 2 * MAX_SCENARIO_BYTES  # bytes of one line from the table (the welcome holds the scenario)


class WireError(ValueError):
    """A line that is not one of this protocol's."""


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8") + b"\n"


def decode(line: bytes, limit: int) -> dict[str, Any]:
    """One received line as a JSON object with a string `type`."""
    if len(line) > limit:
        raise WireError(f"a line of over {limit} bytes")
    try:
        data = untrusted.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise WireError("a line that is not UTF-8") from None
    except untrusted.Untrusted as err:
        raise WireError(str(err)) from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise WireError("a line that is not an object with a type")
    return data
