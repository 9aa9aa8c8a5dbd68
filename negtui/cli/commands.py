"""Every sub-command, registered with the Typer app by importing its module."""

from negtui.cli import (  # noqa: F401  (registration)
    class_cmd,
    game_cmds,
    play_cmd,
    replay_cmd,
    scenario_cmds,
    serve_cmds,
    sweep_cmds,
    table_cmds,
    trainee_cmds,
    welfare_cmd,
)
from negtui.cli.root import app

__all__ = ["app"]
