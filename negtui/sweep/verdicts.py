"""The claims' verdicts as a report shows them: Markdown tables with the evidence below, terminal tables, and
claims.json for whoever reads them with a program."""

from __future__ import annotations

import json
import math
from pathlib import Path

from rich.table import Table
from rich.text import Text

from negtui.sweep.judge import Claim, p_text
from negtui.sweep.markdown import markdown_table, md
from negtui.sweep.stats import FAILS, HOLDS, IDENTICAL, INDISTINGUISHABLE

STYLE = {HOLDS: "green", IDENTICAL: "cyan", INDISTINGUISHABLE: "yellow", FAILS: "red"}
HOW_TO_READ = (
    "How to read a verdict: each claim is an effect over games with its 95 % interval from a bootstrap that "
    "resamples **seeds** (all of a seed's games together: the generator draws one stream per seed, so a seed's "
    "games share value matrices and are not independent), paired wherever the methods or regimes played the same "
    "games; under 30 seeds the interval is Student's t on the bootstrap's standard error, and a paired difference "
    "with fewer than 30 games that differ at all is tested by the exact sign test over seeds. **holds**: the "
    "interval lies wholly on the side the paper states (and p < 0.05); **fails**: wholly on the other side; "
    "**identical play**: the interval cannot tell and the two methods' values were equal in at least 90 % of "
    "the games; **indistinguishable**: the interval holds zero, so these games cannot tell (a lens tied with "
    "the best is not the best); **not measurable**: the games it needs are not in the results. A claim of "
    "several parts holds when every part does (a \"sometimes\" claim when one does) and fails when any does; "
    "its comparisons are one family, and a verdict one comparison alone can give (fails for an every-part claim, "
    "holds for a \"sometimes\" one) needs that comparison's Holm-adjusted p below 0.05 too, so a claim of twelve "
    "parts fails by chance no more often than one of one part; the counts say how many parts reached each "
    "verdict. The effect shown is the one that decides: a failing comparison, else the least clear one. *Seeds "
    "to settle*: the seeds at which a 95 % interval would exclude zero with 80 % power, were the effect and its "
    "seed-to-seed spread what these games show, and in brackets the same at the two ends of the effect's "
    "interval (open above where the interval holds zero: then any number of seeds may be needed).")


def effect_text(c: Claim) -> str:
    part = c.decisive
    x = None if part is None else part.decisive
    if x is None:
        return "—"
    e = x.effect
    interval = f" [{e.low:+z.2f}, {e.high:+z.2f}]" if math.isfinite(e.low) else " (no interval)"
    return f"{x.what}: {e.estimate:+z.2f}{interval}"


def _seeds(c: Claim) -> str:
    part = c.decisive
    unit = "" if part is None or part.per_seed else " scenarios"  # scenario sweeps: their games are the scenarios
    if c.seeds_needed is None:
        return "—"
    low, high = c.seeds_needed_interval
    spread = "" if low is None else f" ({low:,}–{high:,})" if high is not None else f" (≥ {low:,})"
    return f"{c.seeds_needed:,}{unit}{spread}"


def _p(c: Claim) -> str:
    part = c.decisive
    x = None if part is None else part.decisive
    return "—" if x is None or not math.isfinite(x.effect.p) else p_text(x.effect.p).removeprefix("p ")


def _n(c: Claim) -> str:
    part = c.decisive
    x = None if part is None else part.decisive
    return "—" if x is None else f"{x.effect.n:,} ({x.effect.n_clusters} {x.effect.unit}s)"


def verdict_text(c: Claim) -> str:
    if len(c.parts) > 1:
        return f"{c.verdict} ({', '.join(f'{n} {v}' for v, n in c.counts.items())})"
    return c.verdict


def claims_markdown(found: list[Claim]) -> str:
    """A table of verdicts with the deciding effect, then every claim's parts."""
    head = ["claim", "verdict", "deciding effect [95 % interval]", "p", "games (clusters)", "seeds to settle"]
    rows = [[c.text, f"**{verdict_text(c)}**", md(effect_text(c)), _p(c), _n(c), _seeds(c)] for c in found]
    lines = markdown_table(head, rows)
    lines += ["", "Evidence, part by part (effect, 95 % interval, p, games and the seeds they come from; the means it "
                  "rests on):", ""]
    for c in found:
        lines.append(f"- *{c.text}* ({c.subset}; `{c.id}`; multiplicity: {c.correction}): {md(c.evidence)}")
    return "\n".join(lines)


def overview_markdown(found: dict[str, list[Claim]]) -> str:
    """Every section's verdicts side by side, one row per claim (a claim a section does not judge: —)."""
    texts: list[str] = []
    for section in found.values():
        texts += [c.text for c in section if c.text not in texts]
    verdicts = {(name, c.text): verdict_text(c) for name, section in found.items() for c in section}
    head = ["claim", *map(md, found)]
    body = [[t, *(verdicts.get((name, t), "—") for name in found)] for t in texts]
    return "\n".join(markdown_table(head, body))


def claims_rich(found: list[Claim], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("claim", overflow="fold", ratio=3)
    table.add_column("verdict", overflow="fold", ratio=1)
    table.add_column("deciding effect [95 % interval] · games · seeds to settle", overflow="fold", ratio=3)
    for c in found:
        table.add_row(c.text, Text(verdict_text(c), style=STYLE.get(c.verdict, "dim")),
                      f"{effect_text(c)} · {_n(c)} games · {_seeds(c)}")
    return table


def write_claims_json(found: list[dict], path: Path, sections: list[dict]) -> Path:
    """claims.json: per claim and rule set its id, sentence (`claim`), metric, subset, verdict, figures (with the
    unit resampled and the number of clusters), multiplicity rule and parts (`Claim.as_dict`, with the sweep it
    was judged on)."""
    path.write_text(json.dumps({"format": "negtui-claims/2", "sections": sections, "claims": found}, indent=1,
                               allow_nan=False) + "\n")
    return path
