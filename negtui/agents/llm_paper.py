"""The paper's language-model baseline (Appendix E), for `--llm-prompt paper`.

The model is zero-shot: a system text of objectives, data schema and hard constraints, then the game as
JSON (the value matrix G as goals × players, each goal's satisfaction mask as players × actions, the
action counts, the whole turn order) and the turn's state (the commitment matrix P, the turn, the
proposer, the budget), keys sorted.  The answer's shape is asked for as a strict JSON schema (`PROPOSAL`);
the reference asked for any JSON object, which a server that refuses schemas is asked for instead (the seat
says so).  It answers with a partner index and a 0/1 vector of actions for each side, read as Appendix E
reads them: a partner that is not a legal one becomes a random legal partner; a vector of the wrong length,
or one asking more new commitments than the budget, is all zeros; an answer that cannot be read at all is
zero commitments (a pass).

Where negtui differs, and why: every seat is held to the game's budget (the reference let its model
flip 3 where the lenses had 2; an offer over the budget is not a legal move here); an offer the game
forbids (an exclusive set) is zero commitments rather than stored.  Appendix E has no partner's side: the
reference applies the model's offers unchecked.  A seat with `offers = "unchecked"` does the same (its
offers bind without an answer, and the record says so in its seats); by default the partner answers, a
model seat in the same style or with the lens its seat names.  Values the seat does not know (private
information) are its estimates."""

from __future__ import annotations

import json
import random

from negtui.engine.game import Game
from negtui.engine.negotiation import IllegalMove, Negotiation, State
from negtui.engine.offers import Offer
from negtui.engine.outcome import commitments

_VECTOR = {"type": "array", "items": {"type": "integer"}}
# the answers' shapes, as strict JSON schemas (a server that refuses them is asked for any JSON object)
PROPOSAL = {"type": "object", "additionalProperties": False,
            "required": ["selected_partner_id", "proposer_action_vector", "partner_action_vector"],
            "properties": {"selected_partner_id": {"type": "integer"}, "proposer_action_vector": _VECTOR,
                           "partner_action_vector": _VECTOR}}
ANSWER = {"type": "object", "additionalProperties": False, "required": ["accept"],
          "properties": {"accept": {"type": "boolean"}}}

STATIC = "--- STATIC GAME CONTEXT ---\n"
TURN = "--- CURRENT TURN STATE ---\n"
OFFER = "--- OFFER ---\n"


def static_context(g: Game) -> str:
    """G, the satisfaction masks and the topology, as Appendix E lays them out (keys sorted as text)."""
    masks = {}
    for j in range(g.n_goals):
        masks[str(j)] = [[int(g.inc[g.offset[i] + a, j]) for a in range(int(g.m[i]))] for i in range(g.n)]
    data = {"matrices": {"G": [[float(v) for v in row] for row in g.G], "sat_masks": masks},
            "topology": {"action_counts": {str(i): int(g.m[i]) for i in range(g.n)}, "num_players": g.n,
                         "round_robin_order": [int(p) for p in g.schedule]}}
    return STATIC + json.dumps(data, sort_keys=True)


def turn_state(g: Game, s: State, proposer: int) -> str:
    """The turn's state; under simultaneous rules with every proposer of the turn (`proposers_this_turn`)."""
    data: dict[str, object] = {"current_agreement_matrix_P": commitments(g, s.bits), "current_turn": s.t,
                               "max_changes_allowed": g.budget, "proposer_id": proposer}
    if g.simultaneous:
        data["proposers_this_turn"] = list(g.proposers(s.t))
    return TURN + json.dumps(data, sort_keys=True)


def offer_text(g: Game, o: Offer) -> str:
    """An offer to a model partner: who proposes, and the new commitments of each side as 0/1 vectors."""
    def vector(i: int) -> list[int]:
        return [1 if int(g.offset[i]) + a in o.cells else 0 for a in range(int(g.m[i]))]
    data = {"proposer_id": o.proposer, "proposer_action_vector": vector(o.proposer),
            "partner_id": o.partner, "partner_action_vector": vector(o.partner)}
    return OFFER + json.dumps(data, sort_keys=True)


def _new_cells(g: Game, bits: int, player: int, vector: object) -> list[int]:
    """The cells a side's vector asks for: its 1s where nothing is committed yet; all zeros (nothing)
    when the vector is not a list of the player's length or asks more than the budget."""
    if not isinstance(vector, list) or len(vector) != int(g.m[player]):
        return []
    first = int(g.offset[player])
    cells = [first + a for a, v in enumerate(vector) if v == 1 and not bits >> (first + a) & 1]
    return cells if len(cells) <= g.budget else []


def read_proposal(neg: Negotiation, s: State, player: int, answer: dict, rng: random.Random) -> tuple[int, Offer]:
    """The partner and offer Appendix E makes of an answer (see the module's docstring)."""
    g = neg.game
    legal = neg.legal_partners(s)
    partner = answer.get("selected_partner_id")
    if isinstance(partner, bool) or not isinstance(partner, int) or partner not in legal:
        partner = rng.choice(legal)
    mine, theirs = answer.get("proposer_action_vector"), answer.get("partner_action_vector")
    cells = _new_cells(g, s.bits, player, mine)
    if partner != player:
        cells += _new_cells(g, s.bits, partner, theirs)
    try:
        offer = neg.offer(s, partner, sorted(set(cells)))
        neg.check_offer(s, offer)
    except IllegalMove:
        offer = neg.offer(s, partner, [])  # against the game's rules: zero commitments
    return partner, offer
