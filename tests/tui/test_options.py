"""A dialog with a list of options opens with one layout (negtui/tui/widgets/options.py): Textual's
OptionList recorded its lines as a virtual size that asked for a second layout, and a second frame."""

from __future__ import annotations

import pytest
from textual.geometry import Size
from textual.reactive import Reactive

from negtui.seats import Seat
from negtui.tui.widgets.options import Options
from tests.tui.conftest import pill_app
from tests.tui.test_textual_guards import screens_laid_out


@pytest.mark.asyncio
@pytest.mark.parametrize("steady", [True, False])
async def test_the_partner_dialog_opens_with_one_layout(steady, monkeypatch, wait_until):
    from negtui.tui.screens.dialogs import PartnerScreen

    if not steady:  # the virtual size asks for a layout, as Textual's own OptionList's does
        monkeypatch.setattr(Options, "virtual_size", Reactive(Size(0, 0), layout=True))
        Options.virtual_size.__set_name__(Options, "virtual_size")
    app = pill_app(A=Seat.human(), B=Seat.lens("upper"))
    with screens_laid_out() as laid_out:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen) and app.screen.query("#partners"),
                             "A's partner dialog")
            partners = app.screen.query_one("#partners", Options)
            await wait_until(pilot, lambda: partners.virtual_size.height >= partners.option_count > 0, "its lines")
            for _ in range(4):
                await pilot.pause(0.05)
            dialog_layouts = laid_out.count("PartnerScreen")
    assert (dialog_layouts == 1) is steady, laid_out
