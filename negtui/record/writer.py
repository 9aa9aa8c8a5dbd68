"""Writing a record turn by turn, flushed after every line: a crash loses at most the turn in flight.

A record has one writer: the file is created exclusively (an existing one is replaced only when
forced), and locked while the game is written, so a second writer is refused with a message instead
of leaving a file that mixes two games."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from typing import IO

import numpy as np
from pydantic import BaseModel

from negtui import __version__
from negtui.engine.baseline import no_negotiation
from negtui.engine.lenses import CLOSED_FORM_LENSES as FORECAST_LENSES
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.outcome import rounded, welfare
from negtui.engine.portable import PortableGame
from negtui.engine.turns import TurnEvent
from negtui.engine.valuation import Valuation
from negtui.locks import Busy, lock_or_close
from negtui.record.digest import state_digest
from negtui.record.format import FORMAT, Header, MessageLine, Parent, ResultLine, TurnLine
from negtui.record.signing import Chain
from negtui.seats import Seat


class CannotWrite(OSError):
    """A record file that cannot be created, or is being written by someone else."""


def open_exclusive(path: Path, force: bool = False) -> IO[str]:
    """A new file for one writer, locked for as long as it is open.  An existing file is refused, or,
    when forced, taken over only if no other writer holds it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        if not force:
            kind = "is a directory" if path.is_dir() else "exists; pass --force to overwrite"
            raise FileExistsError(f"{path} {kind}") from None
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError as err:
            raise CannotWrite(f"cannot write {path}: {err.strerror}") from None
    except OSError as err:
        raise CannotWrite(f"cannot write {path}: {err.strerror}") from None
    try:
        lock_or_close(fd)
    except Busy:
        raise CannotWrite(f"{path} is being written by another negtui process; choose another file") from None
    except OSError as err:
        raise CannotWrite(f"cannot lock {path}: {err.strerror}") from None
    os.ftruncate(fd, 0)  # forced: the old content goes only once the file is ours
    return os.fdopen(fd, "w", encoding="utf-8")


def forecasts(val: Valuation, s: State, shown: dict[str, np.ndarray] | None = None) -> dict[str, list[float]]:
    """The closed-form lens forecasts of every player, as the app shows them (or as given)."""
    shown = shown or {lens: val.forecast(s, lens) for lens in FORECAST_LENSES}
    return {lens: rounded(shown[lens], 6) for lens in FORECAST_LENSES}


class RecordWriter:
    def __init__(self, path: str | os.PathLike[str], neg: Negotiation, seats: list[Seat], start: State,
                 parent: Parent | None = None, force: bool = False, key: bytes | None = None,
                 information: str = "public"):
        """`key` signs every line (record/signing.py); `information` is what the seats knew (engine.knowledge)."""
        self.path = Path(path)
        self.neg = neg
        self._valuation = Valuation(neg)  # forecasts the caller does not give
        self._chain = Chain(key) if key else None
        self.lines = 0  # written after the header
        self.fresh = start.t == 0 and start.bits == 0 and parent is None  # else the header holds a position
        self._fh: IO[str] = open_exclusive(self.path, force)
        game = neg.game
        portable = PortableGame.of(game, neg.rules)
        header = Header(
            format=FORMAT, negtui=__version__, scenario=portable.scenario, rules=neg.rules, budget=portable.budget,
            seats=dict(zip(game.player_ids, seats)),
            started=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), start_turn=start.t,
            start_commitments=game.pairs_of(start.bits), parent=parent,
            information="private" if information == "private" else None,
        )
        self._write(header)

    def _write(self, line: BaseModel) -> None:
        """One JSON line; top-level fields that are not set are left out."""
        data = {k: v for k, v in line.model_dump(mode="json").items() if v is not None}
        if self._chain is not None:
            data["mac"] = self._chain.next(data)
        self._fh.write(json.dumps(data, separators=(",", ":"), allow_nan=False) + "\n")
        self._fh.flush()
        self.lines += isinstance(line, (TurnLine, MessageLine, ResultLine))

    def turn(self, ev: TurnEvent, switched: dict[str, Seat] | None = None, shown: dict | None = None) -> None:
        """One turn; `switched` maps player ids to the seats that took over before it, and `shown` holds
        the forecasts already computed for the state after it."""
        game = self.neg.game
        line = TurnLine(t=ev.t, proposer=game.player_ids[ev.proposer], partner=game.player_ids[ev.partner],
                        offer=game.pairs_of(ev.offer.bits), accepted=ev.accepted,
                        decided_by=ev.decided_by, digest=state_digest(ev.after.t, ev.after.bits),
                        forecasts=forecasts(self._valuation, ev.after, shown), seats=switched or None,
                        fault=ev.fault)
        self._write(line)

    def message(self, t: int, sender: str, to: str | None, text: str) -> None:
        """Something said at the table while turn t is under way."""
        self._write(MessageLine(t=t, sender=sender, to=to, text=text))

    def result(self, s: State) -> None:
        """The result line, worked out here from the final state alone, so that every writer (the app, the
        command line, a table) writes the same bytes for the same game."""
        game, rules = self.neg.game, self.neg.rules
        pay = self.neg.returns(s)
        self._write(ResultLine(payoffs=rounded(pay), commitments=game.pairs_of(s.bits),
                               baseline=rounded(no_negotiation(game, rules).payoffs), welfare=welfare(pay)))

    def close(self, discard_empty: bool = True) -> None:
        """A record of a new game left with no line after its header (quit before its first turn) says
        nothing the scenario does not: it is removed (a fork's header keeps the position it starts from)
        (while still locked, so no other writer can have taken the name), unless `discard_empty` is off."""
        if discard_empty and self.fresh and not self.lines and not self._fh.closed:
            self.path.unlink(missing_ok=True)
        self._fh.close()  # also releases the lock

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
