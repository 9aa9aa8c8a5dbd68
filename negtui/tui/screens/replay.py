"""Replay on the play screen: stepping through a record, playing it back, jumping, and taking over
(a fork from the turn shown).

A mixin of `PlayScreen` (screens/play.py), which holds the layout and what both modes share."""

from __future__ import annotations

from negtui.narrate import turn_line
from negtui.record import parent_at
from negtui.seats import Seat
from negtui.tui.screens.dialogs import JumpScreen, SeatsScreen
from negtui.tui.sources import Earlier


class ReplayControls:
    def action_turn_back(self) -> None:
        if self.playback and self.playback.back():
            self._show_position()

    def action_turn_forward(self) -> None:
        if self.playback and self.playback.forward() is not None:
            self._show_position()

    def _show_position(self) -> None:
        """The status line tells the last turn played at the position shown, wherever it was reached from."""
        pb = self.playback
        played = pb.pos - self.replay.first_turn
        if played > 0:
            self.set_status(turn_line(self.game, self.replay.events[played - 1]))
        else:
            self.set_status(f"turn {pb.pos}: the start of the record (. steps forward, g jumps, t takes over)")
        self.refresh_panes()

    def _replay_tick(self) -> None:
        if not (self.running and self.playback):
            return
        if self.playback.at_end:
            self.autoplay.stop()
            self.refresh_panes()
            return
        self.action_turn_forward()
        self.autoplay.later(self._replay_tick)

    def action_jump(self) -> None:
        if not self.playback:
            return

        def go(t: int | None) -> None:
            if t is not None:
                self.playback.jump(t)
                self._show_position()

        self.app.push_screen(JumpScreen(self.replay.first_turn, self.replay.last_turn), go)

    def action_take_over(self) -> None:
        """Fork: continue the recorded game from the shown turn, with seats the user chooses."""
        if not self.playback:
            return
        rp, t = self.replay, self.pos
        recorded = rp.seats_at(t)
        seats = {pid: recorded.get(pid) or Seat.human() for pid in rp.neg.game.player_ids}

        def start(chosen: dict[str, Seat] | None) -> None:
            if chosen is not None:  # bots keep the recorded search settings (SeatsScreen keeps them)
                self.app.start_session(rp.record.scenario, rp.neg.rules, chosen, start=rp.state_at(t),
                                       parent=parent_at(rp, t), budget=rp.record.header.budget,
                                       earlier=Earlier.of(rp, t))  # the log and trends keep the turns before

        self.app.push_screen(SeatsScreen(seats, ("myopic", "upper", "lower"), title=f"Take over from turn {t}",
                                         base=self.app.base), start)
