"""Writing a record turn by turn, flushed after every line: a crash loses at most the turn in flight."""

from __future__ import annotations

import datetime as _dt
import os
from pathlib import Path
from typing import IO

from negtui import __version__
from negtui.engine.lenses import CLOSED_FORM_LENSES as FORECAST_LENSES
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.protocol import TurnEvent
from negtui.narrate import rounded
from negtui.record.digest import state_digest
from negtui.record.format import FORMAT, Header, Parent, ResultLine, SeatSpec, TurnLine



def seat_spec(agent: object) -> SeatSpec:
    """The record's description of a seat's agent."""
    if hasattr(agent, "propose_lens"):
        return SeatSpec(agent="lens", propose=agent.propose_lens, respond=agent.respond_lens,
                        partner=agent.partner_method, sims=agent.sims, ucb=agent.ucb, seed=agent.seed)
    return SeatSpec(agent="human")


def forecasts(neg: Negotiation, s: State, shown: dict | None = None) -> dict[str, list[float]]:
    """The closed-form lens forecasts of every player, as the app shows them (or as given)."""
    shown = shown or {lens: neg.forecast(s, lens) for lens in FORECAST_LENSES}
    return {lens: rounded(shown[lens], 6) for lens in FORECAST_LENSES}


class RecordWriter:
    def __init__(self, path: str | os.PathLike[str], neg: Negotiation, seats: list[object], start: State,
                 parent: Parent | None = None, force: bool = False):
        self.path = Path(path)
        if self.path.exists() and not force:
            raise FileExistsError(f"{self.path} exists; pass --force to overwrite")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.neg = neg
        self._fh: IO[str] = self.path.open("w", encoding="utf-8")
        game = neg.game
        header = Header(
            format=FORMAT, negtui=__version__, scenario=game.scenario.model_dump(mode="json"), rules=neg.rules.name,
            budget=game.budget if game.budget != game.scenario.protocol.budget else None,
            seats={pid: seat_spec(a) for pid, a in zip(game.player_ids, seats)},
            started=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), start_turn=start.t,
            start_commitments=[game.cell_name(c) for c in game.cells_of(start.bits)], parent=parent,
        )
        self._write(header.model_dump_json(exclude_none=True))

    def _write(self, line: str) -> None:
        self._fh.write(line + "\n")
        self._fh.flush()

    def turn(self, ev: TurnEvent, switched: dict[str, object] | None = None, shown: dict | None = None) -> None:
        """One turn; `switched` maps player ids to the agents that took over their seats before it, and
        `shown` holds the forecasts already computed for the state after it."""
        game = self.neg.game
        line = TurnLine(t=ev.t, proposer=game.player_ids[ev.proposer], partner=game.player_ids[ev.partner],
                        offer=[game.cell_name(c) for c in game.cells_of(ev.offer.bits)], accepted=ev.accepted,
                        decided_by=ev.decided_by, digest=state_digest(ev.after.t, ev.after.bits),
                        forecasts=forecasts(self.neg, ev.after, shown),
                        seats={pid: seat_spec(a) for pid, a in switched.items()} if switched else None)
        self._write(line.model_dump_json(exclude_none=True))

    def result(self, s: State, baseline: list[float] | None = None, welfare: dict | None = None) -> None:
        game = self.neg.game
        pay = rounded(self.neg.returns(s))
        self._write(ResultLine(payoffs=pay, commitments=[game.cell_name(c) for c in game.cells_of(s.bits)],
                               baseline=baseline, welfare=welfare).model_dump_json(exclude_none=True))

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
