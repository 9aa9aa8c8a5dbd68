"""The commitment matrix: players × their actions, one glyph per cell."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from negtui.names import fit_unique
from negtui.tui import palette
from negtui.tui.snapshot import Snapshot

NAME_MAX = 24
LEFT_COLUMN = 40  # #left in app.tcss


def name_width(snap: Snapshot) -> int:
    """As wide as the names need, up to what the left column (40 wide) leaves beside the cells."""
    room = LEFT_COLUMN - 5 - 3 * int(snap.game.m.max())
    return min(NAME_MAX, max(6, room), max(len(p) for p in snap.game.player_ids))


class CommitmentMatrix(Widget, can_focus=True):
    DEFAULT_CSS = """
    CommitmentMatrix { width: auto; height: auto; padding: 0 1; }
    """
    BINDINGS = [
        Binding("up", "move(0, -1)", "up", show=False),
        Binding("down", "move(0, 1)", "down", show=False),
        Binding("left", "move(-1, 0)", "left", show=False),
        Binding("right", "move(1, 0)", "right", show=False),
        Binding("enter", "toggle", "toggle cell", show=False),
        # space toggles only while an offer is being built; otherwise it falls through to the screen's "step"
        Binding("space", "toggle_in_offer", "toggle cell", show=False),
    ]

    cursor: reactive[tuple[int, int]] = reactive((0, 0))

    @dataclass
    class CellFocused(Message):
        cell: int

    @dataclass
    class CellToggled(Message):
        cell: int

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.snap: Snapshot | None = None

    def update(self, snap: Snapshot) -> None:
        relayout = self.snap is None or self.snap.game is not snap.game
        self.snap = snap
        self.refresh(layout=relayout)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        if self.snap is None:
            return 20
        return name_width(self.snap) + 3 + 3 * int(self.snap.game.m.max())

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1 if self.snap is None else self.snap.game.n + 1

    def cell_at(self, player: int, action: int) -> int | None:
        g = self.snap.game
        if 0 <= player < g.n and 0 <= action < int(g.m[player]):
            return int(g.offset[player]) + action
        return None

    @property
    def focused_cell(self) -> int | None:
        if self.snap is None:
            return None
        return self.cell_at(*reversed(self.cursor))

    def action_move(self, dx: int, dy: int) -> None:
        if self.snap is None:
            return
        g = self.snap.game
        a, i = self.cursor
        i = max(0, min(g.n - 1, i + dy))
        a = max(0, min(int(g.m[i]) - 1, a + dx))
        self.cursor = (a, i)

    def watch_cursor(self, cursor: tuple[int, int]) -> None:
        a, i = cursor
        self.scroll_visible_region(Region(0, i + 1, self.get_content_width(Size(0, 0), Size(0, 0)), 1))
        cell = self.focused_cell
        if cell is not None:
            self.post_message(self.CellFocused(cell))
        self.refresh()

    def scroll_visible_region(self, region: Region) -> None:
        if self.parent is not None and hasattr(self.parent, "scroll_to_region"):
            self.parent.scroll_to_region(region.translate(self.region.offset - self.parent.region.offset),
                                         animate=False)

    def action_toggle(self) -> None:
        cell = self.focused_cell
        if cell is not None:
            self.post_message(self.CellToggled(cell))

    def action_toggle_in_offer(self) -> None:
        self.action_toggle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_in_offer":
            return self.snap is not None and self.snap.mode == "play" and self.snap.partner is not None
        return True

    def _state_of(self, c: int) -> str:
        snap = self.snap
        last = snap.last_event
        if snap.state.bits >> c & 1:
            if last is not None and last.deal and last.offer.bits >> c & 1 and last.after == snap.state:
                return "new"
            return "committed"
        if c in snap.offer_cells:
            return "offer"
        if snap.blocked >> c & 1:
            return "blocked"
        return "free"

    def render(self) -> Text:
        snap = self.snap
        if snap is None:
            return Text("no game")
        g = snap.game
        styles = {"committed": palette.BLUE, "new": f"bold {palette.ORANGE}", "offer": f"bold {palette.GREEN}",
                  "blocked": palette.GREY, "free": "dim"}
        width = name_width(snap)
        out = Text(no_wrap=True)
        out.append(" " * (width + 3))
        for a in range(int(g.m.max())):
            out.append(f"{a:>2} ", style="dim")
        out.append("\n")
        proposer, partner = snap.proposer, snap.partner
        if partner is None and snap.last_event is not None and snap.mode == "replay":
            partner = snap.last_event.partner
        shown = fit_unique(g.player_ids, width)
        for i, _pid in enumerate(g.player_ids):
            mark, style = "  ", ""
            if i == proposer:
                mark, style = "▶ ", f"bold {palette.SKY}"
            elif i == partner:
                mark, style = "◆ ", f"bold {palette.VERMILLION}"
            out.append(mark, style=style)
            out.append(f"{shown[i]:<{width}} ", style=style)
            for a in range(int(g.m[i])):
                c = int(g.offset[i]) + a
                kind = self._state_of(c)
                st = styles[kind]
                if (a, i) == self.cursor and self.has_focus:
                    st = f"{st} reverse"
                out.append(palette.GLYPH[kind], style=st)
                out.append(" ")
            out.append("\n")
        out.rstrip()
        return out


LEGEND = "██ made  ▓▓ just made  ++ offer  ×× ruled out  ·· free  ▶ proposer  ◆ partner"
