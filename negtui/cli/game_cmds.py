"""Playing headless: autoplay (and forks of records), the exact solution, the No-Negotiation baseline."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from negtui.cli.common import (
    RULES_HELP,
    TURN_HELP,
    AgentTimeoutOpt,
    InformationOpt,
    JsonOpt,
    LlmKeyOpt,
    LlmOffersOpt,
    LlmPromptOpt,
    LlmResponderOpt,
    LlmTemperatureOpt,
    LlmUrlOpt,
    RulesOpt,
    SeatOpt,
    as_baseline,
    base_seat,
    emit_json,
    information_of,
    load,
    negotiation,
    progress,
    recorded_turn,
    regime_bots,
    report_fault,
)
from negtui.cli.errors import EXIT_INTERRUPTED, fail, user_errors
from negtui.cli.root import app

if TYPE_CHECKING:
    from negtui.engine import Negotiation, State, TurnEvent, Valuation
    from negtui.engine.game import Game
    from negtui.record import Fork, Parent
    from negtui.scenario import Scenario
    from negtui.seats import Seat


def _fork(from_record: Path, turn: int | None, seat: list[str], lens: str | None,
          base_url: str | None = None) -> Fork:
    """The recorded game at a turn, with the seats asked for; refuses seats only a person could play.
    A program or model the record names is played by a lens bot (said on stderr) unless `seat` names it
    again; language-model seats go to `base_url` when given."""
    from negtui.names import player_labels
    from negtui.record import Replay, fork, load_record
    from negtui.record.fork import RecordedSeats, recorded_seats
    from negtui.seats import parse_seat, parse_seats

    replay = Replay(load_record(from_record))
    ids = replay.neg.game.player_ids
    t = recorded_turn(replay, turn, from_record)
    stand_in = lens if lens is not None else regime_bots(replay.record.scenario)[0]
    recorded = recorded_seats(replay, t, stand_in)
    changes = {pid: parse_seat(lens, recorded.seats.get(pid)) for pid in ids} if lens is not None else {}
    given = parse_seats(seat, replay.record.scenario, {**recorded.seats, **changes})
    fk = fork(replay, t, {**changes, **given}, stand_in)
    left = RecordedSeats(recorded.seats, {pid: s for pid, s in recorded.stood_in.items() if pid not in given})
    if left.stood_in:
        typer.echo(f"note: {left.notice(player_labels(replay.record.scenario))}", err=True)
    if fk.played_by_hand:
        fail(f"error: {', '.join(fk.played_by_hand)} played by hand in the record; give --seat NAME=LENS to continue")
    if base_url is not None:
        fk = replace(fk, seats=[s.reaching(base_url) for s in fk.seats])
    return fk


@app.command()
def autoplay(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file (omit with --from-record).")] = None,
    lens: Annotated[str | None, typer.Option(help="Lens of every seat: myopic, upper, lower, exact, adaptive, "
                                                  "learned or learned:MODEL.npz (a model from negtui learn) "
                                                  "(PROPOSE/RESPOND to split roles); default: the lens the paper "
                                                  "finds best for the scenario's payoff regime (said first).")] = None,
    seat: SeatOpt = None,
    rules: Annotated[str | None, typer.Option("--rules", help=RULES_HELP)] = None,
    partner: Annotated[str | None, typer.Option(help="Partner choice: mcts (default), greedy or random.")] = None,
    sims: Annotated[int | None, typer.Option(help="MCTS simulations per turn (default 50).")] = None,
    ucb: Annotated[float | None, typer.Option(help="MCTS exploration constant (default 10).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of random partner choice (default 0).")] = None,
    budget: Annotated[int | None, typer.Option(help="Override the scenario's per-player budget.")] = None,
    information: InformationOpt = None,
    agent_timeout: AgentTimeoutOpt = None,
    llm_base_url: LlmUrlOpt = None,
    llm_prompt: LlmPromptOpt = None,
    llm_temperature: LlmTemperatureOpt = None,
    llm_api_key: LlmKeyOpt = None,
    llm_offers: LlmOffersOpt = None,
    llm_responder: LlmResponderOpt = None,
    record: Annotated[Path | None, typer.Option("--record", help="Write a game record (JSON Lines) here.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing record.")] = False,
    sign_key: Annotated[Path | None, typer.Option("--sign-key", help="Sign the record with this key file "
                                                                     "(check it with replay --verify --key).")] = None,
    from_record: Annotated[Path | None, typer.Option("--from-record", help="Continue (fork) a recorded game.")] = None,
    turn: Annotated[int | None, typer.Option("--turn", help=TURN_HELP)] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No turn log.")] = False,
) -> None:
    """Play a game with bots or outside agents in every seat; print the turn log and the payoff table."""
    from negtui.record.signing import read_key

    with user_errors():
        if from_record is not None:
            if scenario is not None:
                fail("error: give either a scenario or --from-record, not both")
            fixed = [name for name, v in (("--rules", rules), ("--partner", partner), ("--sims", sims), ("--ucb", ucb),
                                          ("--seed", seed), ("--budget", budget), ("--information", information))
                     if v is not None]
            if fixed:
                fail(f"error: {', '.join(fixed)} come from the record when forking; change seats with --seat NAME=LENS")
            fk = _fork(from_record, turn, seat or [], lens, llm_base_url)
            game = _Start(fk.neg, fk.seats, fk.start, fk.parent, fk.information)
        else:
            if scenario is None:
                fail("error: missing scenario file (or --from-record FILE)")
            if turn is not None:
                fail("error: --turn needs --from-record")
            sc = load(scenario)
            why = ""
            if lens is None:  # one default wherever bots fill seats: the lens that suits the payoff regime
                lens, why = regime_bots(sc)
            game = _new_game(sc, rules or "paper", budget, seat or [],
                             base_seat(lens, partner, sims, ucb, seed, agent_timeout, llm_base_url, llm_prompt,
                                       llm_temperature))
            game = replace(game, information=information_of(information), note=why)
        people = [pid for pid, s in zip(game.neg.game.player_ids, game.seats, strict=True) if s.is_human]
        if people:  # refused before the game's header is printed, not as an error in mid-game
            fail(f"error: autoplay plays bots only, and {', '.join(people)} would be a person; play it in the app "
                 f"(negtui play FILE --seat {people[0]}=human) or give the seat a bot (--seat {people[0]}=upper)")
        if agent_timeout is not None:
            game = game.with_timeout(agent_timeout)
        if llm_offers is not None or llm_responder is not None:
            game = replace(game, seats=as_baseline(game.seats, llm_offers, llm_responder))
        if sign_key is not None and record is None:
            fail("error: --sign-key signs a record: give --record FILE too")
        key = read_key(sign_key) if sign_key is not None else None
        played = _play(game, record, force, key, llm_api_key, as_json or quiet)
        _report(game, played, record, as_json)


@dataclass(frozen=True)
class _Start:
    """What an autoplayed game starts from: a new game, or a record's at a turn (a fork)."""

    neg: Negotiation
    seats: list[Seat]
    start: State
    parent: Parent | None = None
    information: str = "public"
    note: str = ""  # said under the header: why the bots play the lens they play

    def with_timeout(self, seconds: float) -> _Start:
        seats = [s.model_copy(update={"timeout": seconds}) if s.agent in ("cmd", "llm") else s for s in self.seats]
        return replace(self, seats=seats)


@dataclass(frozen=True)
class _Played:
    state: State
    events: list[TurnEvent]
    valuation: Valuation
    seconds: float


def _new_game(sc: Scenario, rules: str, budget: int | None, specs: list[str], base: Seat) -> _Start:
    from negtui.seats import default_seats, parse_seats

    neg = negotiation(sc, rules, budget)
    ids = neg.game.player_ids
    chosen = {**default_seats(ids, base), **parse_seats(specs, sc, base)}
    return _Start(neg, [chosen[pid] for pid in ids], neg.initial_state())


def _play(game: _Start, record: Path | None, force: bool, key: bytes | None, api_key: str | None,
          silent: bool) -> _Played:
    """Seat the agents, play to the end and record every turn; Ctrl-C stops with the record so far."""
    from negtui.agents import AgentOptions, Seating
    from negtui.engine import TurnDriver, shown_turn
    from negtui.narrate import payoffs_words, turn_line
    from negtui.record import RecordWriter

    neg, start, parent = game.neg, game.start, game.parent
    g = neg.game
    options = AgentOptions(api_key=api_key, echo_stderr=True, information=game.information)
    with Seating(neg, game.seats, options) as seating:
        driver = TurnDriver(neg, seating.agents, start, on_fault=report_fault(neg, [s.label for s in seating.seats]))
        writer = RecordWriter(record, neg, seating.seats, start, parent=parent, force=force,
                              key=key, information=game.information) if record else None
        if not silent:
            fork_note = f", continuing {parent.file} from turn {shown_turn(parent.turn)}" if parent else ""
            at_once = _proposers_a_turn(g) if g.simultaneous else ""
            typer.echo(f"{g.scenario.name} — {g.n} players, {g.n_goals} goals, {g.T} turns{at_once}, "
                       f"rules {neg.rules.name}{fork_note}")
            if game.note:
                typer.echo(game.note)
        started = time.perf_counter()
        with progress(g.T, "playing", enabled=silent) as bar:
            task = bar.add_task("turns", total=g.T, completed=start.t)

            def turn(ev: TurnEvent) -> None:
                bar.advance(task)
                if writer:
                    writer.turn(ev)
                if not silent:
                    typer.echo(turn_line(g, ev))

            try:
                final = driver.play_out(on_turn=turn)
            except KeyboardInterrupt:
                saved = f"; record so far in {record}" if writer else ""
                fail(f"interrupted after {driver.state.t} of {g.T} turns{saved}; payoffs so far: "
                     + payoffs_words(g, neg.returns(driver.state)),
                     EXIT_INTERRUPTED)
        if writer:
            writer.result(final)
            writer.close()
        return _Played(final, driver.events, seating.valuation, time.perf_counter() - started)


def _proposers_a_turn(g: Game) -> str:
    """How many proposers a simultaneous game's turns have, as the turns have them: the schedule ends a turn
    early where a player would propose twice in it, so some turns may have fewer than the rules' number."""
    sizes = [len(g.proposers(t)) for t in range(g.T)]
    k = max(sizes, default=0)
    fewer = sum(n < k for n in sizes)
    if k <= 1:
        return " of one proposer each"
    if fewer:
        return f" of up to {k} proposers at once ({fewer} of them with fewer)"
    return f" of {k} proposers at once"


def _report(game: _Start, played: _Played, record: Path | None, as_json: bool) -> None:
    from negtui.cli.render import payoff_table
    from negtui.engine.outcome import exact_comparison, outcome
    from negtui.engine.simultaneous import void_count
    from negtui.narrate import event_json

    neg, g, parent = game.neg, game.neg.game, game.parent
    result = outcome(neg, played.state.bits)
    exact = exact_comparison(played.valuation, result["payoffs"])
    if exact is not None:
        result["exact"] = exact
    if g.simultaneous:  # accepted offers an earlier one of their turn made void
        result["void"] = sum(void_count(ev.outcomes) for ev in played.events)
    if as_json:
        emit_json({
            "scenario": g.scenario.name, "rules": neg.rules.name,
            "seats": {pid: s.model_dump(mode="json") for pid, s in zip(g.player_ids, game.seats)},
            **result, "turns": [event_json(g, ev) for ev in played.events], "seconds": round(played.seconds, 3),
            **({"record": str(record)} if record else {}),
            **({"parent": parent.model_dump()} if parent else {}),
        })
        return
    payoff_table(g, result, [s.label for s in game.seats])
    if exact is not None:
        typer.echo(f"exact solution: sum {sum(exact['payoffs']):z.2f}; L1 error of this game {exact['l1_error']:z.2f}")
    if g.simultaneous:
        typer.echo(f"accepted offers void: {result['void']} (an earlier offer of their turn took what they needed); "
                   "the exact solver does not solve simultaneous games, so there is no L1 error")
    typer.echo(f"{g.T - game.start.t} turns in {played.seconds:z.2f} s"
               + (f"; record written to {record}" if record else ""))


@app.command()
def solve(
    scenario: Annotated[Path, typer.Argument(help="Scenario file.")],
    rules: RulesOpt = "paper",
    limit: Annotated[int, typer.Option(help="Largest state space (turns × 2^actions) to attempt.")] = 40_000_000,
    as_json: JsonOpt = False,
) -> None:
    """Solve a small game exactly (subgame-perfect backward induction)."""
    from negtui.cli.render import payoff_table
    from negtui.engine.exact import solve as exact_solve
    from negtui.engine.outcome import outcome, rounded
    from negtui.names import player_names
    from negtui.narrate import offer_words

    with user_errors():
        sc = load(scenario)
        neg = negotiation(sc, rules)
        game = neg.game
        from negtui.engine import memory, shown_turn
        from negtui.engine.exact import check_size

        estimate = memory.rss() + check_size(game, limit)  # refuses a game too large for the memory at hand
        started = time.perf_counter()
        with progress(game.T, "solving") as bar:
            task = bar.add_task("turns", total=game.T)
            sol = exact_solve(game, neg.rules, linearise=neg.rules.exact_linearised, limit=limit,
                              progress=lambda done, total: bar.update(task, completed=done))
        seconds = time.perf_counter() - started
        path = sol.path()
        bits = path[-1].mask if path else 0
        result = outcome(neg, bits)
        result["payoffs"] = rounded(sol.payoffs)  # as solved (linearised under reference rules)
        if as_json:
            emit_json({"scenario": sc.name, "rules": neg.rules.name, "linearised": sol.linearised,
                       "states": sol.states, "memory_estimate": estimate, **result,
                       "path": [{"t": s.t, "proposer": game.player_ids[s.proposer],
                                 "partner": None if s.partner is None else game.player_ids[s.partner],
                                 "offer": game.pairs_of(s.bits)} for s in path],
                       "seconds": round(seconds, 3)})
            return
        names = player_names(game.scenario)
        for s in path:
            who = names[s.proposer]
            if s.partner is None:
                typer.echo(f"t{shown_turn(s.t):>3} {who}: no deal")
            else:
                typer.echo(f"t{shown_turn(s.t):>3} {who} → {names[s.partner]}: "
                           f"{offer_words(game, s.bits, s.proposer, s.partner)}")
        payoff_table(game, result, ["exact"] * game.n)
        note = " (all goals linear, as the reference's solver)" if sol.linearised else ""
        typer.echo(f"solved {sol.states:,} states in {seconds:z.2f} s{note}")


@app.command()
def baseline(
    scenario: Annotated[Path, typer.Argument(help="Scenario file.")],
    rules: RulesOpt = "paper",
    as_json: JsonOpt = False,
) -> None:
    """The No-Negotiation baseline: each player's best unilateral commitments."""
    from negtui.cli.render import baseline_table
    from negtui.engine import no_negotiation
    from negtui.engine.outcome import commitments, rounded

    with user_errors():
        sc = load(scenario)
        neg = negotiation(sc, rules)
        base = no_negotiation(neg.game, neg.rules)
        out: dict[str, Any] = {"scenario": sc.name, "rules": neg.rules.name, "payoffs": rounded(base.payoffs),
               "commitments": commitments(neg.game, base.bits), "sum": round(float(base.payoffs.sum()), 10)}
        if as_json:
            emit_json(out)
            return
        baseline_table(neg.game, out["payoffs"], out["commitments"])
