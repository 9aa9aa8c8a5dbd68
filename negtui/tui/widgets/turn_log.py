"""The turn log: every turn in words, newest last, drawn line by line.

A game's log only grows, so the pane keeps each turn's lines wrapped once at the pane's width and a turn
played appends its own lines (toolong's `LogLines`, Textual's `Log`): before, every turn re-wrapped the
whole log, and the bigger the game the more each turn cost.  The lines are wrapped again only when the
width changes, the log is filtered to one player, or the game is another (a replay moved back, a retry)."""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from negtui.engine.game import Game
from negtui.engine.turns import TurnEvent
from negtui.names import player_names
from negtui.narrate import turn_line
from negtui.play.views import Snapshot

EMPTY = "no turns yet"


class TurnLog(ScrollView, can_focus=False):
    """Every turn in words (the actions' whole texts, wrapped), optionally only the turns involving one
    player; scrolled to the newest turn as one is played, unless the reader scrolled up."""

    DEFAULT_CSS = "TurnLog { height: 1fr; overflow-x: hidden; scrollbar-size-vertical: 1; }"

    snapshot: reactive[Snapshot | None] = reactive(None, always_update=True, repaint=False)
    only: reactive[int | None] = reactive(None, repaint=False)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._game: Game | None = None
        self._only: int | None = None
        self._events: list[TurnEvent] = []  # the turns taken into the log (shown or filtered out)
        self._entries: list[Text] = []  # the head, then one text per turn shown (or the 'no turns' line)
        self._strips: list[Strip] = []  # every entry's lines at `_width`
        self._width = 0
        self._head_lines = 0  # the head's lines at `_width`
        self._stale = False  # a turn came while the pane was hidden: taken in when it is shown
        self.wrapped = 0  # entries wrapped so far (a test reads that a turn wraps only its own lines)

    # --- what it shows ------------------------------------------------------------------------------------
    def watch_snapshot(self) -> None:
        self._take_in()

    def watch_only(self) -> None:
        self._take_in()

    def on_show(self) -> None:
        if self._stale:
            self._take_in()

    def _take_in(self) -> None:
        """The snapshot's turns into the log: appended where the log is the start of them, else anew."""
        if not (self.is_mounted and self.is_on_screen):
            self._stale = True
            return
        self._stale = False
        snap = self.snapshot
        if snap is None:
            return
        events, drawn = snap.events, self._events
        continues = (snap.game is self._game and self.only == self._only and len(events) >= len(drawn)
                     and (not drawn or events[len(drawn) - 1] is drawn[-1]))  # the same turns, and more
        if not continues:
            self._restart(snap.game)
            drawn = self._events  # anew: every turn is new (the list taken in before is gone)
        new = list(events[len(drawn):])
        if not new:
            if not continues:
                self._relayout()
            return
        at_end = self.is_vertical_scroll_end or not continues
        shown = [ev for ev in new if self.only is None or self.only in ev.players]
        self._events.extend(new)
        if shown and len(self._entries) == 2 and self._entries[1].plain == EMPTY:  # the first turn shown
            self._entries.pop()
            self._strips = self._strips[:self._head_lines]
        for ev in shown:
            self._add(Text(turn_line(snap.game, ev, whole=True)))
        self._grown(at_end)

    def _restart(self, game: Game) -> None:
        self._game, self._only, self._events = game, self.only, []
        head = "turn log" + (f" · only {player_names(game.scenario)[self.only]}" if self.only is not None else "")
        self._entries, self._strips = [], []
        self._add(Text(head, style="bold"))
        self._head_lines = len(self._strips)
        self._add(Text(EMPTY, style="dim"))

    def _add(self, entry: Text) -> None:
        self._entries.append(entry)
        if self._width:
            self._strips.extend(self._wrap(entry))

    def _wrap(self, entry: Text) -> list[Strip]:
        self.wrapped += 1
        console = self.app.console
        out = []
        for line in self._hanging(entry) if "\n" in entry.plain else entry.wrap(console, self._width):
            line.no_wrap = True
            out.append(Strip(list(line.render(console)), line.cell_len))
        return out

    def _hanging(self, entry: Text) -> list[Text]:
        """A turn of several lines (a simultaneous turn: a line per offer, indented under the turn's head), each
        wrapped under its own indent, so that an offer's words do not run back to the left edge."""
        console, width = self.app.console, self._width
        out: list[Text] = []
        for line in entry.split("\n"):
            indent = len(line.plain) - len(line.plain.lstrip(" "))
            if not indent or indent > width // 2:
                out.extend(line.wrap(console, width))
                continue
            out.extend(Text(" " * indent).append_text(part) for part in line[indent:].wrap(console, width - indent))
        return out

    def _grown(self, at_end: bool) -> None:
        self.virtual_size = Size(self._width, len(self._strips))
        if at_end:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
        self.refresh()

    def _relayout(self) -> None:
        """Every entry wrapped again at the current width (a resize, a filter, another game)."""
        self._strips = []
        if not self._width:  # not laid out yet: wrapped once it is
            return
        for k, entry in enumerate(self._entries):
            self._strips.extend(self._wrap(entry))
            if k == 0:
                self._head_lines = len(self._strips)
        self._grown(True)

    # --- drawing ----------------------------------------------------------------------------------------------
    def on_resize(self) -> None:
        width = self.scrollable_content_region.width
        if width and width != self._width:
            self._width = width
            if self._entries:
                self._relayout()
            else:
                self._take_in()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        style = self.rich_style
        k = scroll_y + y
        if k >= len(self._strips):
            return Strip.blank(width, style)
        return self._strips[k].crop_extend(scroll_x, scroll_x + width, style).apply_style(style)

    @property
    def lines(self) -> list[str]:
        """The log as drawn, line by line (what a test or a copy reads)."""
        return ["".join(seg.text for seg in strip if not seg.control) for strip in self._strips]

    @property
    def plain(self) -> str:
        """The log's entries, one line per turn (the head first)."""
        return "\n".join(entry.plain for entry in self._entries)
