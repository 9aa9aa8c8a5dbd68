"""Writing a record turn by turn, each line written whole or not at all: a crash loses at most the turn
in flight, and a full disk leaves the record cut after its last whole line, never inside one.

A record has one writer: the file is created exclusively (an existing one is replaced only when
forced), and locked while the game is written, so a second writer is refused with a message instead
of leaving a file that mixes two games."""

from __future__ import annotations

import datetime as _dt
import errno
import json
import os
import stat
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from negtui import __version__
from negtui.engine import shown_turn
from negtui.engine.baseline import no_negotiation
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.observation import outcome_json
from negtui.engine.outcome import rounded, welfare
from negtui.engine.portable import PortableGame
from negtui.engine.turns import TurnEvent
from negtui.engine.valuation import Valuation
from negtui.engine.vocabulary import CLOSED_FORM_LENSES as FORECAST_LENSES
from negtui.locks import Busy, lock_or_close
from negtui.record.digest import state_digest
from negtui.record.format import FORMAT, Header, MessageLine, OfferLine, Parent, ResultLine, TurnLine
from negtui.record.signing import Chain
from negtui.seats import Seat


class CannotWrite(OSError):
    """A record file that cannot be created, or is being written by someone else."""


class RecordCut(CannotWrite):
    """A record that could not take its next line (a full disk): what it still holds is in `reason`."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.reason = reason


def open_exclusive(path: Path, force: bool = False) -> int:
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
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):  # forced: the old content goes only once the file is ours
            os.ftruncate(fd, 0)
    except OSError as err:
        os.close(fd)
        raise CannotWrite(f"cannot write {path}: {err.strerror}") from None
    return fd


def why_not_written(err: OSError) -> str:
    """What a user can act on: a full disk (or quota) named as such."""
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    return err.strerror or str(err)


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
        self.last_turn: int | None = None  # the last turn written whole
        self._size = 0  # bytes of whole lines written
        self._fd: int | None = open_exclusive(self.path, force)
        self._removable = stat.S_ISREG(os.fstat(self._fd).st_mode)  # never a device named as the record
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
        """One JSON line; top-level fields that are not set are left out.  Raises CannotWrite when the line
        cannot be written whole; the file then ends at the line before, and takes nothing more."""
        if self._fd is None:
            raise CannotWrite(f"cannot write {self.path}: it was closed")
        data = {k: v for k, v in line.model_dump(mode="json").items() if v is not None}
        if self._chain is not None:
            data["mac"] = self._chain.next(data)
        encoded = (json.dumps(data, separators=(",", ":"), allow_nan=False) + "\n").encode()
        raw = memoryview(encoded)
        try:
            while raw:
                raw = raw[os.write(self._fd, raw):]
        except OSError as err:
            self._give_up(err)
        self._size += len(encoded)  # a pipe has no position to ask for
        self.lines += isinstance(line, (TurnLine, MessageLine, ResultLine))
        if isinstance(line, TurnLine):
            self.last_turn = line.t

    def _give_up(self, err: OSError) -> None:
        """Cut the part of a line that was written, close, and say what the file still holds."""
        fd, self._fd = self._fd, None
        assert fd is not None
        try:
            os.ftruncate(fd, self._size)
        except OSError:
            pass
        os.close(fd)  # also releases the lock
        if not self._size or (self.fresh and not self.lines):  # nothing the scenario does not say (see close)
            self._remove()
            kept = "nothing was recorded"
        elif self.last_turn is None:
            kept = "the record holds no turn"
        else:
            kept = f"the record keeps the game up to turn {shown_turn(self.last_turn)}, every line whole"
        raise RecordCut(self.path, f"{why_not_written(err)}; {kept}")

    def turn(self, ev: TurnEvent, switched: dict[str, Seat] | None = None, shown: dict | None = None) -> None:
        """One turn; `switched` maps player ids to the seats that took over before it, and `shown` holds
        the forecasts already computed for the state after it."""
        game = self.neg.game
        common = {"t": ev.t, "digest": state_digest(ev.after.t, ev.after.bits),
                  "forecasts": forecasts(self._valuation, ev.after, shown), "seats": switched or None}
        if ev.simultaneous:  # every proposer's offer and what became of it
            line = TurnLine(**common, offers=[OfferLine(**outcome_json(game, out)) for out in ev.outcomes])
        else:
            line = TurnLine(**common, proposer=game.player_ids[ev.proposer], partner=game.player_ids[ev.partner],
                            offer=game.pairs_of(ev.offer.bits), accepted=ev.accepted, decided_by=ev.decided_by,
                            fault=ev.fault)
        self._write(line)

    def message(self, t: int, sender: str, to: str | None, text: str) -> None:
        """Something said at the table while turn t is under way."""
        self._write(MessageLine(t=t, sender=sender, to=to, text=text))

    def result(self, s: State, ended: str | None = None) -> None:
        """The result line, worked out here from the final state alone, so that every writer (the app, the
        command line, a table) writes the same bytes for the same game.  `ended`: why the game stopped before
        its last turn ("clock": the round's time ran out; "trainer": the trainer called time), the commitments
        standing as they were."""
        game, rules = self.neg.game, self.neg.rules
        pay = self.neg.returns(s)
        self._write(ResultLine(payoffs=rounded(pay), commitments=game.pairs_of(s.bits),
                               baseline=rounded(no_negotiation(game, rules).payoffs), welfare=welfare(pay),
                               ended=ended))

    def close(self, discard_empty: bool = True) -> None:
        """A record of a new game left with no line after its header (quit before its first turn) says
        nothing the scenario does not: it is removed (a fork's header keeps the position it starts from)
        (while still locked, so no other writer can have taken the name), unless `discard_empty` is off."""
        if self._fd is None:
            return
        if discard_empty and self.fresh and not self.lines:
            self._remove()
        os.close(self._fd)  # also releases the lock
        self._fd = None

    def _remove(self) -> None:
        if self._removable:
            self.path.unlink(missing_ok=True)

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
