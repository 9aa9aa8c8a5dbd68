"""The `negtui` command: one command, sub-commands.

Every expected failure (a broken file, an impossible request) becomes a message on stderr and exit
status 2; Ctrl-C stops a run cleanly with status 130.  Heavy imports happen inside commands so that
`negtui validate` and `negtui autoplay` start fast.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

if TYPE_CHECKING:
    from negtui.engine import Negotiation
    from negtui.scenario import Scenario

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Simulate multi-party negotiation over binding commitments.",
)

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130

RulesOpt = Annotated[str, typer.Option("--rules", help="Rule set: paper (default) or reference.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]


def _fail(message: str, code: int = EXIT_INPUT) -> NoReturn:
    typer.echo(message, err=True)
    raise typer.Exit(code)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into a message and exit status 2."""
    from negtui.engine import ExactTooLarge, GameError, IllegalMove
    from negtui.generator import GeneratorError
    from negtui.record import RecordError
    from negtui.scenario import ScenarioError
    from negtui.welfare.solve import WelfareError

    try:
        yield
    except (ScenarioError, RecordError) as err:
        _fail(err.render())
    except (GameError, ExactTooLarge, GeneratorError, IllegalMove, FileExistsError, WelfareError) as err:
        _fail(f"error: {err}")
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPTED)


def _load(path: Path) -> Scenario:
    from negtui.scenario import load_scenario

    return load_scenario(path)


def _negotiation(sc: Scenario, rules: str, budget: int | None = None) -> Negotiation:
    from negtui.engine import Negotiation, get_rules

    try:
        r = get_rules(rules)
    except ValueError as err:
        _fail(f"error: {err}")
    return Negotiation.from_scenario(sc, r, budget=budget)


def _progress(total: int, label: str, enabled: bool = True):
    """A progress bar on stderr, shown only when stderr is a terminal."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                    transient=True, disable=not (enabled and console.is_terminal))


def _emit_json(obj: dict) -> None:
    typer.echo(json.dumps(obj, indent=1))


# --- scenario files ---------------------------------------------------------------------------------------

@app.command()
def validate(files: Annotated[list[Path], typer.Argument(help="Scenario files to check.")]) -> None:
    """Check scenario files; report every problem with its JSON path."""
    from negtui.engine import PAPER, compile_game
    from negtui.scenario import ScenarioError, load_scenario

    bad = 0
    for f in files:
        try:
            sc = load_scenario(f)
            game = compile_game(sc, PAPER)
        except ScenarioError as err:
            typer.echo(err.render(), err=True)
            bad += 1
            continue
        typer.echo(f"ok: {f} — {sc.name}: {game.n} players, {game.n_cells} actions, {game.n_goals} goals, "
                   f"{len(game.groups)} exclusive sets, {game.T} turns")
    if bad:
        raise typer.Exit(EXIT_INPUT)


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    from negtui.scenario.schema import scenario_schema

    _emit_json(scenario_schema())


@app.command()
def generate(
    players: Annotated[int, typer.Option(help="Number of players N (≥ 3).")] = 10,
    actions: Annotated[str, typer.Option(help="Actions per player: one number, or a comma list per player.")] = "1",
    goals: Annotated[int, typer.Option(help="Number of goals J (≥ 3).")] = 15,
    factors: Annotated[int, typer.Option(help="Latent factors K (1..J).")] = 5,
    structure: Annotated[str, typer.Option(help="cooperative or adversarial.")] = "adversarial",
    payoff: Annotated[str, typer.Option(help="balanced, positive or negative.")] = "balanced",
    all_or_nothing: Annotated[float, typer.Option("--all-or-nothing", help="Fraction of all-or-nothing goals.")] = 0.0,
    zipf: Annotated[float, typer.Option(help="Zipf exponent of goal complexity (> 1).")] = 1.6,
    poison_pill: Annotated[bool, typer.Option("--poison-pill", help="Inject the two-player poison pill.")] = False,
    rounds: Annotated[int, typer.Option(help="Proposer turns per player.")] = 5,
    budget: Annotated[int, typer.Option(help="Most new commitments per player per offer.")] = 2,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    rules: RulesOpt = "paper",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Scenario file to write (stdout if omitted).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Generate a random game along the paper's axes and write it as a scenario file."""
    from negtui.generator import GeneratorError, GeneratorParams, generate as gen

    try:
        acts: int | list[int] = [int(a) for a in actions.split(",")] if "," in actions else int(actions)
    except ValueError:
        _fail(f"error: --actions must be a number or a comma list of numbers, not {actions!r}")
    with _user_errors():
        try:
            params = GeneratorParams(players=players, actions=acts, goals=goals, factors=factors, structure=structure,
                                     payoff=payoff, all_or_nothing=all_or_nothing, zipf=zipf, poison_pill=poison_pill,
                                     rounds=rounds, budget=budget, seed=seed, rules=rules)
        except (GeneratorError, ValueError, TypeError) as err:
            _fail(f"error: {err}")
        _output_scenario(gen(params), output, force)


def _output_scenario(sc: Scenario, output: Path | None, force: bool) -> None:
    """A scenario to stdout, or to a new file (an existing one only with --force)."""
    from negtui.scenario import dump_scenario, write_scenario

    if output is None:
        typer.echo(dump_scenario(sc), nl=False)
        return
    write_scenario(sc, output, force=force)
    typer.echo(f"wrote {output}: {sc.name}", err=True)


@app.command("import-hnc")
def import_hnc(
    topfile: Annotated[Path, typer.Argument(help="HNC topfile (countries, country_actions, …).")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Scenario file to write (stdout if omitted).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Convert an HNC topfile into a negtui scenario file."""
    with _user_errors():
        _output_scenario(_load(topfile), output, force)


@app.command("export-hnc")
def export_hnc(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (or topfile).")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Topfile to write (stdout if omitted).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write a scenario as an HNC topfile (player names as countries, action labels as actions)."""
    from negtui.scenario.hnc import from_scenario
    from negtui.scenario.io import write_json

    with _user_errors():
        data = from_scenario(_load(scenario)).model_dump(mode="json", exclude_none=True)
        if output is None:
            _emit_json(data)
            return
        write_json(data, output, force=force)
    typer.echo(f"wrote {output}", err=True)


@app.command()
def scenarios(
    directory: Annotated[Path | None, typer.Option("--dir", help="Where to look (default: the bundled scenarios).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the bundled scenarios: name, path, size, kind and one line."""
    from negtui.scenario.library import bundled_root, catalogue

    entries = catalogue(directory or bundled_root())
    if as_json:
        typer.echo(json.dumps([e.as_dict() for e in entries], indent=1))
        return
    for e in entries:
        typer.echo(f"{e.name:<44} {e.kind:<10} {e.players:>3} players {e.actions:>4} actions {e.goals:>3} goals  {e.path}")
        if e.line:
            typer.echo(f"    {e.line}")


# --- playing ----------------------------------------------------------------------------------------------

def _seats(neg: Negotiation, lens: str, seat: list[str], partner: str, sims: int, ucb: float, seed: int):
    from negtui.agents import LensBot, parse_lens_pair, parse_seats

    try:
        default = parse_lens_pair(lens)
        chosen = parse_seats(seat, neg.game.player_ids)
        bots = []
        for i, pid in enumerate(neg.game.player_ids):
            prop, resp = chosen.get(pid, default)
            bots.append(LensBot(pid, prop, resp, partner, sims, ucb, seed + i))
    except ValueError as err:
        _fail(f"error: {err}")
    if any("exact" in (b.propose_lens, b.respond_lens) for b in bots):
        _ = neg.exact  # solve up front: refuses cleanly when the game is too large
    return bots


def _result(neg: Negotiation, bits: int) -> dict:
    from negtui.engine import no_negotiation
    from negtui.engine.metrics import improvement, regret, welfare_summary
    from negtui.engine.payoff import payoffs
    from negtui.narrate import commitments, rounded

    pay = payoffs(neg.game, bits)
    base = no_negotiation(neg.game, neg.rules)
    return {
        "payoffs": rounded(pay),
        "commitments": commitments(neg.game, bits),
        "welfare": {k: round(v, 10) for k, v in welfare_summary(pay).items()},
        "baseline": {"payoffs": rounded(base.payoffs), "commitments": commitments(neg.game, base.bits)},
        "improvement": improvement(pay, base.payoffs).as_dict(),
        "regret": rounded(regret(neg.game, neg.rules, bits)),
    }


AUTO_EXACT_LIMIT = 5_000_000


def _exact_comparison(neg: Negotiation, payoffs: list[float]) -> dict | None:
    """The exact solution and the L1 error against it, when the game is small enough to solve quickly."""
    from negtui.engine.exact import ExactTooLarge, check_size
    from negtui.engine.exact import solve as exact_solve
    from negtui.engine.metrics import l1_error
    from negtui.narrate import rounded

    try:
        check_size(neg.game, AUTO_EXACT_LIMIT)
    except ExactTooLarge:
        return None
    linear = neg.rules.exact_linearised
    sol = neg.exact if not linear else exact_solve(neg.game, neg.rules, linearise=True)
    return {"payoffs": rounded(sol.payoffs), "linearised": linear, "l1_error": round(l1_error(payoffs, sol.payoffs), 10)}


def _payoff_table(neg: Negotiation, result: dict, labels: list[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    game = neg.game
    t = Table(title="Final payoffs", title_justify="left")
    for col, just in (("player", "left"), ("seat", "left"), ("payoff", "right"), ("no negotiation", "right"),
                      ("Δ", "right"), ("commitments", "left")):
        t.add_column(col, justify=just)
    imp = result["improvement"]["per_player"]
    for i, pid in enumerate(game.player_ids):
        made = [game.scenario.players[i].actions[a].id for a, v in enumerate(result["commitments"][i]) if v]
        t.add_row(pid, labels[i], f"{result['payoffs'][i]:.2f}", f"{result['baseline']['payoffs'][i]:.2f}",
                  f"{imp[i]:+.2f}", ", ".join(made) or "—")
    t.add_section()
    t.add_row("sum", "", f"{sum(result['payoffs']):.2f}", f"{sum(result['baseline']['payoffs']):.2f}",
              f"{result['improvement']['sum']:+.2f}", "")
    console = Console()
    console.print(t)
    console.print(f"improved: {result['improvement']['fraction_improved']:.0%} of players, "
                  f"worst change {result['improvement']['min']:+.2f}; "
                  f"unilateral regret {sum(result['regret']):.2f}")


def _fork(from_record: Path, turn: int | None, seat: list[str], lens: str | None):
    """(negotiation, agents, start state, parent) to continue a record from a turn."""
    from negtui.agents import parse_lens_pair, parse_seats
    from negtui.record import Replay, load_record

    replay = Replay(load_record(from_record))
    t = replay.last_turn if turn is None else turn
    try:
        start = replay.state_at(t)
    except IndexError as err:
        _fail(f"error: {err}")
    try:
        overrides = parse_seats(seat, replay.neg.game.player_ids)
        if lens is not None:
            every = parse_lens_pair(lens)
            overrides = {pid: overrides.get(pid, every) for pid in replay.neg.game.player_ids}
    except ValueError as err:
        _fail(f"error: {err}")
    agents = replay.agents(overrides, t)
    humans = [pid for pid, a in zip(replay.neg.game.player_ids, agents) if a is None]
    if humans:
        _fail(f"error: {', '.join(humans)} played by hand in the record; give --seat NAME=LENS to continue")
    return replay.neg, agents, start, replay.parent_at(t)


@app.command()
def autoplay(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file (omit with --from-record).")] = None,
    lens: Annotated[str | None, typer.Option(help="Lens of every seat: myopic, upper, lower or exact (PROPOSE/RESPOND to split roles); default upper.")] = None,
    seat: Annotated[list[str] | None, typer.Option("--seat", help="NAME=LENS for one seat (repeatable).")] = None,
    rules: Annotated[str | None, typer.Option("--rules", help="Rule set: paper (default) or reference.")] = None,
    partner: Annotated[str | None, typer.Option(help="Partner choice: mcts (default), greedy or random.")] = None,
    sims: Annotated[int | None, typer.Option(help="MCTS simulations per turn (default 50).")] = None,
    ucb: Annotated[float | None, typer.Option(help="MCTS exploration constant (default 10).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of random partner choice (default 0).")] = None,
    budget: Annotated[int | None, typer.Option(help="Override the scenario's per-player budget.")] = None,
    record: Annotated[Path | None, typer.Option("--record", help="Write a game record (JSON Lines) here.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing record.")] = False,
    from_record: Annotated[Path | None, typer.Option("--from-record", help="Continue (fork) a recorded game.")] = None,
    turn: Annotated[int | None, typer.Option("--turn", help="With --from-record: the turn to continue from.")] = None,
    as_json: JsonOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No turn log.")] = False,
) -> None:
    """Play a game with lens bots in every seat; print the turn log and the payoff table."""
    from negtui.engine import Match
    from negtui.narrate import event_json, turn_line
    from negtui.record import RecordWriter

    with _user_errors():
        parent = None
        if from_record is not None:
            if scenario is not None:
                _fail("error: give either a scenario or --from-record, not both")
            fixed = [name for name, v in (("--rules", rules), ("--partner", partner), ("--sims", sims), ("--ucb", ucb),
                                          ("--seed", seed), ("--budget", budget)) if v is not None]
            if fixed:
                _fail(f"error: {', '.join(fixed)} come from the record when forking; change seats with --seat NAME=LENS")
            neg, bots, start, parent = _fork(from_record, turn, seat or [], lens)
        else:
            if scenario is None:
                _fail("error: missing scenario file (or --from-record FILE)")
            if turn is not None:
                _fail("error: --turn needs --from-record")
            neg = _negotiation(_load(scenario), rules or "paper", budget)
            bots = _seats(neg, lens or "upper", seat or [], partner or "mcts", 50 if sims is None else sims,
                          10.0 if ucb is None else ucb, seed or 0)
            start = neg.initial_state()
        game = neg.game
        sc = game.scenario
        match = Match(neg, bots, state=start)
        writer = RecordWriter(record, neg, bots, start, parent=parent, force=force) if record else None
        if not as_json:
            fork = f", continuing {parent.file} from turn {parent.turn}" if parent else ""
            typer.echo(f"{sc.name} — {game.n} players, {game.n_goals} goals, {game.T} turns, rules {neg.rules.name}{fork}")
        started = time.perf_counter()
        try:
            with _progress(game.T, "playing", enabled=as_json or quiet) as bar:
                task = bar.add_task("turns", total=game.T, completed=start.t)
                for ev in match.run():
                    bar.advance(task)
                    if writer:
                        writer.turn(ev)
                    if not (as_json or quiet):
                        typer.echo(turn_line(game, ev))
        except KeyboardInterrupt:
            pay = neg.returns(match.state)
            saved = f"; record so far in {record}" if writer else ""
            _fail(f"interrupted at turn {match.state.t}/{game.T}{saved}; payoffs so far: "
                  + ", ".join(f"{p} {v:.2f}" for p, v in zip(game.player_ids, pay)), EXIT_INTERRUPTED)
        seconds = time.perf_counter() - started
        result = _result(neg, match.state.bits)
        exact = _exact_comparison(neg, result["payoffs"])
        if exact is not None:
            result["exact"] = exact
        if writer:
            writer.result(match.state, baseline=result["baseline"]["payoffs"])
            writer.close()
        if as_json:
            _emit_json({
                "scenario": sc.name, "rules": neg.rules.name,
                "seats": {b.name: {"propose": b.propose_lens, "respond": b.respond_lens, "partner": b.partner_method,
                                   "sims": b.sims} for b in bots},
                **result, "turns": [event_json(game, ev) for ev in match.events], "seconds": round(seconds, 3),
                **({"record": str(record)} if record else {}),
                **({"parent": parent.model_dump()} if parent else {}),
            })
            return
        _payoff_table(neg, result, [b.label for b in bots])
        if exact is not None:
            typer.echo(f"exact solution: sum {sum(exact['payoffs']):.2f}; L1 error of this game {exact['l1_error']:.2f}")
        typer.echo(f"{game.T - start.t} turns in {seconds:.2f} s" + (f"; record written to {record}" if record else ""))


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="Game record (JSON Lines).")],
    verify_bots: Annotated[bool, typer.Option("--verify", help="Re-run every bot decision and check it.")] = False,
    as_json: JsonOpt = False,
    print_only: Annotated[bool, typer.Option("--print", help="Print the turns instead of opening the app.")] = False,
) -> None:
    """Replay a recorded game in the app, or print it (--print, --json); --verify re-runs every bot."""
    from negtui.narrate import offer_words, rounded
    from negtui.record import Replay, load_record, verify

    with _user_errors():
        rec = load_record(file)
        rp = Replay(rec)
        if not (verify_bots or as_json or print_only) and sys.stdout.isatty() and sys.stdin.isatty():
            from negtui.tui.app import run_app

            raise typer.Exit(run_app(replay=file))
        game = rp.neg.game
        divergence = verify(rp) if verify_bots else None
        pay = rp.neg.returns(rp.final)
        if as_json:
            _emit_json({"scenario": rec.scenario.name, "rules": rec.header.rules, "turns": len(rec.turns),
                        "first_turn": rp.first_turn, "complete": rec.complete, "stopped": rec.stopped,
                        "payoffs": rounded(pay), "commitments": [[(rp.final.bits >> (int(game.offset[i]) + a)) & 1
                                                                  for a in range(int(game.m[i]))] for i in range(game.n)],
                        "parent": rec.header.parent.model_dump() if rec.header.parent else None,
                        "verified": None if not verify_bots else divergence is None,
                        "divergence": divergence.describe() if divergence else None})
        else:
            typer.echo(f"{rec.scenario.name} — rules {rec.header.rules}, recorded {rec.header.started}")
            if rec.header.parent:
                typer.echo(f"fork of {rec.header.parent.file} at turn {rec.header.parent.turn}")
            for line in rec.turns:
                p, q = game.index_of(line.proposer), game.index_of(line.partner)
                words = offer_words(game, game.bits_of(line.offer), p, q)
                outcome = "accepted" if line.accepted else ("no deal" if not line.offer else "rejected")
                typer.echo(f"t{line.t:>3} {line.proposer} → {line.partner}: {words} — {outcome} ({line.decided_by})")
            typer.echo("payoffs: " + ", ".join(f"{p} {v:.2f}" for p, v in zip(game.player_ids, pay)))
            if rec.stopped:
                typer.echo(f"note: {rec.stopped}")
            elif not rec.complete:
                typer.echo("note: the record has no result line (the game was not finished)")
            if verify_bots and divergence is None:
                typer.echo(f"verified: every bot decision of {len(rec.turns)} turns re-runs identically")
        if divergence is not None:
            _fail(f"{file}: verification failed at {divergence.describe()}")


@app.command()
def solve(
    scenario: Annotated[Path, typer.Argument(help="Scenario file.")],
    rules: RulesOpt = "paper",
    limit: Annotated[int, typer.Option(help="Largest state space (turns × 2^actions) to attempt.")] = 40_000_000,
    as_json: JsonOpt = False,
) -> None:
    """Solve a small game exactly (subgame-perfect backward induction)."""
    from negtui.engine.exact import solve as exact_solve
    from negtui.narrate import offer_words, rounded

    with _user_errors():
        sc = _load(scenario)
        neg = _negotiation(sc, rules)
        game = neg.game
        started = time.perf_counter()
        with _progress(game.T, "solving") as bar:
            task = bar.add_task("turns", total=game.T)
            sol = exact_solve(game, neg.rules, linearise=neg.rules.exact_linearised, limit=limit,
                              progress=lambda done, total: bar.update(task, completed=done))
        seconds = time.perf_counter() - started
        path = sol.path()
        bits = path[-1].mask if path else 0
        result = _result(neg, bits)
        result["payoffs"] = rounded(sol.payoffs)  # as solved (linearised under reference rules)
        if as_json:
            _emit_json({"scenario": sc.name, "rules": neg.rules.name, "linearised": sol.linearised,
                        "states": sol.states, **result,
                        "path": [{"t": s.t, "proposer": game.player_ids[s.proposer],
                                  "partner": None if s.partner is None else game.player_ids[s.partner],
                                  "offer": [game.cell_name(c) for c in game.cells_of(s.bits)]} for s in path],
                        "seconds": round(seconds, 3)})
            return
        for s in path:
            who = game.player_ids[s.proposer]
            if s.partner is None:
                typer.echo(f"t{s.t:>3} {who}: no deal")
            else:
                typer.echo(f"t{s.t:>3} {who} → {game.player_ids[s.partner]}: "
                           f"{offer_words(game, s.bits, s.proposer, s.partner)}")
        _payoff_table(neg, result, ["exact"] * game.n)
        note = " (all goals linear, as the reference's solver)" if sol.linearised else ""
        typer.echo(f"solved {sol.states:,} states in {seconds:.2f} s{note}")


@app.command()
def baseline(
    scenario: Annotated[Path, typer.Argument(help="Scenario file.")],
    rules: RulesOpt = "paper",
    as_json: JsonOpt = False,
) -> None:
    """The No-Negotiation baseline: each player's best unilateral commitments."""
    from negtui.engine import no_negotiation
    from negtui.narrate import commitments, rounded

    with _user_errors():
        sc = _load(scenario)
        neg = _negotiation(sc, rules)
        base = no_negotiation(neg.game, neg.rules)
        out = {"scenario": sc.name, "rules": neg.rules.name, "payoffs": rounded(base.payoffs),
               "commitments": commitments(neg.game, base.bits), "sum": round(float(base.payoffs.sum()), 10)}
        if as_json:
            _emit_json(out)
            return
        for i, pid in enumerate(neg.game.player_ids):
            made = [sc.players[i].actions[a].id for a, v in enumerate(out["commitments"][i]) if v]
            typer.echo(f"{pid:>12}  {out['payoffs'][i]:>9.2f}  {', '.join(made) or '—'}")
        typer.echo(f"{'sum':>12}  {out['sum']:>9.2f}")


def _welfare_table(game, res, negotiated: list[float] | None, gap: list[float] | None) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{res.objective} optimum", title_justify="left")
    cols = ["player", "optimal payoff", "commitments"] + (["negotiated", "optimum − negotiated"] if negotiated else [])
    for c in cols:
        t.add_column(c, justify="left" if c in ("player", "commitments") else "right")
    for i, pid in enumerate(game.player_ids):
        made = [game.scenario.players[i].actions[a].id for a in range(int(game.m[i]))
                if res.bits >> (int(game.offset[i]) + a) & 1]
        row = [pid, f"{res.payoffs[i]:.2f}", ", ".join(made) or "—"]
        if negotiated:
            row += [f"{negotiated[i]:.2f}", f"{gap[i]:+.2f}"]
        t.add_row(*row)
    Console().print(t)


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
    seat: Annotated[list[str] | None, typer.Option("--seat", help="NAME=LENS for one seat (repeatable).")] = None,
    partner: Annotated[str, typer.Option(help="Partner choice of the negotiated game.")] = "mcts",
    sims: Annotated[int, typer.Option(help="MCTS simulations per turn.")] = 50,
    compare: Annotated[bool, typer.Option("--compare/--no-compare", help="Play the negotiated game to compare.")] = True,
    from_record: Annotated[Path | None, typer.Option("--from-record", help="Take the state (and negotiated outcome) from a record.")] = None,
    turn: Annotated[int | None, typer.Option("--turn", help="With --from-record: optimise over completions of the state before this turn.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The welfare optimum (MILP) over all completions of the commitments, beside a negotiated outcome."""
    from negtui.engine import Match
    from negtui.narrate import commitments, rounded
    from negtui.welfare import Cancelled, WelfareError, WelfareJob, WelfareOptions, WelfareRequest, efficiency, welfare_of

    with _user_errors():
        replay = None
        if from_record is not None:
            from negtui.record import Replay, load_record

            replay = Replay(load_record(from_record))
            neg, sc = replay.neg, replay.record.scenario
        else:
            if turn is not None:
                _fail("error: --turn needs --from-record")
            if scenario is None:
                _fail("error: missing scenario file (or --from-record FILE)")
            sc = _load(scenario)
            neg = _negotiation(sc, rules)
        game = neg.game
        try:
            opts = WelfareOptions(objective=objective, solver=solver, time_limit=time_limit, floor=floor, delta=delta,
                                  disagreement=disagreement).check()
        except WelfareError as err:
            _fail(f"error: {err}")
        bits = 0
        negotiated = None
        if replay is not None:
            t = replay.last_turn if turn is None else turn
            try:
                bits = replay.state_at(t).bits
            except IndexError as err:
                _fail(f"error: {err}")
            negotiated = replay.neg.returns(replay.final)
            negotiated_bits = replay.final.bits
            source = {"record": str(from_record), "turn": t}
        elif compare:
            bots = _seats(neg, lens, seat or [], partner, sims, 10.0, 0)
            match = Match(neg, bots)
            with _progress(game.T, "negotiating") as bar:
                task = bar.add_task("turns", total=game.T)
                for _ in match.run():
                    bar.advance(task)
            negotiated = neg.returns(match.state)
            negotiated_bits = match.state.bits
            source = {"seats": {b.name: b.label for b in bots}, "partner": partner}
        job = WelfareJob(WelfareRequest(sc.model_dump(mode="json"), neg.rules.name, bits, opts))
        try:
            with _progress(1, f"solving {objective}") as bar:
                bar.add_task("solve", total=None)
                res = job.result()
        except KeyboardInterrupt:
            job.cancel()
            _fail("welfare solve cancelled", EXIT_INTERRUPTED)
        except (RuntimeError, Cancelled) as err:
            _fail(f"error: {err}")
        out = {"scenario": sc.name, "rules": neg.rules.name, **res.as_dict()}
        out["commitments"] = commitments(game, res.bits) if res.bits is not None else None
        if negotiated is not None and res.payoffs is not None:
            base = None if objective == "nash" else res.disagreement
            won = welfare_of(objective, negotiated, res.included, base)
            gap = [round(o - n, 10) + 0.0 for o, n in zip(res.payoffs, negotiated)]
            out["negotiated"] = {**source, "payoffs": rounded(negotiated), "welfare": won,
                                 "commitments": commitments(game, negotiated_bits)}
            out["efficiency"] = efficiency(objective, won, res.welfare, len(res.included))
            out["per_player_gap"] = gap
            out["gainers"] = [game.player_ids[i] for i, g in enumerate(gap) if g > 1e-9]
            out["losers"] = [game.player_ids[i] for i, g in enumerate(gap) if g < -1e-9]
        if as_json:
            _emit_json(out)
            return
        if res.payoffs is None:
            typer.echo(f"{objective}: {res.status}. {res.message}")
            return
        _welfare_table(game, res, rounded(negotiated) if "negotiated" in out else None, out.get("per_player_gap"))
        proven = "proven optimal" if res.proven_optimal else "best found (not proven optimal)"
        extra = f", gap {res.gap:.2e}" if res.gap is not None else ""
        typer.echo(f"welfare {res.welfare:.4f} — {proven}{extra}; {res.solves} solve(s) in {res.seconds:.2f} s with {solver}")
        if res.message:
            typer.echo(res.message)
        if "negotiated" in out:
            eff = out["efficiency"]
            won = out["negotiated"]["welfare"]
            typer.echo(f"negotiated welfare {'undefined' if won is None else f'{won:.4f}'}; "
                       f"efficiency {'n/a' if eff is None else f'{eff:.1%}'}")
            typer.echo(f"would gain from the optimum: {', '.join(out['gainers']) or 'nobody'}; "
                       f"would lose: {', '.join(out['losers']) or 'nobody'}")


@app.command()
def play(
    scenario: Annotated[Path | None, typer.Argument(help="Scenario file; omit to pick one.")] = None,
    seat: Annotated[list[str] | None, typer.Option("--seat", help="NAME=human or NAME=LENS (repeatable); skips the seat dialog.")] = None,
    rules: RulesOpt = "paper",
    partner: Annotated[str, typer.Option(help="Bots' partner choice: mcts, greedy or random.")] = "mcts",
    sims: Annotated[int, typer.Option(help="MCTS simulations per turn.")] = 50,
    record: Annotated[bool, typer.Option("--record/--no-record", help="Record the game (default: on).")] = True,
    data_dir: Annotated[Path | None, typer.Option("--data-dir", help="Where records and generated scenarios go.")] = None,
    autoplay: Annotated[bool, typer.Option("--autoplay", help="Start autoplay at once.")] = False,
) -> None:
    """Open the app: play any seats, let lenses play the others."""
    from negtui.agents import parse_lens_pair
    from negtui.engine import get_rules
    from negtui.session import Seat

    with _user_errors():
        try:
            get_rules(rules)
        except ValueError as err:
            _fail(f"error: {err}")
        seats: dict[str, Seat] = {}
        if scenario is not None:
            sc = _load(scenario)
            ids = [p.id for p in sc.players]
            for spec in seat or []:
                name, sep, kind = spec.partition("=")
                if not sep or name not in ids:
                    _fail(f"error: seat {spec!r}: expected NAME=human or NAME=LENS with NAME one of {', '.join(ids)}")
                if kind == "human":
                    seats[name] = Seat(human=True)
                else:
                    try:
                        prop, resp = parse_lens_pair(kind)
                    except ValueError as err:
                        _fail(f"error: seat {spec!r}: {err}")
                    seats[name] = Seat(False, prop, resp)
        elif seat:
            _fail("error: --seat needs a scenario file")
        from negtui.tui.app import run_app

        code = run_app(scenario=scenario, rules=rules, seats=seats, ask_seats=not seats, record=record,
                       data_dir=data_dir, partner=partner, sims=sims, autoplay=autoplay)
    raise typer.Exit(code)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)


if __name__ == "__main__":
    main()
