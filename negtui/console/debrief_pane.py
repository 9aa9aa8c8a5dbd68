"""The class debrief tab: an exercise picked on the left, and on the right how each seat fared over
every table (a plot), each table's total against the welfare optimum and the costliest decisions
across the class.  Worked out in a worker (the baseline solves the exercise's game).  The same debrief
as the class export's (`negtui class --export`): the same plays, n, means and spreads."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static

from negtui.classroom.course import LoadedCourse
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import DBError
from negtui.classroom.debrief import ClassDebrief, class_debrief
from negtui.console.plot import strip_plot
from negtui.tui.widgets.options import Options


class DebriefLoaded(Message):
    def __init__(self, debrief: ClassDebrief | None, why: str = "") -> None:
        super().__init__()
        self.debrief, self.why = debrief, why


class DebriefPane(Horizontal):
    DEFAULT_CSS = """
    DebriefPane #class-exercises { width: 32; height: 1fr; }
    DebriefPane #class-debrief { width: 1fr; height: 1fr; padding: 0 1; }
    DebriefPane #cd-plot { margin: 1 0; }
    """

    def __init__(self, course: LoadedCourse, db: ResultsDB, **kwargs) -> None:
        super().__init__(**kwargs)
        self.course, self.db = course, db
        self.shown: ClassDebrief | None = None

    def compose(self) -> ComposeResult:
        yield Options(*(ex.title for ex in self.course.course.exercises), id="class-exercises")
        with VerticalScroll(id="class-debrief"):
            yield Static("", id="cd-head")
            yield Static("", id="cd-plot")
            yield Static("", id="cd-tables")
            yield Static("", id="cd-agreed")
            yield Static("", id="cd-costly")

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = 0

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.reload()

    def reload(self) -> None:
        k = self.query_one(OptionList).highlighted
        if k is not None:
            self.query_one("#cd-head", Static).update(Text("working out the class debrief…", style="dim"))
            self._load(self.course.course.exercises[k].id)

    @work(thread=True, exclusive=True, group="class-debrief")
    def _load(self, exercise: str) -> None:
        try:
            d: ClassDebrief | None = class_debrief(self.db, self.course, exercise)
            why = ""
        except DBError as err:
            d, why = None, str(err)
        self.post_message(DebriefLoaded(d, why))

    def on_debrief_loaded(self, message: DebriefLoaded) -> None:
        self.shown = message.debrief
        if message.debrief is None:
            self.query_one("#cd-head", Static).update(Text(message.why, style="bold red"))
            return
        self._draw()

    def on_resize(self) -> None:
        if self.shown is not None:
            self._draw()

    def _draw(self) -> None:
        d = self.shown
        assert d is not None
        head = Text(d.title, style="bold")
        head.append(f"\n{d.played} table{'s' * (d.played != 1)} (or games alone) finished", style="dim")
        if d.left_out:
            head.append(f"; the {d.left_out} oldest left out", style="dim")
        if d.unfinished:
            head.append(f"; {d.unfinished} unfinished or abandoned game{'s' * (d.unfinished != 1)} not counted",
                        style="dim")  # as the exported debrief says it
        self.query_one("#cd-head", Static).update(head)
        width = self.query_one("#class-debrief").size.width or 100
        self.query_one("#cd-plot", Static).update(strip_plot(d.seats, width - 2) if d.played else
                                                   Text("No table has finished this exercise yet.", style="dim"))
        self.query_one("#cd-tables", Static).update(_tables(d))
        self.query_one("#cd-agreed", Static).update(agreed(d))
        self.query_one("#cd-costly", Static).update(_costly(d))


def _num(v: float | None) -> str:
    return "" if v is None else f"{v:z.2f}"


def _tables(d: ClassDebrief) -> Table | Text:
    if not d.tables:
        return Text("")
    t = Table(title="Each table's total against the most it could have made together (the welfare optimum)",
              title_justify="left", box=box.SIMPLE_HEAD, expand=False,
              caption=f"{d.plays_summary}; {d.share_summary}", caption_justify="left")
    t.add_column("where")
    t.add_column("people")
    for col in ("total", "optimum", "share"):
        t.add_column(col, justify="right")
    t.add_column("ended")
    for row in d.tables_by_share:
        eff = row.efficiency
        t.add_row(Text(row.where), Text(", ".join(row.people)), _num(row.total), _num(row.optimum),
                  "" if eff is None else f"{eff:z.0%}", Text(row.ended, style="dim"))  # text, never markup
    return t


def agreed(d: ClassDebrief) -> Text:
    """A case of issues: what each table settled each issue on (or left open), and who walked away; a line per
    table, each issue named whole (a table's columns would cut the issues' names in a narrow pane)."""
    if not d.issues or not d.agreements:
        return Text("")
    out = Text("\nWhat each table agreed, issue by issue\n", style="bold")
    for a in d.agreements:
        out.append(f" {a.where}: ")
        if a.settled is None:
            out.append("not known (no result in its record)\n", style="dim")
            continue
        for k, (label, option) in enumerate(zip(d.issues, a.settled, strict=True)):
            out.append(" · " if k else "")
            out.append(f"{label} ")
            out.append(option or "open", style="" if option else "dim")
        if a.walked:
            out.append(f" · walked away: {', '.join(a.walked)}")
        out.append("\n")
    return out


def _costly(d: ClassDebrief) -> Table | Text:
    if not d.costliest:
        return Text("No decision cost anything under the coaching lens." if d.played else "", style="dim")
    t = Table(title="The costliest decisions across the class (what the best alternative was worth more)",
              title_justify="left", box=box.SIMPLE_HEAD, expand=False,
              caption=f"n = {len(d.costliest)} shown of {d.decided} decisions in {d.played} plays",
              caption_justify="left")
    for col, justify in (("who", "left"), ("where", "left"), ("turn", "right"), ("chose", "left"),
                         ("better", "left"), ("cost", "right")):
        t.add_column(col, justify=justify)  # type: ignore[arg-type]
    for c in d.costliest:
        t.add_row(Text(f"{c.trainee} ({c.seat})"), Text(c.where), str(c.turn),
                  Text(c.chose, style="red" if c.timed_out else ""), Text(c.better), _num(c.cost))
    return t
