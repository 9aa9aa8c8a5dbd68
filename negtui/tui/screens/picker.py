"""Choosing a game: the bundled scenarios with size and description, or a generated one."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, OptionList, Select, Static, Switch
from textual.widgets.option_list import Option

from negtui.datadir import recent_records
from negtui.names import shorten
from negtui.scenario.library import catalogue
from negtui.tui.screen_base import NegtuiScreen
from negtui.tui.screens.modal import Dialog
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.options import Options

if TYPE_CHECKING:
    from negtui.generator import GeneratorParams
    from negtui.generator.params import Payoff, Structure
    from negtui.generator.params import Rules as RuleName


class PickerHost(Protocol):
    """What the picker asks of the app it runs in."""

    data_dir: Path

    @property
    def records_dir(self) -> Path: ...

    def open_record(self, path: Path) -> None: ...

    def open_scenario(self, path: Path) -> None: ...

    def open_generated(self, params: GeneratorParams) -> None: ...


class PickerScreen(NegtuiScreen[None]):
    @property
    def host(self) -> PickerHost:
        return cast("PickerHost", self.app)
    BINDINGS = [Binding("g", "generate", "generate"), Binding("q", "app.quit", "quit"),
                Binding("question_mark", "app.help", "help")]

    RECORDS = 10  # the newest records listed

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        self.entries = catalogue(root)
        self.records: list[Path] = []

    def compose(self) -> ComposeResult:
        yield Static(Text(" negtui — enter plays a scenario or replays a record · g generates a game ",
                          style="bold reverse"), id="topbar")
        data = Path(self.host.data_dir)
        mine = catalogue(data / "scenarios") if (data / "scenarios").is_dir() else []
        self.entries = [*self.entries, *(replace(e, kind="generated here") for e in mine)]
        self.records = recent_records(self.host.records_dir)[:self.RECORDS]
        items: list[Option] = []
        for e in self.entries:
            t = Text()
            t.append(f"{e.name}", style="bold")
            t.append(f"  {e.kind} · {e.players} players · {e.actions} actions · {e.goals} goals", style="dim")
            if e.line:
                t.append(f"\n  {shorten(e.line, 150)}")
            items.append(Option(t, id=str(len(items))))
        for k, path in enumerate(self.records):
            t = Text()
            t.append("replay ", style="bold")
            when = datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
            t.append(f"{path.name}  record · {when}", style="dim")
            items.append(Option(t, id=f"record-{k}"))
        if not items:
            items.append(Option(f"no scenarios found under {self.root}", disabled=True))
        yield Options(*items, id="scenario-list")
        yield KeyBar()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        choice = str(event.option.id)
        if choice.startswith("record-"):
            self.host.open_record(self.records[int(choice.removeprefix("record-"))])
        else:
            self.host.open_scenario(Path(self.entries[int(choice)].path))

    def action_generate(self) -> None:
        def made(params: GeneratorParams | None) -> None:
            if params is not None:
                self.host.open_generated(params)

        self.app.push_screen(GenerateScreen(), made)


FIELDS = (
    ("players", "players", "6"), ("actions", "actions per player", "3"), ("goals", "goals", "10"),
    ("factors", "latent factors", "3"), ("all_or_nothing", "all-or-nothing fraction", "0.2"),
    ("zipf", "Zipf exponent", "1.6"), ("rounds", "rounds", "4"), ("budget", "budget", "2"), ("seed", "seed", "0"),
)


class GenerateScreen(Dialog["GeneratorParams | None"]):
    """The generator's parameters as a form."""

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def compose(self) -> ComposeResult:
        yield KeyBar()  # this dialog's keys, not those of the screen under it
        with Vertical(id="dialog", classes="dialog"):
            yield Label("Generate a game", classes="dialog-title")
            with VerticalScroll(id="gen-fields"):
                yield from self._fields()
            # below the fields, not among them: shown whatever field the form is scrolled to
            yield Static("", id="gen-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Generate", variant="primary", id="go")
                yield Button("Cancel", id="cancel")

    def _fields(self) -> ComposeResult:
        yield Static("Enter in any field (or Generate) makes the game with these settings; escape cancels.",
                     classes="dialog-note")
        for key, label, default in FIELDS:
            with Horizontal(classes="form-row"):
                yield Label(label, classes="form-label")
                yield Input(default, id=f"gen-{key}", classes="form-input")
        with Horizontal(classes="form-row"):
            yield Label("structure", classes="form-label")
            yield Select([("cooperative", "cooperative"), ("adversarial", "adversarial")], value="cooperative",
                         allow_blank=False, id="gen-structure")
        with Horizontal(classes="form-row"):
            yield Label("payoffs", classes="form-label")
            yield Select([(v, v) for v in ("balanced", "positive", "negative")], value="positive",
                         allow_blank=False, id="gen-payoff")
        with Horizontal(classes="form-row"):
            yield Label("poison pill", classes="form-label")
            yield Switch(False, id="gen-poison")
        with Horizontal(classes="form-row"):
            yield Label("rules", classes="form-label")
            yield Select([("paper", "paper"), ("reference (the public implementation's)", "reference")],
                         value="paper", allow_blank=False, id="gen-rules")

    def on_mount(self) -> None:
        self.query_one(f"#gen-{FIELDS[0][0]}", Input).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "cancel":
            self.dismiss(None)
            return
        self._submit()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._submit()

    def _submit(self) -> None:
        values: dict[str, Any] = {}
        for key, label, _ in FIELDS:
            field = self.query_one(f"#gen-{key}", Input)
            raw = field.value.strip()
            try:
                if key == "actions" and "," in raw:
                    values[key] = [int(a) for a in raw.split(",")]
                else:
                    values[key] = float(raw) if key in ("all_or_nothing", "zipf") else int(raw)
            except ValueError:
                kind = {"all_or_nothing": "a number", "zipf": "a number",
                        "actions": "a whole number, or one per player separated by commas"}.get(key, "a whole number")
                self._error(f"{label}: {kind}, " + (f"not {raw!r}" if raw else "please (it is empty)"), field)
                return
        from negtui.generator import GeneratorError, GeneratorParams  # numpy: not before a game is made

        try:
            # the drop-downs offer only the generator's own words; GeneratorParams checks every value
            params = GeneratorParams(**values, structure=cast("Structure", self._choice("structure")),
                                     payoff=cast("Payoff", self._choice("payoff")),
                                     poison_pill=self.query_one("#gen-poison", Switch).value,
                                     rules=cast("RuleName", self._choice("rules")))
        except GeneratorError as err:  # the field at fault, if one is, named as the form labels it
            named = {key: label for key, label, _ in FIELDS}.get(err.option or "")
            if named is None:
                self._error(str(err))
            else:
                self._error(f"{named}: {err.words}", self.query_one(f"#gen-{err.option}", Input))
            return
        except ValueError as err:
            self._error(str(err))
            return
        self.dismiss(params)

    def _choice(self, key: str) -> str:
        return str(self.query_one(f"#gen-{key}", Select).value)

    def _error(self, message: str, field: Input | None = None) -> None:
        self.query_one("#gen-error", Static).update(Text(message, style="bold"))
        if field is not None:
            field.focus()

    def action_cancel(self) -> None:
        self.dismiss(None)


