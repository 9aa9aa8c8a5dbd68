"""Modal dialogs of a game: partner choice, answering an offer, jump to a turn, help, the lesson."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from negtui.tui import palette
from negtui.tui.keys import help_table
from negtui.tui.labels import LEFT_COLUMN, WIDE
from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.fit_table import FitTable
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.options import Options
from negtui.tui.widgets.rendered import SteadyStatic

if TYPE_CHECKING:
    from negtui.play.views import PartnerOption, Preview

class BesideTheMatrix:
    """A dialog of the game in progress: on a wide terminal it stands right of the matrix (whatever
    width the left column has), so the commitments it is about stay in view.  The place is set as the
    dialog is composed, so the dialog is laid out once as it opens, not again once mounted."""

    def beside(self, box: Widget) -> Widget:
        """`box` placed; called on the dialog's box as it is composed."""
        self._place(box)
        return box

    def on_resize(self) -> None:
        self._place(self.query_one("#dialog"))  # type: ignore[attr-defined]

    def _place(self, box: Widget) -> None:
        app = box.app
        beside = app.size.width >= WIDE
        self.set_class(beside, "beside")  # type: ignore[attr-defined]
        margin = (0, 0, 0, 0)
        if beside:  # right of the left column, however wide it has grown
            lefts = [s.query("#left") for s in app.screen_stack]
            left = next((q.first().outer_size.width for q in reversed(lefts) if q), LEFT_COLUMN)
            margin = (0, 1, 0, left + 1)
        box.styles.margin = margin


class PartnerScreen(BesideTheMatrix, Dialog[int | tuple[int, list[int]] | None]):
    """A human proposer picks a partner, seeing what each lens would offer and what it is worth; `b` loads
    the suggested offer (the best of the lenses) into the offer builder."""

    BINDINGS = [Binding("escape", "cancel", "back"), Binding("x", "pass_turn", "pass the turn"),
                Binding("b", "load_best", "load the suggested offer")]
    SCROLLS = "#partners"  # a list of 22 partners ran past the terminal's edge, the cursor with it

    def __init__(self, proposer: str, names: list[str], options: list[PartnerOption], describe, *,
                 suggest: bool = True, labels: list[str] | None = None) -> None:
        """`suggest` False is an assessment: the partners alone, no values and no suggested offer.
        `labels`: how each player is listed (id and name), the ids otherwise."""
        super().__init__()
        self._set(proposer, names, options, describe, suggest, labels)

    def _set(self, proposer: str, names: list[str], options: list[PartnerOption], describe, suggest: bool,
             labels: list[str] | None) -> None:
        self.proposer, self.names, self.options, self.describe = proposer, names, options, describe
        self.labels = labels or names
        self.suggest = suggest and all(opt.value for opt in options)

    def refill(self, proposer: str, names: list[str], options: list[PartnerOption], describe, *,
               suggest: bool = True, labels: list[str] | None = None) -> PartnerScreen:
        """The dialog for another turn: a game keeps one partner dialog and opens it again filled anew, so
        each turn costs the changed lines rather than a dialog composed, styled and laid out from scratch."""
        self._set(proposer, names, options, describe, suggest, labels)
        self._backdrop = None  # the game below has moved on since it was last open
        self.query_one(".dialog-title", Label).update(self._title())
        self.query_one("#assessment").display = not self.suggest
        partners = self.query_one("#partners", OptionList)
        partners.clear_options()
        partners.add_options(self._items())
        partners.highlighted = 0 if self.options else None
        return self

    def _title(self) -> str:
        return (f"{self.proposer}, choose a partner (enter)"
                + (", or b to start from the suggested offer" if self.suggest else "") + "; x passes the turn")

    def _items(self) -> list[Option]:
        items = []
        shown = [f"{self.proposer} alone" if self.names[opt.partner] == self.proposer else
                 self.labels[opt.partner] for opt in self.options]
        width = max(12, *(len(name) for name in shown)) if shown else 12
        for opt, name in zip(self.options, shown, strict=True):
            t = Text()
            t.append(f"{name:<{width}}", style="bold")
            if self.suggest:
                for lens, gain in opt.value.items():
                    t.append(f" {lens} ")
                    t.append(f"{gain:+z.1f}", style=palette.signed(gain))
                best = max(opt.value, key=lambda k: opt.value[k])
                t.append(f"\n   best ({best}): {self.describe(opt.offers[best])}", style="dim")
            items.append(Option(t, id=str(opt.partner)))
        return items

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        with self.beside(Vertical(id="dialog", classes="dialog wide")):
            yield Label(self._title(), classes="dialog-title")
            note = Static(Text("an assessment: no suggestions until the debrief", style="dim"), id="assessment")
            note.display = not self.suggest
            yield note
            yield Options(*self._items(), id="partners")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.suggest if action == "load_best" else True

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.dismiss(int(event.option.id))

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_pass_turn(self) -> None:
        self.dismiss(-1)

    def action_load_best(self) -> None:
        k = self.query_one("#partners", OptionList).highlighted
        if k is None or not self.suggest:
            return
        opt = self.options[k]
        best = opt.suggested
        if best is not None:
            self.dismiss((opt.partner, list(best.cells)))


class RespondScreen(BesideTheMatrix, Dialog[bool | None]):
    """A bot's offer to a human seat: its effect under every lens; accept or reject (escape: later)."""

    # x rejects as it passes a turn elsewhere (no deal either way); r, autoplay everywhere else, does nothing here
    BINDINGS = [Binding("a", "answer(True)", "accept"), Binding("x", "answer(False)", "reject"),
                Binding("escape", "later", "answer later")]

    def __init__(self, title: str, words: str, preview: Preview, partner: str) -> None:
        super().__init__()
        self.title_text, self.words, self.preview, self.partner = title, words, preview, partner

    def refill(self, title: str, words: str, preview: Preview, partner: str) -> RespondScreen:
        """The dialog for another offer: a game keeps one and opens it again filled anew (as PartnerScreen)."""
        self.title_text, self.words, self.preview, self.partner = title, words, preview, partner
        self._backdrop = None
        self.query_one(".dialog-title", Label).update(title)
        self.query_one("#words", Static).update(words)
        self.query_one("#effects", SteadyStatic).update(self._effects())
        return self

    def _effects(self) -> FitTable:
        t = FitTable(title=f"what it means for {self.partner}")
        for col in ("lens", "if you accept", "if you reject", "change"):
            t.add_column(col, justify="left" if col == "lens" else "right")
        for lens, view in self.preview.partner.items():
            t.add_row(lens, f"{view.accept:z.2f}", f"{view.reject:z.2f}",
                      Text(f"{view.gain:+z.2f}", style=palette.signed(view.gain)))
        return t

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        with self.beside(Vertical(id="dialog", classes="dialog wide")):
            yield Label(self.title_text, classes="dialog-title")
            yield Static(self.words, id="words")
            yield SteadyStatic(self._effects(), id="effects")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Accept (a)", variant="success", id="accept")
                yield Button("Reject (x)", variant="error", id="reject")
                yield Button("Later (escape)", id="later")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "later" else event.button.id == "accept")

    def action_answer(self, accept: bool) -> None:
        self.dismiss(accept)

    def action_later(self) -> None:
        self.dismiss(None)


class TurnInput(Input):
    """A turn number: it takes digits only, so ? and q reach the app (help, and quit) even while typing."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return character is not None and character.isdigit()


class JumpScreen(Dialog[int | None]):
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, first: int, last: int) -> None:
        super().__init__()
        self.first, self.last = first, last

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        with Vertical(id="dialog", classes="dialog"):
            yield Label(f"Show the game after how many turns? ({self.first}–{self.last})", classes="dialog-title")
            yield TurnInput(placeholder=str(self.last), type="integer", id="turn")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Empty, the field shows the last turn (its placeholder), and enter goes there: what is shown is what
        enter does, not "a number, please" under a number."""
        try:
            t = int(event.value.strip() or self.last)
        except ValueError:
            self.notify("a number of turns, please", severity="warning")
            return
        if not self.first <= t <= self.last:
            self.notify(f"{t} turns is outside {self.first}–{self.last}", severity="warning")
            return
        self.dismiss(t)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _legend() -> Table:
    t = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    t.add_column(no_wrap=True, min_width=13)
    t.add_column(ratio=1)
    t.add_row(Text("Matrix", style="bold"), "██ committed · ▓▓ committed this turn · ++ in the offer · ×× ruled out "
              "by an exclusive set · ·· free · ▶ proposer · ◆ partner. Where the height allows, each action has a "
              "line with its name; otherwise a player is one row of cells and the panel under it names the cell under "
              "the cursor")
    t.add_row(Text("Lenses", style="bold"), "myopic: the payoff if the game ended now · upper: reachable goals you "
              "value get completed · lower: credible threats get completed · exact: the subgame-perfect value "
              "(small games)")
    t.add_row(Text("Baseline", style="bold"), "what each seat gets with no negotiation: everyone commits only what "
              "pays on its own (not always 'no deal': a seat may gain alone)")
    t.add_row(Text("Turns", style="bold"), "count from 1 everywhere: the header, the log (t 1 is the first turn), "
              "the coach, the debrief and the exports")
    return t


class HelpScreen(Dialog[None]):
    """The keys of the game screen it opens over (a live game's or a replay's)."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "close")]

    def __init__(self, mode: str = "play") -> None:
        super().__init__()
        self.mode = mode

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        with VerticalScroll(id="dialog", classes="dialog wide"):
            yield Label("negtui — keys  (escape, q or ? closes; arrows scroll)", classes="dialog-title")
            yield SteadyStatic(help_table(self.mode))
            yield Static("")
            yield SteadyStatic(_legend())

    def action_close(self) -> None:
        self.dismiss(None)


class LessonScreen(Dialog[None]):
    """A scenario's teaching note."""

    BINDINGS = [Binding("escape,enter,l,q", "close", "close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        with VerticalScroll(id="dialog", classes="dialog wide"):
            yield Label(f"Lesson — {self.title_text}", classes="dialog-title")
            yield Static(self.text, markup=False)

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmScreen(Dialog[bool]):
    """A yes-or-no question before something that cannot be taken back (y or enter: yes; n or escape: no)."""

    BINDINGS = [Binding("y,enter", "answer(True)", "yes"), Binding("n,escape", "answer(False)", "no")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text, self.text = title, text

    def compose(self) -> ComposeResult:
        yield KeyBar()
        with Vertical(id="dialog", classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Static(self.text, markup=False)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
