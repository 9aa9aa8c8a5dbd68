"""The welfare optimum (MILP) of any state, beside a negotiated outcome."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from negtui.cli.common import (
    JsonOpt,
    RulesOpt,
    SeatOpt,
    base_seat,
    emit_json,
    load,
    negotiation,
    progress,
    recorded_turn,
)
from negtui.cli.errors import EXIT_INTERRUPTED, fail, user_errors
from negtui.cli.root import app

if TYPE_CHECKING:
    from negtui.engine import Negotiation, State
    from negtui.record import Replay
    from negtui.welfare import WelfareOptions, WelfareResult


@app.command()
def welfare(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file (omit with --from-record).")] = None,
    objective: Annotated[str, typer.Option(help="utilitarian, nash, nash-bargaining or maximin.")] = "utilitarian",
    rules: RulesOpt = "paper",
    solver: Annotated[str, typer.Option(help="MILP solver: highs (in-process) or cbc.")] = "highs",
    time_limit: Annotated[float, typer.Option("--time-limit", help="Seconds for the whole solve.")] = 60.0,
    floor: Annotated[float | None, typer.Option(help="Participation floor: every payoff at least this.")] = None,
    delta: Annotated[float, typer.Option(help="Nash: smallest payoff (or gain) counted as positive.")] = 1e-3,
    disagreement: Annotated[str, typer.Option(
        help="Nash bargaining disagreement point: baseline or current.")] = "baseline",
    lens: Annotated[str | None, typer.Option(help="Lens of the negotiated outcome to compare with (default: "
                                                  "the lens that suits the scenario's payoff regime).")] = None,
    seat: SeatOpt = None,
    partner: Annotated[str, typer.Option(help="Partner choice of the negotiated game.")] = "mcts",
    sims: Annotated[int, typer.Option(help="MCTS simulations per turn.")] = 50,
    compare: Annotated[bool, typer.Option("--compare/--no-compare",
                                          help="Play the negotiated game to compare.")] = True,
    from_record: Annotated[Path | None, typer.Option(
        "--from-record", help="Take the state (and negotiated outcome) from a record.")] = None,
    turn: Annotated[int | None, typer.Option(
        "--turn", help="With --from-record: optimise over completions of the state before this turn, numbered from "
                       "1 as turn logs show it (default: after the last recorded turn).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The welfare optimum (MILP) over all completions of the commitments, beside a negotiated outcome."""
    from negtui.engine.outcome import commitments
    from negtui.welfare import WelfareError, WelfareOptions
    from negtui.welfare.compare import compare as compare_outcome

    with user_errors():
        neg, replay = _game(scenario, from_record, turn, rules)
        try:
            opts = WelfareOptions(objective=objective, solver=solver, time_limit=time_limit, floor=floor, delta=delta,
                                  disagreement=disagreement).check()
        except WelfareError as err:
            fail(f"error: {err}")
        if replay is not None and from_record is not None:
            t = recorded_turn(replay, turn, from_record)
            bits = replay.state_at(t).bits
            negotiated: _Negotiated | None = _Negotiated(replay.final, {"record": str(from_record), "turn": t})
        else:
            bits = 0
            if lens is None:
                from negtui.coach.regime import suggested_lens

                lens = suggested_lens(neg.game.scenario)[0]
            negotiated = _negotiate(neg, lens, seat or [], partner, sims) if compare else None
        res = _solve(neg, bits, opts)
        sc, game = neg.game.scenario, neg.game
        out = {"scenario": sc.name, "rules": neg.rules.name, **res.as_dict()}
        out["commitments"] = commitments(game, res.bits) if res.bits is not None else None
        if negotiated is not None and res.payoffs is not None:
            out.update(compare_outcome(game, res, neg.returns(negotiated.state), negotiated.state.bits,
                                       negotiated.source))
        if as_json:
            emit_json(out)
            return
        _print(neg, res, out, solver)


@dataclass(frozen=True)
class _Negotiated:
    """The negotiated outcome the optimum is set beside, and where it comes from."""

    state: State
    source: dict[str, object]


def _game(scenario: Path | None, from_record: Path | None, turn: int | None, rules: str,
          ) -> tuple[Negotiation, Replay | None]:
    """The game asked for: a scenario's, or a record's (whose scenario must then agree)."""
    if from_record is not None:
        from negtui.record import Replay, load_record

        replay = Replay(load_record(from_record))
        sc = replay.record.scenario
        if scenario is not None and load(scenario) != sc:
            fail(f"error: {from_record} records the game {sc.name!r}, not the scenario {scenario}; "
                 "omit the scenario with --from-record (the record holds its own)")
        return replay.neg, replay
    if turn is not None:
        fail("error: --turn needs --from-record")
    if scenario is None:
        fail("error: missing scenario file (or --from-record FILE)")
    return negotiation(load(scenario), rules), None


def _negotiate(neg: Negotiation, lens: str, specs: list[str], partner: str, sims: int) -> _Negotiated:
    from negtui.agents import AgentOptions, Seating
    from negtui.engine import TurnDriver
    from negtui.seats import default_seats, parse_seats

    game = neg.game
    base = base_seat(lens, partner, sims, 10.0, 0)
    chosen = {**default_seats(game.player_ids, base), **parse_seats(specs, game.scenario, base)}
    with Seating(neg, chosen, AgentOptions(echo_stderr=True)) as seating, \
            progress(game.T, "negotiating") as bar:
        task = bar.add_task("turns", total=game.T)
        final = TurnDriver(neg, seating.agents).play_out(on_turn=lambda _: bar.advance(task))
    return _Negotiated(final, {"seats": {pid: s.label for pid, s in chosen.items()}, "partner": partner})


def _solve(neg: Negotiation, bits: int, opts: WelfareOptions) -> WelfareResult:
    from negtui.engine import PortableGame
    from negtui.welfare import Cancelled, WelfareJob, WelfareRequest

    job = WelfareJob(WelfareRequest(PortableGame.of(neg.game, neg.rules), bits, opts))
    try:
        with progress(1, f"solving {opts.objective}") as bar:
            bar.add_task("solve", total=None)
            return job.result()
    except KeyboardInterrupt:
        job.cancel()
        fail("welfare solve cancelled", EXIT_INTERRUPTED)
    except (RuntimeError, Cancelled) as err:
        fail(f"error: {err}")


def _print(neg: Negotiation, res: WelfareResult, out: dict, solver: str) -> None:
    from negtui.cli.render import welfare_table
    from negtui.engine.outcome import rounded
    from negtui.names import player_names
    from negtui.welfare.options import MEANING, efficiency_words

    if res.payoffs is None:
        typer.echo(f"{res.objective}: {res.status}. {res.message}")
        return
    negotiated = out.get("negotiated")
    welfare_table(neg.game, res, rounded(negotiated["payoffs"]) if negotiated else None, out.get("per_player_gap"))
    proven = "proven optimal" if res.proven_optimal else "best found (not proven optimal)"
    extra = f", gap {res.gap:.2e}" if res.gap is not None else ""
    typer.echo(f"welfare {res.welfare:z.2f} — {proven}{extra}; {res.solves} solve(s) in {res.seconds:z.2f} s "
               f"with {solver}")
    typer.echo(f"{res.objective} welfare is {MEANING[res.objective]}")
    if res.message:
        typer.echo(res.message)
    if negotiated:
        eff = out["efficiency"]
        won = negotiated["welfare"]
        if won is None and eff == 0.0:  # a Nash product with a factor of zero: its log is undefined
            typer.echo("negotiated welfare: the product is 0 (a player in it gained nothing or lost, so Σ log is "
                       "undefined); efficiency 0.0%")
        elif won is None or eff is None or res.welfare is None:
            typer.echo(f"negotiated welfare {'undefined' if won is None else f'{won:z.2f}'}; efficiency n/a"
                       + (" (the optimum's welfare is 0: nothing to be a share of)" if won is not None else ""))
        else:
            typer.echo(f"negotiated welfare {won:z.2f}; efficiency {eff:z.1%}: "
                       + efficiency_words(res.objective, won, res.welfare, len(res.included)))
        named = dict(zip(neg.game.player_ids, player_names(neg.game.scenario), strict=True))  # JSON keeps the ids
        typer.echo(f"would gain from the optimum: {', '.join(named[p] for p in out['gainers']) or 'nobody'}; "
                   f"would lose: {', '.join(named[p] for p in out['losers']) or 'nobody'}")
