"""One table of the play screen's keys: it generates the screen's bindings, the help screen and the
command palette, so a key is described once and the three never disagree."""

from __future__ import annotations

from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.binding import Binding


@dataclass(frozen=True)
class Key:
    keys: str  # Textual key names, comma-separated; "" for keys owned by a widget (arrows, enter)
    action: str  # screen action; "" for keys documented only
    footer: str  # footer label
    help: str  # what the help screen says
    group: str  # help section
    shown: str = ""  # how the help spells the keys (default: from `keys`)
    show: bool = True  # in the footer
    palette: str = ""  # command palette title ("" keeps it out of the palette)


PLAY_KEYS: tuple[Key, ...] = (
    Key("", "", "", "move in the commitment matrix (the focused cell explains itself); where each action has a line, up and down walk the actions and left and right the players", "Moving around", "arrows"),
    Key("", "", "", "next pane", "Moving around", "tab"),
    Key("space,n", "step", "step", "one bot turn (on your turn: pick a partner)", "Playing", "space / n",
        palette="Step one turn"),
    Key("r", "run", "run/pause", "run / pause autoplay (in a replay: play it back)", "Playing",
        palette="Run / pause autoplay"),
    Key("plus,equals_sign", "faster", "faster", "faster autoplay", "Playing", "+", palette="Faster autoplay"),
    Key("minus", "slower", "slower", "slower autoplay", "Playing", "-", palette="Slower autoplay"),
    Key("p", "partner", "partner", "pick a partner (your turn)", "Playing", palette="Pick a partner"),
    Key("", "", "", "add or remove the focused cell in your offer", "Playing", "enter"),
    Key("o", "submit", "offer", "submit the offer", "Playing", palette="Submit the offer"),
    Key("x", "pass_turn", "pass", "pass the turn (make no offer)", "Playing", palette="Pass the turn"),
    Key("escape", "back", "back", "choose another partner", "Playing", show=False),
    Key("comma", "turn_back", "◀ turn", "step back one turn", "Replay", ",", palette="Replay: previous turn"),
    Key("full_stop", "turn_forward", "turn ▶", "step forward one turn", "Replay", ".", palette="Replay: next turn"),
    Key("g", "jump", "jump", "jump to a turn", "Replay", palette="Replay: jump to turn"),
    Key("t", "take_over", "take over", "take over from this turn (fork): continue with any seats", "Replay",
        palette="Replay: take over from this turn"),
    Key("h", "hint", "hint", "what each lens bot (and exact, on small games) would do now, and what it is worth",
        "Playing", palette="Hint"),
    Key("s", "seats", "seats", "seats: switch any seat between human and a lens, also mid-game", "Playing",
        palette="Seats"),
    Key("c", "cancel_exact", "cancel solve", "cancel the exact solve running in the background (large games)",
        "Playing", palette="Cancel the exact solve"),
    Key("w", "welfare", "welfare", "welfare optimum for the current state (c cancels a solve)", "Playing",
        palette="Welfare optimum"),
    Key("v", "sort_goals", "sort goals", "sort goals by value / progress / id", "Moving around", show=False,
        palette="Sort goals"),
    Key("f", "filter_log", "filter log", "filter the log by the focused player", "Moving around", show=False,
        palette="Filter the turn log"),
    Key("1", "pane('goals')", "goals", "side pane: goals", "Moving around", "1–5", show=False),
    Key("2", "pane('forecasts')", "forecasts", "side pane: forecasts", "Moving around", show=False),
    Key("3", "pane('log')", "log", "side pane: turn log", "Moving around", show=False),
    Key("4", "pane('network')", "network", "side pane: deal network", "Moving around", show=False),
    Key("5", "pane('coach')", "coach", "side pane: coach", "Moving around", show=False),
    Key("l", "lesson", "lesson", "the scenario's lesson (teaching scenarios)", "Playing", palette="Lesson"),
    Key("question_mark", "help", "help", "this help", "General", "?", palette="Help"),
    Key("q", "quit", "quit", "quit (the record keeps every finished turn)", "General"),
    Key("", "", "", "command palette", "General", "ctrl+p"),
)

_SYMBOLS = {"comma": ",", "full_stop": ".", "plus": "+", "equals_sign": "=", "minus": "-",
            "question_mark": "?", "space": "space"}


def bindings(keys: tuple[Key, ...] = PLAY_KEYS) -> list[Binding]:
    return [Binding(k.keys, k.action, k.footer, show=k.show) for k in keys if k.keys and k.action]


def _spelled(k: Key) -> str:
    return k.shown or " / ".join(_SYMBOLS.get(x, x) for x in k.keys.split(","))


def help_table(keys: tuple[Key, ...] = PLAY_KEYS) -> Table:
    """One section per group, in table order (pane keys 2–5 fold into the 1–5 line); descriptions wrap
    in their own column, so a narrow terminal never breaks a line under the keys."""
    groups: dict[str, list[Key]] = {}
    for k in keys:
        if k.action.startswith("pane(") and k.keys != "1":
            continue
        groups.setdefault(k.group, []).append(k)
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    table.add_column(no_wrap=True, min_width=13)
    table.add_column(ratio=1)
    for n, (group, entries) in enumerate(groups.items()):
        if n:
            table.add_row("", "")
        table.add_row(Text(group, style="bold"), "")
        for k in entries:
            text = "side panes: goals, forecasts, log, network, coach" if k.action.startswith("pane(") else k.help
            table.add_row(f" {_spelled(k)}", text)
    return table


def palette_entries(keys: tuple[Key, ...] = PLAY_KEYS) -> list[tuple[str, str, str]]:
    """(title, help, action) of every key the command palette offers."""
    return [(k.palette, k.help, k.action) for k in keys if k.palette]
