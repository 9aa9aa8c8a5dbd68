#!/usr/bin/env python3
"""Do a study's verdicts replicate on games it was not read from?  Set two results files side by side.

    python scripts/replication.py small-0.parquet small-1000.parquet            # Markdown on stdout
    python scripts/replication.py small-0.parquet small-1000.parquet --json r.json

The two files are the same sweep played at two disjoint seed ranges (`negtui sweep --seed-start`).  For each
(sweep, rule set) both hold, every claim `negtui report` judges is given with its verdict and deciding effect
[95 % interval] on each, and whether the verdicts agree; then every part of every claim likewise, so a
sentence that states a direction can cite both intervals.  A claim replicates when its verdict is the same
on both ranges.  Where a sweep played one proposer a turn and several at once, each change between the
protocols (regime, method, metric) and each regime's best methods are set side by side too.  Exit status 0,
or 2 for a file that cannot be read or seed ranges that overlap.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


def load(path: Path) -> list[dict]:
    from negtui.sweep.checks import MAX_REPORT_ROWS, check_results
    from negtui.sweep.results import read_table

    table = read_table(path, max_rows=MAX_REPORT_ROWS)
    check_results(table, path)
    return table.to_pylist()


def effect_text(x) -> str:  # a judge.Comparison
    return effect_text_of(x.effect)


def num(x: float) -> float | None:
    return round(x, 6) if math.isfinite(x) else None


def judged(rows: list[dict]) -> dict[tuple[str, str], list]:
    from negtui.sweep.claims import claims
    from negtui.sweep.report import by_information, groups, void_games

    out = {}
    for key, sub in groups(rows).items():
        sub, _ = void_games(sub)
        public, private = by_information(sub)
        out[key] = claims(public or private)
    return out


def seeds(rows: list[dict]) -> str:
    from negtui.sweep.render import seed_range

    return seed_range(rows)


def simultaneous(a: list[dict], b: list[dict], name_a: str, name_b: str) -> tuple[list[str], list[dict], int, int]:
    """Every sequential/simultaneous pair both files played: each change (simultaneous − sequential) with its
    reading on each range, and each regime's best methods under each protocol on each range."""
    from negtui.sweep.simultaneous import TITLES, comparison, lens_order, pairs

    lines: list[str] = []
    record: list[dict] = []
    same_n = total = 0
    for sweep, seq, sim in sorted(set(pairs(a)) & set(pairs(b))):
        fa = {(f["regime"], f["method"], f["column"]): f for f in comparison(a, sweep, seq, sim)}
        fb = {(f["regime"], f["method"], f["column"]): f for f in comparison(b, sweep, seq, sim)}
        body = []
        for key in [k for k in fa if k in fb]:
            x, y = fa[key], fb[key]
            agree = x["reading"] == y["reading"]
            total += 1
            same_n += agree
            regime, method, column = key
            body.append(f"| {TITLES[regime]} | {method} | {column} | {x['reading']}: {effect_text_of(x['effect'])} | "
                        f"{y['reading']}: {effect_text_of(y['effect'])} | {'yes' if agree else '**no**'} |")
            record.append({"sweep": sweep, "sequential": seq, "simultaneous": sim, "regime": regime, "method": method,
                           "metric": column, "first": [x["reading"], *figures(x["effect"])],
                           "second": [y["reading"], *figures(y["effect"])]})
        order = []
        best = {(rules, side): lens_order(rows, sweep, rules) for rules in (seq, sim) for side, rows in
                (("a", a), ("b", b))}
        for regime in TITLES:
            cells = [" = ".join(sorted(best[(rules, side)].get(regime, ()))) or "—" for rules in (seq, sim)
                     for side in ("a", "b")]
            if any(c != "—" for c in cells):
                order.append(f"| {TITLES[regime]} | " + " | ".join(cells) + " |")
        lines += [f"**{sweep}: {seq} against {sim}** (simultaneous − sequential, paired game by game): {name_a} "
                  f"against {name_b}", "",
                  f"| regime | method | metric | {name_a} | {name_b} | same reading |", "|---|---|---|---|---|---|",
                  *body, "", "The best methods by improvement (every method not told apart from the best):", "",
                  f"| regime | {seq}, {name_a} | {seq}, {name_b} | {sim}, {name_a} | {sim}, {name_b} |",
                  "|---|---|---|---|---|", *order, ""]
    return lines, record, same_n, total


def figures(e) -> list[float | None]:  # a stats.Effect: estimate, low, high
    return [num(e.estimate), num(e.low), num(e.high)]


def effect_text_of(e) -> str:  # a stats.Effect
    if not math.isfinite(e.low):
        return f"{e.estimate:+.2f} (no interval)"
    return f"{e.estimate:+.2f} [{e.low:+.2f}, {e.high:+.2f}]"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=Path, help="results at one seed range")
    parser.add_argument("second", type=Path, help="the same sweep at a disjoint seed range")
    parser.add_argument("--json", type=Path, help="also write every verdict and effect here")
    args = parser.parse_args(argv)
    from negtui.sweep.checks import BadResults
    from negtui.sweep.results import ResultsError

    try:
        a, b = load(args.first), load(args.second)
    except (ResultsError, BadResults) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    common = {r["seed"] for r in a} & {r["seed"] for r in b} - {None}
    if common:
        print(f"error: {args.first} and {args.second} share seeds ({len(common)}, e.g. {min(common)}): a replication "
              "plays games the study did not", file=sys.stderr)
        return 2
    ja, jb = judged(a), judged(b)
    name_a, name_b = seeds(a), seeds(b)
    lines, record, same_n, total = [], [], 0, 0
    for key in sorted(ja.keys() & jb.keys()):
        sweep, rules = key
        lines += [f"**{sweep} · {rules} rules**: {name_a} against {name_b}", "",
                  f"| claim | {name_a} | {name_b} | same verdict |", "|---|---|---|---|"]
        by_b = {c.id: c for c in jb[key]}
        parts_lines = []
        for c in ja[key]:
            d = by_b.get(c.id)
            if d is None:
                continue
            same = c.verdict == d.verdict
            total += 1
            same_n += same

            def decisive(claim) -> str:
                part = claim.decisive
                x = None if part is None else part.decisive
                return claim.verdict if x is None else f"{claim.verdict}: {effect_text(x)}"

            lines.append(f"| {c.text} | {decisive(c)} | {decisive(d)} | {'yes' if same else '**no**'} |")
            parts_b = {p.label: p for p in d.parts}
            for p in c.parts:
                q = parts_b.get(p.label)
                if q is None:
                    continue
                for x in p.comparisons:
                    y = next((y for y in q.comparisons if y.what == x.what), None)
                    if y is None:
                        continue
                    agree = "yes" if x.verdict == y.verdict else "**no**"
                    parts_lines.append(f"| {c.id} | {p.label} | {x.what} | {x.verdict}: {effect_text(x)} | "
                                       f"{y.verdict}: {effect_text(y)} | {agree} |")
                    record.append({"sweep": sweep, "rules": rules, "claim": c.id, "part": p.label, "what": x.what,
                                   "first": [x.verdict, *map(num, (x.effect.estimate, x.effect.low, x.effect.high))],
                                   "second": [y.verdict, *map(num, (y.effect.estimate, y.effect.low, y.effect.high))]})
            record.append({"sweep": sweep, "rules": rules, "claim": c.id, "first": c.verdict, "second": d.verdict})
        lines += ["", "<details><summary>every comparison</summary>", "",
                  f"| claim | part | comparison | {name_a} | {name_b} | same |", "|---|---|---|---|---|---|",
                  *parts_lines, "", "</details>", ""]
    protocol_lines, protocol_record, protocol_same, protocol_total = simultaneous(a, b, name_a, name_b)
    lines += protocol_lines
    record += protocol_record
    lines.insert(0, f"{same_n} of {total} claims have the same verdict on both seed ranges."
                    + (f" {protocol_same} of {protocol_total} changes between one proposer a turn and several at once "
                       "read the same on both." if protocol_total else "") + "\n")
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps({"first": str(args.first), "second": str(args.second), "same": same_n,
                                         "claims": total, "found": record}, indent=1, allow_nan=False) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
