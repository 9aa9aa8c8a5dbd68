"""`negtui learn`: train the learned lens on exact solutions of small generated games (docs/learned-lens.md)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.errors import fail, user_errors
from negtui.cli.root import app

MAX_LEARN_GAMES = 20_000  # exact solves in one run


@app.command()
def learn(
    output: Annotated[Path, typer.Option("-o", "--output", help="The model (.npz); its training set is written "
                                                                  "beside it (.parquet) with a model card (.md).")],
    preset: Annotated[str | None, typer.Option(help="A sweep preset of small games (paper-small).")] = None,
    spec_file: Annotated[Path | None, typer.Option("--spec", help="Or a sweep spec of small games.")] = None,
    seeds: Annotated[int | None, typer.Option(help="Seeds per grid cell (default: the spec's).")] = None,
    seed_start: Annotated[int | None, typer.Option(help="The first seed (default 0).")] = None,
    states: Annotated[int, typer.Option(help="States drawn per game, besides the exact path's.", min=1,
                                        max=1000)] = 40,
    leave_out: Annotated[str | None, typer.Option(
        help="A payoff regime kept out of the training (balanced, positive, negative, negative-pp): its games' "
             "error is measured on a model that never saw one.")] = None,
    data: Annotated[Path | None, typer.Option(help="Train on this training set (.parquet from an earlier run) "
                                                   "instead of drawing one.")] = None,
    hidden: Annotated[str, typer.Option(help="Hidden layers' widths, comma-separated.")] = "64,64",
    max_rows: Annotated[int, typer.Option(help="Rows fitted on at most.", min=100, max=5_000_000)] = 300_000,
    seed: Annotated[int, typer.Option(help="Seed of the split and of the fit.")] = 0,
    workers: Annotated[int | None, typer.Option(help="Processes solving games (default: every core).", min=1,
                                                max=256)] = None,
) -> None:
    """Draw states from exact solutions of small generated games, fit a small network to each player's exact
    continuation value there, and write it as a model `--lens learned:MODEL.npz` reads. The seeds held out of
    the fit measure it: their error per regime, beside every hand lens's, is printed and kept in the card."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with user_errors():
        widths = _widths(hidden)
        if output.suffix != ".npz":
            fail(f"error: --output {output}: a model file ends in .npz")
        if not output.parent.is_dir():
            fail(f"error: --output {output}: no directory {output.parent}")
        started = time.perf_counter()
        if data is not None:
            if preset or spec_file or seeds or seed_start is not None:
                fail("error: --data trains on a training set already drawn: give no --preset, --spec or seeds")
            table = _read_data(data)
            described: dict[str, object] = {"data": str(data)}
        else:
            spec = _small_spec(preset, spec_file, seeds, seed_start)
            table = _draw(spec, states, workers)
            described = {"preset": preset, "spec": str(spec_file) if spec_file else None, "seeds": spec.seeds,
                         "seed_start": spec.seed_start, "states": states}
            data_path = output.with_suffix(".parquet")
            pq.write_table(table, data_path.with_name(data_path.name + ".part"))
            data_path.with_name(data_path.name + ".part").replace(data_path)
            typer.echo(f"{data_path}: {table.num_rows:,} rows (a state and a player each)", err=True)
        if leave_out is not None:
            regimes = table.column("regime").to_numpy().astype(str)
            if leave_out not in set(regimes):
                fail(f"error: --leave-out {leave_out!r}: the training set's regimes are "
                     f"{', '.join(sorted(set(regimes)))}")
            kept = table.filter(pa.array(regimes != leave_out))
            out_of = table.filter(pa.array(regimes == leave_out))
        else:
            kept, out_of = table, None
        from negtui.learn.train import errors, fit, save

        typer.echo(f"fitting on {kept.num_rows:,} rows …", err=True)
        fitted = fit(kept, widths, max_rows, seed, meta={"command": _command({
            "preset": preset, "spec": spec_file, "data": data, "seeds": seeds, "seed-start": seed_start,
            "states": None if data is not None or states == 40 else states, "leave-out": leave_out,
            "hidden": None if hidden == "64,64" else hidden, "max-rows": None if max_rows == 300_000 else max_rows,
            "seed": seed or None, "output": output}), **described,
                                                         "leave_out": leave_out})
        report = {"held_out": fitted.held_out}
        if out_of is not None:
            report[f"left_out:{leave_out}"] = errors(out_of, fitted.model)
            meta = json.loads(str(fitted.arrays["meta"]))
            meta["left_out"] = report[f"left_out:{leave_out}"]
            import numpy as np

            fitted.arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
        save(fitted, output)
        card = output.with_suffix(".md")
        card.write_text(_card(output, json.loads(str(fitted.arrays["meta"]))), encoding="utf-8")
        for name, errs in report.items():
            typer.echo(_errors_text(name, errs))
        typer.echo(f"{output}: model ({output.stat().st_size:,} bytes), card {card}; "
                   f"{time.perf_counter() - started:.0f} s", err=True)


def _widths(text: str) -> tuple[int, ...]:
    try:
        widths = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        fail(f"error: --hidden takes widths like 64,64, not {text!r}")
    if not widths or len(widths) > 6 or not all(1 <= w <= 512 for w in widths):
        fail(f"error: --hidden: 1 to 6 layers of 1 to 512 units, not {text!r}")
    return widths


def _small_spec(preset: str | None, spec_file: Path | None, seeds: int | None, seed_start: int | None):
    from negtui.cli.sweep_cmds import _spec
    from negtui.sweep.spec import SweepSpec

    spec = _spec(spec_file, preset)
    if spec.grid is None:
        fail("error: negtui learn draws games from a generator grid (paper-small), not a list of scenarios")
    update: dict[str, object] = {}
    if seeds is not None:
        if not 1 <= seeds <= 100_000:
            fail("error: --seeds is between 1 and 100000")
        update["seeds"] = seeds
    if seed_start is not None:
        update["seed_start"] = seed_start
    spec = SweepSpec.model_validate({**spec.model_dump(), **update})
    games = spec.grid.cells() * spec.seeds if spec.grid is not None else 0
    if games > MAX_LEARN_GAMES:
        fail(f"error: {games:,} games to solve exactly; at most {MAX_LEARN_GAMES:,} in one run (fewer --seeds)")
    return spec


def _draw(spec, states: int, workers: int | None):
    from negtui.engine.exact import ExactTooLarge
    from negtui.learn.data import build_table

    shown = {"at": 0.0}
    live = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        """A line rewritten in place on a terminal; a line every half minute in a log."""
        now = time.perf_counter()
        if now - shown["at"] > (1 if live else 30) or done == total:
            shown["at"] = now
            start = "\r" if live else ""
            typer.echo(f"{start}solved {done}/{total} games", err=True, nl=not live or done == total)

    try:
        return build_table(spec, states, workers=workers, progress=progress)
    except ExactTooLarge as err:
        fail(f"error: negtui learn needs games the exact solver solves (paper-small): {err}")


def _read_data(path: Path):
    import pyarrow.parquet as pq

    from negtui.learn.data import feature_columns

    try:
        table = pq.read_table(path)
    except (OSError, ValueError) as err:
        fail(f"error: --data {path}: not a training set (Parquet): {err}")
    missing = [c for c in ("seed", "regime", "mass", "exact", "myopic", "upper", "lower", *feature_columns())
               if c not in table.column_names]
    if missing:
        fail(f"error: --data {path}: not a training set of this negtui: no column {', '.join(missing)} "
             "(draw it again with negtui learn)")
    return table


def _command(given: dict[str, object]) -> str:
    """The command that trains this model again (its options as given, defaults left out)."""
    import shlex

    words = ["negtui", "learn"]
    for option, value in given.items():
        if value is not None:
            words += [f"--{option}", str(value)]
    return shlex.join(words)


def _errors_text(name: str, errs: dict) -> str:
    lines = [f"{name}: mean |value − exact| per state and player"]
    for regime, e in errs.items():
        lines.append(f"  {regime:12} rows {e['rows']:>8,}  learned {e['learned']:7.3f}  myopic {e['myopic']:7.3f}  "
                     f"upper {e['upper']:7.3f}  lower {e['lower']:7.3f}")
    return "\n".join(lines)


def _card(output: Path, meta: dict) -> str:
    lines = [f"# Model card: {output.name}", "",
             "A learned lens (docs/learned-lens.md): a network fitted to each player's exact continuation value "
             "at states of small generated games, read by `--lens learned:" + output.name + "`.", "",
             f"- trained by: `{meta.get('command')}`",
             f"- games: preset {meta.get('preset')}, {meta.get('seeds')} seeds from {meta.get('seed_start')}, "
             f"{meta.get('states')} states drawn per game plus the exact path's; training set "
             f"`{output.with_suffix('.parquet').name}`" if meta.get("data") is None else f"- data: {meta['data']}",
             f"- fitted on {meta.get('trained_rows'):,} rows of seeds {_ranges(meta.get('trained_seeds', []))}; "
             f"held out: seeds {_ranges(meta.get('held_out_seeds', []))}",
             f"- network: hidden layers {meta.get('hidden')}, ReLU, {meta.get('iterations')} epochs "
             "(scikit-learn MLPRegressor)", ""]
    if meta.get("leave_out"):
        lines += [f"- left out of the training: the {meta['leave_out']} regime", ""]
    for key, title in (("held_out", "Held-out seeds"), ("left_out", f"Left-out regime ({meta.get('leave_out')})")):
        errs = meta.get(key)
        if not errs:
            continue
        lines += [f"## {title}: mean |value − exact| per state and player", "",
                  "| regime | rows | learned | myopic | upper | lower |", "|---|---:|---:|---:|---:|---:|"]
        for regime, e in errs.items():
            lines.append(f"| {regime} | {e['rows']:,} | {e['learned']:.3f} | {e['myopic']:.3f} | {e['upper']:.3f} | "
                         f"{e['lower']:.3f} |")
        lines.append("")
    return "\n".join(lines)


def _ranges(seeds: list[int]) -> str:
    if not seeds:
        return "none"
    out, start, prev = [], seeds[0], seeds[0]
    for s in seeds[1:] + [None]:
        if s is not None and s == prev + 1:
            prev = s
            continue
        out.append(f"{start}" if start == prev else f"{start}–{prev}")
        if s is not None:
            start = prev = s
    return ", ".join(out)
