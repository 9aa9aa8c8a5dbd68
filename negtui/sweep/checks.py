"""What a results table must hold before a report is built from it.

A results file travels (shared between colleagues, edited in a spreadsheet, downloaded with a paper), so
the report treats it as input from outside: every value it computes with, prints or writes into
report.md is checked first, and the first that is not what `negtui sweep` writes is named by file, row
and column (exit 2).  Numbers are finite and of a size a game can produce; names follow the sweep spec's
own patterns, so nothing reaches the Markdown or a figure's file name but the characters a sweep allows;
counts are bounded so that a report is a few sections, not thousands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from negtui.engine.rules import RULES
from negtui.scenario import limits as lim
from negtui.sweep.spec import AXIS_LIMITS, BASELINE, EXACT, PAYOFF_REGIMES

MAX_REPORT_ROWS = 2_000_000  # rows a report reads (a million-game sweep is reported in parts)
MAX_SECTIONS = 32  # (sweep, rules) pairs: each is a section with its tables and figures
MAX_METHODS = 32  # per section: columns of its tables, lines of its figures
MAX_SCENARIOS = 1_000  # scenario files in one section (a sweep spec lists at most as many)
# the largest sum a game can produce: every goal at the largest value, for every player
NUMBER_LIMIT = lim.MAX_ABS_VALUE * lim.MAX_GOALS * lim.MAX_PLAYERS
UNBOUNDED = ("nash_optimum", "nash_efficiency", "seconds", "improvement_var", "l1_normalised")  # finite is enough:
# products of payoffs, timings, squares of gains, ratios to an exact total that may be near zero

SWEEP_NAME = r"^[A-Za-z0-9_.-]{1,64}$"  # as SweepSpec.name
METHOD_NAME = r"^[A-Za-z0-9_.:/+-]{1,64}$"  # as Method.name
TEXT_LIMITS = {"task": 256, "scenario": lim.MAX_ID, "scenario_file": 4096, "negtui": 64, "rules": 512, "notes": 1000,
               "llm_model": 2000, "llm_responder": 64}
REQUIRED = ("sweep", "task", "scenario", "rules", "method", "players", "payoffs", "sum", "baseline_sum",
            "improvement")
CHOICES: dict[str, tuple[str, ...]] = {"structure": ("adversarial", "cooperative"), "payoff": PAYOFF_REGIMES,
                                       "information": ("public", "private"), "llm_prompt": ("negtui", "paper"),
                                       "llm_offers": ("checked", "unchecked")}
RULES_NAME = rf"^({'|'.join(RULES)})([+-][a-z_]+){{0,16}}$"  # a rule set or a variant (engine.rules)
BOUNDS = {**{name: (0, top) for name, top in AXIS_LIMITS.items()}, "players": (1, lim.MAX_PLAYERS),
          "turns": (0, lim.MAX_TURNS), "all_or_nothing": (0, 1), "fraction_improved": (0, 1),
          "actions_up_to": (1, lim.MAX_ACTIONS), "negative_mass": (0, 1), "mixed_sign_goals": (0, 1),
          "sign_agreement": (0, 1), "sample": (0, 99), "llm_samples": (1, 100), "llm_temperature": (0, 2)}


class BadResults(ValueError):
    """A value the report will not use; the message names file, row and column."""


def check_results(table: pa.Table, path: Path) -> None:
    """Raise BadResults at the first value a sweep could not have written."""
    def bad(column: str, mask: pa.ChunkedArray | pa.Array, what: str) -> None:
        hit = pc.index(pc.fill_null(mask, False), True).as_py()
        if hit is not None and hit >= 0:
            raise BadResults(f"{path}: row {hit + 1}, column {column}: {what}")

    if table.num_rows > MAX_REPORT_ROWS:
        raise BadResults(f"{path}: {table.num_rows:,} rows; a report reads at most {MAX_REPORT_ROWS:,}")
    for name in REQUIRED:
        bad(name, pc.is_null(table[name]), "empty; every row of a sweep has it")
    for name in TEXT_LIMITS | dict.fromkeys(CHOICES) | {"sweep": 0, "method": 0}:
        bad(name, pc.match_substring_regex(table[name], r"[\x00-\x1f\x7f]"), "holds control characters")
    for name, limit in TEXT_LIMITS.items():
        bad(name, pc.greater(pc.utf8_length(table[name]), limit), f"longer than {limit} characters")
    bad("sweep", pc.invert(pc.match_substring_regex(table["sweep"], SWEEP_NAME)),
        "not a sweep name (letters, digits, _ . -; at most 64)")
    bad("rules", pc.invert(pc.match_substring_regex(table["rules"], RULES_NAME)),
        "not a rule set (paper, reference, or a variant such as paper+lower_reference_credibility)")
    method_ok = pc.or_(pc.match_substring_regex(table["method"], METHOD_NAME),
                       pc.is_in(table["method"], pa.array([BASELINE, EXACT])))
    bad("method", pc.invert(method_ok), "not a method name (letters, digits, _ . : / + -; at most 64)")
    for name, allowed in CHOICES.items():
        other = pc.and_(pc.is_valid(table[name]), pc.invert(pc.is_in(table[name], pa.array(allowed))))
        bad(name, other, f"not one of {', '.join(allowed)}")
    for field in table.schema:
        if pa.types.is_floating(field.type):
            _check_numbers(table[field.name], field.name, bad)
    for name, (low, high) in BOUNDS.items():
        bad(name, pc.or_(pc.less(table[name], low), pc.greater(table[name], high)), f"outside {low}…{high}")
    values = pc.list_flatten(table["payoffs"])
    parents = pc.list_parent_indices(table["payoffs"])
    wrong = pc.or_(pc.invert(pc.is_finite(values)), pc.greater(pc.abs(values), NUMBER_LIMIT))
    hit = pc.index(pc.fill_null(wrong, False), True).as_py()
    if hit is not None and hit >= 0:
        raise BadResults(f"{path}: row {parents[hit].as_py() + 1}, column payoffs: not a finite payoff "
                         f"of at most {NUMBER_LIMIT:g} in size")
    bad("payoffs", pc.not_equal(pc.list_value_length(table["payoffs"]), table["players"]),
        "not one payoff per player")
    _check_counts(table, path)


def _check_numbers(column: pa.ChunkedArray, name: str, bad: Callable[[str, Any, str], None]) -> None:
    bad(name, pc.invert(pc.is_finite(column)), "not a finite number (NaN or infinite)")
    if name not in UNBOUNDED:
        bad(name, pc.greater(pc.abs(column), NUMBER_LIMIT), f"larger than any game gives ({NUMBER_LIMIT:g})")


def _check_counts(table: pa.Table, path: Path) -> None:
    played = table.filter(pc.invert(pc.is_in(table["method"], pa.array([BASELINE, EXACT]))))
    sections = played.group_by(["sweep", "rules"]).aggregate([
        ("method", "count_distinct"), ("scenario_file", "count_distinct")])
    if sections.num_rows > MAX_SECTIONS:
        raise BadResults(f"{path}: {sections.num_rows} sweeps × rule sets; a report holds at most {MAX_SECTIONS}")
    for row in sections.to_pylist():
        where = f"{path}: sweep {row['sweep']} under {row['rules']} rules"
        if row["method_count_distinct"] > MAX_METHODS:
            raise BadResults(f"{where}: {row['method_count_distinct']} methods; "
                             f"a report compares at most {MAX_METHODS}")
        if row["scenario_file_count_distinct"] > MAX_SCENARIOS:
            raise BadResults(f"{where}: {row['scenario_file_count_distinct']} scenario files; "
                             f"a report lists at most {MAX_SCENARIOS}")

