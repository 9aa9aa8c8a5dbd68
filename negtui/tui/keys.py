"""One table of the game screens' keys: it generates their bindings, the help screen and the command
palette, and says when each key works, so a key is described once and the four never disagree.

A key belongs to the live screen, the replay screen or both (`modes`); `when` is its enabling rule,
read from a `KeyContext` the screen builds from its snapshot and settings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingType

LIVE, REPLAY, TABLE = "play", "replay", "table"
BOTH = (LIVE, REPLAY)  # the screens that step and autoplay (at a table the bots decide at the table)
PLAYING = (LIVE, TABLE)  # the screens where a person decides
ALL = (LIVE, REPLAY, TABLE)


@dataclass(frozen=True)
class KeyContext:
    """What decides which keys work now."""

    mode: str  # LIVE, REPLAY or TABLE
    over: bool = False  # live: the game has ended (replay: never)
    person_to_move: bool = False  # the next decision is a person's at this app
    person_proposing: bool = False
    drafting: bool = False  # a person has picked the partner of the offer being built
    seat_changes: bool = True  # the app lets seats change hands mid-game
    hints: bool = True  # the app gives hints
    exact_solving: bool = False  # the exact solution is being solved in the background
    lesson: bool = False  # the scenario has a lesson the app may show now
    secret: bool = False  # some players' values are secret here (private information): no welfare optimum
    guided: bool = True  # False: an assessment, no solver's help until the debrief


Rule = Callable[[KeyContext], bool]


def always(c: KeyContext) -> bool:
    return True


def moving(c: KeyContext) -> bool:
    """A replay steps at any time; a live game until it ends."""
    return c.mode == REPLAY or not c.over


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
    modes: tuple[str, ...] = ALL  # the screens it belongs to
    when: Rule = always  # whether it works now


GAME_KEYS: tuple[Key, ...] = (
    Key("", "", "", "move in the commitment matrix (the focused cell explains itself); where each action has a "
        "line, up and down walk the actions and left and right the players", "Moving around", "arrows"),
    Key("", "", "", "next pane", "Moving around", "tab"),
    Key("space,n", "step", "step", "one bot turn (on your turn: pick a partner); in a replay, the next turn", "Playing",
        "space / n", palette="Step one turn", when=moving, modes=BOTH),
    Key("r", "run", "run/pause", "run / pause autoplay (in a replay: play it back)", "Playing",
        palette="Run / pause autoplay", when=moving, modes=BOTH),
    Key("plus,equals_sign", "faster", "faster", "faster autoplay", "Playing", "+", palette="Faster autoplay",
        when=moving, modes=BOTH),
    Key("minus", "slower", "slower", "slower autoplay", "Playing", "-", palette="Slower autoplay", when=moving,
        modes=BOTH),
    Key("p", "partner", "partner", "pick a partner (your turn)", "Playing", palette="Pick a partner", modes=PLAYING,
        when=lambda c: c.person_proposing),
    Key("", "", "", "add or remove the focused cell in your offer", "Playing", "enter", modes=PLAYING),
    Key("o", "submit", "offer", "submit the offer", "Playing", palette="Submit the offer", modes=PLAYING,
        when=lambda c: c.person_proposing and c.drafting),
    Key("b", "load_best", "suggested", "start again from the suggested offer to this partner (the lens whose offer is "
        "worth most to you)", "Playing", palette="Load the suggested offer", modes=PLAYING,
        when=lambda c: c.person_proposing and c.drafting and c.guided),
    Key("x", "pass_turn", "pass", "pass the turn (make no offer)", "Playing", palette="Pass the turn", modes=PLAYING,
        when=lambda c: c.person_proposing),
    Key("escape", "back", "back", "choose another partner", "Playing", show=False, modes=PLAYING,
        when=lambda c: c.drafting),
    Key("comma", "turn_back", "◀ turn", "step back one turn", "Replay", ",", palette="Replay: previous turn",
        modes=(REPLAY,)),
    Key("full_stop", "turn_forward", "turn ▶", "step forward one turn", "Replay", ".", palette="Replay: next turn",
        modes=(REPLAY,)),
    Key("g", "jump", "jump", "show the game after any number of turns played", "Replay", palette="Replay: jump",
        modes=(REPLAY,)),
    Key("t", "take_over", "take over", "take over from this turn (fork): continue with any seats", "Replay",
        palette="Replay: take over from this turn", modes=(REPLAY,)),
    Key("h", "hint", "hint", "what each lens bot (and exact, on small games) would do now, and what it is worth",
        "Playing", palette="Hint", modes=PLAYING, when=lambda c: c.hints and c.person_to_move),
    Key("s", "seats", "seats", "seats: switch any seat between human and a lens, also mid-game", "Playing",
        palette="Seats", modes=(LIVE,), when=lambda c: c.seat_changes),
    Key("m", "say", "say", "say something at the table, to everyone or to one party (bots do not read messages)",
        "Playing", palette="Say something at the table", modes=(TABLE,)),
    Key("c", "cancel_exact", "cancel solve", "cancel the exact solve running in the background (large games)",
        "Playing", palette="Cancel the exact solve", modes=PLAYING, when=lambda c: c.exact_solving),
    Key("w", "welfare", "welfare", "welfare optimum for the current state (c cancels a solve; not while other "
        "players' values are secret, nor in an assessment)", "Playing", palette="Welfare optimum",
        when=lambda c: not c.secret and c.guided),
    Key("v", "sort_goals", "sort goals", "sort goals by value / progress / id", "Moving around", show=False,
        palette="Sort goals"),
    Key("f", "filter_log", "filter log", "filter the log by the focused player", "Moving around", show=False,
        palette="Filter the turn log"),
    Key("1", "pane('goals')", "goals", "side pane: goals", "Moving around", "1–5", show=False),
    Key("2", "pane('forecasts')", "forecasts", "side pane: forecasts", "Moving around", show=False),
    Key("3", "pane('log')", "log", "side pane: turn log", "Moving around", show=False),
    Key("4", "pane('network')", "network", "side pane: deal network", "Moving around", show=False),
    Key("5", "pane('coach')", "coach", "side pane: coach", "Moving around", show=False, modes=PLAYING),
    Key("6", "pane('table')", "table", "side pane: the table (who sits where, who is online, what was said)",
        "Moving around", show=False, modes=(TABLE,)),
    Key("l", "lesson", "lesson", "the scenario's lesson (teaching scenarios)", "Playing", palette="Lesson",
        when=lambda c: c.lesson),
    Key("question_mark", "help", "help", "this help", "General", "?", palette="Help"),
    Key("q", "quit", "quit", "quit (the record keeps every finished turn)", "General"),
    Key("", "", "", "command palette", "General", "ctrl+p"),
    Key("", "", "", "end the app at once, from anywhere: status 130, the record keeping every finished turn "
        "(text selected is copied instead)", "General", "ctrl+c"),
)

_SYMBOLS = {"comma": ",", "full_stop": ".", "plus": "+", "equals_sign": "=", "minus": "-",
            "question_mark": "?", "space": "space"}


def keys_of(mode: str, keys: tuple[Key, ...] = GAME_KEYS) -> tuple[Key, ...]:
    return tuple(k for k in keys if mode in k.modes)


def bindings(mode: str, keys: tuple[Key, ...] = GAME_KEYS) -> list[BindingType]:
    return [Binding(k.keys, k.action, k.footer, show=k.show) for k in keys_of(mode, keys) if k.keys and k.action]


def never(c: KeyContext) -> bool:
    return False


@cache
def rule(action: str, mode: str, keys: tuple[Key, ...] = GAME_KEYS) -> Rule | None:
    """The enabling rule of a screen's action: never for a key of the other screen, None for an action
    the table does not know (Textual's own)."""
    rules = [k.when for k in keys if k.action == action and mode in k.modes]
    if rules:
        return rules[0]
    return never if any(k.action == action for k in keys) else None


def _spelled(k: Key) -> str:
    return k.shown or " / ".join(_SYMBOLS.get(x, x) for x in k.keys.split(","))


def help_table(mode: str = LIVE, keys: tuple[Key, ...] = GAME_KEYS) -> Table:
    """One section per group, in table order (the pane keys fold into one line); descriptions wrap in
    their own column, so a narrow terminal never breaks a line under the keys."""
    groups: dict[str, list[Key]] = {}
    panes = [k for k in keys_of(mode, keys) if k.action.startswith("pane(")]
    for k in keys_of(mode, keys):
        if k.action.startswith("pane(") and k is not panes[0]:
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
            if k.action.startswith("pane("):
                table.add_row(f" 1–{len(panes)}", "side panes: " + ", ".join(p.footer for p in panes)
                              + (" (on a terminal of 100×40 or more the log stands under the pane open; 3 hides it and "
                                 "shows it again)" if any(p.footer == "log" for p in panes) else ""))
            else:
                table.add_row(f" {_spelled(k)}", k.help)
    return table


def palette_entries(mode: str, keys: tuple[Key, ...] = GAME_KEYS) -> list[tuple[str, str, str]]:
    """(title, description, action) of every key the command palette offers on a screen.  The
    description says the key, and the help only where it adds to the title ("Submit the offer" is not
    followed by "submit the offer")."""
    out = []
    for k in keys_of(mode, keys):
        if not k.palette:
            continue
        key = f"key {_spelled(k)}"
        title = k.palette.removeprefix("Replay: ")
        rest = k.help[len(title):].strip(" :") if k.help.lower().startswith(title.lower()) else k.help
        if title.lower().startswith(rest.lower()):
            rest = ""
        out.append((k.palette, f"{key} {rest}" if rest.startswith("(") else f"{key}: {rest}" if rest else key,
                    k.action))
    return out
