"""The Typer application every command module registers with."""

from __future__ import annotations

import typer

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # a docstring's lines join into one paragraph, as in the Markdown they are
    help="Simulate multi-party negotiation over binding commitments.\n\n"
    "Turns are numbered from 1 wherever they are shown or given (the app, turn logs, coaching, messages, "
    "`--turn`); the `t` and "
    "`turn` fields of records, JSON output and the outside-agent protocol count the turns already played, "
    "from 0.",
)


def _print_version(asked: bool) -> None:
    if asked:
        from negtui import installed_version

        typer.echo(f"negtui {installed_version()}")
        raise typer.Exit()


@app.callback()
def commands(
    show_version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                      help="Print negtui's version and exit."),
) -> None:
    # a group, even when one command is registered (negtui.cli.commands registers the one it runs)
    pass
