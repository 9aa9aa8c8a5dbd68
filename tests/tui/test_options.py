"""A list of options records its lines without a second layout (negtui/tui/widgets/options.py): Textual's
OptionList recorded them as a virtual size that asked for a layout of the screen, and a second frame, as
every dialog or lobby with a list opened."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Size
from textual.widgets import OptionList

from negtui.tui.widgets.options import Options
from tests.tui.layouts import screens_laid_out


class Listing(App):
    def __init__(self, kind: type[OptionList]) -> None:
        super().__init__()
        self.kind = kind

    def compose(self) -> ComposeResult:
        yield self.kind(*(f"option {k}" for k in range(30)), id="options")


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [Options, OptionList])
async def test_recording_its_lines_asks_for_no_layout(kind):
    app = Listing(kind)
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        options = app.query_one("#options", OptionList)
        assert options.virtual_size.height == 30 and options.show_vertical_scrollbar  # its lines recorded
        with screens_laid_out() as laid_out:
            options.virtual_size = Size(options.virtual_size.width, 31)  # as it records a line more
            for _ in range(3):
                await pilot.pause(0.02)
        assert (laid_out == []) is (kind is Options), laid_out
        await pilot.press("end")
        await pilot.pause()
        assert options.highlighted == 29 and options.scroll_y == options.max_scroll_y > 0  # it scrolls as before


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [Options, OptionList])
async def test_its_lines_drawn_at_its_first_size_are_kept_as_that_size_arrives(kind):
    """Its first frame draws its lines at the size its first layout gave it; the resize that brings that size
    after the frame dropped them all, and the next frame drew them again.  A width that changes still does."""
    from textual.widgets._option_list import OptionList as Textuals

    app = Listing(kind)
    rendered: list[int] = []
    real = Textuals._get_option_render

    def counting(self, option, style):
        if option.id is None and (self._option_render_cache.get((option, style, self.get_component_styles(
                "option-list--option").padding)) is None):
            rendered.append(self.scrollable_content_region.width)
        return real(self, option, style)

    Textuals._get_option_render = counting  # type: ignore[method-assign]
    try:
        async with app.run_test(size=(40, 12)) as pilot:
            for _ in range(4):
                await pilot.pause(0.02)
            first = len(rendered)
            assert first and set(rendered) == {rendered[0]}
            assert (first <= 12) is (kind is Options), rendered  # the lines on screen, drawn once
            await pilot.resize_terminal(50, 12)
            for _ in range(4):
                await pilot.pause(0.02)
            assert len(rendered) > first and rendered[-1] != rendered[0]  # drawn anew at the new width
    finally:
        Textuals._get_option_render = real  # type: ignore[method-assign]
