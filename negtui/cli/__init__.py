"""The `negtui` command: one Typer app (commands.py), one module per group of sub-commands.

This package's own import is kept tiny, so that Ctrl-C at any moment of start-up ends with a message
and status 130, never a traceback: the commands are imported inside `main`."""

from __future__ import annotations

import signal
import sys

from negtui.cli.exits import EXIT_INPUT, EXIT_INTERRUPTED, leave_interrupted, quiet_interrupt


def main() -> None:
    signal.signal(signal.SIGINT, quiet_interrupt)
    try:
        from negtui.cli.commands import loaded

        loaded(sys.argv)()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        leave_interrupted()
    except SystemExit as done:
        if done.code == EXIT_INTERRUPTED:  # a command's Ctrl-C, already reported
            leave_interrupted()
        raise


def __getattr__(name: str):
    if name == "app":  # `from negtui.cli import app` (tests, embedding): every command
        from negtui.cli.commands import everything

        return everything()
    raise AttributeError(name)


__all__ = ["EXIT_INPUT", "EXIT_INTERRUPTED", "app", "main"]
