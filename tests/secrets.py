"""A scenario whose values are easy to spot: the coalition trap with B's and C's values changed to
numbers nothing else on a screen can produce, so a test can look for them in everything A is shown
under private information.  A keeps the trap's 10 and 6."""

from __future__ import annotations

import json
from pathlib import Path

from negtui.scenario import Scenario, parse_scenario
from tests.paths import COALITION_TRAP

# what another player's values look like, written as {:g} and as the 1-decimal forecasts round them
SECRETS = ("11.375", "11.4", "7.625", "7.6", "31.75", "31.8", "3.125", "6.875", "6.9")


def secret_scenario() -> Scenario:
    data = json.loads(COALITION_TRAP.read_text())
    data["name"] = "secret-trap"
    data["description"] = "Three departments share a budget; each knows only its own stakes."
    data["lesson"] = "The debrief shows every department's values."
    values = {"raid": {"A": 10, "B": 11.375, "C": -31.75}, "earmark": {"C": -3.125},
              "platform": {"A": 6, "B": 7.625, "C": 6.875}}
    for goal in data["goals"]:
        goal["values"] = values[goal["id"]]
    return parse_scenario(data)


def write_secret_scenario(path: Path) -> Path:
    path.write_text(json.dumps(secret_scenario().model_dump(mode="json")))
    return path


def leaks(text: str) -> list[str]:
    """The secret values that appear in `text`."""
    return [s for s in SECRETS if s in text]
