"""The class debrief's plot: for each seat, every table's outcome as a mark on the seat's own axis, with
the No-Negotiation baseline and the seat's payoff at the welfare optimum beside them, and under it the
numbers the class export's figure states (n, mean ± s.d., baseline, optimum); drawn as text so it reads
the same at a trainer's desk and over SSH."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from negtui.classroom.debrief import SeatSpread
from negtui.names import cut
from negtui.tui import palette

PERSON, BOT, BASE, OPTIMUM = "●", "○", "┊", "◆"
LABEL = 18  # columns for a seat's name


def _fmt(v: float) -> str:
    return f"{v:z.4g}"


def strip_plot(spreads: Sequence[SeatSpread], width: int) -> Text:
    """Per seat a line of marks, one with its axis' ends and one with its numbers; a legend at the end."""
    axis = max(10, width - LABEL - 2)
    out = Text()
    for s in spreads:
        values = [o.payoff for o in s.outcomes]
        marks = [s.baseline, *values] + ([s.optimum] if s.optimum is not None else [])
        lo, hi = min(marks), max(marks)
        span = hi - lo or 1.0

        def col(v: float, lo: float = lo, span: float = span) -> int:
            return round((v - lo) / span * (axis - 1))

        counts = [0] * axis
        people = [False] * axis
        for o in s.outcomes:
            c = col(o.payoff)
            counts[c] += 1
            people[c] = people[c] or o.person is not None
        line = Text(cut(s.label, LABEL).ljust(LABEL) + " ", style="bold")
        base = col(s.baseline)
        best = col(s.optimum) if s.optimum is not None else None
        for c in range(axis):
            n = counts[c]
            if n == 0 and c == best:
                line.append(OPTIMUM, style=palette.POSITIVE)
            elif n == 0:
                line.append(BASE if c == base else "─", style=palette.ORANGE if c == base else "dim")
            else:
                mark = (PERSON if people[c] else BOT) if n == 1 else (str(n) if n < 10 else "+")
                line.append(mark, style=f"bold {palette.POSITIVE}" if people[c] else "")
        out.append_text(line)
        out.append("\n")
        ends = " " * (LABEL + 1) + _fmt(lo)
        out.append(ends + _fmt(hi).rjust(axis - len(_fmt(lo))) + "\n", style="dim")
        out.append(" " * (LABEL + 1))
        out.append(s.summary if s.outcomes else f"not played yet · baseline {_fmt(s.baseline)}",
                   style="" if s.outcomes else "dim")
        out.append("\n")
    out.append(f"{PERSON} a trainee's outcome at one table  {BOT} a bot's  2–9: outcomes at one point  ", style="dim")
    out.append(BASE, style=palette.ORANGE)
    out.append(" the No-Negotiation baseline (what the seat gets acting alone, with no deal)  ", style="dim")
    out.append(OPTIMUM, style=palette.POSITIVE)
    out.append(" the seat's payoff at the welfare optimum", style="dim")
    return out
