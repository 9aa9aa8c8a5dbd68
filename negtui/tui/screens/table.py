"""A game played at a table several people share: the live screen, with the decisions going to the
table's process and the moves, the people, what they say and the clock coming back from it.

The bots decide at the table, so nothing steps or autoplays here; a person's decision is sent and
comes back as the table's announcement, like everyone's (or as a refusal, which the status shows)."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.timer import Timer

from negtui.engine.turns import TurnEvent
from negtui.names import player_label, player_labels
from negtui.table.client import TableGone
from negtui.table.clock import RAN_OUT
from negtui.table.endings import ENDED_BY
from negtui.table.source import TableSource
from negtui.table.wire import WireError
from negtui.tui import palette
from negtui.tui.keys import TABLE, bindings
from negtui.tui.labels import clock_words
from negtui.tui.messages import Revealed, TableLine, TableLost
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import PartnerScreen, RespondScreen
from negtui.tui.screens.live import LiveScreen
from negtui.tui.screens.say import SayScreen
from negtui.tui.widgets.game_view import GameView
from negtui.tui.widgets.keybar import KeyBar
from negtui.tui.widgets.table_pane import said_line, speakers


class TableScreen(LiveScreen):
    MODE = TABLE
    BINDINGS = bindings(TABLE)

    def __init__(self, source: TableSource) -> None:
        super().__init__(source)
        self.source: TableSource = source
        self._ticking: Timer | None = None
        self._closed_words: Text | None = None  # once the table is closed: the status line, whatever else is said

    def compose(self) -> ComposeResult:
        yield GameView(coach=True, at_table=True)
        yield KeyBar()

    def mounted(self) -> None:
        super().mounted()
        self.view.table = self.source.view
        self._listen()

    # --- the table's lines ------------------------------------------------------------------------------
    @work(thread=True, group="table")
    def _listen(self) -> None:
        client = self.source.client
        while True:
            try:
                line = client.receive()
            except (WireError, OSError) as err:
                self.post_message(TableLost(str(err)))
                return
            if line is None:
                if not client.closed:
                    self.post_message(TableLost("the table closed the connection"))
                return
            self.post_message(TableLine(line))

    def on_table_line(self, message: TableLine) -> None:
        src, line = self.source, message.line
        kind = line.get("type")
        events = src.receive(line)
        for ev in events:
            self._turn_ended(ev)
        if kind == "refused":
            self.set_status(Text(f"the table refused: {line.get('why')}", style=palette.NEGATIVE))
        elif kind == "said":
            said = src.view.said[-1]
            if said.sender != src.view.you:
                self.set_status(said_line(said, src.view.you, speakers(src.view, self.game.scenario)))
        elif kind == "paused":
            paused = "the trainer paused the table" if src.view.trainer else "the table is paused"
            self.set_status(f"{paused}: every clock stops" if line.get("paused") else "the table goes on")
        elif kind == "round" and src.view.round is not None and src.view.started:
            self.set_status(f"the round's time is {clock_words(src.view.round[0])} from now" + self._round_stopped())
        elif kind == "notice" and src.view.notices:
            self.set_status(Text(src.view.notices[-1], style=f"bold {palette.NEGATIVE}"))
            self.notify(src.view.notices[-1], timeout=30)
        elif kind == "clock" and line.get("held"):
            self.set_status(self._away_words(str(line["held"])))
        elif kind == "closed":
            self._table_closed(str(line.get("why") or "its host ended it"))
        elif kind == "started":
            self.set_status("every seat is taken: the game starts")
        elif kind == "debrief":
            for screen in self.app.screen_stack:
                if isinstance(screen, DebriefScreen) and screen.closing is src.closing:
                    screen.told()
        elif kind == "over":
            self._over(line)
        if kind in ("move", "flight", "turn"):
            self._timed_out(line)
        self._clock()
        self.view.table = src.view
        if kind in ("clock", "round", "notice") and not events:
            return  # a countdown set or stopped, a word of the time: shown, and the game is as it was
        self.advance()

    def _round_stopped(self) -> str:
        """Why the round's clock stands still, when it does."""
        view = self.source.view
        if view.round is None or view.round[2]:
            return ""
        if view.round_waits:
            return f" (stopped while the table waits for {self._who(view.round_waits)}, who is away)"
        return " (stopped while the table is paused)"

    def _away_words(self, player: str) -> str:
        return f"{self._who(player)} is away: the table waits, and no clock runs against them"

    def _who(self, player: str) -> str:
        """A seat as the people at the table know it: 'alice (B · Buyer)', or the seat's label alone."""
        labels = player_labels(self.game.scenario)
        occupant = self.source.view.occupant(player)
        label = labels.get(player, player)
        return f"{occupant.name} ({label})" if occupant is not None and occupant.name else label

    def _over(self, line: dict) -> None:
        """The game is over: a dialog asking a decision goes (none is asked any more); a game the clock or the
        trainer ended says so; under private roles the end reveals everyone's values, then the debrief."""
        src = self.source
        self._withdraw_dialogs()
        ended = ENDED_BY.get(str(line.get("ended")))
        if ended is not None:
            self.set_status(Text(f"{ended}: the game ends as it stands", style=palette.NEGATIVE))
        if src.to_reveal and isinstance(line.get("game"), dict):
            over = f"{ended}, the game ended as it stood" if ended else "the game is over"
            self.set_status(Text(f"{over}: the table reveals everyone's values …",
                                 style=palette.NEGATIVE if ended else ""))
            self._reveal(line["game"])

    def _timed_out(self, line: dict) -> None:
        """This person's decision the table made for them (their time ran out): its dialog goes, and the status
        line says what the table decided."""
        src = self.source
        you = src.view.you
        wires = line.get("moves") if line.get("type") == "turn" else [line.get("move")]
        mine = [w for w in wires or () if isinstance(w, dict) and w.get("player") == you and w.get("fault") == RAN_OUT]
        if you is None or not mine:
            return
        self._withdraw_dialogs()
        proposed = any(w.get("phase") == "propose" for w in mine)
        answered = sum(w.get("phase") == "respond" for w in mine)
        did = [*(["passed your turn"] if proposed else []),
               *([f"rejected the offer{'s' * (answered > 1)} to you"] if answered else [])]
        words = f"your time ran out: the table {' and '.join(did)}"
        self.set_status(Text(words, style=palette.NEGATIVE))
        self.notify(words, severity="warning", timeout=10)  # the next prompt takes the status line at once

    def _withdraw_dialogs(self) -> None:
        """The dialogs asking this person a decision the table no longer asks close (with whatever was opened
        over them)."""
        stack = self.app.screen_stack
        if self not in stack:
            return
        asking = [s for s in stack[stack.index(self) + 1:] if isinstance(s, (PartnerScreen, RespondScreen))]
        while asking and self.app.screen is not self:
            top = self.app.screen
            self.app.pop_screen()
            if top in asking:
                asking.remove(top)

    @work(thread=True, group="reveal", exclusive=True)
    def _reveal(self, true_game: dict) -> None:
        try:
            game = self.source.reveal(true_game)
        except (ValueError, KeyError) as err:
            self.post_message(TableLost(f"the table's values at the end were not understood: {err}"))
            return
        self.post_message(Revealed(game))

    def on_revealed(self, message: Revealed) -> None:
        self.source.revealed(message.game)
        ended = ENDED_BY.get(message.game.ended or "")
        over = f"{ended}, the game ended as it stood" if ended else "the game is over"
        self.set_status(f"{over}: every player's values are shown now")
        self.advance()

    def on_table_lost(self, message: TableLost) -> None:
        src = self.source
        if not src.view.closed and not src.over:
            self._table_closed(message.why, lost=True)
        self.view.table = src.view
        self.show_snapshot()

    def _table_closed(self, why: str, lost: bool = False) -> None:
        """Nothing more can be sent to the table: a dialog asking for a decision (or a message) is closed,
        and the screen says why, once, in words (never an error of the connection's).  `lost`: the
        connection dropped, and the table may still keep the game and the seat for a while."""
        src = self.source
        if not (src.view.closed and lost):  # the table's own words over a dropped connection's
            src.view = src.view.but(closed=why)
        self.view.table = src.view
        if src.over:
            return  # the end's screens stay: only what would decide or say something goes
        if self.app.screen is not self and self in self.app.screen_stack:
            self.pop_until_active()
        words = (f"{why}: nothing more reaches the table from here; if it still runs, join again to take your "
                 "seat back (q leaves)" if lost else
                 f"the table closed ({why}): nothing more can be played from here; q leaves")
        first = self._closed_words is None
        self._closed_words = Text(words, style=palette.NEGATIVE)
        self.set_status(self._closed_words)
        if first:
            self.notify(words, severity="error", timeout=30)

    def set_status(self, text: object) -> None:
        """Once the table has closed (before the game's end) the status line says so, and nothing else does:
        a dialog closed with it answers "later", and what it would say no longer holds."""
        super().set_status(self._closed_words if self._closed_words is not None and not self.source.over else text)

    def _clock(self) -> None:
        """Redraw the countdown every second while one runs (and no timer runs otherwise)."""
        running = self.source.view.counting
        if running and self._ticking is None:
            self._ticking = self.set_interval(1.0, self._tick)
        elif not running and self._ticking is not None:
            self._ticking.stop()
            self._ticking = None

    def _tick(self) -> None:
        """A second on the clock: the countdowns' lines repainted, not the table pane laid out again."""
        self.view.tick()

    # --- no bots here -------------------------------------------------------------------------------------
    def action_step(self) -> None:
        src = self.source
        if src.view.closed and not src.over:
            return  # the status says the table is closed; nobody decides here any more
        if src.person_to_move():
            super().action_step()
        elif not src.over and src.deciding is not None:
            occupant = src.view.occupant(src.deciding)
            if occupant is not None and occupant.is_person and not occupant.online:  # away: said so, whenever
                self.set_status(self._away_words(src.deciding))  # this step comes (before or after the table's word)
                return
            who = occupant.name if occupant and occupant.is_person and occupant.name else \
                player_labels(self.game.scenario).get(src.deciding, src.deciding)
            self.set_status(f"waiting for {who} to decide")

    def advance(self) -> None:
        if not self.source.view.started and not self.source.over:
            self.show_snapshot()
            return
        super().advance()

    # --- talking --------------------------------------------------------------------------------------------
    def action_say(self) -> None:
        src = self.source
        you = src.view.you
        others = [(p.id, player_label(p)) for p in self.game.scenario.players if p.id != you]

        def send(result: tuple[str | None, str] | None) -> None:
            if result is None:
                return
            to, text = result
            try:
                problem = src.say(text, to)
            except TableGone:
                self._table_closed("the connection to the table is lost", lost=True)
                return
            if problem:
                self.set_status(Text(problem, style=palette.NEGATIVE))

        self.app.push_screen(SayScreen(others), send)

    def leave_question(self) -> tuple[str, str] | None:
        """Leaving a table is asked first: the others go on, and the seat waits only so long."""
        src = self.source
        if src.over or src.view.closed or src.me is None:
            return None
        return ("Leave the table?", "The game goes on without you. Your seat is kept for a while: join again to take "
                                    "it back; after that a bot may play it for you. y leaves, n stays.")

    def _decide(self, decision: Callable[..., TurnEvent | None], *args: object, advance: bool = True) -> None:
        try:
            super()._decide(decision, *args, advance=advance)
        except TableGone:  # the table went before its closing line came: said in words, not as the socket error
            self._table_closed("the connection to the table is lost", lost=True)
