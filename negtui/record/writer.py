"""Writing a record turn by turn, flushed after every line: a crash loses at most the turn in flight."""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from typing import IO

from pydantic import BaseModel

from negtui import __version__
from negtui.engine.lenses import CLOSED_FORM_LENSES as FORECAST_LENSES
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.turns import TurnEvent
from negtui.engine.outcome import rounded
from negtui.record.digest import state_digest
from negtui.record.format import FORMAT, Header, Parent, ResultLine, TurnLine
from negtui.seats import Seat


def forecasts(neg: Negotiation, s: State, shown: dict | None = None) -> dict[str, list[float]]:
    """The closed-form lens forecasts of every player, as the app shows them (or as given)."""
    shown = shown or {lens: neg.forecast(s, lens) for lens in FORECAST_LENSES}
    return {lens: rounded(shown[lens], 6) for lens in FORECAST_LENSES}


class RecordWriter:
    def __init__(self, path: str | os.PathLike[str], neg: Negotiation, seats: list[Seat], start: State,
                 parent: Parent | None = None, force: bool = False):
        self.path = Path(path)
        if self.path.exists() and not force:
            raise FileExistsError(f"{self.path} exists; pass --force to overwrite")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.neg = neg
        self._fh: IO[str] = self.path.open("w", encoding="utf-8")
        game = neg.game
        header = Header(
            format=FORMAT, negtui=__version__, scenario=game.scenario.model_dump(mode="json"), rules=neg.rules,
            budget=game.budget if game.budget != game.scenario.protocol.budget else None,
            seats=dict(zip(game.player_ids, seats)),
            started=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), start_turn=start.t,
            start_commitments=[game.cell_name(c) for c in game.cells_of(start.bits)], parent=parent,
        )
        self._write(header)

    def _write(self, line: BaseModel) -> None:
        """One JSON line; top-level fields that are not set are left out."""
        data = {k: v for k, v in line.model_dump(mode="json").items() if v is not None}
        self._fh.write(json.dumps(data, separators=(",", ":")) + "\n")
        self._fh.flush()

    def turn(self, ev: TurnEvent, switched: dict[str, Seat] | None = None, shown: dict | None = None) -> None:
        """One turn; `switched` maps player ids to the seats that took over before it, and `shown` holds
        the forecasts already computed for the state after it."""
        game = self.neg.game
        line = TurnLine(t=ev.t, proposer=game.player_ids[ev.proposer], partner=game.player_ids[ev.partner],
                        offer=[game.cell_name(c) for c in ev.offer.cells], accepted=ev.accepted,
                        decided_by=ev.decided_by, digest=state_digest(ev.after.t, ev.after.bits),
                        forecasts=forecasts(self.neg, ev.after, shown), seats=switched or None, fault=ev.fault)
        self._write(line)

    def result(self, s: State, baseline: list[float] | None = None, welfare: dict | None = None) -> None:
        game = self.neg.game
        pay = rounded(self.neg.returns(s))
        self._write(ResultLine(payoffs=pay, commitments=[game.cell_name(c) for c in game.cells_of(s.bits)],
                               baseline=baseline, welfare=welfare))

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
