"""The welfare optimum (MILP) of any state, beside a negotiated outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.root import app
from negtui.cli.common import JsonOpt, RulesOpt, SeatOpt, base_seat, emit_json, load, negotiation, progress
from negtui.cli.errors import EXIT_INTERRUPTED, fail, user_errors


@app.command()
def welfare(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file (omit with --from-record).")] = None,
    objective: Annotated[str, typer.Option(help="utilitarian, nash, nash-bargaining or maximin.")] = "utilitarian",
    rules: RulesOpt = "paper",
    solver: Annotated[str, typer.Option(help="MILP solver: highs (in-process) or cbc.")] = "highs",
    time_limit: Annotated[float, typer.Option("--time-limit", help="Seconds for the whole solve.")] = 60.0,
    floor: Annotated[float | None, typer.Option(help="Participation floor: every payoff at least this.")] = None,
    delta: Annotated[float, typer.Option(help="Nash: smallest payoff (or gain) counted as positive.")] = 1e-3,
    disagreement: Annotated[str, typer.Option(help="Nash bargaining disagreement point: baseline or current.")] = "baseline",
    lens: Annotated[str, typer.Option(help="Lens of the negotiated outcome to compare with.")] = "upper",
    seat: SeatOpt = None,
    partner: Annotated[str, typer.Option(help="Partner choice of the negotiated game.")] = "mcts",
    sims: Annotated[int, typer.Option(help="MCTS simulations per turn.")] = 50,
    compare: Annotated[bool, typer.Option("--compare/--no-compare", help="Play the negotiated game to compare.")] = True,
    from_record: Annotated[Path | None, typer.Option("--from-record", help="Take the state (and negotiated outcome) from a record.")] = None,
    turn: Annotated[int | None, typer.Option("--turn", help="With --from-record: optimise over completions of the state before this turn.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The welfare optimum (MILP) over all completions of the commitments, beside a negotiated outcome."""
    from negtui.agents import AgentOptions, Table
    from negtui.cli.render import welfare_table
    from negtui.engine import TurnDriver
    from negtui.engine.outcome import commitments, rounded
    from negtui.seats import default_seats, parse_seats
    from negtui.welfare import Cancelled, WelfareError, WelfareJob, WelfareOptions, WelfareRequest
    from negtui.welfare.options import MEANING
    from negtui.welfare.compare import compare as compare_outcome

    with user_errors():
        replay = None
        if from_record is not None:
            from negtui.record import Replay, load_record

            replay = Replay(load_record(from_record))
            neg, sc = replay.neg, replay.record.scenario
            if scenario is not None and load(scenario) != sc:
                fail(f"error: {from_record} records the game {sc.name!r}, not the scenario {scenario}; "
                     "omit the scenario with --from-record (the record holds its own)")
        else:
            if turn is not None:
                fail("error: --turn needs --from-record")
            if scenario is None:
                fail("error: missing scenario file (or --from-record FILE)")
            sc = load(scenario)
            neg = negotiation(sc, rules)
        game = neg.game
        try:
            opts = WelfareOptions(objective=objective, solver=solver, time_limit=time_limit, floor=floor, delta=delta,
                                  disagreement=disagreement).check()
        except WelfareError as err:
            fail(f"error: {err}")
        bits = 0
        negotiated = None
        if replay is not None:
            t = replay.last_turn if turn is None else turn
            try:
                bits = replay.state_at(t).bits
            except IndexError as err:
                fail(f"error: {err}")
            negotiated, negotiated_bits = replay.neg.returns(replay.final), replay.final.bits
            source = {"record": str(from_record), "turn": t}
        elif compare:
            base = base_seat(lens, partner, sims, 10.0, 0)
            chosen = {**default_seats(game.player_ids, base), **parse_seats(seat or [], game.player_ids, base)}
            table = Table(neg, chosen, AgentOptions(echo_stderr=True))
            try:
                driver = TurnDriver(neg, table.agents)
                with progress(game.T, "negotiating") as bar:
                    task = bar.add_task("turns", total=game.T)
                    for _ in driver.run():
                        bar.advance(task)
            finally:
                table.close()
            negotiated, negotiated_bits = neg.returns(driver.state), driver.state.bits
            source = {"seats": {pid: s.label for pid, s in chosen.items()}, "partner": partner}
        job = WelfareJob(WelfareRequest(sc.model_dump(mode="json"), neg.rules.as_dict(), bits, opts))
        try:
            with progress(1, f"solving {objective}") as bar:
                bar.add_task("solve", total=None)
                res = job.result()
        except KeyboardInterrupt:
            job.cancel()
            fail("welfare solve cancelled", EXIT_INTERRUPTED)
        except (RuntimeError, Cancelled) as err:
            fail(f"error: {err}")
        out = {"scenario": sc.name, "rules": neg.rules.name, **res.as_dict()}
        out["commitments"] = commitments(game, res.bits) if res.bits is not None else None
        if negotiated is not None and res.payoffs is not None:
            out.update(compare_outcome(game, res, negotiated, negotiated_bits, source))
        if as_json:
            emit_json(out)
            return
        if res.payoffs is None:
            typer.echo(f"{objective}: {res.status}. {res.message}")
            return
        welfare_table(game, res, rounded(negotiated) if "negotiated" in out else None, out.get("per_player_gap"))
        proven = "proven optimal" if res.proven_optimal else "best found (not proven optimal)"
        extra = f", gap {res.gap:.2e}" if res.gap is not None else ""
        typer.echo(f"welfare {res.welfare:.4f} — {proven}{extra}; {res.solves} solve(s) in {res.seconds:.2f} s with {solver}")
        typer.echo(f"{res.objective} welfare is {MEANING[res.objective]}")
        if res.message:
            typer.echo(res.message)
        if "negotiated" in out:
            eff = out["efficiency"]
            won = out["negotiated"]["welfare"]
            if won is None and eff == 0.0:  # a Nash product with a factor of zero: its log is undefined
                typer.echo("negotiated welfare: the product is 0 (a player in it gained nothing, so Σ log is "
                           "undefined); efficiency 0.0%")
            else:
                typer.echo(f"negotiated welfare {'undefined' if won is None else f'{won:.4f}'}; "
                           f"efficiency {'n/a' if eff is None else f'{eff:.1%}'}")
            typer.echo(f"would gain from the optimum: {', '.join(out['gainers']) or 'nobody'}; "
                       f"would lose: {', '.join(out['losers']) or 'nobody'}")
