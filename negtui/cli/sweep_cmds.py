"""`negtui sweep` (the benchmark grid, locally or on a Dask cluster) and `negtui report` (its tables
and figures)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from negtui.cli.common import LlmOffersOpt, LlmPromptOpt, LlmResponderOpt, LlmTemperatureOpt, LlmUrlOpt
from negtui.cli.errors import fail, user_errors
from negtui.cli.root import app

if TYPE_CHECKING:
    from negtui.sweep.spec import SweepSpec
    from negtui.sweep.tasks import Task


@app.command()
def sweep(
    spec_file: Annotated[Path | None, typer.Argument(help="Sweep spec (TOML or JSON); or use --preset.")] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Results table (.parquet, or .csv).")] = None,
    preset: Annotated[str | None, typer.Option(help="paper-small, paper-large, hnc or table2.")] = None,
    seeds: Annotated[int | None,
                     typer.Option(help="Seeds per grid cell (default: the spec's, 50 for presets).")] = None,
    seed_start: Annotated[int | None, typer.Option(
        help="The first seed (default 0): --seed-start 1000 --seeds 20 plays seeds 1000-1019, games independent "
             "of a study at seeds 0-19.")] = None,
    rules: Annotated[str | None, typer.Option(help="Rule sets, comma-separated: paper, reference.")] = None,
    welfare: Annotated[str | None, typer.Option(help="utilitarian (default), nash (adds the Nash optimum, ~0.8 s "
                                                     "a large game) or none.")] = None,
    workers: Annotated[int | None, typer.Option(help="Local worker processes (default: every core).")] = None,
    scheduler: Annotated[str | None, typer.Option(help="Run on this Dask scheduler (tcp://host:8786).")] = None,
    fmt: Annotated[str | None, typer.Option("--format", help="parquet or csv (default: by the file name).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would run, run nothing.")] = False,
    llm_base_url: LlmUrlOpt = None,
    llm_prompt: LlmPromptOpt = None,
    llm_temperature: LlmTemperatureOpt = None,
    with_llm: Annotated[str | None, typer.Option(
        "--with-llm", help="Add the language model MODEL as a method named llm (the paper's Appendix E prompt "
                           "unless --llm-prompt says otherwise).")] = None,
    llm_offers: LlmOffersOpt = None,
    llm_responder: LlmResponderOpt = None,
    llm_samples: Annotated[int | None, typer.Option(
        help="Plays of each game by a method with a model in it, each with its own seed (default 5).")] = None,
) -> None:
    """Play a grid of games with every method against the No-Negotiation baseline (and, on small games,
    the exact solution); one row per game and method. Re-running the same command skips finished games."""
    from negtui.sweep.tasks import skipped, tasks

    with user_errors():
        if workers is not None and workers < 1:
            fail("error: --workers is at least 1")
        options = {"seed_start": seed_start, "llm_base_url": llm_base_url, "llm_prompt": llm_prompt,
                   "llm_temperature": llm_temperature, "llm_offers": llm_offers, "llm_responder": llm_responder,
                   "llm_samples": llm_samples}
        spec = _with_options(_spec(spec_file, preset), _overrides(seeds, rules, welfare), options, with_llm)
        _check_scenarios(spec, spec_file or preset)
        todo = tasks(spec)
        refused = skipped(spec)
        if refused:
            reasons = sorted({f"{r} rules: {why}" for _, r, why in refused})
            what = "scenario(s) a rule set cannot play" if spec.grid is None else "grid cell(s) the generator refuses"
            typer.echo(f"skipping {len(refused)} {what}: " + "; ".join(reasons), err=True)
        if dry_run:
            typer.echo(_plan(spec, len(todo)))
            raise typer.Exit(0)
        if output is None:
            fail("error: say where the results go: -o results.parquet")
        _run(spec, todo, output, fmt, workers, scheduler)


def _with_options(spec: SweepSpec, update: dict[str, Any], options: dict[str, Any],
                  with_llm: str | None) -> SweepSpec:
    """The spec with the command line's options over it, each checked as it would be in a spec file and named
    as the option it came from when it is refused."""
    from pydantic import ValidationError

    from negtui.scenario.io import first_problem
    from negtui.sweep.spec import SweepSpec

    update.update({key: value for key, value in options.items() if value is not None})
    if with_llm is not None:
        if not with_llm.strip():
            fail("error: --with-llm needs a model name")
        update["methods"] = [*spec.model_dump()["methods"], {"name": "llm", "seats": f"llm:{with_llm.strip()}"}]
        if spec.llm_prompt is None:  # the paper's prompt, unless the spec or --llm-prompt names one
            update.setdefault("llm_prompt", "paper")
    try:
        return SweepSpec.model_validate({**spec.model_dump(), **update})
    except ValidationError as err:
        problem = first_problem(err)
        for key in ("llm_base_url", "llm_prompt", "llm_temperature", "rules", "seed_start", "llm_offers",
                    "llm_responder", "llm_samples"):
            problem = problem.replace(f"$.{key}", "--" + key.replace("_", "-"))
        fail("error: " + problem)


def _plan(spec: SweepSpec, games: int) -> str:
    """What --dry-run says would run."""
    return (f"{spec.name}: {games} games × {len(spec.methods)} methods "
            f"({', '.join(m.name for m in spec.methods)}), rules {', '.join(spec.rules)}, "
            f"{spec.seeds} seed{'s' * (spec.seeds != 1)} ({spec.seed_start}"
            + (f"–{spec.seed_start + spec.seeds - 1})" if spec.seeds > 1 else ")")
            + (", exact where small" if spec.exact else "")
            + (f"; llm: seats use the {spec.llm_prompt or 'negtui'} prompt, offers {spec.llm_offers}, "
               f"answered by {spec.llm_responder}, {spec.llm_samples} sample"
               f"{'s' * (spec.llm_samples != 1)} a game" if any(m.uses_llm for m in spec.methods)
               else ""))


def _spec(spec_file: Path | None, preset: str | None) -> SweepSpec:
    """The spec file's, or the preset's: exactly one of them."""
    from negtui.sweep.spec import SCENARIO_PRESETS, SpecError, load_spec, presets

    if (spec_file is None) == (preset is None):
        fail(f"error: give a spec file or --preset ({', '.join(presets())})")
    if spec_file is not None:
        try:
            return load_spec(spec_file)
        except SpecError as err:
            fail(err.render())
    known = presets()
    if preset in SCENARIO_PRESETS and preset not in known:
        from negtui.scenario.library import bundled_root

        fail(f"error: preset {preset!r} plays the bundled scenarios of {bundled_root()}, which this installation "
             f"does not have (they come with a clone of the repository); presets here: {', '.join(known)}")
    if preset not in known:
        fail(f"error: unknown preset {preset!r}; presets: {', '.join(known)}")
    return known[preset]


def _overrides(seeds: int | None, rules: str | None, welfare: str | None) -> dict[str, object]:
    """What the options change in the spec, each checked as the spec's own field would be."""
    update: dict[str, object] = {}
    if seeds is not None:
        if not 1 <= seeds <= 100_000:
            fail("error: --seeds is between 1 and 100000")
        update["seeds"] = seeds
    if rules is not None:
        names = [r.strip() for r in rules.split(",") if r.strip()]
        if not names:
            fail(f"error: --rules takes paper, reference or variants of them, not {rules!r}")
        update["rules"] = names  # each checked with the spec
    if welfare is not None:
        if welfare not in ("utilitarian", "nash", "none"):
            fail(f"error: --welfare is utilitarian, nash or none, not {welfare!r}")
        update["welfare"] = welfare
    return update


def _check_scenarios(spec: SweepSpec, source: Path | str | None) -> None:
    """Every scenario is read before any game runs: a bad one stops the sweep before it starts."""
    from negtui.scenario import ScenarioError, load_scenario
    from negtui.scenario.library import resolve

    for i, name in enumerate(spec.scenarios):
        try:
            load_scenario(resolve(name))
        except ScenarioError as err:
            fail(f"{source}: $.scenarios[{i}] cannot be used:\n{err.render()}")


def _run(spec: SweepSpec, todo: list[Task], output: Path, fmt: str | None, workers: int | None,
         scheduler: str | None) -> None:
    from negtui.sweep.results import Results, ResultsError

    try:
        results = Results(output, fmt)
    except ResultsError as err:
        fail(f"error: {err}")
    try:
        from negtui.sweep.runner import TaskFailed, run_sweep

        ran = run_sweep(spec, todo, results, workers=workers, scheduler=scheduler)
    except ResultsError as err:
        fail(f"error: {err}")
    except TaskFailed as err:
        fail(f"error: {err}; {results.rows} rows kept in {output}, re-run to retry the rest", code=1)
    except OSError as err:
        fail(f"error: cannot reach the Dask scheduler {scheduler}: {err}" if scheduler else f"error: {err}")
    finally:
        results.close()
    typer.echo(f"{output}: {results.rows} rows ({ran} games run now, {len(todo) - ran} already there)", err=True)
    if results.void_games:
        typer.echo(f"{results.void_games} plays by a language model are void: one of its seats never got an answer "
                   "from the model server (the rows' notes say why); the report counts none of them. Is the server "
                   "up? Re-run them into a new results file once it answers.", err=True)
    if results.over_exact_limit:
        from negtui.engine.outcome import AUTO_EXACT_LIMIT

        typer.echo(f"{results.over_exact_limit} of the games run now were over the exact-solve limit (a state space "
                   f"over {AUTO_EXACT_LIMIT:,}): no exact solution, no L1 error for them", err=True)


@app.command()
def report(
    results: Annotated[Path, typer.Argument(help="Results table written by negtui sweep (.parquet or .csv).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder for report.md and its figures.")] = Path(
        "report"),
) -> None:
    """The paper's Table 1, the L1-error and efficiency figures, and its claims judged on these results (an
    effect, a 95 % interval and a verdict each): printed here and written as Markdown with PNG and SVG figures,
    with claims.json beside it."""
    from rich.console import Console

    from negtui.sweep.checks import MAX_REPORT_ROWS, BadResults, check_results
    from negtui.sweep.render import table1_rich, write_report
    from negtui.sweep.render_scenarios import scenario_rich
    from negtui.sweep.report import ScenarioTable
    from negtui.sweep.results import ResultsError, read_table
    from negtui.sweep.verdicts import claims_rich

    with user_errors():
        if not results.is_file():
            fail(f"error: {results}: no such results file")
        try:
            table = read_table(results, max_rows=MAX_REPORT_ROWS)
            check_results(table, results)
        except (ResultsError, BadResults) as err:
            fail(f"error: {err}")
        rows = table.to_pylist()
        if not rows:
            fail(f"error: {results} holds no rows")
        if output.exists() and not output.is_dir():
            fail(f"error: {output} exists and is not a folder")
        try:
            path, shown = write_report(rows, results, output)
        except OSError as err:
            fail(f"error: cannot write the report in {output}: {err.strerror or err}")
        console = Console()
        for t, found in shown:
            tables = scenario_rich(t, console.width) if isinstance(t, ScenarioTable) else table1_rich(t, console.width)
            for table in tables:
                console.print(table)
            what = "Table 2's claims" if isinstance(t, ScenarioTable) else "the paper's claims"
            console.print(claims_rich(found, f"{t.sweep} · {t.rules} rules: {what}"))
        typer.echo(f"report written to {path} (verdicts in {path.with_name('claims.json')})", err=True)
