"""The game screen's headline (who proposes, which turn and round, autoplay, thinking) and the matrix's
legend (which names the welfare optimum marked on it)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from negtui.names import player_label
from negtui.play.views import Snapshot
from negtui.table.views import TableView
from negtui.tui import palette
from negtui.tui.labels import clock_words, rules_label
from negtui.tui.simultaneous import proposers_words
from negtui.tui.widgets.pane import TextPane

LEGEND = ["██ made", "▓▓ new", "++ offer", "·· free", "×× ruled out", "▶ proposer", "◆ partner"]


def legend(width: int, target: str = "") -> str:
    """The legend packed into lines of `width`, never splitting an entry; `target` names the optimum
    marked on the matrix, if one is."""
    lines: list[str] = []
    for entry in LEGEND + ([f"◇◇ {target} optimum"] if target else []):
        if lines and len(lines[-1]) + 2 + len(entry) <= width:
            lines[-1] += "  " + entry
        else:
            lines.append(entry)
    return "\n".join(lines)


class TopBar(TextPane):
    snapshot: reactive[Snapshot | None] = reactive(None, always_update=True, repaint=False)
    running: reactive[bool] = reactive(False, repaint=False)
    delay: reactive[float] = reactive(0.0, repaint=False)
    thinking: reactive[bool] = reactive(False, repaint=False)
    following: reactive[bool] = reactive(False, repaint=False)  # a replay of a record still being written
    table: reactive[TableView | None] = reactive(None, always_update=True, repaint=False)  # a table's: its round

    def watch_snapshot(self) -> None:
        self.draw()

    def watch_table(self) -> None:
        self.draw()

    def watch_running(self) -> None:
        self.draw()

    def watch_delay(self) -> None:
        self.draw()

    def watch_thinking(self) -> None:
        self.draw()

    def draw(self) -> None:
        snap = self.snapshot
        if snap is None:
            return
        g, s = snap.game, snap.state
        t = Text(no_wrap=True, overflow="ellipsis")
        if snap.several_proposers:  # a simultaneous turn: every proposer, and how many act at once
            t.append(proposers_words(snap), style=f"bold reverse {palette.SKY}")
        elif snap.proposer is not None:
            who = player_label(g.scenario.players[snap.proposer])
            t.append(f" ▶ {who} ({snap.seats[snap.proposer]}) ", style=f"bold reverse {palette.SKY}")
        else:
            t.append(" game over ", style="bold reverse")
        if snap.position is not None:  # one counter: the turns played at the position shown
            t.append(f" {'LIVE' if self.following else 'REPLAY'} ", style="bold")
            t.append(f"{snap.position[1]}/{snap.position[2]} turns played")
        else:
            t.append(f" turn {min(s.t + 1, g.T)}/{g.T}")
        t.append(f" · round {g.round_of(s.t)}/{max(1, g.rounds)}")
        if self.running:
            t.append(f" · ▶▶ {self.delay:g}s", style=palette.SKY)
        if self.thinking:
            t.append(" · thinking…", style="italic")
        if snap.awaited:  # a simultaneous turn under way: the decisions it still waits for
            t.append(f" · {snap.awaited}", style="bold")
        view = self.table
        left = None if view is None or snap.over else view.round_left()
        if view is not None and left is not None:
            stopped = "" if view.round is not None and view.round[2] else " (stopped)"
            t.append(f" · ⏱ {clock_words(left)} left{stopped}", style=f"bold {palette.NEGATIVE}" if left < 60
                     else "bold")
        room = self.size.width - t.cell_len - len(g.scenario.name) - len(" ·  ·  rules")
        t.append(f" · {g.scenario.name} · {rules_label(snap.rules, room)} rules", style="dim")
        self.show_text(t)



class Legend(Static):
    columns: reactive[int] = reactive(38, layout=True)  # the width it packs its entries into
    target: reactive[str] = reactive("", layout=True)  # the objective of the optimum marked on the matrix

    def render(self) -> str:
        return legend(self.columns, self.target)
