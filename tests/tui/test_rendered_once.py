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

from negtui.tui.widgets.rendered import SteadyStatic, text_table


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


@pytest.mark.parametrize("seed", range(12))
def test_a_text_table_draws_as_richs_table_cell_for_cell(seed):
    import random

    rnd = random.Random(seed)
    words = ["myopic", "upper ★", "you", "reject", "Bob", "+30.0", "-2.5", "0.0", "yes ◀", "no", "Alice", ""]
    styles = ["", "bold", "green", "red", "dim", "#56b4e9"]
    columns = [(rnd.choice(words[:5]) or "x", rnd.random() < 0.5) for _ in range(rnd.randint(1, 5))]
    rows = [[Text(rnd.choice(words), style=rnd.choice(styles)) if rnd.random() < 0.7 else rnd.choice(words)
             for _ in columns] for _ in range(rnd.randint(0, 5))]
    table = Table(box=None, padding=(0, 1))
    for header, right in columns:
        table.add_column(header, justify="right" if right else "left")
    for row in rows:
        table.add_row(*row)
    fast = text_table(columns, rows, 80)
    assert fast is not None
    assert cells(fast, 80) == cells(table, 80)


def test_a_text_table_too_wide_or_of_several_lines_is_left_to_rich():
    columns = [("lens", False), ("you", True)]
    assert text_table(columns, [["myopic", "+30.0"]], 17) is not None  # " myopic  +30.0 " is 15 wide
    assert text_table(columns, [["myopic", "+30.0"]], 14) is None
    assert text_table(columns, [["two\nlines", "1"]], 80) is None
