"""Who plays each seat: a person, a lens bot, or the outside agent already in it."""

from __future__ import annotations

from pathlib import PurePath

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.geometry import Region
from textual.widgets import Button, Label, OptionList, Static

from negtui.engine.learned_names import split_learned
from negtui.names import fit_unique
from negtui.seats import Seat
from negtui.tui.screen_base import NegtuiModalScreen
from negtui.tui.screens.modal import Dialog, outer_height, set_max_height
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.seat_grid import EVERY, NAME_WIDTH, PLAYS, SeatGrid, SeatRow, header, name_width

SEAT_CHOICES = ("human", "myopic", "upper", "lower", "exact", "adaptive", "learned", "utilitarian", "maximin")
# bots any game can seat (not forecasts the game shows); `learned` is the model shipped with negtui
ANY_GAME = ("adaptive", "learned", "utilitarian", "maximin")
AS_IS = "as-is"  # keep an outside agent (cmd:, llm:) in its seat
SAME = "same"  # a lens bot answers offers with the lens it proposes with
DIALOG_WIDTH = 70  # .dialog's width in app.tcss, with the grid's narrowest name column
NOTE_LINES = 2  # the notes' lines kept in sight where the seats need the rest


def _label(lens: str) -> str:
    """A lens in a seat's cell: a model of one's own by its file's name (`lens.npz`: the cell is 13 characters,
    and `learned:` would leave two models' names cut alike), any other lens by its name."""
    learned, path = split_learned(lens)
    return PurePath(path).name if learned and path else lens


class SeatsScreen(Dialog[dict[str, Seat] | None]):
    """Who plays each seat: a person, or a lens bot (outside agents stay as they are).  The exact lens
    joins the choices once the game is known to be small enough for it (`offer_lens`)."""

    # ctrl+s starts a game, or applies the seats to the game under way: the key bar says which
    BINDINGS = [Binding("escape", "cancel", "cancel"), Binding("ctrl+s", "done", "start"),
                Binding("ctrl+s", "apply", "apply")]

    def __init__(self, seats: dict[str, Seat], lenses: tuple[str, ...], title: str = "Seats",
                 base: Seat | None = None, note: str = "", bot_lens: str = "upper", start: str = "Start",
                 labels: dict[str, str] | None = None) -> None:
        super().__init__()
        self.start_label = start
        self.labels = labels or {}  # how each player is shown (negtui.names.player_label)
        self.seats = dict(seats)
        self.lenses = tuple(lenses)
        self.title_text = title
        self.base = base or Seat()
        self.note, self.bot_lens = note, bot_lens

    @property
    def choices(self) -> list[str]:
        return [c for c in SEAT_CHOICES if c == "human" or c in self.lenses or c in ANY_GAME]

    def _value(self, seat: Seat) -> str:
        if seat.is_human:
            return "human"
        return str(seat.propose_lens) if seat.is_lens else AS_IS

    def _answer(self, seat: Seat) -> str:
        lenses = seat.lenses
        return lenses[1] if lenses is not None and lenses[1] != lenses[0] else SAME

    def _options(self, seat: Seat) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
        """What a seat's two cells offer: its own value stays offered (an outside agent, a lens this game
        cannot offer yet), and so does its own answer."""
        value, answer = self._value(seat), self._answer(seat)
        plays = [(c, c) for c in self.choices]
        if value not in self.choices:
            plays.append((seat.label if value == AS_IS else _label(value), value))
        bots = [c for c in self.choices if c != "human"]
        answers = [("its own lens", SAME)] + [(c, c) for c in bots]
        if answer not in {v for _, v in answers}:
            answers.append((_label(answer), answer))
        return tuple(plays), tuple(answers)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        starting = self.start_label == "Start"  # False: neither shown nor run, so ctrl+s runs the other
        if action == "done":
            return starting
        if action == "apply":
            return not starting
        return True

    def action_apply(self) -> None:
        self.action_done()

    def _lens_bot(self, value: str) -> bool:
        return value not in ("human", AS_IS)

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        with Vertical(id="dialog", classes="dialog"):
            yield Label(f"{self.title_text} — who plays each player?", classes="dialog-title")
            # buttons first: with many players the list scrolls and the buttons stay in view
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.start_label} (ctrl+s)", variant="primary", id="done")
                yield Button("All bots", id="bots")
                yield Button("Cancel", id="cancel")
            # the notes give way to the seats where the terminal is short (`fit_scrolling`): they scroll
            with VerticalScroll(id="seat-notes"):
                if self.note:
                    yield Static(self.note, classes="seat-note")
            yield Static("arrows move; enter or a click changes the choice at the cursor", classes="dim seat-help")
            labels = [self.labels.get(pid, pid) for pid in self.seats]
            width = name_width(labels)
            yield Static(header(width), classes="dim seat-header")
            names = dict(zip(self.seats, fit_unique(labels, width - 1), strict=True))
            rows = []
            for pid, seat in self.seats.items():
                plays, answers = self._options(seat)
                value = self._value(seat)
                rows.append(SeatRow(pid, names[pid], value, self._answer(seat), self._lens_bot(value), plays, answers))
            with VerticalScroll(id="seat-list"):
                yield SeatGrid(rows, name_width=width, id="seat-grid")

    def on_mount(self) -> None:
        self.query_one("#dialog").styles.width = DIALOG_WIDTH + self.grid.name_width - NAME_WIDTH  # whole names
        self.query_one("#seat-list").can_focus = False  # tab goes to the grid, not to the list's frame
        self.grid.focus()  # arrows and enter at once; ctrl+s starts

    def fit_scrolling(self) -> None:
        """The seats take the height the dialog's other lines leave, before the notes do: at 80×24 the notes
        (why bots play a lens, why exact is not offered) pushed every seat of a six-party game out of sight,
        leaving arrows and enter acting on rows nobody saw.  The notes keep two lines at least, and scroll.
        A list taller than what shows would scroll the cursor out of sight: its height is read from the
        dialog as laid out (a fixed cap showed 20 of 22 seats with rows to spare)."""
        dialog, notes, seats = self.query_one("#dialog"), self.query_one("#seat-notes"), self.query_one("#seat-list")
        if not dialog.size:
            return
        others = sum(outer_height(child) for child in dialog.children if child is not notes and child is not seats)
        left = self.rows_for(dialog) - dialog.styles.gutter.height - others
        rows = len(self.grid.rows)
        noted = sum(outer_height(note) for note in notes.children)
        height = min(rows, max(3, left - min(noted, NOTE_LINES)))
        notes_height = max(min(noted, 1), left - height)
        changed = set_max_height(seats, height)
        if set_max_height(notes, notes_height) or changed:
            self.call_after_refresh(self.grid.show_cursor)

    # --- reading and setting seats (the grid shows them) ---------------------------------------------------
    @property
    def grid(self) -> SeatGrid:
        return self.query_one(SeatGrid)

    def plays(self, pid: str) -> str:
        """What the dialog has for a seat now: "human", a lens, or AS_IS."""
        return self.grid.row(pid).plays

    def answers(self, pid: str) -> str | None:
        """The lens a bot seat answers with (SAME: the one it proposes with); None for a person or an agent."""
        row = self.grid.row(pid)
        return row.answers if row.answering else None

    def choose(self, pid: str, plays: str | None = None, answers: str | None = None) -> None:
        """Set a seat's cells, as picking them in the dialog does; EVERY sets every seat that offers it."""
        grid = self.grid
        for row in (grid.seats() if pid == EVERY else [grid.row(pid)]):
            if plays is not None and any(v == plays for _, v in row.choices):
                if row.plays != plays and pid == EVERY:
                    row.answers = SAME  # set all: bots answer alike
                row.plays, row.answering = plays, self._lens_bot(plays)
            if answers is not None and row.answering and any(v == answers for _, v in row.answer_choices):
                row.answers = answers
        grid.changed()

    def offer_lens(self, lens: str) -> None:
        """A lens this game turned out to allow (exact, once the game is known to be small enough)."""
        if lens in self.lenses:
            return
        self.lenses = (*self.lenses, lens)
        for row in self.grid.seats():
            row.choices, row.answer_choices = self._options(self.seats[row.pid])
        self.grid.changed()

    def add_note(self, text: str) -> None:
        """A word found after the dialog opened (why a lens is not offered), with the other notes: the seats
        keep their rows."""
        self.query_one("#seat-notes").mount(Static(text, classes="seat-note"))

    # --- the person -----------------------------------------------------------------------------------------
    def on_seat_grid_open(self, event: SeatGrid.Open) -> None:
        if any(isinstance(s, ChoiceMenu) for s in self.app.screen_stack):
            return  # an enter typed before the menu was up reached the grid: one menu at a time
        value, choices = event.grid.cell(event.row, event.column)
        row = event.grid.rows[event.row]

        def picked(choice: str | None) -> None:
            if choice is None:
                return
            if event.column == PLAYS:
                self.choose(row.pid, plays=choice)
            else:
                self.choose(row.pid, answers=choice)

        self.app.push_screen(ChoiceMenu(choices, value, event.grid.cell_region(event.row, event.column)), picked)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "done":
            self.action_done()
        elif event.button.id == "bots":
            for row in self.grid.seats():
                if row.plays == "human":
                    self.choose(row.pid, plays=self.bot_lens)
        else:
            self.dismiss(None)

    def action_done(self) -> None:
        out = {}
        for i, (pid, old) in enumerate(self.seats.items()):
            row = self.grid.row(pid)
            v, answer = row.plays, row.answers
            respond = None if answer == SAME else answer
            if v == self._value(old) and answer == self._answer(old):
                out[pid] = old  # unchanged: keeps the search settings
            elif v == "human":
                out[pid] = Seat.human()
            elif v == AS_IS:
                out[pid] = old
            elif old.is_lens:
                out[pid] = old.with_lenses(v, respond)
            else:
                out[pid] = self.base.with_lenses(v, respond).model_copy(update={"seed": self.base.seed + i})
        self.dismiss(out)

    def action_cancel(self) -> None:
        self.dismiss(None)


class Choices(OptionList):
    """The menu's list, whose enter the key bar names."""

    BINDINGS = [Binding("enter", "select", "choose")]


class ChoiceMenu(NegtuiModalScreen[str | None]):
    """The choices of one cell of the seat grid, opened under it; enter picks, escape or a click elsewhere
    leaves the cell as it was."""

    BINDINGS = [Binding("escape", "close", "close")]

    def __init__(self, choices: tuple[tuple[str, str], ...], current: str, at: Region) -> None:
        super().__init__()
        self.values = [value for _, value in choices]
        self.labels = [label for label, _ in choices]
        self.current, self.at = current, at

    def compose(self) -> ComposeResult:
        yield KeyBar()
        yield Choices(*self.labels, id="choice-menu")

    def on_mount(self) -> None:
        menu = self.query_one(OptionList)
        if self.current in self.values:
            menu.highlighted = self.values.index(self.current)
        height = min(len(self.values) + 2, max(3, self.app.size.height - 2))
        below = self.at.y + 1
        y = below if below + height <= self.app.size.height - 1 else max(0, self.at.y - height)
        x = min(self.at.x, max(0, self.app.size.width - 30))
        menu.styles.max_height = height
        menu.styles.offset = (x, y)
        menu.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.values[event.option_index])

    def on_click(self, event: events.Click) -> None:
        if event.widget is self:  # outside the menu
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
