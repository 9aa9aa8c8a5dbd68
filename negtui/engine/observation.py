"""What one player sees of a state: a JSON-ready dict for programs, and text for language models.

Every player sees every commitment.  Under public information (the paper's game) it sees every goal's
values too; under private information only its own, the ranges the scenario publishes for the others,
and its own payoff, with forecasts computed from what it knows (engine.knowledge).  The observation
adds what is specific to the player (its payoff and forecasts, whether it decides now) and what is
still possible (free commitments, reachable goals).  A commitment is written as the
pair [player id, action id], which stays unambiguous whatever characters the ids contain.

Under simultaneous rules a player also sees the turn's proposers and, of the offers in flight, only its own
and those addressed to it (`offers`); the others' become known when the turn is settled.
"""

from __future__ import annotations

from negtui.engine.game import Game
from negtui.engine.knowledge import knows, seat_negotiation
from negtui.engine.lenses import lens_vector
from negtui.engine.negotiation import Negotiation, Phase, State
from negtui.engine.offers import Offer
from negtui.engine.payoff import payoffs_from_counts, satisfaction, state_info
from negtui.engine.simultaneous import Outcome
from negtui.engine.vocabulary import CLOSED_FORM_LENSES


def offer_json(neg: Negotiation, offer: Offer) -> dict:
    ids = neg.game.player_ids
    return {"proposer": ids[offer.proposer], "partner": ids[offer.partner],
            "cells": [list(neg.game.cell_pair(c)) for c in offer.cells]}


def outcome_json(game: Game, out: Outcome) -> dict:
    """One offer of a simultaneous turn and what became of it, as autoplay's JSON, records and outside agents'
    `observe` write it: `answer` the partner's (null where none was asked), `result` applied, void, rejected
    or passed, and for a void offer its conflict (`void`: committed, exclusive or budget; `reason` in words)."""
    ids, o = game.player_ids, out.offer
    data: dict = {"proposer": ids[o.proposer], "partner": ids[o.partner], "offer": game.pairs_of(o.bits),
                  "answer": out.answer, "result": out.status}
    if out.void is not None:
        data |= {"void": out.void, "reason": out.reason}
    if out.decided_by:
        data["decided_by"] = out.decided_by
    if out.fault:
        data["fault"] = out.fault
    return data


def _num(v: float) -> float:
    return round(float(v), 9) + 0.0


def observation(neg: Negotiation, s: State, player: int, information: str = "public") -> dict:
    """The state as `player` sees it under `information`; serialises to JSON as it is."""
    g, sc = neg.game, neg.game.scenario
    known = [knows(information, player, i) for i in range(g.n)]
    info = state_info(g, s.bits)
    phase = neg.phase(s)
    ids = g.player_ids
    pay = payoffs_from_counts(g, info.counts)
    sat = satisfaction(g, info.counts)
    reachable = (g.d - info.lost) >= g.tau
    picture = seat_negotiation(neg, player, information).game
    told = picture.scenario.players  # the actions' labels as the seat reads them (engine.knowledge)
    players = []
    for i, p in enumerate(sc.players):
        actions = []
        for a, act in enumerate(p.actions):
            c = int(g.offset[i]) + a
            committed = bool(s.bits >> c & 1)
            actions.append({"id": act.id, "label": told[i].actions[a].label, "committed": committed,
                            "available": not committed and not (info.blocked >> c & 1)})
        players.append({"id": p.id, "name": p.display, "actions": actions})
    goals = []
    for j, goal in enumerate(sc.goals):
        goals.append({
            "id": goal.id, "label": goal.label if all(known) else goal.shown_label, "kind": goal.kind,
            "threshold": int(g.tau[j]),
            "requires": [[r.player, r.action] for r in goal.requires], "committed": int(info.counts[j]),
            "satisfaction": _num(sat[j]), "reachable": bool(reachable[j] or sat[j] >= 1.0),
            "values": {ids[i]: _num(g.G[j, i]) for i in range(g.n) if g.G[j, i] != 0 and known[i]},
        })
        if not all(known):
            goals[-1]["ranges"] = {pid: [_num(lo), _num(hi)] for pid, (lo, hi) in goal.ranges.items()
                                   if not known[g.index_of(pid)]}
    forecasts = {lens: _num(lens_vector(picture, neg.rules, lens, state_info(picture, s.bits), s.t)[player])
                 for lens in CLOSED_FORM_LENSES}
    seen = s.pending if s.pending is not None and (not g.simultaneous or player in (s.pending.proposer,
                                                                                     s.pending.partner)) else None
    out = {"information": information,
        "turn": s.t, "turns": g.T, "round": g.round_of(s.t), "rounds": g.rounds,
        "phase": phase.value, "you": ids[player],
        "to_move": None if phase is Phase.TERMINAL else ids[neg.current_player(s)],
        "proposer": None if phase is Phase.TERMINAL else ids[neg.proposer(s)],
        "upcoming_proposers": [ids[int(p)] for p in g.schedule[g.position(s.t + 1):g.position(s.t + 1) + g.n]],
        "offer": offer_json(neg, seen) if seen is not None else None,
        "budget": g.budget, "unilateral": g.unilateral,
        "players": players, "goals": goals,
        "exclusive": [[list(g.cell_pair(int(c))) for c in cells] for cells in g.groups],
        "payoffs": {ids[i]: _num(pay[i]) for i in range(g.n) if known[i]},
        "your_payoff": _num(pay[player]), "your_forecasts": forecasts,
    }
    if g.simultaneous:
        out.update(_in_flight(neg, s, player))
    return out


def _in_flight(neg: Negotiation, s: State, player: int) -> dict:
    """A simultaneous turn as `player` sees it: who proposes, and the offers it made or is made."""
    g = neg.game
    if neg.is_terminal(s):
        return {"proposers": [], "offers": []}
    mine = [o for o in neg.flight(s).offers if o is not None and player in (o.proposer, o.partner)]
    return {"proposers": [g.player_ids[p] for p in g.proposers(s.t)], "offers": [offer_json(neg, o) for o in mine]}


def observation_text(neg: Negotiation, s: State, player: int, information: str = "public") -> str:
    """The observation in words, for a language model's prompt."""
    obs = observation(neg, s, player, information)
    g = neg.game
    names = {p.id: p.display for p in g.scenario.players}
    me = obs["you"]
    lines = []
    if obs["phase"] == "terminal":
        lines.append(f"The game is over after {obs['turns']} turns.")
    else:
        lines.append(f"Turn {obs['turn'] + 1} of {obs['turns']} (round {obs['round']} of {obs['rounds']}). "
                     f"{obs['proposer']} proposes this turn.")
    lines.append(f"You are {me} ({names[me]}). Each offer may add at most {obs['budget']} new commitments "
                 "per player; commitments are binding and payoffs are paid only at the end."
                 + ("" if obs["unilateral"] else " Nobody may commit alone (no offers to yourself)."))
    f = obs["your_forecasts"]
    lines.append(f"Your payoff if the game ended now: {obs['your_payoff']:g}. Forecasts of your final payoff: "
                 f"optimistic (upper) {f['upper']:g}, cautious (lower) {f['lower']:g}.")
    if obs.get("proposers"):
        lines.append(f"This turn {', '.join(obs['proposers'])} propose at once; each offer is made on the commitments "
                     "as they stand now, and accepted offers are applied in that order (one that conflicts with an "
                     "earlier one is void).")
    if obs["offer"]:
        o = obs["offer"]
        lines.append(f"Pending offer from {o['proposer']} to {o['partner']}: " + _cells_words(o["cells"]) + ".")
    lines.append("")
    lines.append("Players and their commitments ([x] committed, [ ] still possible, [-] ruled out):")
    for p in obs["players"]:
        acts = []
        for a in p["actions"]:
            mark = "x" if a["committed"] else (" " if a["available"] else "-")
            acts.append(f"[{mark}] {a['id']}" + (f" ({a['label']})" if a["label"] and a["label"] != a["id"] else ""))
        lines.append(f"- {p['id']} ({p['name']}): " + "; ".join(acts))
    lines.append("")
    if obs["information"] == "private":
        lines.append("Information is private: you know your own values; of another player's value you know at most "
                     "the range it published.")
    lines.append("Goals (value to each player when fully satisfied; satisfaction now):")
    for goal in obs["goals"]:
        kind = "all-or-nothing" if goal["kind"] == "all_or_nothing" else "linear"
        need = _cells_words(goal["requires"])
        vals = ", ".join([f"{pid} {v:+g}" for pid, v in goal["values"].items()]
                         + [f"{pid} between {lo:+g} and {hi:+g}" for pid, (lo, hi) in goal.get("ranges", {}).items()])
        if obs["information"] == "private":
            vals = ", ".join(filter(None, [vals, "the other values are secret"]))
        vals = vals or "nobody values it"
        state = f"{goal['committed']}/{goal['threshold']} needed, satisfaction {goal['satisfaction']:z.0%}"
        if not goal["reachable"]:
            state += ", can no longer be reached"
        label = f" ({goal['label']})" if goal["label"] else ""
        lines.append(f"- {goal['id']}{label}: {kind}, needs {goal['threshold']} of {need}; {state}; values: {vals}")
    if obs["exclusive"]:
        lines.append("")
        lines.append("Mutually exclusive (at most one of each set may ever be committed):")
        for grp in obs["exclusive"]:
            lines.append("- " + _cells_words(grp))
    return "\n".join(lines)


def _cells_words(cells: list[list[str]]) -> str:
    return ", ".join(f"{p}.{a}" for p, a in cells) or "nothing"
