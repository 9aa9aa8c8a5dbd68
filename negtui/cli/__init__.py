"""The `negtui` command: one Typer app, one module per group of sub-commands.

Every expected failure becomes a message on stderr and exit status 2 (`errors.py`); Ctrl-C stops a
run cleanly with status 130.  Heavy imports happen inside commands so that `negtui validate` and
`negtui autoplay` start fast.
"""

from __future__ import annotations

import sys

import typer

from negtui.cli import game_cmds, play_cmd, replay_cmd, scenario_cmds, welfare_cmd  # noqa: F401  (registration)
from negtui.cli.app import app
from negtui.cli.errors import EXIT_INPUT, EXIT_INTERRUPTED

__all__ = ["EXIT_INPUT", "EXIT_INTERRUPTED", "app", "main"]


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
