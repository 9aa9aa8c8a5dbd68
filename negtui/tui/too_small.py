"""A terminal too small for the app: a notice instead of a cut-up screen, and no key acting unseen.

Below MIN_SIZE the matrix, the panes and the dialogs are cut to fragments that read as nonsense (at
40×12 a player's actions are `s` and `▶ A ·· ··`), and a key pressed there acts on a screen nobody can
read.  So, while the terminal is too small, every screen's content is hidden behind one notice that
says how large it is and how large it must be; keys and clicks wait (all but ctrl+q and ctrl+c); the
game goes on underneath (bots, clocks, a table), and everything comes back as it was once the terminal
is large enough.  A training server holds its clients at 40×12 or more (serve/pty_child.py), which
is below this minimum: a trainee with a small window is told so too."""

from __future__ import annotations

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

MIN_SIZE = Size(60, 18)  # columns, rows: the game screen's matrix and one pane still read whole
STILL_ACTIVE = frozenset({"ctrl+q", "ctrl+c"})


class TooSmallNotice(Static):
    DEFAULT_CSS = """
    TooSmallNotice { display: none; }
    App.-too-small Screen > * { display: none; }
    App.-too-small Screen > TooSmallNotice {
        display: block; width: 100%; height: 100%; content-align: center middle; text-align: center;
        background: $background; color: $text; padding: 0 1;
    }
    """
    SCOPED_CSS = False  # its rules reach every screen's content


def notice_text(size: Size) -> str:
    return (f"This terminal is {size.width}×{size.height}.\nnegtui needs at least {MIN_SIZE.width}×{MIN_SIZE.height}."
            "\n\nEnlarge the window: everything comes back as it was.\nctrl+q quits.")


class SizeGuard(App):
    """Put before the app's class: `class NegtuiApp(SizeGuard, App)`."""

    too_small = False

    _fitted = Size(0, 0)

    def on_mount(self) -> None:
        self.screen_change_signal.subscribe(self, self._screen_changed)
        self._fit(self.size)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size)  # runs before App's own handler, which takes the new size a moment later

    def _fit(self, size: Size) -> None:
        self._fitted = size
        self.too_small = size.width < MIN_SIZE.width or size.height < MIN_SIZE.height
        self.set_class(self.too_small, "-too-small")
        if self.too_small:
            self._notice_on(self.screen)

    def _screen_changed(self, screen: Screen) -> None:
        if self.too_small:
            self._notice_on(screen)

    def _notice_on(self, screen: Screen) -> None:
        text = notice_text(self._fitted)
        for notice in screen.query_children(TooSmallNotice):
            notice.update(text)
            return
        screen.mount(TooSmallNotice(text))

    async def on_event(self, event: events.Event) -> None:
        if (self.too_small and isinstance(event, (events.InputEvent, events.Paste))
                and not (isinstance(event, events.Key) and event.key in STILL_ACTIVE)):
            return  # a key or click would act on a screen nobody can read
        await super().on_event(event)
