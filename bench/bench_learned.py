"""What the learned lens costs beside the hand lenses: CPU seconds per game played by lens bots (MCTS, 50
simulations) on the paper's small or large games, each lens on the same games, and per offer search (the
issue's budget: a search at most 2× the upper lens's), in a game and alone (nothing kept from another search:
what a search costs where no earlier round found anything).  CPU time of the whole process, every BLAS thread
included, not wall-clock time: on a shared machine the wall clock measures the neighbours' load, and a BLAS
thread that spins waiting for work shows only in CPU time.  The learned value depends on the turn, so a state
met again a round later is searched again where a closed-form lens looks its offer up: more searches a game.

    .venv/bin/python bench/bench_learned.py [--seeds 5] [--model learned:PATH] [--large]

Each game gets a fresh valuation (no cache shared between lenses); the figures are mean ± sd over the games,
with n.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from negtui.agents import AgentOptions, Seating
from negtui.engine import Negotiation, TurnDriver, Valuation, get_rules
from negtui.engine.negotiation import State
from negtui.generator import GeneratorParams, generate
from negtui.seats import parse_seat

LENSES = ("myopic", "upper", "lower")


def play(sc, lens: str) -> tuple[float, int, list[State]]:
    """(CPU seconds, offer searches, the states of its turns) of one game with every seat a `lens` bot."""
    neg = Negotiation.from_scenario(sc, get_rules("paper"))
    val = Valuation(neg)
    seats = [parse_seat(lens).model_copy(update={"seed": i}) for i in range(neg.game.n)]
    t0 = time.process_time()
    with Seating(neg, seats, AgentOptions(remote_bots=False), val) as seating:
        driver = TurnDriver(neg, seating.agents)
        states = [driver.state]
        driver.play_out(on_turn=lambda _: states.append(driver.state))
    return time.process_time() - t0, max(1, val.searches), states[:-1]


def search_alone(sc, lens: str, states: list[State]) -> float:
    """CPU ms of one offer search with nothing kept from another (a fresh valuation a state): the proposer's
    search of every partner at every third of `states`."""
    neg = Negotiation.from_scenario(sc, get_rules("paper"))
    searches, t0 = 0, time.process_time()
    for s in states[::3]:
        val, p = Valuation(neg), neg.proposer(s)
        for q in range(neg.game.n):
            if q != p:
                val.best_offer(State(s.t, s.bits), q, lens, lens)
                searches += 1
    return (time.process_time() - t0) / max(1, searches) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--model", default="learned", help="the learned lens to time (learned, or learned:PATH)")
    ap.add_argument("--large", action="store_true", help="10 players × 5 actions instead of × 1")
    args = ap.parse_args()
    actions = 5 if args.large else 1
    print(f"Lens bots, CPU seconds per game: 10 players x {actions} action(s), 15 goals, 5 rounds, MCTS 50")
    times: dict[str, list[float]] = {lens: [] for lens in (*LENSES, args.model)}
    per_search: dict[str, list[float]] = {lens: [] for lens in times}
    alone: dict[str, list[float]] = {args.model: [], "upper": []}
    for seed in range(args.seeds):
        sc = generate(GeneratorParams(players=10, actions=actions, goals=15, factors=5, all_or_nothing=0.3,
                                      zipf=1.6, payoff=("balanced", "negative", "positive")[seed % 3], rounds=5,
                                      budget=2, seed=seed))
        for lens in times:
            secs, searches, states = play(sc, lens)
            times[lens].append(secs)
            per_search[lens].append(secs / searches * 1e3)
            if lens == "upper":  # the states upper bots visit, searched alone by each lens
                search_alone(sc, args.model, states[:1])  # the model read before any timing
                for one in (args.model, "upper"):
                    alone[one].append(search_alone(sc, one, states))
    name = "learned" if args.model == "learned" else args.model.rsplit("/", 1)[-1]
    for lens, secs in times.items():
        sd = statistics.stdev(secs) if len(secs) > 1 else 0.0
        ms = per_search[lens]
        print(f"  {lens if lens in LENSES else name:<24} {statistics.mean(secs):8.3f} s ± {sd:.3f} a game, "
              f"{statistics.mean(ms):6.3f} ms a search  n={len(secs)}")
    for what, figures in (("a game", times), ("a search", per_search), ("a search alone", alone)):
        ratio = np.array(figures[args.model]) / np.array(figures["upper"])
        sd = float(ratio.std(ddof=1)) if len(ratio) > 1 else 0.0
        print(f"  learned / upper ratio, {what:<14} {ratio.mean():6.2f} ± {sd:.2f}  n={len(ratio)}")


if __name__ == "__main__":
    main()
