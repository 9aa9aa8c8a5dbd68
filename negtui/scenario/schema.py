"""The JSON Schema of scenario files, generated from the models (committed as scenario.schema.json)."""

from __future__ import annotations

import json
from pathlib import Path

from negtui.scenario.model import Scenario

SCHEMA_FILE = Path(__file__).with_name("scenario.schema.json")


def scenario_schema() -> dict:
    schema = Scenario.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "negtui scenario"
    return schema


def schema_text() -> str:
    return json.dumps(scenario_schema(), indent=1) + "\n"
