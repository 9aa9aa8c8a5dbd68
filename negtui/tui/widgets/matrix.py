"""The commitment matrix: players × their actions, one glyph per cell.

Two layouts. Where the box under it has the height, each action gets a line with its name under its
player ("list"), so the matrix reads in the scenario's words; otherwise each player is one row of
cells ("grid"), and the cell under the cursor is named in the panel below."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style as RichStyle
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from negtui.engine.game import Game
from negtui.names import action_texts, player_label
from negtui.play.views import Snapshot
from negtui.tui import palette
from negtui.tui.labels import LEFT_COLUMN, WIDE, matrix_action_labels, matrix_player_labels

NAME_MAX = 24
LEFT_SHARE = 0.42  # of a wide terminal (WIDE columns or more), at most, for the left column
INDENT = 5  # a listed action's indent: the two-column mark, then the glyph's place


def name_width(game: Game, left: int = LEFT_COLUMN) -> int:
    """The grid's name column: as wide as the names need, up to what the left column leaves beside the cells."""
    room = left - 5 - 3 * int(game.m.max())
    return min(NAME_MAX, max(6, room), max(len(p) for p in game.player_ids))


def list_width(game: Game) -> int:
    """The columns the list layout needs for whole player and action names (padding included)."""
    names = action_texts(game.scenario)
    longest = max((len(n) for row in names for n in row), default=0)
    return 2 + max(2 + max(len(player_label(p)) for p in game.scenario.players), INDENT + 3 + longest)


def left_width(game: Game, terminal_width: int) -> int:
    """The left column's width: 40 on narrow terminals, else what whole names need, within a share."""
    if terminal_width < WIDE:
        return LEFT_COLUMN
    return max(LEFT_COLUMN, min(list_width(game), int(terminal_width * LEFT_SHARE)))


def list_rows(game: Game) -> int:
    return game.n + int(game.m.sum())


class CommitmentMatrix(Widget, can_focus=True):
    DEFAULT_CSS = """
    CommitmentMatrix { width: auto; height: auto; padding: 0 1; }
    """
    BINDINGS = [
        Binding("up", "move(0, -1)", "up", show=False),
        Binding("down", "move(0, 1)", "down", show=False),
        Binding("left", "move(-1, 0)", "left", show=False),
        Binding("right", "move(1, 0)", "right", show=False),
        Binding("enter", "toggle_cell", "toggle cell", show=False),
        # space toggles only while an offer is being built; otherwise it falls through to the screen's "step"
        Binding("space", "toggle_in_offer", "toggle cell", show=False),
    ]

    cursor: reactive[tuple[int, int]] = reactive((0, 0))
    snapshot: reactive[Snapshot | None] = reactive(None, always_update=True, repaint=False)
    target: reactive[int] = reactive(0)  # cells of a welfare optimum marked (those not yet committed show ◇◇)

    @dataclass
    class CellFocused(Message):
        cell: int

    @dataclass
    class CellToggled(Message):
        cell: int

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.snap: Snapshot | None = None
        self.listed = False  # the list layout (a line per action) rather than the grid
        self.room = LEFT_COLUMN  # the columns the left column gives
        self._sized_for: tuple[object, Size] | None = None  # the game and terminal size the layout was chosen for
        self._labels: tuple[int, list[list[str]]] = (-1, [])  # the list layout's action names at a width
        self._lines: list[Text] = []  # what each line shows now (see render_lines)
        self._strips: dict[int, tuple[Text, RichStyle, Strip]] = {}  # each line as last drawn, and from what
        self._memo: tuple[tuple[object, ...], list[Text]] | None = None  # the lines, and what they were drawn from

    def watch_snapshot(self, snap: Snapshot | None) -> None:
        if snap is None:
            return
        relayout = self.snap is None or self.snap.game is not snap.game
        if relayout:
            self._labels = (-1, [])
            if snap.yours:  # a new game starts on your own row, not the first player's
                self.cursor = (0, min(snap.yours))
        self.snap = snap
        if relayout:
            self.refresh(layout=True)
        else:  # a turn moves a mark or commits a cell or two: only the lines that changed are drawn again
            self._repaint_changed()
        box = self.parent
        if relayout and isinstance(box, Widget) and box.size.height:  # another game in a box already sized
            self.fit(box.size.width, box.size.height)

    def fit(self, width: int, height: int) -> None:
        """Choose the layout for a box of this size (the list where every line fits).

        The box shrinks while an offer is built (its preview takes lines under it): the list stays then and
        scrolls, as a switch to the grid under the cursor would change what the arrows do mid-offer.  Only
        another game or another terminal size chooses again."""
        if self.snap is None:
            return
        sized_for = (self.snap.game, self.app.size)
        listed = list_rows(self.snap.game) <= height or (self.listed and sized_for == self._sized_for)
        self._sized_for = sized_for
        if (listed, width) != (self.listed, self.room):
            self.listed, self.room = listed, width
            self.refresh(layout=True)
            self.call_after_refresh(self.watch_cursor, self.cursor)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        if self.snap is None:
            return 20
        if self.listed:
            return max(10, self.room - 2)
        return name_width(self.snap.game, self.room) + 3 + 3 * int(self.snap.game.m.max())

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if self.snap is None:
            return 1
        return list_rows(self.snap.game) if self.listed else self.snap.game.n + 1

    @property
    def shown(self) -> Snapshot:
        """The snapshot drawn (there is one from the first draw on)."""
        assert self.snap is not None
        return self.snap

    def cell_at(self, player: int, action: int) -> int | None:
        g = self.shown.game
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
        if self.listed and dy:  # down the list: the next action, then the next player's first
            c = max(0, min(int(g.m.sum()) - 1, int(g.offset[i]) + a + dy))
            i = int(g.owner[c])
            self.cursor = (c - int(g.offset[i]), i)
            return
        if self.listed:  # across the list: the same action of the player above or below
            dx, dy = 0, dx
        i = max(0, min(g.n - 1, i + dy))
        a = max(0, min(int(g.m[i]) - 1, a + dx))
        self.cursor = (a, i)

    def _cursor_line(self) -> int:
        a, i = self.cursor
        if self.snap is None or not self.listed:
            return i + 1
        return i + 1 + int(self.snap.game.offset[i]) + a

    def watch_cursor(self, cursor: tuple[int, int]) -> None:
        self.scroll_visible_region(Region(0, self._cursor_line(), self.get_content_width(Size(0, 0), Size(0, 0)), 1))
        cell = self.focused_cell
        if cell is not None:
            self.post_message(self.CellFocused(cell))
        self.refresh()

    def scroll_visible_region(self, region: Region) -> None:
        box = self.parent
        if isinstance(box, Widget):
            box.scroll_to_region(region.translate(self.region.offset - box.region.offset), animate=False)

    def action_toggle_cell(self) -> None:
        cell = self.focused_cell
        if cell is not None:
            self.post_message(self.CellToggled(cell))

    def action_toggle_in_offer(self) -> None:
        self.action_toggle_cell()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_in_offer":
            return self.snap is not None and self.snap.drafting
        return True

    def _state_of(self, c: int) -> str:
        snap = self.shown
        last = snap.last_event
        if snap.state.bits >> c & 1:
            if last is not None and last.outcomes:  # a simultaneous turn: every applied offer's cells are new
                after, now = last.after, snap.state  # the state shown is focused on a decision of the next turn
                if (after.t, after.bits) == (now.t, now.bits) and (after.bits & ~last.before.bits) >> c & 1:
                    return "new"
            elif last is not None and last.deal and last.offer.bits >> c & 1 and last.after == snap.state:
                return "new"
            return "committed"
        if c in snap.offer_cells:
            return "offer"
        if self.target >> c & 1:
            return "target"
        if snap.blocked >> c & 1:
            return "blocked"
        return "free"

    STYLES = {"committed": palette.BLUE, "new": f"bold {palette.ORANGE}", "offer": f"bold {palette.GREEN}",
              "blocked": palette.GREY, "free": "dim", "target": f"bold {palette.YELLOW}"}

    def _marks(self) -> list[tuple[str, str]]:
        """Per player: the mark before the name and its style (proposer ▶, partner ◆)."""
        snap = self.shown
        proposer, partner = snap.proposer, snap.partner
        if snap.several_proposers:  # every proposer of a simultaneous turn, every partner of an offer seen
            return [("▶ ", f"bold {palette.SKY}") if i in snap.proposers else
                    ("◆ ", f"bold {palette.VERMILLION}") if i == partner or any(o.partner == i for o in snap.in_flight)
                    else ("  ", "") for i in range(snap.game.n)]
        marks = []
        for i in range(snap.game.n):
            if i == proposer:
                marks.append(("▶ ", f"bold {palette.SKY}"))
            elif i == partner:
                marks.append(("◆ ", f"bold {palette.VERMILLION}"))
            else:
                marks.append(("  ", ""))
        return marks

    def _cell(self, out: Text, c: int, focused: bool) -> str:
        kind = self._state_of(c)
        st = self.STYLES[kind]
        if focused and self.has_focus:
            st = f"{st} reverse"
        out.append(palette.GLYPH[kind], style=st)
        return kind

    def render(self) -> Text:
        if self.snap is None:
            return Text("no game")
        return Text("\n", no_wrap=True).join(self._drawn_lines())

    def _drawn_lines(self) -> list[Text]:
        """Each line as drawn, built line by line (splitting one text into lines cost as much as making it)."""
        lines = self._render_list() if self.listed else self._render_grid()
        lines[-1].rstrip()
        return lines

    # The matrix is drawn line by line (Textual's line API): a whole-widget repaint converted every line of
    # it, about a third of a trainee's drawing, on every turn of a table.
    def _current_lines(self) -> list[Text]:
        drawn_from = (self.snap, self.cursor, self.target, self.has_focus, self.listed, self.room)
        memo = self._memo
        if memo is None or memo[0] != drawn_from:  # a snapshot compares by identity
            memo = self._memo = (drawn_from, self._drawn_lines() if self.snap is not None else [self.render()])
        return memo[1]  # a snapshot is never changed in place: the same one, cursor and focus draw the same lines

    def _repaint_changed(self) -> None:
        lines = self._current_lines()
        if len(lines) != len(self._lines):
            self.refresh()
            return
        width = self.size.width
        for y, (old, new) in enumerate(zip(self._lines, lines, strict=True)):
            if old != new:
                self.refresh(Region(0, y, width, 1))

    def render_lines(self, crop: Region) -> list[Strip]:
        self._lines = self._current_lines()  # the styles cache asks render_line only for the lines marked dirty
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        if y >= len(self._lines):
            return Strip.blank(self.size.width)
        text, base = self._lines[y], self.rich_style
        hit = self._strips.get(y)
        if hit is not None and hit[0] == text and hit[1] == base:
            return hit[2]
        strip = Strip(list(text.render(self.app.console, end="")), text.cell_len).apply_style(base).simplify()
        self._strips[y] = (text, base, strip)
        return strip

    def _render_list(self) -> list[Text]:
        g = self.shown.game
        width = max(10, self.room - 2)
        if self._labels[0] != width - INDENT:  # worked out once per width, not on every frame
            self._labels = (width - INDENT, matrix_action_labels(g.scenario, width - INDENT))
        names = self._labels[1]
        shown = matrix_player_labels(g, width - 2, listed=True)
        lines = []
        for i, (mark, style) in enumerate(self._marks()):
            out = Text(no_wrap=True)
            out.append(mark, style=style)
            out.append(shown[i], style=style or "bold")
            lines.append(out)
            for a in range(int(g.m[i])):
                c = int(g.offset[i]) + a
                out = Text(" " * (INDENT - 3), no_wrap=True)
                kind = self._cell(out, c, (a, i) == self.cursor)
                out.append(" " + names[i][a], style="" if kind == "free" else self.STYLES[kind].replace(" reverse", ""))
                lines.append(out)
        return lines

    def _render_grid(self) -> list[Text]:
        g = self.shown.game
        width = name_width(g, self.room)
        out = Text(" " * (width + 3), no_wrap=True)
        out.append("actions", style="dim")
        lines = [out]
        shown = matrix_player_labels(g, width, listed=False)
        for i, (mark, style) in enumerate(self._marks()):
            out = Text(no_wrap=True)
            out.append(mark, style=style)
            out.append(f"{shown[i]:<{width}} ", style=style)
            for a in range(int(g.m[i])):
                self._cell(out, int(g.offset[i]) + a, (a, i) == self.cursor)
                out.append(" ")
            lines.append(out)
        return lines
