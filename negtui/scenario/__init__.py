"""Scenario files: the pydantic models, loading with located errors, and the JSON Schema."""

from negtui.scenario.io import Problem, ScenarioError, dump_scenario, load_scenario, parse_scenario, write_scenario
from negtui.scenario.model import Action, CellRef, Goal, Player, Protocol, Scenario

__all__ = [
    "Action", "CellRef", "Goal", "Player", "Problem", "Protocol", "Scenario", "ScenarioError",
    "dump_scenario", "load_scenario", "parse_scenario", "write_scenario",
]
