"""Scenario files: validate, schema, generate, HNC import and export, the bundled library."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from negtui.cli.common import JsonOpt, RulesOpt, emit_json, load
from negtui.cli.errors import EXIT_INPUT, fail, user_errors
from negtui.cli.root import app

if TYPE_CHECKING:
    from negtui.generator.params import GeneratorError, Payoff, Structure
    from negtui.generator.params import Rules as GeneratorRules
    from negtui.scenario import Scenario

ScenarioOutOpt = Annotated[Path | None,
                           typer.Option("-o", "--output", help="Scenario file to write (stdout if omitted).")]


@app.command()
def validate(files: Annotated[list[Path], typer.Argument(help="Scenario, scoresheet or course files to check.")],
             ) -> None:
    """Check scenario files, scoresheets (their `format` says so) and course files (TOML, or JSON with
    `exercises`); report every problem with its JSON path."""
    from negtui.engine import PAPER, compile_game
    from negtui.scenario import ScenarioError, load_scenario
    from negtui.scenario.leaks import leaks

    bad = 0
    for f in files:
        if _is_course(f):
            bad += not _validate_course(f)
            continue
        try:
            sc = load_scenario(f)
            game = compile_game(sc, PAPER)
        except ScenarioError as err:
            typer.echo(err.render(), err=True)
            bad += 1
            continue
        typer.echo(f"ok: {f} — {sc.name}: {game.n} players, {game.n_cells} actions, {game.n_goals} goals, "
                   f"{len(game.groups)} exclusive sets, {game.T} turns")
        for path, words in leaks(sc):
            typer.echo(f"warning: {f}: {path}: {words}", err=True)
    if bad:
        raise typer.Exit(EXIT_INPUT)


def _is_course(path: Path) -> bool:
    """A TOML file that is not a scoresheet (whose `format` says it is one), or JSON whose top level has
    `exercises` (scenarios are JSON without it)."""
    from negtui.classroom.course_loading import MAX_COURSE_BYTES
    from negtui.scenario import untrusted
    from negtui.scenario.io import begins_as_scoresheet
    from negtui.scenario.scoresheets import MAX_SHEET_BYTES, is_scoresheet

    limit = max(MAX_COURSE_BYTES, MAX_SHEET_BYTES)
    if path.suffix.lower() == ".toml":
        try:
            return not is_scoresheet(untrusted.load_document(path, limit, "a file"))
        except untrusted.Untrusted:
            pass
        # not TOML, or over a limit: what its format line says it is loads it and reports what is wrong (a file
        # that cannot be read at all is the course loader's to report)
        return not begins_as_scoresheet(path)
    try:
        data = untrusted.load(path, MAX_COURSE_BYTES)
    except untrusted.Untrusted:
        return False  # the scenario loader reports what is wrong with it
    return isinstance(data, dict) and "exercises" in data


def _validate_course(path: Path) -> bool:
    from negtui.classroom.course_loading import CourseError, load_course

    try:
        loaded = load_course(path)
    except CourseError as err:
        typer.echo(err.render(), err=True)
        return False
    c = loaded.course
    tables = sum(ex.is_table for ex in c.exercises)
    typer.echo(f"ok: {path} — course {c.name}: {len(c.exercises)} exercises"
               + (f" ({tables} at tables)" if tables else ""))
    return True


@app.command()
def schema(
    of: Annotated[str, typer.Argument(help="scenario (files) or agent-protocol (the lines outside agents read "
                                           "and write).")] = "scenario",
) -> None:
    """Print a JSON Schema: of scenario files (default), or of the outside-agent protocol."""
    with user_errors():
        if of == "scenario":
            from negtui.scenario.schema import scenario_schema

            emit_json(scenario_schema())
        elif of == "agent-protocol":
            from negtui.agents.wire import protocol_schema

            emit_json(protocol_schema())
        else:
            fail(f"error: no schema of {of!r}; choose scenario or agent-protocol")


@app.command()
def generate(
    players: Annotated[int, typer.Option(help="Number of players N (≥ 3).")] = 10,
    actions: Annotated[str, typer.Option(help="Actions per player: one number, a comma list per player, or LOW-HIGH "
                                              "(each player's count drawn by the seed, e.g. 1-2).")] = "1",
    goals: Annotated[int, typer.Option(help="Number of goals J (≥ 3).")] = 15,
    factors: Annotated[int, typer.Option(help="Latent factors K (1..J).")] = 5,
    structure: Annotated[str, typer.Option(help="cooperative or adversarial.")] = "adversarial",
    payoff: Annotated[str, typer.Option(help="balanced, positive or negative: the range the values are rescaled "
                                             "onto (-20..20, -8..30, -30..8), not the share of positive value, "
                                             "which varies by draw (negtui describe measures it).")] = "balanced",
    all_or_nothing: Annotated[float, typer.Option("--all-or-nothing", help="Fraction of all-or-nothing goals.")] = 0.0,
    zipf: Annotated[float, typer.Option(help="Zipf exponent of goal complexity (> 1).")] = 1.6,
    poison_pill: Annotated[bool, typer.Option("--poison-pill", help="Inject the two-player poison pill.")] = False,
    rounds: Annotated[int, typer.Option(help="Proposer turns per player.")] = 5,
    budget: Annotated[int, typer.Option(help="Most new commitments per player per offer.")] = 2,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    rules: RulesOpt = "paper",
    taste: Annotated[str | None, typer.Option(help="MEAN,SD of the players' latent tastes, instead of the "
                                                   "structure's (cooperative 1,0.3; adversarial 0,1).")] = None,
    values: Annotated[str | None, typer.Option(help="LOW,HIGH: the range of values, instead of the payoff "
                                                    "regime's (balanced -20,20; positive -8,30).")] = None,
    zero_fraction: Annotated[float, typer.Option("--zero-fraction", help="Share of values set to zero (the "
                                                 "paper's generator values nearly every goal).")] = 0.0,
    like: Annotated[Path | None, typer.Option(help="A game in the shape of this scenario: its scale, value range "
                                                   "and zero values, and tastes calibrated to its sign structure "
                                                   "(see negtui describe); the other axes are then ignored.")] = None,
    output: ScenarioOutOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="With -o: print what was written as one JSON object "
                                                         "(without -o the scenario itself is JSON).")] = False,
) -> None:
    """Generate a random game along the paper's axes (or in the shape of another game) and write it as a
    scenario file."""
    from negtui.generator import GeneratorError, GeneratorParams
    from negtui.generator import generate as gen
    from negtui.generator.params import parse_actions

    with user_errors():
        if like is not None:
            output_scenario(_like(like, seed), output, force, as_json)
            return
        try:
            acts, up_to = parse_actions(actions)
        except ValueError:
            fail(f"error: --actions must be a number, a comma list of numbers or LOW-HIGH, not {actions!r}")
        try:
            # the names are checked by GeneratorParams, in the reference generator's order, with its messages
            params = GeneratorParams(players=players, actions=acts, actions_up_to=up_to, goals=goals, factors=factors,
                                     structure=cast("Structure", structure), payoff=cast("Payoff", payoff),
                                     all_or_nothing=all_or_nothing, zipf=zipf, poison_pill=poison_pill,
                                     rounds=rounds, budget=budget, seed=seed, rules=cast("GeneratorRules", rules),
                                     taste=_pair(taste, "--taste", float), values=_pair(values, "--values", int),
                                     zero_fraction=zero_fraction)
        except GeneratorError as err:
            fail(_generator_error(err))
        except (ValueError, TypeError) as err:
            fail(f"error: {err}")
        try:
            sc = gen(params)
        except GeneratorError as err:
            fail(_generator_error(err))
        output_scenario(sc, output, force, as_json)


def _generator_error(err: GeneratorError) -> str:
    """The generator's refusal naming the option at fault as the command line spells it (--zero-fraction)."""
    if err.option is None:
        return f"error: {err}"
    return f"error: --{err.option.replace('_', '-')}: {err.words}"


def _pair(text: str | None, option: str, kind: type) -> tuple | None:
    if text is None:
        return None
    try:
        first, second = (kind(x) for x in text.split(","))
    except ValueError:
        fail(f"error: {option} is two numbers separated by a comma, not {text!r}")
    return (first, second)


def _like(path: Path, seed: int) -> Scenario:
    """A game in the shape of the scenario at `path`, its provenance in meta."""
    from negtui.generator import GeneratorError, generate
    from negtui.generator.like import SEARCH, TOLERANCE, like_params

    target = load(path)
    try:
        params = like_params(target, seed)
    except GeneratorError as err:
        fail(f"error: {err}")
    sc = generate(params)
    meta = {**sc.meta, "like": {"target": target.name, "seed": seed, "drawn_seed": params.seed,
                                "tolerance": TOLERANCE}}
    return sc.model_copy(update={"name": f"like-{target.name}-seed{seed}", "meta": meta, "description": (
        f"Generated in the shape of {target.name} (negtui generate --like, seed {seed}): its scale, value range and "
        f"share of zero values, tastes calibrated to its sign structure, and the first game of seeds "
        f"{seed * SEARCH}… within {TOLERANCE:.0%} of it on each measure. " + sc.description)})


def output_scenario(sc: Scenario, output: Path | None, force: bool, as_json: bool = False) -> None:
    """A scenario to stdout, or to a new file (an existing one only with --force)."""
    from negtui.scenario import dump_scenario, write_scenario

    if output is None:
        typer.echo(dump_scenario(sc), nl=False)
        return
    write_scenario(sc, output, force=force)
    if as_json:
        emit_json({"wrote": str(output), "name": sc.name, "players": len(sc.players),
                   "actions": sum(len(p.actions) for p in sc.players), "goals": len(sc.goals)})
    else:
        typer.echo(f"wrote {output}: {sc.name}", err=True)


@app.command("import-hnc")
def import_hnc(
    topfile: Annotated[Path, typer.Argument(help="HNC topfile (countries, country_actions, …).")],
    output: ScenarioOutOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Convert an HNC topfile into a negtui scenario file."""
    with user_errors():
        output_scenario(load(topfile), output, force)


@app.command("import-scoresheet")
def import_scoresheet(
    sheet: Annotated[Path, typer.Argument(help="Scoresheet (TOML or JSON, format negtui-scoresheet/1).")],
    output: ScenarioOutOpt = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Compile a scoresheet (issues and options, each party's points and reservation value, the agreement
    rule) into a scenario file; every command also reads the scoresheet itself."""
    from negtui.scenario.io import load_scoresheet
    from negtui.scenario.library import resolve

    with user_errors():
        output_scenario(load_scoresheet(resolve(sheet)), output, force)


@app.command("export-hnc")
def export_hnc(
    scenario: Annotated[Path, typer.Argument(help="Scenario file (or topfile).")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Topfile to write (stdout if omitted).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write a scenario as an HNC topfile (player names as countries, action labels as actions)."""
    from negtui.scenario.hnc import from_scenario
    from negtui.scenario.io import write_json

    with user_errors():
        data = from_scenario(load(scenario)).model_dump(mode="json", exclude_none=True)
        if output is None:
            emit_json(data)
            return
        write_json(data, output, force=force)
    typer.echo(f"wrote {output}", err=True)


@app.command()
def scenarios(
    directory: Annotated[Path | None,
                         typer.Option("--dir", help="Where to look (default: the bundled scenarios).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the bundled scenarios: name, path, size, kind and one line."""
    from negtui.scenario.library import bundled_root, catalogue

    entries = catalogue(directory or bundled_root())
    if as_json:
        typer.echo(json.dumps([e.as_dict() for e in entries], indent=1))
        return
    for e in entries:
        typer.echo(f"{e.name:<44} {e.kind:<10} {e.players:>3} players {e.actions:>4} actions {e.goals:>3} goals  "
                   f"{e.path}")
        if e.line:
            typer.echo(f"    {e.line}")
