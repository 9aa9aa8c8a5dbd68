"""The JSON Schema of scenario files, generated from the models (committed as scenario.schema.json)."""

from __future__ import annotations

from negtui.scenario.model import Scenario


def scenario_schema() -> dict:
    schema = Scenario.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "negtui scenario"
    return schema

