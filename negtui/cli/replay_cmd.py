"""Replaying a record: in the app, printed, as JSON, and verified by re-running every bot."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.root import app
from negtui.cli.common import DataDirOpt, JsonOpt, emit_json
from negtui.cli.errors import fail, user_errors


@app.command()
def replay(
    file: Annotated[Path | None, typer.Argument(help="Game record (JSON Lines); omit to list the records kept "
                                                     "in the data directory, newest first.")] = None,
    verify_bots: Annotated[bool, typer.Option("--verify", help="Re-run every bot decision and check it.")] = False,
    as_json: JsonOpt = False,
    print_only: Annotated[bool, typer.Option("--print", help="Print the turns instead of opening the app.")] = False,
    key: Annotated[Path | None, typer.Option("--key", help="With --verify: the key the record was signed with "
                                                           "(the data directory's record.key).")] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Replay a recorded game in the app, or print it (--print, --json); --verify re-runs every bot and
    checks everything the record states (and its signature, with --key)."""
    from negtui.agents import Table
    from negtui.engine.outcome import commitments, rounded
    from negtui.narrate import turn_line
    from negtui.record import Replay, load_record, verify
    from negtui.record.audit import audit
    from negtui.record.signing import Signature, check_chain, read_key

    with user_errors():
        if file is None:
            _list_records(data_dir, as_json)
            return
        if key is not None and not verify_bots:
            fail("error: --key checks a signature: use it with --verify")
        secret = read_key(key) if key is not None else None
        rec = load_record(file)
        rp = Replay(rec)
        if not (verify_bots or as_json or print_only) and sys.stdout.isatty() and sys.stdin.isatty():
            from negtui.tui.app import run_app

            raise typer.Exit(run_app(replay=file))
        game = rp.neg.game
        divergence = verify(rp, Table) if verify_bots else None
        findings = audit(rp) if verify_bots else []
        errors = [f for f in findings if f.error]
        signed = "mac" in rec.lines[0]
        if secret is not None:
            signature = check_chain(rec.lines, secret)
        elif verify_bots:
            signature = Signature("signed" if signed else "unsigned",
                                  "signed: pass --key to check the signature" if signed else
                                  "unsigned: the moves of people and outside agents are not protected by a signature")
        else:
            signature = None
        pay = rp.neg.returns(rp.final)
        if as_json:
            emit_json({"scenario": rec.scenario.name, "rules": rec.header.rules.name, "turns": len(rec.turns),
                       "first_turn": rp.first_turn, "complete": rec.complete, "stopped": rec.stopped,
                       "payoffs": rounded(pay), "commitments": commitments(game, rp.final.bits),
                       "parent": rec.header.parent.model_dump() if rec.header.parent else None,
                       "verified": None if not verify_bots else divergence is None and not errors,
                       "divergence": divergence.describe() if divergence else None,
                       "findings": [f.describe() for f in findings],
                       "signature": None if signature is None else {"status": signature.status,
                                                                    "message": signature.message,
                                                                    "line": signature.line}})
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
            for f in findings:
                if not f.error:
                    typer.echo(f"note: {f.describe()}")
            if verify_bots and divergence is None and not errors:
                typer.echo(f"verified: every bot decision of {len(rec.turns)} turns re-runs identically, and the "
                           "forecasts, deciders, baseline and welfare recorded are the game's")
            if signature is not None and signature.status != "invalid":
                typer.echo(signature.message)
        problems = []
        if divergence is not None:
            problems.append(f"{file}: verification failed at {divergence.describe()}")
        problems += [f"{file}: {f.describe()}" for f in errors]
        if signature is not None and (signature.status == "invalid" or (secret is not None and
                                                                        signature.status == "unsigned")):
            where = f", line {signature.line}" if signature.line else ""
            problems.append(f"{file}{where}: {signature.message}")
        if problems:
            fail("\n".join(problems))


LISTED = 20  # records listed without a file, newest first


def _list_records(data_dir: Path | None, as_json: bool) -> None:
    """Where the app's records are, newest first: the answer to `negtui replay` without a file."""
    import datetime as dt

    from negtui.session import recent_records, user_data_dir

    folder = (data_dir or user_data_dir()) / "records"
    found = recent_records(folder)
    if as_json:
        emit_json({"folder": str(folder), "records": [str(p) for p in found[:LISTED]], "total": len(found)})
        return
    if not found:
        typer.echo(f"no records in {folder}: games played in the app are recorded there (negtui play), "
                   "and negtui autoplay --record FILE writes one anywhere")
        return
    typer.echo(f"records in {folder}, newest first ({min(len(found), LISTED)} of {len(found)}):")
    for p in found[:LISTED]:
        when = dt.datetime.fromtimestamp(p.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        typer.echo(f"  {when}  {p.relative_to(folder)}")
    typer.echo(f"replay one with: negtui replay {found[0]}")
