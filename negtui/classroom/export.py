"""The class debrief to project: `negtui class --export DIR` writes `DIR/index.html`, a page any browser
opens from the disk (no server, nothing fetched from anywhere: the style is in the page, the figures are
files beside it), with, per exercise of the course, the figures the trainer's console shows (debrief.py
works them out for both): each seat's payoff over the plays against its No-Negotiation baseline and its
payoff at the welfare optimum, each table's total against the optimum, and the costliest decisions.

Every figure is written as SVG (its text kept as text) and PNG under `figures/`, the numbers behind it as
CSV under `data/`; every figure and table states its n, every mean its standard deviation.  Whatever the
results database holds (trainees' names, and the course's titles and labels) is escaped in the page, and
no CSV cell starts a spreadsheet formula (csvcells).  An export takes bounded time and memory whatever the
class: the debrief cuts names and words (debrief.NAME, WORDS), a figure draws at most `SEATS_DRAWN` seats
and `TABLES_DRAWN` tables and says what it left to the table beside it, and at most `MAX_TABLES` plays are
read per exercise.  matplotlib is imported here only when an export is made, off-screen (Agg)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from negtui.classroom.course import LoadedCourse
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import now_iso
from negtui.classroom.debrief import TABLES_SHOWN, ClassDebrief, class_debrief, mean_sd
from negtui.csvcells import write_rows
from negtui.names import cut
from negtui.pages import environment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# the figures' colours: told apart by their markers too, not by colour alone
PERSON = "#1f77b4"  # a trainee's outcome (filled), a bot's (hollow), each table's total
BASELINE = "#ff7f0e"  # the No-Negotiation baseline
OPTIMUM = "#2ca02c"  # the welfare optimum (the seat's payoff there, the table's most)
COST = "#d62728"  # a decision's cost
MEAN = "#222222"
RC: dict[str, Any] = {"svg.fonttype": "none", "text.parse_math": False, "font.size": 9}  # names: text, never math
TOP = 10  # the costliest decisions shown per exercise
MAX_TABLES = 200  # plays per exercise an export reads at most (`negtui class --tables`)
SEATS_DRAWN = 30  # seats in a figure (a row each); the page's table and the CSV hold them all
TABLES_DRAWN = 60  # tables in a figure (a bar each), the best shares; the page's table and the CSV hold them all
TITLE = 80  # characters of an exercise's title in a figure's title
LABEL = 120  # characters of a costly decision's label (who, seat, where, turn)


@dataclass
class Exported:
    index: Path
    files: list[Path] = field(default_factory=list)  # every figure and CSV written, beside the index


def _num(v: float | None, fmt: str = "z.2f") -> str:
    return "" if v is None else format(v, fmt)


def _figure() -> type[Figure]:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display, no GUI toolkit
    from matplotlib.figure import Figure

    return Figure


def _rc() -> AbstractContextManager[None]:
    import matplotlib

    return matplotlib.rc_context(cast(Any, RC))


def _save(fig: Figure, path: Path) -> list[Path]:
    import warnings

    out = []
    with _rc(), warnings.catch_warnings():
        # a name's emoji or script the font lacks is drawn as a box: said on the terminal once per glyph and
        # figure, it would bury the export's own lines
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)
        for suffix in (".svg", ".png"):
            p = path.with_suffix(suffix)
            fig.savefig(p, dpi=120, bbox_inches="tight")
            out.append(p)
    return out


def _write_csv(path: Path, columns: Sequence[str], rows: list[dict[str, Any]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        write_rows(f, columns, rows)
    return path


def seats_figure(d: ClassDebrief, path: Path) -> list[Path]:
    """Each seat on a row: every play's payoff (a trainee's filled, a bot's hollow), the baseline, the seat's
    payoff at the welfare optimum, and the mean ± s.d."""
    seats = d.seats[:SEATS_DRAWN]
    with _rc():
        fig = _figure()(figsize=(8.0, 1.4 + 0.7 * len(seats)))
        ax = fig.subplots()
        labelled: set[str] = set()

        def label(what: str) -> str | None:  # each kind of mark named once in the legend
            if what in labelled:
                return None
            labelled.add(what)
            return what

        for k, s in enumerate(seats):
            y = len(seats) - 1 - k
            xs = [o.payoff for o in s.outcomes]
            jitter = [((j * 7) % 11 - 5) * 0.025 for j in range(len(xs))]
            people = [(x, y + dy) for (x, dy, o) in zip(xs, jitter, s.outcomes) if o.person is not None]
            bots = [(x, y + dy) for (x, dy, o) in zip(xs, jitter, s.outcomes) if o.person is None]
            if people:
                ax.scatter([x for x, _ in people], [y for _, y in people], s=36, color=PERSON, zorder=3,
                           label=label("a trainee's outcome"))
            if bots:
                ax.scatter([x for x, _ in bots], [y for _, y in bots], s=36, facecolors="white", edgecolors=PERSON,
                           linewidths=1.4, zorder=3, label=label("a bot's outcome"))
            ax.plot([s.baseline] * 2, [y - 0.38, y + 0.38], color=BASELINE, linewidth=3, solid_capstyle="butt",
                    zorder=2, label=label("No-Negotiation baseline"))
            if s.optimum is not None:
                ax.scatter([s.optimum], [y], marker="D", s=60, color=OPTIMUM, zorder=4,
                           label=label("payoff at the welfare optimum"))
            if s.mean is not None:
                ax.errorbar([s.mean], [y - 0.3], xerr=[s.sd or 0.0], fmt="s", markersize=5, color=MEAN, capsize=3,
                            label=label("mean ± s.d."))
        ax.set_yticks(range(len(seats)), [f"{s.label} (n = {s.n})" for s in reversed(seats)])
        ax.set_ylim(-0.8, len(seats) - 0.4)
        ax.set_xlabel("payoff")
        ax.grid(axis="x", alpha=0.3)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, fontsize="small", frameon=False)
        ax.set_title(f"{cut(d.title, TITLE)}: each seat's payoff ({d.plays_summary}){_drawn_seats(d, ', ')}",
                     fontsize="medium")
        return _save(fig, path)


def _drawn_seats(d: ClassDebrief, lead: str) -> str:
    """What the seats figure leaves out, in words ('' when it draws every seat)."""
    if len(d.seats) <= SEATS_DRAWN:
        return ""
    return f"{lead}the first {SEATS_DRAWN} of {len(d.seats)} seats drawn (every seat in the table and the CSV)"


def _drawn_tables(d: ClassDebrief, lead: str) -> str:
    """What the tables figure leaves out, in words ('' when it draws every table)."""
    if d.played <= TABLES_DRAWN:
        return ""
    return f"{lead}the {TABLES_DRAWN} best shares of {d.played} drawn (every table in the table and the CSV)"


def tables_figure(d: ClassDebrief, path: Path) -> list[Path]:
    """Each play's total (a bar) against its welfare optimum (a mark), best share first."""
    rows = d.tables_by_share[:TABLES_DRAWN]
    with _rc():
        fig = _figure()(figsize=(8.0, 1.6 + 0.32 * len(rows)))
        ax = fig.subplots()
        ys = list(range(len(rows)))[::-1]
        ax.barh(ys, [r.total for r in rows], color=PERSON, height=0.6, label="the table's total")
        marked = [(r.optimum, y) for r, y in zip(rows, ys) if r.optimum is not None]
        for j, (x, y) in enumerate(marked):
            ax.plot([x, x], [y - 0.42, y + 0.42], color=OPTIMUM, linewidth=3, solid_capstyle="butt", zorder=3,
                    label="its welfare optimum" if j == 0 else None)
        ax.axvline(0.0, color="grey", linewidth=0.8)
        ax.set_yticks(ys, [r.where for r in rows])
        ax.set_xlabel("sum of every player's payoff")
        ax.grid(axis="x", alpha=0.3)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12 - 0.3 / max(len(rows), 1)), ncol=2,
                  fontsize="small", frameon=False)
        ax.set_title(f"{cut(d.title, TITLE)}: each table's total against the welfare optimum ({d.plays_summary})\n"
                     f"{d.share_summary}{_drawn_tables(d, '; ')}", fontsize="medium")
        return _save(fig, path)


def costly_figure(d: ClassDebrief, path: Path) -> list[Path]:
    """The costliest decisions as bars (a time-out hatched: the clock chose, not the trainee)."""
    rows = d.costliest
    with _rc():
        fig = _figure()(figsize=(8.0, 1.4 + 0.32 * len(rows)))
        ax = fig.subplots()
        ys = list(range(len(rows)))[::-1]
        bars = ax.barh(ys, [c.cost for c in rows], color=COST, height=0.6)
        for bar, c in zip(bars, rows):
            if c.timed_out:
                bar.set_hatch("//")
                bar.set_edgecolor("white")
        ax.set_yticks(ys, [cut(f"{c.trainee} ({c.seat}), {c.where}, turn {c.turn}"
                               + (", time ran out" if c.timed_out else ""), LABEL) for c in rows])
        ax.set_xlabel("cost: what the best alternative was worth more")
        ax.grid(axis="x", alpha=0.3)
        ax.set_title(f"{cut(d.title, TITLE)}: the costliest decisions (n = {len(rows)} shown of {d.decided} "
                     f"decision{'s' * (d.decided != 1)} in {d.played} play{'s' * (d.played != 1)})",
                     fontsize="medium")
        return _save(fig, path)


SEAT_COLUMNS = ("exercise", "seat", "label", "where", "trainee", "payoff", "baseline", "optimum")
TABLE_COLUMNS = ("exercise", "where", "people", "total", "optimum", "share", "ended")
COSTLY_COLUMNS = ("exercise", "rank", "trainee", "seat", "where", "turn", "choice", "timed_out", "better", "cost")


def _seat_rows(d: ClassDebrief) -> list[dict[str, Any]]:
    return [{"exercise": d.exercise, "seat": s.seat, "label": s.label, "where": o.where, "trainee": o.person or "",
             "payoff": o.payoff, "baseline": s.baseline, "optimum": s.optimum} for s in d.seats for o in s.outcomes]


def _table_rows(d: ClassDebrief) -> list[dict[str, Any]]:
    return [{"exercise": d.exercise, "where": t.where, "people": "; ".join(t.people), "total": t.total,
             "optimum": t.optimum, "share": t.efficiency, "ended": t.ended} for t in d.tables_by_share]


def _costly_rows(d: ClassDebrief) -> list[dict[str, Any]]:
    return [{"exercise": d.exercise, "rank": k, "trainee": c.trainee, "seat": c.seat, "where": c.where,
             "turn": c.turn, "choice": c.choice, "timed_out": c.timed_out, "better": c.better, "cost": c.cost}
            for k, c in enumerate(d.costliest, start=1)]


# --- the page ----------------------------------------------------------------------------------------------

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
figure { margin: 1em 0; } figure img { max-width: 100%; height: auto; }
figcaption, .note { color: #555; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; font-size: 0.92em; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.timeout { color: #b00; }
"""


def _counted(d: ClassDebrief) -> str:
    return (f"{d.played} play{'s' * (d.played != 1)} finished (tables and games played alone)"
            + (f"; the {d.left_out} oldest left out (at most {d.played} shown)" if d.left_out else "")
            + (f"; {d.unfinished} unfinished or abandoned game{'s' * (d.unfinished != 1)} not counted"
               if d.unfinished else ""))


def _section(d: ClassDebrief, figures: dict[str, str]) -> dict[str, Any]:
    """What the page's template shows of one exercise: its words and its tables' cells, formatted here."""
    return {"d": d, "figures": figures, "counted": _counted(d), "drawn_seats": _drawn_seats(d, "; "),
            "drawn_tables": _drawn_tables(d, "; "),
            "seat_rows": [(s.label, s.n, mean_sd(s.mean, s.sd), _num(s.baseline), _num(s.optimum) or "not filed")
                          for s in d.seats],
            "table_rows": [(t.where, ", ".join(t.people), _num(t.total), _num(t.optimum), _num(t.efficiency, "z.0%"),
                            t.ended) for t in d.tables_by_share]}


def export_class(db: ResultsDB, course: LoadedCourse, out: Path, tables: int = TABLES_SHOWN,
                 top: int = TOP) -> Exported:
    """Write the page, its figures and their CSVs into `out` (made if missing; files of an earlier export
    replaced); at most the course's exercises, at most `tables` plays each (the newest; never more than
    MAX_TABLES)."""
    out = Path(out)
    tables = max(1, min(tables, MAX_TABLES))
    (out / "figures").mkdir(parents=True, exist_ok=True)
    (out / "data").mkdir(exist_ok=True)
    done = Exported(out / "index.html")
    sections = []
    debriefs = [class_debrief(db, course, ex.id, top=top, tables=tables) for ex in course.course.exercises]
    for k, d in enumerate(debriefs, start=1):
        stem = f"{k:02d}-{d.exercise}"
        figures: dict[str, str] = {}
        if d.played:
            for part, draw, columns, rows in (("seats", seats_figure, SEAT_COLUMNS, _seat_rows(d)),
                                              ("tables", tables_figure, TABLE_COLUMNS, _table_rows(d)),
                                              ("costly", costly_figure, COSTLY_COLUMNS, _costly_rows(d))):
                if part == "costly" and not d.costliest:
                    continue
                figures[part] = f"{stem}-{part}"
                figures[f"{part}-csv"] = f"{stem}-{part}.csv"
                done.files += draw(d, out / "figures" / f"{stem}-{part}")
                done.files.append(_write_csv(out / "data" / f"{stem}-{part}.csv", columns, rows))
        sections.append(_section(d, figures))
    page = environment("negtui.classroom", {"num": _num}).get_template("class.html.j2").render(
        course=course.course, exported=now_iso()[:16].replace("T", " "), tables=tables, sections=sections,
        style=STYLE)
    done.index.write_text(page, encoding="utf-8")
    return done
