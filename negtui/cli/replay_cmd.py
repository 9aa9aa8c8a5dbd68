"""Replaying a record: in the app, printed, as JSON, and verified by re-running every bot."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.app import app
from negtui.cli.common import JsonOpt, emit_json
from negtui.cli.errors import fail, user_errors


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="Game record (JSON Lines).")],
    verify_bots: Annotated[bool, typer.Option("--verify", help="Re-run every bot decision and check it.")] = False,
    as_json: JsonOpt = False,
    print_only: Annotated[bool, typer.Option("--print", help="Print the turns instead of opening the app.")] = False,
) -> None:
    """Replay a recorded game in the app, or print it (--print, --json); --verify re-runs every bot."""
    from negtui.agents import Table
    from negtui.engine.outcome import commitments, rounded
    from negtui.narrate import turn_line
    from negtui.record import Replay, load_record, verify

    with user_errors():
        rec = load_record(file)
        rp = Replay(rec)
        if not (verify_bots or as_json or print_only) and sys.stdout.isatty() and sys.stdin.isatty():
            from negtui.tui.app import run_app

            raise typer.Exit(run_app(replay=file))
        game = rp.neg.game
        divergence = verify(rp, Table) if verify_bots else None
        pay = rp.neg.returns(rp.final)
        if as_json:
            emit_json({"scenario": rec.scenario.name, "rules": rec.header.rules.name, "turns": len(rec.turns),
                       "first_turn": rp.first_turn, "complete": rec.complete, "stopped": rec.stopped,
                       "payoffs": rounded(pay), "commitments": commitments(game, rp.final.bits),
                       "parent": rec.header.parent.model_dump() if rec.header.parent else None,
                       "verified": None if not verify_bots else divergence is None,
                       "divergence": divergence.describe() if divergence else None})
        else:
            typer.echo(f"{rec.scenario.name} — rules {rec.header.rules.name}, recorded {rec.header.started}")
            if rec.header.parent:
                typer.echo(f"fork of {rec.header.parent.file} at turn {rec.header.parent.turn}")
            for ev in rp.events:
                typer.echo(f"{turn_line(game, ev)} ({ev.decided_by})")
            typer.echo("payoffs: " + ", ".join(f"{p} {v:.2f}" for p, v in zip(game.player_ids, pay)))
            if rec.stopped:
                typer.echo(f"note: {rec.stopped}")
            elif not rec.complete:
                typer.echo("note: the record has no result line (the game was not finished)")
            if verify_bots and divergence is None:
                typer.echo(f"verified: every bot decision of {len(rec.turns)} turns re-runs identically")
        if divergence is not None:
            fail(f"{file}: verification failed at {divergence.describe()}")
