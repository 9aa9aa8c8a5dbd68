"""Every sub-command, registered with the Typer app by importing its module."""

from negtui.cli import game_cmds, play_cmd, replay_cmd, scenario_cmds, welfare_cmd  # noqa: F401  (registration)
from negtui.cli.root import app

__all__ = ["app"]
