"""An app served to someone at another machine: nothing it offers reaches the machine it runs on.

Textual gives every app commands that act on the machine running it: the command palette's Screenshot
saves an SVG into the running user's `~/Downloads` on every call and shows the absolute path;
`deliver_text` and `deliver_binary` save files there too; `open_url` starts that machine's web browser;
`suspend_process` stops the process.  Run by `negtui serve`, that machine is the trainer's, and the one
asking is a trainee over SSH.  A confined app offers only the palette commands that stay inside it
(theme, keys, maximise, quit) and its own, and refuses the rest whichever way they are reached (a key,
the palette, an action link in text)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from textual.app import App, SystemCommand
from textual.screen import Screen

INSIDE_THE_APP = frozenset({"Theme", "Keys", "Maximize", "Minimize", "Quit"})  # Textual's own, kept
REFUSED = "not on the training server: it would act on the server's machine, not yours"


class Confined(App):
    """Put before the app's class: `class TrainingApp(Confined, NegtuiApp)`."""

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        textuals = {command.title for command in App.get_system_commands(self, screen)}
        for command in super().get_system_commands(screen):
            if command.title in INSIDE_THE_APP or command.title not in textuals:
                yield command

    def _refuse(self, what: str) -> None:
        self.notify(f"{what}: {REFUSED}", severity="warning")

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        self._refuse("Screenshots")

    def save_screenshot(self, filename: str | None = None, path: str | None = None,
                        time_format: str | None = None) -> str:
        self._refuse("Screenshots")
        return ""

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        self._refuse("Screenshots")
        return None

    def deliver_text(self, path_or_file: str | Path | IO[str], *args: Any, **kwargs: Any) -> str | None:
        self._refuse("Saving files")
        return None

    def deliver_binary(self, path_or_file: str | Path | IO[bytes], *args: Any, **kwargs: Any) -> str | None:
        self._refuse("Saving files")
        return None

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        self._refuse("Opening links")

    def action_suspend_process(self) -> None:
        self._refuse("Suspending the app")
