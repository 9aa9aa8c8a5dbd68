"""A list of options to choose from that draws its first frame without a second layout.

Textual's `OptionList` works out its lines as it first draws, and records their number as its virtual
size, a reactive that asks for a layout of the screen: every dialog or lobby with a list was laid out
and drawn twice as it opened.  The list's height is measured from its options, not from its virtual
size, and its scrollbars ask for a layout of their own when they appear or go; the virtual size only
bounds the scrolling.

It also drops every line it rendered whenever it is resized, and its first size arrives after its first
frame has drawn them at that very size: every list drew itself twice as it opened.  Its lines are kept
while their width holds.
"""

from __future__ import annotations

from textual import events, on
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import OptionList


class Options(OptionList):
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
    _lines_width = -1  # the width its lines were worked out for

    def _update_lines(self) -> None:
        fresh = not self._line_cache.lines  # worked out anew, rather than options added to lines made before
        super()._update_lines()
        if fresh and self._line_cache.lines:
            self._lines_width = self.scrollable_content_region.width

    @on(events.Resize)
    def _keep_lines(self, event: events.Resize) -> None:
        if self.scrollable_content_region.width == self._lines_width:
            event.prevent_default()  # OptionList's own handler would drop them
