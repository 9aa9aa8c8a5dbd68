"""A pane's Rich tables are rendered once per content and width (negtui/tui/widgets/pane.py `RenderedOnce`),
and draw exactly what Textual's own rendering of them draws."""

from __future__ import annotations

import pytest
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import Static

from negtui.tui.widgets.fit_table import FitTable
from negtui.tui.widgets.rendered import SteadyStatic


class Counted:
    """A table that counts its renderings."""

    def __init__(self, rows: int) -> None:
        self.renders = 0
        self.table = Table(title="your game as B", title_justify="left", box=None, padding=(0, 1))
        for name in ("against", "payoff", "what it is"):
            self.table.add_column(name)
        for k in range(rows):
            self.table.add_row(f"row {k}", Text(f"{k * 1.5:+.2f}", style="bold green"),
                               "a long explanation that wraps at a narrow width " * (k % 2 + 1))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        self.renders += 1
        yield self.table


class Side(App):
    CSS = "Static { width: 1fr; color: #ff8800; background: #102030; text-style: italic; }"

    def __init__(self, make) -> None:
        super().__init__()
        self.make = make

    def compose(self) -> ComposeResult:
        yield SteadyStatic(self.make(), id="once")
        yield Static(self.make(), id="textual")


def drawn(widget: Static) -> list[list[tuple[str, object]]]:
    return [[(seg.text, seg.style) for seg in strip] for strip in widget.render_lines(Region(0, 0, *widget.size))]


@pytest.mark.asyncio
@pytest.mark.parametrize("width", [44, 120])
async def test_a_table_draws_as_textual_draws_it(width):
    app = Side(lambda: Group(Counted(4), Text("your costliest decisions:", style="bold")))
    async with app.run_test(size=(width, 60)) as pilot:
        await pilot.pause()
        once, textual = app.query_one("#once", Static), app.query_one("#textual", Static)
        assert once.size == textual.size and once.size.height > 6
        assert drawn(once) == drawn(textual)
        assert "row 3" in "".join(text for line in drawn(once) for text, _ in line)


@pytest.mark.asyncio
async def test_a_table_is_rendered_once_for_its_height_its_frame_and_its_repaints():
    tables: list[Counted] = []

    def make() -> Counted:
        tables.append(Counted(6))
        return tables[-1]

    app = Side(make)
    async with app.run_test(size=(90, 40)) as pilot:
        await pilot.pause()
        for widget in app.query(Static):
            widget.refresh()  # a repaint with nothing new: a focus moving, a backdrop drawn
        await pilot.pause()
        once, textual = tables
        assert once.renders == 1
        assert textual.renders >= 3  # measured, drawn, drawn again: what the pane no longer pays
        app.query_one("#once", SteadyStatic).show(make())  # a new content is rendered anew, once
        await pilot.pause()
        assert tables[-1].renders == 1


def cells(renderable, width: int) -> list[list[tuple[str, str]]]:
    """Each line as (character, style) per cell, as a console of `width` renders it."""
    console = Console(width=width, color_system="truecolor")
    lines, line = [], []
    for seg in console.render(renderable, console.options.update_width(width)):
        for ch in seg.text:
            if ch == "\n":
                lines.append(line)
                line = []
            else:
                line.append((ch, "" if seg.style is None or not seg.style else str(seg.style)))
    return lines + ([line] if line else [])


@pytest.mark.parametrize("seed", range(40))
def test_a_fit_table_draws_as_richs_table_cell_for_cell(seed):
    """Random tables of the kinds the panes and dialogs build: column styles, a minimum width, headers and
    cells of several lines, sections, markup, a title and a caption; drawn as text where they fit, by Rich
    where they do not, the same cells either way."""
    import random

    rnd = random.Random(seed)
    words = ["myopic", "upper ★", "you", "reject", "Bob", "+30.0", "-2.5", "0.0", "yes ◀", "no", "Alice", "",
             "[bold]marked[/bold]", "myopic\nsaid", "what your seat got in this game"]
    styles = ["", "bold", "green", "red", "dim", "#56b4e9", "italic on #102030"]
    table = FitTable(title=rnd.choice([None, "your game as B", "leaderboard by seat (best payoff)"]),
                     caption=rnd.choice([None, "payoff: what each seat got", "a caption far too long for one line of a "
                                         "narrow table of one short column: it wraps"]),
                     show_header=rnd.random() < 0.8)
    for _ in range(rnd.randint(1, 5)):
        table.add_column(rnd.choice(words[:5] + words[-2:-1]), justify=rnd.choice(["left", "right"]),
                         style=rnd.choice(styles), min_width=rnd.choice([None, None, 8]))
    for _ in range(rnd.randint(0, 5)):
        table.add_row(*[Text(rnd.choice(words), style=rnd.choice(styles)) if rnd.random() < 0.6
                        else rnd.choice(words) for _ in table.columns])
        if rnd.random() < 0.2:
            table.add_section()
    for width in (12, 40, 120):
        assert cells(table, width) == cells(table.rich(), width), width
    title, caption = table.title, table.caption
    table.title = table.caption = None
    assert (table.lines(120) is None) == (not table.rows and not table.show_header)  # text, not left to Rich
    table.title, table.caption = title, caption
    assert (table.lines(120) is None) == (not table.rows and not table.show_header)  # a title wraps as Rich wraps it


def test_a_fit_table_too_wide_or_justified_otherwise_is_left_to_rich():
    table = FitTable()
    table.add_column("lens")
    table.add_column("you", justify="right")
    table.add_row("myopic", "+30.0")
    assert table.lines(15) is not None  # " myopic  +30.0 " is 15 wide
    assert table.lines(14) is None
    assert cells(table, 14) == cells(table.rich(), 14)  # Rich shares the width out and wraps
    table.add_column("centred", justify="center")
    assert table.lines(120) is None


def test_a_fit_tables_strings_are_words_not_markup():
    """A scenario's, a trainee's or a program's words in a table: `[/]` drew nothing (Rich's markup error ended
    the app), `[link=…]` would send the terminal a hyperlink.  Drawn as they are, as text and by Rich."""
    words = ["é[/]@SUM(A1)", "[link=http://example.com]x[/link]", "[bold]B[/bold]", ":smile:"]
    table = FitTable(title="your game as [/]B", caption="[red]cap")
    table.add_column("player [/]")
    for w in words:
        table.add_row(w)
    for width in (12, 120):
        drawn = cells(table, width)
        assert drawn == cells(table.rich(), width)
        text = "".join(ch for line in drawn for ch, _ in line)
        for w in ("é[/]@SUM(A1)", "[link=http://example.com]x[/link]", ":smile:") if width == 120 else ():
            assert w in text
