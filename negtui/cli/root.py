"""The Typer application every command module registers with."""

from __future__ import annotations

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Simulate multi-party negotiation over binding commitments.",
)
