"""A negtui outside agent that decides with one of negtui's lenses, using negtui's own engine.

    negtui autoplay scenarios/generated/six-party.json --seat P2=cmd:"python examples/agents/lens_agent.py --lens lower"

It rebuilds the game from the hello, builds a lens bot bound to it, reads the state from each
request's observation (turn and commitments) and asks the bot.  Played in every seat with the same lens
and settings, it makes the very game the built-in bots make: a starting point for an agent of your own.
Under simultaneous rules (--rules paper+simultaneous) the observation also names the turn's proposers,
and the state asks the one whose decision it is; the `observe` lines after each turn need no answer.
"""

from __future__ import annotations

import argparse
import json
import sys

from negtui.agents import LensBot
from negtui.engine import Negotiation, PortableGame, State, Valuation
from negtui.engine.simultaneous import Flight


def state_of(neg: Negotiation, obs: dict, proposer: str | None = None) -> State:
    """The engine's state from an observation: the turn and every committed action (and, in a simultaneous
    turn, which of its proposers decides, or whose offer is answered)."""
    g, bits = neg.game, 0
    for i, player in enumerate(obs["players"]):
        for a, action in enumerate(player["actions"]):
            if action["committed"]:
                bits |= 1 << (int(g.offset[i]) + a)
    if not obs.get("proposers"):
        return State(obs["turn"], bits)
    slot = obs["proposers"].index(proposer or obs["proposer"])
    return State(obs["turn"], bits, None, Flight.start(len(obs["proposers"])).focused(slot))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lens", default="upper", help="myopic, upper, lower or PROPOSE/RESPOND")
    parser.add_argument("--partner", default="mcts", help="mcts, greedy or random")
    parser.add_argument("--sims", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    propose, _, respond = args.lens.partition("/")
    neg: Negotiation | None = None
    bot: LensBot | None = None
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            neg = PortableGame.from_dict(msg).negotiation()
            bot = LensBot(Valuation(neg), propose, respond or propose, args.partner, args.sims, 10.0, args.seed)
            print(json.dumps({"type": "ready", "name": f"lens {bot.label}"}), flush=True)
            continue
        if kind in ("game_over", "observe") or neg is None or bot is None:
            continue
        s = state_of(neg, msg["observation"], msg["offer"]["proposer"] if kind == "respond" else None)
        ids = neg.game.player_ids
        if kind == "choose_partner":
            answer = {"id": msg["id"], "partner": ids[bot.choose_partner(s)]}
        elif kind == "make_offer":
            offer = bot.make_offer(s, ids.index(msg["partner"]))
            answer = {"id": msg["id"], "offer": neg.game.pairs_of(offer.bits)}
        else:  # respond
            o = msg["offer"]
            cells = [neg.game.cell_index[p, a] for p, a in o["cells"]]
            pending = neg.offer(s, ids.index(o["partner"]), cells)
            answer = {"id": msg["id"], "accept": bot.respond(State(s.t, s.bits, pending, s.flight))}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
