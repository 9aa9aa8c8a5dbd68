"""A person's offer in a live game: the partner dialog, then the offer builder on the commitment matrix
(enter toggles a cell, the suggested offer loads to be edited, o submits, an empty offer asks before it
passes the turn, escape goes back to the partner).  A part of `LiveScreen` (screens/live.py), which checks
the decision and moves the game on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events, on

from negtui.names import player_label, player_names
from negtui.narrate import offer_words
from negtui.play.sources import LiveSource
from negtui.tui.screens.dialogs import ConfirmScreen, PartnerScreen
from negtui.tui.screens.game import GameScreen
from negtui.tui.widgets.matrix import CommitmentMatrix

if TYPE_CHECKING:
    from negtui.engine.turns import TurnEvent
    from negtui.tui.screens.kept_dialogs import KeptDialogs


class OfferBuilding(GameScreen):
    """A live game's screen, as far as a person's offer goes."""

    source: LiveSource

    if TYPE_CHECKING:  # the rest of the live screen's
        _dialogs: KeptDialogs

        def _decide(self, decision: Callable[..., TurnEvent | None], *args: object, advance: bool = True) -> None:
            ...

    def action_partner(self) -> None:
        src, g = self.source, self.game
        if not src.person_proposing or any(isinstance(s, PartnerScreen) for s in self.app.screen_stack):
            return  # a step of autoplay scheduled before the person's turn must not open a second dialog

        def chosen(q: int | tuple[int, list[int]] | None) -> None:
            if q is None:
                return
            if q == -1:
                self.action_pass_turn()
                return
            cells: list[int] = []
            if isinstance(q, tuple):  # the suggested offer, loaded to be edited
                q, cells = q
            src.draft(q, tuple(cells))
            self.set_status(f"offer to {player_names(g.scenario)[q]}: move with arrows, enter toggles a cell, "
                            "o submits, escape picks another partner")
            self.show_snapshot()

        names = player_names(g.scenario)
        self.app.push_screen(self._dialogs.filled(PartnerScreen, names[src.proposer], names, src.partner_options(),
                                                  lambda o: offer_words(g, o.bits, o.proposer, o.partner),
                                                  suggest=src.guided,
                                                  labels=[player_label(p) for p in g.scenario.players]),
                             chosen)

    def action_load_best(self) -> None:
        """In the offer builder: the suggested offer to the partner chosen, to edit from."""
        src, g = self.source, self.game
        if not (src.person_proposing and src.partner is not None and src.guided):
            return
        option = next((o for o in src.partner_options() if o.partner == src.partner), None)
        best = None if option is None else option.suggested
        if best is None:
            self.set_status("no suggested offer to this partner")
            return
        src.draft(src.partner, tuple(best.cells))
        self.set_status(f"the suggested offer to {player_names(g.scenario)[src.partner]} loaded: enter toggles a cell, "
                        "o submits")
        self.show_snapshot()

    @on(CommitmentMatrix.CellToggled)
    def toggle(self, event: CommitmentMatrix.CellToggled) -> None:
        if not self.source.person_proposing:
            return
        problem = self.source.toggle(event.cell)
        if problem:
            self.view.status_until_moved(problem)
            return
        self.show_snapshot()

    def on_key(self, event: events.Key) -> None:
        """`o` before a partner is chosen (the partner dialog closed with escape) is not a usable key, so the key
        bar leaves it out; pressed anyway, it says why and asks whom the offer goes to, rather than nothing."""
        src = self.source
        if event.key == "o" and src.person_proposing and src.partner is None:
            event.stop()
            event.prevent_default()
            self.notify("Choose a partner first: an offer goes to one player (or to yourself alone).", timeout=6)
            self.action_partner()

    def action_submit(self) -> None:
        src = self.source
        if not (src.person_proposing and src.partner is not None):
            return
        if src.cells:
            self._decide(src.propose)
            return

        def empty(yes: bool | None) -> None:
            if yes and src.person_proposing:
                self._decide(src.pass_turn)

        to = "" if src.partner == src.proposer else f" to {self.game.player_ids[src.partner]}"
        self.app.push_screen(ConfirmScreen("Pass the turn?", f"Your offer{to} has nothing in it: sending it "
                                           "passes the turn. y passes, n goes back to the offer."), empty)

    def action_pass_turn(self) -> None:
        if self.source.person_proposing:
            self._decide(self.source.pass_turn)

    def action_back(self) -> None:
        if self.source.partner is not None:
            self.source.clear_draft()
            self.show_snapshot()
            self.action_partner()
