"""A recorded game: stepping through it, playing it back, jumping, following a record still being
written, and taking over (a fork from the turn shown)."""

from __future__ import annotations

from negtui.engine import shown_turn
from negtui.names import player_labels
from negtui.narrate import turn_line
from negtui.play.sources import ReplaySource
from negtui.record.fork import RecordedSeats, recorded_seats
from negtui.seats import DEFAULT_LENS, Seat
from negtui.tui.keys import REPLAY, bindings
from negtui.tui.screens.dialogs import JumpScreen
from negtui.tui.screens.game import GameScreen
from negtui.tui.screens.seats import SeatsScreen
from negtui.tui.simultaneous import settled_status

FOLLOW_EVERY = 0.5  # seconds between reads of a record being written


class ReplayScreen(GameScreen):
    MODE = REPLAY
    BINDINGS = bindings(REPLAY)

    def __init__(self, source: ReplaySource) -> None:
        super().__init__(source)
        self.source: ReplaySource = source

    def mounted(self) -> None:
        super().mounted()
        self.view.following = self.source.follow is not None
        if self.source.follow is not None:
            self.set_interval(FOLLOW_EVERY, self._follow_record)

    def _follow_record(self) -> None:
        if self.source.reload():
            self.show_snapshot()

    def action_step(self) -> None:
        self.action_turn_forward()

    def action_turn_back(self) -> None:
        if self.source.back():
            self._show_position()

    def action_turn_forward(self) -> None:
        if self.source.forward() is not None:
            self._show_position()

    def _show_position(self) -> None:
        """The status line tells the last turn played at the position shown, wherever it was reached from."""
        last = self.source.last_turn_shown()
        if last is not None and last.simultaneous:  # a line per offer would not fit: the count, every offer after it
            self.set_status(settled_status(self.game, last, ()))
        elif last is not None:
            self.set_status(turn_line(self.game, last))
        else:
            self.set_status(f"the start of the record, before turn {shown_turn(self.source.pos)} "
                            "(. steps forward, g jumps, t takes over)")
        self.show_snapshot()

    def autoplay_started(self) -> None:
        self._tick()

    def _tick(self) -> None:
        if not self.autoplay.running:
            return
        if self.source.at_end:
            self.autoplay.stop()
            self.show_snapshot()
            return
        self.action_turn_forward()
        self.autoplay.later(self._tick)

    def action_jump(self) -> None:
        rp = self.source.replay

        def go(t: int | None) -> None:
            if t is not None:
                self.source.jump(t)
                self._show_position()

        self.app.push_screen(JumpScreen(rp.first_turn, rp.last_turn), go)

    def action_take_over(self) -> None:
        """Fork: continue the recorded game from the shown turn, with seats the user chooses.  The dialog
        starts from the recorded seats, a lens bot for every program or model the record names (a record
        never decides what runs), and the seats given on the command line."""
        src = self.source
        base = self.host.base
        bot = base.propose_lens or DEFAULT_LENS
        recorded = recorded_seats(src.replay, src.pos, bot)
        given = {pid: s.reaching(base.base_url) for pid, s in self.host.seats.items()}
        seats = {pid: given.get(pid) or recorded.seats.get(pid) or Seat.human() for pid in self.game.player_ids}
        left = RecordedSeats(recorded.seats, {p: s for p, s in recorded.stood_in.items() if p not in given})
        note = left.notice(player_labels(self.game.scenario), how="negtui replay FILE --seat NAME=…")

        def start(chosen: dict[str, Seat] | None) -> None:
            if chosen is not None:  # bots keep the recorded search settings (SeatsScreen keeps them)
                self.host.start_game(src.take_over(chosen))  # the log and trends keep the turns before

        title = f"Take over from turn {shown_turn(src.pos)}"
        labels = player_labels(self.game.scenario)
        self.app.push_screen(SeatsScreen(seats, ("myopic", "upper", "lower"), title=title, base=self.host.base,
                                         labels=labels, note=note), start)
