"""Seconds per game and states evaluated per second, on the paper's game sizes.

    .venv/bin/python bench/bench_games.py [--seeds 5] [--hnc] [--quick] [--information private] [--simultaneous]
                                          [--long 2000,6000,20000]

Large games: 10 players × 5 actions, 15 goals, 5 rounds (50 turns), budget 2, MCTS 50 simulations,
for each rule set and lens.  With --hnc also a 22-player, 45-goal, 8-actions-each game of 198 turns.
With --information private every bot holds its guesses of the others' values (agents.beliefs): its own
picture of the game, and states evaluated are summed over the bots' pictures.  With --simultaneous the
same games under paper+simultaneous too (5 proposers a turn: 10 turns of the same 50 proposals), and
each lens's time against its sequential game's (the anticipating lenses beside them).
With --long, a 10-player game of 1 action each under paper+simultaneous, MCTS 50, at each number of turns
given: milliseconds per turn should not grow with the length of the game (nothing a turn does may depend
on the history before it).
"""

from __future__ import annotations

import argparse
import statistics
import time

from negtui.agents import AgentOptions, LensBot, Seating
from negtui.engine import PAPER, REFERENCE, Negotiation, TurnDriver, Valuation, get_rules
from negtui.generator import GeneratorParams, generate
from negtui.seats import Seat

LENSES = ("myopic", "upper", "lower")
SIMULTANEOUS = get_rules("paper+simultaneous")


def play(sc, rules, lens: str, sims: int = 50, information: str = "public") -> tuple[float, int, int]:
    """Seconds, successor states evaluated, and offer searches made (summed over the bots' pictures)."""
    neg = Negotiation.from_scenario(sc, rules)
    if information == "private":  # the set-up (the bots' priors and pictures) is part of the game's cost
        t0 = time.perf_counter()
        seats = [Seat.lens(lens, sims=sims, seed=i) for i in range(neg.game.n)]
        with Seating(neg, seats, AgentOptions(information="private")) as seating:
            TurnDriver(neg, seating.agents).play()
            bots = [bot.valuation for bot in seating.agents if isinstance(bot, LensBot)]
        return time.perf_counter() - t0, sum(v.evaluated for v in bots), sum(v.searches for v in bots)
    val = Valuation(neg)
    bots = [LensBot(val, lens, lens, "mcts", sims, 10.0) for _ in neg.game.player_ids]
    t0 = time.perf_counter()
    TurnDriver(neg, bots).play()
    return time.perf_counter() - t0, val.evaluated, val.searches


def large_games(seeds: int) -> list:
    settings = [("adversarial", "balanced", 0.0), ("cooperative", "positive", 0.3), ("adversarial", "negative", 0.5)]
    out = []
    for seed in range(seeds):
        structure, payoff, bf = settings[seed % len(settings)]
        for rules in (PAPER, REFERENCE):
            out.append((rules, generate(GeneratorParams(players=10, actions=5, goals=15, factors=5, structure=structure,
                                                        payoff=payoff, all_or_nothing=bf, zipf=1.6, rounds=5, budget=2,
                                                        seed=seed, rules=rules.name))))
    return out


def report(title: str, rows: list[tuple[str, str, list[float], int]]) -> None:
    print(title)
    print(f"  {'rules':<10} {'lens':<7} {'games':>5} {'median s/game':>14} {'max s/game':>11} {'states/s':>11}")
    for rules, lens, secs, states in rows:
        print(f"  {rules:<10} {lens:<7} {len(secs):>5} {statistics.median(secs):>14.3f} {max(secs):>11.3f} "
              f"{states / sum(secs):>11,.0f}")


def simultaneous(games: list, information: str) -> None:
    """Each paper game again under paper+simultaneous, lens by lens; the ratio of the total times, and of the
    offer searches made (an anticipating lens searches the others' predicted offers besides its own)."""
    print(f"Simultaneous turns: the same games under {SIMULTANEOUS.name} (5 proposers a turn, 10 turns)")
    print(f"  {'lens':<18} {'games':>5} {'sequential s/game':>18} {'simultaneous s/game':>20} {'ratio':>6} "
          f"{'searches ratio':>15}")
    papers = [sc for r, sc in games if r is PAPER]
    for lens in (*LENSES, *(f"anticipate:{x}" for x in LENSES)):
        seq, sim = [], []
        for sc in papers:
            seq.append(play(sc, PAPER, lens, information=information))
            sim.append(play(sc, SIMULTANEOUS, lens, information=information))
        ratio = sum(x[0] for x in sim) / sum(x[0] for x in seq)
        searches = sum(x[2] for x in sim) / max(1, sum(x[2] for x in seq))
        print(f"  {lens:<18} {len(sim):>5} {statistics.median(x[0] for x in seq):>18.3f} "
              f"{statistics.median(x[0] for x in sim):>20.3f} {ratio:>6.2f} {searches:>15.2f}")


def long_games(lengths: list[int]) -> None:
    """Milliseconds per turn of one game played to each length (5 proposers a turn: rounds = turns / 2)."""
    print(f"Long games: 10 players x 1 action, 15 goals, {SIMULTANEOUS.name} (5 proposers a turn), myopic, MCTS 50")
    print(f"  {'turns':>7} {'seconds':>9} {'ms/turn':>8}")
    for turns in lengths:
        sc = generate(GeneratorParams(players=10, actions=1, goals=15, factors=5, structure="adversarial",
                                      payoff="balanced", all_or_nothing=0.0, zipf=1.6, rounds=max(1, turns // 2),
                                      budget=2, seed=0))
        neg = Negotiation.from_scenario(sc, SIMULTANEOUS)
        val = Valuation(neg)
        bots = [LensBot(val, "myopic", "myopic", "mcts", 50, 10.0) for _ in neg.game.player_ids]
        t0 = time.perf_counter()
        TurnDriver(neg, bots).play()
        secs = time.perf_counter() - t0
        print(f"  {neg.game.T:>7} {secs:>9.2f} {1000 * secs / neg.game.T:>8.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--hnc", action="store_true", help="also the 22-player, 198-turn game")
    ap.add_argument("--quick", action="store_true", help="one seed, no HNC-size game")
    ap.add_argument("--information", choices=("public", "private"), default="public",
                    help="private: each bot knows its own values and guesses the others' (default public)")
    ap.add_argument("--simultaneous", action="store_true",
                    help="also the paper games under paper+simultaneous, each lens against its sequential time")
    ap.add_argument("--long", default=None, metavar="TURNS,…",
                    help="only the long games: a 10-player simultaneous game played to each number of turns")
    args = ap.parse_args()
    if args.long:
        long_games([int(x) for x in args.long.split(",")])
        return
    seeds = 1 if args.quick else args.seeds
    games = large_games(seeds)
    rows = []
    for rules in (PAPER, REFERENCE):
        for lens in LENSES:
            secs, states = [], 0
            for r, sc in games:
                if r is rules:
                    s, n, _ = play(sc, rules, lens, information=args.information)
                    secs.append(s)
                    states += n
            rows.append((rules.name, lens, secs, states))
    report(f"Large games: 10 players x 5 actions, 15 goals, 50 turns, budget 2, MCTS 50, {args.information} "
           "information", rows)
    if args.simultaneous:
        simultaneous(games, args.information)
    if args.hnc and not args.quick:
        rows = []
        for rules in (PAPER, REFERENCE):
            sc = generate(GeneratorParams(players=22, actions=8, goals=45, factors=5, structure="cooperative",
                                          payoff="positive", all_or_nothing=0.1, zipf=1.6, rounds=9, budget=2, seed=0,
                                          rules=rules.name))
            for lens in LENSES:
                s, n, _ = play(sc, rules, lens, information=args.information)
                rows.append((rules.name, lens, [s], n))
        report("HNC-size game: 22 players x 8 actions, 45 goals, 198 turns, MCTS 50", rows)


if __name__ == "__main__":
    main()
