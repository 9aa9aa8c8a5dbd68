"""Games in words and in JSON: turn lines, commitment lists, result objects.

Shared by the command line, the app and game records, so a turn reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from negtui.engine.game import Game
from negtui.engine.negotiation import shown_turn
from negtui.engine.turns import TurnEvent
from negtui.names import action_names, action_texts, player_names


def cell_label(game: Game, c: int) -> str:
    """The action as people read it (negtui.names): its id, or the start of its label when the id is opaque."""
    i = int(game.owner[c])
    return action_names(game.scenario)[i][c - int(game.offset[i])]


def offer_words(game: Game, bits: int, proposer: int, partner: int, whole: bool = False) -> str:
    """'Brazil commits X, Y; India commits Z' (or 'nothing'); `whole`: every action's whole text, where
    there is room for it and it must be read in full (an offer to accept or reject)."""
    return _commits(game, bits, dict.fromkeys((proposer, partner)), whole)


def commitment_words(game: Game, bits: int) -> str:
    """Every player's commitments in `bits`: 'Brazil commits X; India commits Y, Z' (or 'nothing')."""
    return _commits(game, bits, range(game.n))


def _commits(game: Game, bits: int, players: Iterable[int], whole: bool = False) -> str:
    cells = game.cells_of(bits)
    names = player_names(game.scenario)
    texts = action_texts(game.scenario) if whole else None
    parts = []
    for i in players:
        own = [texts[i][c - int(game.offset[i])] if texts else cell_label(game, c) for c in cells
               if int(game.owner[c]) == i]
        if own:
            parts.append(f"{names[i]} commits {', '.join(own)}")
    return "; ".join(parts) or "nothing"


def turn_line(game: Game, ev: TurnEvent, whole: bool = False) -> str:
    """A turn in one line ('t  3 r1  A → B accepted: …'); `whole`: the actions' whole texts, for a pane
    that wraps its lines."""
    names = player_names(game.scenario)
    p, q = names[ev.proposer], names[ev.partner]
    head = f"t{shown_turn(ev.t):>3} r{game.round_of(ev.t):<2} "
    if ev.fault:  # the proposer's agent failed (a pass), or the partner's (a rejection)
        if ev.offer.is_noop:
            return f"{head}{p} passes ({p}'s agent failed: {ev.fault})"
        words = offer_words(game, ev.offer.bits, ev.proposer, ev.partner, whole)
        return f"{head}{p} → {q} rejected ({q}'s agent failed: {ev.fault}): {words}"
    if ev.offer.is_noop:  # the partner a search settled on is no news when nothing was offered to it
        if ev.partner != ev.proposer and ev.accepted:
            return f"{head}{p} → {q}: an empty deal (nothing committed; these rules count it as a deal)"
        if ev.partner == ev.proposer:
            return f"{head}{p} passes — no offer" + (" (an empty deal)" if ev.accepted else "")
        return f"{head}{p} passes — nothing worth offering"
    who = f"{p} → {q}" if ev.partner != ev.proposer else f"{p} alone"
    outcome = "accepted" if ev.accepted else "rejected"  # before the words, so it stays in view when they wrap
    return f"{head}{who} {outcome}: {offer_words(game, ev.offer.bits, ev.proposer, ev.partner, whole)}"


def event_json(game: Game, ev: TurnEvent) -> dict:
    return {
        "t": ev.t,
        "proposer": game.player_ids[ev.proposer],
        "partner": game.player_ids[ev.partner],
        "offer": game.pairs_of(ev.offer.bits),
        "accepted": ev.accepted,
        "decided_by": ev.decided_by,
        **({"fault": ev.fault} if ev.fault else {}),
    }

