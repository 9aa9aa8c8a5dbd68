"""negtui describe: a scenario's scale and sign structure, measured (negtui/scenario/shape.py), beside those
of another game it stands in for."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.common import JsonOpt, emit_json, load
from negtui.cli.errors import user_errors
from negtui.cli.root import app

ROWS = [("players", "players", "d"), ("commitments", "commitments", "d"), ("goals", "goals", "d"),
        ("all-or-nothing goals", "all_or_nothing", "%"), ("turns", "turns", "d"),
        ("exclusive sets", "exclusive_sets", "d"), ("lowest value", "value_min", "g"),
        ("highest value", "value_max", "g"),
        ("non-zero values", "nonzero", "%"), ("positive (of non-zero)", "positive", "%"),
        ("negative value mass", "negative_mass", "%"), ("mixed-sign goals", "mixed_sign_goals", "%"),
        ("sign agreement", "sign_agreement", ".2f")]
SIGN = ("negative_mass", "mixed_sign_goals", "sign_agreement")


@app.command()
def describe(
    files: Annotated[list[Path], typer.Argument(help="Scenario files or bundled names.")],
    against: Annotated[Path | None, typer.Option(help="A game the others stand in for: each sign measure is marked "
                                                      "✓ within half of its value, ✗ beyond.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """A scenario's scale and sign structure: negative value mass, mixed-sign goals, sign agreement (defined in
    the documentation's Scenarios page), side by side for several games."""
    from rich.console import Console
    from rich.table import Table

    from negtui.scenario.shape import shape, within_half

    with user_errors():
        target = shape(load(against)) if against is not None else None
        shapes = [shape(load(f)) for f in files]
        if as_json:
            emit_json({"games": [s.as_dict() for s in shapes], **({"against": target.as_dict(), "within_half": [
                within_half(s, target) for s in shapes]} if target is not None else {})})
            return
        table = Table(title="scale and sign structure", title_justify="left")
        table.add_column("measure")
        shown = ([target] if target is not None else []) + shapes
        for s in shown:
            table.add_column(s.name, justify="right", overflow="fold")
        for label, name, fmt in ROWS:
            cells = []
            for k, s in enumerate(shown):
                v = getattr(s, name)
                text = f"{v:.0%}" if fmt == "%" else f"{v:{fmt}}"
                if target is not None and k > 0 and name in SIGN:
                    text += " ✓" if within_half(s, target)[name] else " ✗"
                cells.append(text)
            table.add_row(label, *cells)
        Console().print(table)
