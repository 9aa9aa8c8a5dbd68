"""Replaying a record: in the app, printed, as JSON, and verified by re-running every bot."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from negtui.cli.common import DataDirOpt, JsonOpt, LlmUrlOpt, emit_json, open_app
from negtui.cli.errors import fail, user_errors
from negtui.cli.root import app

if TYPE_CHECKING:
    from negtui.engine.game import Game
    from negtui.record import Divergence, Replay
    from negtui.record.audit import Finding
    from negtui.record.format import MessageLine
    from negtui.record.signing import Signature


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
    llm_base_url: LlmUrlOpt = None,
    seat: Annotated[list[str] | None, typer.Option(
        "--seat", help="NAME=SEAT (repeatable): who plays a seat when you take the game over in the app (t), as "
                       "in play. A program or model the record names is played by a lens bot unless given "
                       "here.")] = None,
) -> None:
    """Replay a recorded game in the app, or print it (--print, --json); --verify re-runs every bot and
    checks everything the record states (and its signature, with --key)."""
    from negtui.record import Replay, load_record
    from negtui.record.signing import read_key

    with user_errors():
        if file is None:
            _list_records(data_dir, as_json)
            return
        if key is not None and not verify_bots:
            fail("error: --key checks a signature: use it with --verify")
        secret = read_key(key) if key is not None else None
        rp = Replay(load_record(file))
        opens_app = not (verify_bots or as_json or print_only)
        if seat and not opens_app:
            fail("error: --seat says who plays when you take a replay over in the app; it does nothing with "
                 "--verify, --print or --json")
        if opens_app and sys.stdout.isatty() and sys.stdin.isatty():
            from negtui.seats import Seat, parse_seats

            seats = parse_seats(seat or [], rp.record.scenario)
            raise typer.Exit(open_app(replay=file, data_dir=data_dir, seats=seats, base=Seat(base_url=llm_base_url)))
        checks = _check(rp, secret) if verify_bots else None
        if as_json:
            _emit(rp, checks)
        else:
            _print(rp, checks)
        if checks is not None and checks.problems(file, secret):
            fail("\n".join(checks.problems(file, secret)))


@dataclass(frozen=True)
class _Checks:
    """What --verify found: the first bot decision re-run differently, the audit, the signature."""

    divergence: Divergence | None
    findings: list[Finding]
    signature: Signature

    @property
    def verified(self) -> bool:
        return self.divergence is None and not any(f.error for f in self.findings)

    def problems(self, file: Path, secret: bytes | None) -> list[str]:
        out = []
        if self.divergence is not None:
            out.append(f"{file}: verification failed at {self.divergence.describe()}")
        out += [f"{file}: {f.describe()}" for f in self.findings if f.error]
        sig = self.signature
        if sig.status == "invalid" or (secret is not None and sig.status == "unsigned"):
            where = f", line {sig.line}" if sig.line else ""
            out.append(f"{file}{where}: {sig.message}")
        return out


def _check(rp: Replay, secret: bytes | None) -> _Checks:
    from negtui.agents import AgentOptions, Seating
    from negtui.record import verify
    from negtui.record.audit import audit
    from negtui.record.signing import Signature, check_chain

    rec = rp.record
    if secret is not None:
        signature = check_chain(rec.lines, secret)
    elif "mac" in rec.lines[0]:
        signature = Signature("signed", "signed: pass --key to check the signature")
    else:
        signature = Signature("unsigned", "unsigned: the moves of people and outside agents are not protected by a "
                                          "signature")
    options = AgentOptions(information=rec.header.information or "public")  # the bots decided on what they knew
    return _Checks(verify(rp, lambda neg, seats: Seating(neg, seats, options)), audit(rp), signature)


def _emit(rp: Replay, checks: _Checks | None) -> None:
    from negtui.engine.outcome import commitments, rounded

    rec, game = rp.record, rp.neg.game
    sig = checks.signature if checks else None
    emit_json({"scenario": rec.scenario.name, "rules": rec.header.rules.name, "turns": len(rec.turns),
               "first_turn": rp.first_turn, "complete": rec.complete, "stopped": rec.stopped,
               "ended": rec.result.ended if rec.result is not None else None,
               "incomplete": None if rec.complete else _incomplete(rp),
               "payoffs": rounded(rp.neg.returns(rp.final)), "commitments": commitments(game, rp.final.bits),
               "parent": rec.header.parent.model_dump() if rec.header.parent else None,
               "verified": None if checks is None else checks.verified,
               "divergence": checks.divergence.describe() if checks and checks.divergence else None,
               "findings": [f.describe() for f in checks.findings] if checks else [],
               "signature": None if sig is None else {"status": sig.status, "message": sig.message, "line": sig.line}})


def _print(rp: Replay, checks: _Checks | None) -> None:
    from negtui.engine import shown_turn
    from negtui.narrate import payoffs_words, turn_line
    from negtui.table.endings import ended_words

    rec, game = rp.record, rp.neg.game
    typer.echo(f"{rec.scenario.name} — rules {rec.header.rules.name}, recorded {rec.header.started}")
    if rec.header.parent:
        typer.echo(f"fork of {rec.header.parent.file} from turn {shown_turn(rec.header.parent.turn)}")
    said = sorted(rec.messages, key=lambda m: m.t)  # what was said at a table, before the turn it was said in
    k = 0
    for ev in rp.events:
        while k < len(said) and said[k].t <= ev.t:
            typer.echo(_said(game, said[k]))
            k += 1
        typer.echo(turn_line(game, ev, deciders=True))
    for message in said[k:]:  # said after the last turn
        typer.echo(_said(game, message))
    if rec.result is not None and rec.result.ended is not None:
        typer.echo(ended_words(rec.result.ended, len(rec.turns), game.T))
    typer.echo("payoffs: " + payoffs_words(game, rp.neg.returns(rp.final)))
    if rec.stopped:
        typer.echo(f"note: {rec.stopped}")
    elif not rec.complete:
        typer.echo(f"note: {_incomplete(rp)}")
    if checks is None:
        return
    for f in checks.findings:
        if not f.error:
            typer.echo(f"note: {f.describe()}")
    if checks.verified:
        checked = ("forecasts, deciders, baseline and welfare recorded are the game's" if rec.complete else
                   "forecasts and deciders recorded are the game's (no result line: no baseline or welfare to check)")
        typer.echo(f"verified: every bot decision of {len(rec.turns)} turns re-runs identically, and the {checked}")
    if checks.signature.status != "invalid":
        sig = checks.signature.message
        if checks.signature.status == "valid" and not rec.complete:
            sig += (" — of an incomplete record: lines cut from its end leave the lines before them valid, so "
                    "the signature cannot tell a cut record from a game left unfinished")
        typer.echo(sig)


def _said(game: Game, message: MessageLine) -> str:
    """'t  3 said B → everyone: …': a message kept in a table's record, cleaned as everything a record holds
    (nothing a terminal would act on), its sender and addressee named as the turn lines name players."""
    from negtui.engine import shown_turn
    from negtui.names import player_names
    from negtui.scenario.untrusted import one_line

    names = dict(zip(game.player_ids, player_names(game.scenario), strict=True))

    def who(pid: str | None) -> str:
        if pid is None:
            return "everyone"
        return "the trainer" if pid == "trainer" else names.get(pid) or one_line(pid, 64)

    return f"t{shown_turn(message.t):>3} said {who(message.sender)} → {who(message.to)}: {one_line(message.text, 2000)}"


def _incomplete(rp: Replay) -> str:
    """Where a record without a result line stops: an unfinished game, or one cut short by hand."""
    from negtui.engine import shown_turn

    game = rp.neg.game
    last = rp.events[-1].t if rp.events else None
    where = f"after turn {shown_turn(last)} of {game.T}" if last is not None else f"before its first turn of {game.T}"
    return (f"the record is incomplete: it stops {where} with no result line (the game was not finished, or "
            "lines were cut from its end)")


LISTED = 20  # records listed without a file, newest first


def _list_records(data_dir: Path | None, as_json: bool) -> None:
    """Where the app's records are, newest first: the answer to `negtui replay` without a file."""
    import datetime as dt

    from negtui.datadir import recent_records, user_data_dir

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
