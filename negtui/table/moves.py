"""Decisions on the wire: a move as the table announces it, and a person's decision as a client sends
it, by player and action ids (never indices, which a client could not check).

Only the table decides what is recorded about a move: from a client's line it reads what a person
decides and nothing else; whose move it is and whether it replaced a failed decision are the table's.

Under simultaneous rules (docs/simultaneous.md) several decisions of a turn are open at once: an offer names
its proposer (the player), and an answer names the proposer of the offer it answers (`proposer`)."""

from __future__ import annotations

from typing import Any

from negtui.engine.negotiation import IllegalMove, Negotiation, Phase, State
from negtui.engine.turns import Move

# what a person decides (an answer in a simultaneous turn names the offer's proposer); every other field is the table's
CLIENT_FIELDS = ("t", "phase", "partner", "cells", "accept", "proposer")


def move_to_wire(neg: Negotiation, m: Move) -> dict[str, Any]:
    g = neg.game
    out: dict[str, Any] = {"t": m.t, "player": g.player_ids[m.player], "phase": m.phase.value}
    if m.phase is Phase.PROPOSE and m.offer is not None:
        out["partner"] = g.player_ids[m.offer.partner]
        out["cells"] = g.pairs_of(m.offer.bits)
    else:
        out["accept"] = bool(m.accept)
        if g.simultaneous and m.offer is not None:  # which of the turn's offers it answers
            out["proposer"] = g.player_ids[m.offer.proposer]
    if m.fault:
        out["fault"] = m.fault
    return out


def move_from_wire(neg: Negotiation, s: State, data: dict[str, Any]) -> Move:
    """A decision at state s from its wire form; IllegalMove when it names what the game has not (the
    move itself is checked when it is applied)."""
    g = neg.game
    try:
        t, player, phase = int(data["t"]), g.index_of(str(data["player"])), Phase(data["phase"])
        fault = None if data.get("fault") is None else str(data["fault"])
        if g.simultaneous:
            return _simultaneous(neg, s, t, player, phase, data, fault)
        if phase is Phase.PROPOSE:
            cells = [_cell(neg, pair) for pair in data.get("cells") or []]
            partner = g.index_of(str(data["partner"]))
            if t != s.t or player != neg.proposer(s):
                raise IllegalMove("this offer belongs to another moment of the game", "phase")
            offer = neg.offer(s, partner, cells) if cells else neg.pass_offer(s)
            return Move(t, player, phase, offer, fault=fault)
        return Move(t, player, Phase.RESPOND, accept=_accept(data["accept"]), fault=fault)
    except (KeyError, TypeError, ValueError) as err:
        raise IllegalMove(f"not a decision this game knows: {err}", "wire") from None


def _simultaneous(neg: Negotiation, s: State, t: int, player: int, phase: Phase, data: dict[str, Any],
                  fault: str | None) -> Move:
    """A decision of a simultaneous turn: the player's offer (made against the start of the turn), or its answer
    to the offer of `proposer`; IllegalMove when that decision is not open at s."""
    g = neg.game
    if t != s.t or neg.is_terminal(s) or neg.phase(s) is not phase:
        raise IllegalMove("this decision belongs to another moment of the game", "phase")
    if phase is Phase.PROPOSE:
        at = neg.focus(s, player)  # the player's own offer, not yet made
        cells = [_cell(neg, pair) for pair in data.get("cells") or []]
        partner = g.index_of(str(data["partner"]))
        offer = neg.offer(at, partner, cells) if cells else neg.pass_offer(at)
        return Move(t, player, phase, offer, fault=fault)
    if data.get("proposer") is None:
        raise IllegalMove("an answer in a simultaneous turn names the proposer of the offer it answers", "wire")
    pending = neg.focus(s, g.index_of(str(data["proposer"]))).pending
    if pending is None or pending.partner != player:
        raise IllegalMove(f"that offer is not {g.player_ids[player]}'s to answer", "partner")
    return Move(t, player, Phase.RESPOND, pending, accept=_accept(data["accept"]), fault=fault)


def decision_from_client(neg: Negotiation, s: State, player: str, data: dict[str, Any]) -> Move:
    """A person's decision as the table takes it: the player is the seat they sit in, and a field the
    table sets (a fault, above all) is never taken from their line."""
    return move_from_wire(neg, s, {**{k: data[k] for k in CLIENT_FIELDS if k in data}, "player": player})


def _accept(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"an answer's accept is true or false, not {str(value)[:20]!r}")
    return value


def _cell(neg: Negotiation, pair: object) -> int:
    if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
        raise ValueError(f"{pair!r} is not a [player, action] pair")
    try:
        return neg.game.cell_index[(pair[0], pair[1])]
    except KeyError:
        raise ValueError(f"no action {pair[1]!r} of {pair[0]!r}") from None
