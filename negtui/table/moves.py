"""Decisions on the wire: a move as the table announces it, and a person's decision as a client sends
it, by player and action ids (never indices, which a client could not check)."""

from __future__ import annotations

from typing import Any

from negtui.engine.negotiation import IllegalMove, Negotiation, Phase, State
from negtui.engine.turns import Move


def move_to_wire(neg: Negotiation, m: Move) -> dict[str, Any]:
    g = neg.game
    out: dict[str, Any] = {"t": m.t, "player": g.player_ids[m.player], "phase": m.phase.value}
    if m.phase is Phase.PROPOSE and m.offer is not None:
        out["partner"] = g.player_ids[m.offer.partner]
        out["cells"] = g.pairs_of(m.offer.bits)
    else:
        out["accept"] = bool(m.accept)
    if m.fault:
        out["fault"] = m.fault
    return out


def move_from_wire(neg: Negotiation, s: State, data: dict[str, Any]) -> Move:
    """A decision at state s from its wire form; IllegalMove when it names what the game has not (the
    move itself is checked when it is applied)."""
    g = neg.game
    try:
        t, player, phase = int(data["t"]), g.index_of(str(data["player"])), Phase(data["phase"])
        fault = data.get("fault")
        if phase is Phase.PROPOSE:
            cells = [_cell(neg, pair) for pair in data.get("cells") or []]
            partner = g.index_of(str(data["partner"]))
            if t != s.t or player != neg.proposer(s):
                raise IllegalMove("this offer belongs to another moment of the game", "phase")
            offer = neg.offer(s, partner, cells) if cells else neg.pass_offer(s)
            return Move(t, player, phase, offer, fault=None if fault is None else str(fault))
        return Move(t, player, Phase.RESPOND, accept=bool(data["accept"]), fault=None if fault is None else str(fault))
    except (KeyError, TypeError, ValueError) as err:
        raise IllegalMove(f"not a decision this game knows: {err}", "wire") from None


def _cell(neg: Negotiation, pair: object) -> int:
    if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
        raise ValueError(f"{pair!r} is not a [player, action] pair")
    try:
        return neg.game.cell_index[(pair[0], pair[1])]
    except KeyError:
        raise ValueError(f"no action {pair[1]!r} of {pair[0]!r}") from None
