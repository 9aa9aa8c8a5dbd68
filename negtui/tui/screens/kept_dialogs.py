"""The dialogs a live game asks a person's decisions with, kept for the whole game: made and installed the
first time, refilled after, so a turn costs the lines that changed, not a dialog composed, styled and laid
out from scratch (a trainee opens one a dozen times a game)."""

from __future__ import annotations

from typing import Any, TypeVar, cast

from textual.screen import Screen

from negtui.tui.screens.dialogs import PartnerScreen, RespondScreen

D = TypeVar("D", PartnerScreen, RespondScreen)


class KeptDialogs:
    """The game screen's one dialog of each kind."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self._dialogs: dict[type, PartnerScreen | RespondScreen] = {}

    def filled(self, kind: type[D], *args: Any, **kwargs: Any) -> D:
        """The dialog of this kind, filled for this decision."""
        dialog = self._dialogs.get(kind)
        if dialog is None:
            dialog = self._dialogs[kind] = kind(*args, **kwargs)
            self._screen.app.install_screen(dialog, f"{kind.__name__}-{id(self._screen)}")
            return dialog
        return cast(D, dialog).refill(*args, **kwargs)

    def uninstall(self) -> None:
        """As the game's screen goes: its dialogs go from the app (one still on the stack, the app is closing,
        goes with it)."""
        app = self._screen.app
        for dialog in self._dialogs.values():
            if dialog not in app.screen_stack:
                app.uninstall_screen(dialog)
