"""Checking everything a record states that can be recomputed from its header and turns.

Loading already plays every turn through the rules and checks its digest and the result line's
payoffs and commitments; bot decisions are re-run by `verify`.  The audit checks the rest: the
forecasts shown after every turn, who is said to have decided each turn, the result line's baseline
and welfare, agent faults attributed to bots, and a fork's parent.  What only a key can vouch for (the
moves of people and outside agents) is the signature's job (signing.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from negtui.engine.baseline import no_negotiation
from negtui.engine.game import Game
from negtui.engine.metrics import welfare_summary
from negtui.engine.offers import Offer
from negtui.engine.vocabulary import CLOSED_FORM_LENSES
from negtui.record.digest import state_digest
from negtui.record.reader import RecordError, line_of, load_record
from negtui.record.replay import Replay
from negtui.seats import Seat

TOLERANCE = 1e-6  # forecasts are written rounded to 6 decimals


@dataclass(frozen=True)
class Finding:
    line: int | None
    path: str
    message: str
    error: bool = True  # False: a note (something that could not be checked)

    def describe(self) -> str:
        where = f"line {self.line}, " if self.line else ""
        return f"{where}{self.path}: {self.message}"


def audit(replay: Replay) -> list[Finding]:
    out: list[Finding] = []
    out += _turns(replay)
    out += _result(replay)
    out += _parent(replay)
    return out


def _turns(replay: Replay) -> list[Finding]:
    game, out = replay.neg.game, []
    seats = dict(replay.record.header.seats)
    for k, (line, ev) in enumerate(zip(replay.record.turns, replay.events)):
        n = line_of(replay.record, "turn", k)
        seats.update(line.seats or {})
        if line.offers is None:
            assert line.decided_by is not None
            out += _decider(game, seats, n, "$", ev.offer, line.decided_by, line.fault)
        else:  # every offer of a simultaneous turn
            for j, (outcome, said) in enumerate(zip(ev.outcomes, line.offers)):
                out += _decider(game, seats, n, f"$.offers[{j}]", outcome.offer, said.decided_by, said.fault)
        for lens, values in line.forecasts.items():
            if lens not in CLOSED_FORM_LENSES:
                out.append(Finding(n, f"$.forecasts.{lens}", "not a lens negtui forecasts"))
                continue
            want = replay.valuation.forecast(ev.after, lens)
            if len(values) != game.n or not np.allclose(values, want, rtol=0.0, atol=TOLERANCE):
                out.append(Finding(n, f"$.forecasts.{lens}", "do not match the forecasts of the state after the turn"))
    return out


def _decider(game: Game, seats: dict[str, Seat], n: int, path: str, offer: Offer, decided_by: str,
             fault: str | None) -> list[Finding]:
    """Who is said to have decided what became of an offer, and a fault recorded for a bot that cannot fail."""
    out = []
    proposing = seats.get(game.player_ids[offer.proposer])
    bound = proposing is not None and proposing.binds_offers  # its offers bind: the partner was not asked
    decider = offer.partner if offer.bits and offer.partner != offer.proposer and not bound else offer.proposer
    pid = game.player_ids[decider]
    seat = seats.get(pid)
    expected = f"{pid} ({seat.label if seat else 'human'})"
    if decided_by != expected:
        out.append(Finding(n, f"{path}.decided_by", f"says {decided_by!r}; the seats in force make it {expected!r}"))
    if fault and seat is not None and seat.is_lens:
        out.append(Finding(n, f"{path}.fault", f"a fault is recorded for {pid}, a lens bot, which cannot fail"))
    return out


def _result(replay: Replay) -> list[Finding]:
    res = replay.record.result
    if res is None:
        return []
    n = line_of(replay.record, "result", 0)
    neg, out = replay.neg, []
    if res.baseline is not None:
        base = no_negotiation(neg.game, neg.rules).payoffs
        if len(res.baseline) != neg.game.n or not np.allclose(res.baseline, base, rtol=0.0, atol=TOLERANCE):
            out.append(Finding(n, "$.baseline", "does not match the No-Negotiation baseline of this game"))
    if res.welfare is not None:
        want = welfare_summary(neg.returns(replay.final))
        for key, value in res.welfare.items():
            wanted = want.get(key)
            if key not in want or (value is None) != (wanted is None) or (
                    value is not None and wanted is not None and not np.isclose(value, wanted, rtol=1e-9,
                                                                                atol=TOLERANCE)):
                out.append(Finding(n, f"$.welfare.{key}", "does not match the final payoffs"))
    return out


def _parent(replay: Replay) -> list[Finding]:
    h = replay.record.header
    if h.parent is None:
        return []
    path = Path(h.parent.file)
    if not path.is_file():
        return [Finding(1, "$.parent.file", f"{path} is not there: the fork's origin cannot be checked", error=False)]
    try:
        parent = Replay(load_record(path))
    except RecordError as err:
        return [Finding(1, "$.parent.file", f"the parent record does not load ({err.problems[0][1]})")]
    out = []
    if h.scenario != parent.record.header.scenario or h.rules != parent.record.header.rules:
        out.append(Finding(1, "$.parent", "the fork plays another scenario or rule set than its parent"))
    try:
        s = parent.state_at(h.parent.turn)
    except IndexError:
        return [*out, Finding(1, "$.parent.turn", f"turn {h.parent.turn} is not in the parent record")]
    if state_digest(s.t, s.bits) != h.parent.digest:
        out.append(Finding(1, "$.parent.digest", "does not match the parent's state at that turn"))
    if (s.t, s.bits) != (replay.start.t, replay.start.bits):
        out.append(Finding(1, "$.start_commitments", "the fork does not start where its parent was at that turn"))
    return out
