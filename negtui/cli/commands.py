"""Every sub-command, registered with the Typer app by importing its module.

Typer builds the options of every registered command before it runs one (a tenth of a second for all
of them), so a command named on the command line is registered alone: `negtui play` opens the app
sooner.  Help, completion and anything unknown get every command."""

from __future__ import annotations

import importlib

import typer

from negtui.cli.root import app

# each command, and the module that registers it (tests/cli/test_commands.py checks it against the modules)
MODULES: dict[str, str] = {
    "case": "case_cmds",
    "class": "class_cmd",
    "describe": "describe_cmd",
    "autoplay": "game_cmds", "solve": "game_cmds", "baseline": "game_cmds",
    "learn": "learn_cmd",
    "play": "play_cmd",
    "replay": "replay_cmd",
    "validate": "scenario_cmds", "schema": "scenario_cmds", "generate": "scenario_cmds",
    "import-hnc": "scenario_cmds", "export-hnc": "scenario_cmds", "scenarios": "scenario_cmds",
    "import-scoresheet": "scenario_cmds",
    "serve": "serve_cmds", "watch": "serve_cmds",
    "sweep": "sweep_cmds", "report": "sweep_cmds",
    "table": "table_cmds",
    "trainees": "trainee_cmds", "results": "results_cmd",
    "welfare": "welfare_cmd",
}


def loaded(argv: list[str] | None = None) -> typer.Typer:
    """The app with the command `argv` names (its first argument) registered, or every command."""
    command = argv[1] if argv is not None and len(argv) > 1 else None
    modules = [MODULES[command]] if command in MODULES else sorted(set(MODULES.values()))
    for module in modules:
        importlib.import_module(f"negtui.cli.{module}")
    return app


def everything() -> typer.Typer:
    return loaded(None)


__all__ = ["MODULES", "app", "everything", "loaded"]
