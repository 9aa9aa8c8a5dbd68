"""A list of options to choose from that draws its first frame without a second layout.

Textual's `OptionList` works out its lines as it first draws, and records their number as its virtual
size, a reactive that asks for a layout of the screen: every dialog or lobby with a list was laid out
and drawn twice as it opened.  The list's height is measured from its options, not from its virtual
size, and its scrollbars ask for a layout of their own when they appear or go; the virtual size only
bounds the scrolling.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import OptionList


class Options(OptionList):
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
