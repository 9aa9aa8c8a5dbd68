"""Games in words and in JSON: turn lines, commitment lists, result objects.

Shared by the command line, the app and game records, so a turn reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from negtui.engine.game import Game
from negtui.engine.negotiation import shown_turn
from negtui.engine.observation import outcome_json
from negtui.engine.simultaneous import Outcome, void_count
from negtui.engine.turns import TurnEvent
from negtui.names import action_names, action_texts, option_phrases, player_names
from negtui.scenario.untrusted import one_line

FAULT_CHARS = 500  # of an agent's failure, as a turn's line says it


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
    phrases = option_phrases(game.scenario)
    parts = []
    for i in players:
        mine = [c - int(game.offset[i]) for c in cells if int(game.owner[c]) == i]
        said = [phrases[i][a] for a in mine] if phrases[i] else []
        if mine and said and all(said):  # a case of issues: what the player backs, in the issues' terms
            backs = [x for x in said if x != "walk away"]
            parts.append(f"{names[i]} " + " and ".join(
                (["backs " + ", ".join(backs)] if backs else []) + (["walks away"] if len(backs) < len(said) else [])))
            continue
        own = [texts[i][a] if texts else cell_label(game, int(game.offset[i]) + a) for a in mine]
        if own:
            parts.append(f"{names[i]} commits {', '.join(own)}")
    return "; ".join(parts) or "nothing"


def turn_line(game: Game, ev: TurnEvent, whole: bool = False, deciders: bool = False) -> str:
    """A turn in one line ('t  3 r1  A → B accepted: …'); `whole`: the actions' whole texts, for a pane
    that wraps its lines; `deciders`: who decided, after it.  A simultaneous turn of several offers: a line
    for the turn, then one per offer."""
    if ev.simultaneous:
        head = f"t{shown_turn(ev.t):>3} r{game.round_of(ev.t):<2} "
        return "\n".join([head + turn_summary(ev), *(" " * len(head) + outcome_words(game, out, whole)
                                                     + (f" ({decider_words(game, out.decided_by)})" if deciders
                                                        else "")
                                                     for out in ev.outcomes)])
    return _one_offer(game, ev, whole) + (f" ({decider_words(game, ev.decided_by)})" if deciders else "")


def decider_words(game: Game, decided_by: str) -> str:
    """Who decided a turn, as a record says it ('Upstream_State (lower)'), the player named as the turn's line
    names it ('Upstream State (lower)')."""
    for i, pid in enumerate(game.player_ids):
        if decided_by == pid or decided_by.startswith(pid + " ("):
            return player_names(game.scenario)[i] + decided_by[len(pid):]
    return decided_by


def payoffs_words(game: Game, payoffs: Iterable[float]) -> str:
    """'Upstream State 6.33, Midstream State 38.67, …': each player as the turn lines name it."""
    return ", ".join(f"{name} {float(v):z.2f}" for name, v in zip(player_names(game.scenario), payoffs, strict=True))


def _one_offer(game: Game, ev: TurnEvent, whole: bool) -> str:
    names = player_names(game.scenario)
    p, q = names[ev.proposer], names[ev.partner]
    head = f"t{shown_turn(ev.t):>3} r{game.round_of(ev.t):<2} "
    if ev.fault:  # the proposer's agent failed (a pass), or the partner's (a rejection)
        fault = one_line(ev.fault, FAULT_CHARS)  # an outside program's or a record's words: nothing a terminal acts on
        if ev.offer.is_noop:
            return f"{head}{p} passes ({p}'s agent failed: {fault})"
        words = offer_words(game, ev.offer.bits, ev.proposer, ev.partner, whole)
        return f"{head}{p} → {q} rejected ({q}'s agent failed: {fault}): {words}"
    if ev.offer.is_noop:  # the partner a search settled on is no news when nothing was offered to it
        if ev.partner != ev.proposer and ev.accepted:
            return f"{head}{p} → {q}: an empty deal (nothing committed; these rules count it as a deal)"
        if ev.partner == ev.proposer:
            return f"{head}{p} passes — no offer" + (" (an empty deal)" if ev.accepted else "")
        return f"{head}{p} passes — nothing worth offering"
    who = f"{p} → {q}" if ev.partner != ev.proposer else f"{p} alone"
    outcome = "accepted" if ev.accepted else "rejected"  # before the words, so it stays in view when they wrap
    return f"{head}{who} {outcome}: {offer_words(game, ev.offer.bits, ev.proposer, ev.partner, whole)}"


def turn_summary(ev: TurnEvent) -> str:
    """A simultaneous turn's offers counted: '3 proposers at once: 1 applied, 1 void, 1 passed'."""
    counts = {status: sum(o.status == status for o in ev.outcomes) for status in ("applied", "void", "rejected",
                                                                                   "passed")}
    return f"{len(ev.outcomes)} proposers at once: " + ", ".join(f"{n} {status}" for status, n in counts.items() if n)


def outcome_words(game: Game, out: Outcome, whole: bool = False) -> str:
    """One offer of a simultaneous turn and what became of it: 'A → B accepted but void (…): …'."""
    names = player_names(game.scenario)
    o = out.offer
    p, q = names[o.proposer], names[o.partner]
    words = offer_words(game, o.bits, o.proposer, o.partner, whole)
    if out.fault:
        fault = one_line(out.fault, FAULT_CHARS)
        if o.is_noop:
            return f"{p} passes ({p}'s agent failed: {fault})"
        return f"{p} → {q} rejected ({q}'s agent failed: {fault}): {words}"
    if o.is_noop:
        return f"{p} passes" + (" (an empty deal)" if out.accepted else "")
    who = f"{p} → {q}" if o.partner != o.proposer else f"{p} alone"
    said = {"applied": "accepted", "rejected": "rejected", "void": f"accepted but void ({void_words(game, out)})"}
    return f"{who} {said.get(out.status, out.status)}: {words}"


def void_words(game: Game, out: Outcome) -> str:
    """Why an accepted offer of a simultaneous turn was void, naming players and actions as the log does
    ("C's berth3 was committed earlier in this turn"); records and JSON keep the engine's words, by id."""
    names, c = player_names(game.scenario), out.conflict

    def action(cell: int) -> str:
        return f"{names[int(game.owner[cell])]}'s {cell_label(game, cell)}"

    if out.void == "committed" and len(c) == 1:
        return f"{action(c[0])} was committed earlier in this turn"
    if out.void == "exclusive" and len(c) == 2:
        return f"{action(c[0])} shares an exclusive set with {action(c[1])}, committed earlier in this turn"
    if out.void == "budget" and len(c) == 2:
        return f"{names[c[0]]} would make {c[1]} new commitments in this turn; the budget is {game.budget}"
    return one_line(out.reason, 300)  # an outcome without its numbers: the engine's words, cleaned


def event_json(game: Game, ev: TurnEvent) -> dict:
    """A turn for autoplay's JSON: under simultaneous rules its proposers and every offer with what became of it."""
    if ev.outcomes:
        return {"t": ev.t, "proposers": [game.player_ids[o.offer.proposer] for o in ev.outcomes],
                "offers": [outcome_json(game, o) for o in ev.outcomes], "void": void_count(ev.outcomes)}
    return {
        "t": ev.t,
        "proposer": game.player_ids[ev.proposer],
        "partner": game.player_ids[ev.partner],
        "offer": game.pairs_of(ev.offer.bits),
        "accepted": ev.accepted,
        "decided_by": ev.decided_by,
        **({"fault": ev.fault} if ev.fault else {}),
    }

