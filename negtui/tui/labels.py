"""The labels each pane shows at a given terminal width, in one place: the panes draw them and a test
checks over every bundled scenario that no two render the same at the widths the app uses."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from negtui.names import action_texts, fit_unique, goal_names, player_label, player_names, shorten
from negtui.scenario.model import Scenario

if TYPE_CHECKING:
    from negtui.engine.game import Game

WIDE = 120  # a wide terminal from here: the goal bars name goals in up to 28 columns (else 11), the left
# column grows to hold whole action names, and the game's dialogs stand beside the matrix
LEFT_COLUMN = 40  # #left in app.tcss: the left column's width on terminals under WIDE columns
FORECASTS_NARROW = 104  # under this terminal width the forecast table is narrow


GOAL_ROW = 29  # a goal bar's columns besides its name: kind, the bar, done and value


def goal_label_width(sc: Scenario, terminal_width: int, pane_width: int = 0, public: bool = False) -> int:
    """11 columns on a narrow terminal; on a wide one 28, or what the pane leaves beside the bar."""
    room = 11 if terminal_width < WIDE else max(28, pane_width - GOAL_ROW)
    return min(room, max(len(name) for name in goal_names(sc, public)))


def goal_labels(sc: Scenario, terminal_width: int, pane_width: int = 0, public: bool = False) -> list[str]:
    """The goal bars' names (80 columns: the whole line fits the 40-column side pane); `public`: as a seat
    that knows only its own values reads them (names.goal_names)."""
    return fit_unique(goal_names(sc, public), goal_label_width(sc, terminal_width, pane_width, public))


def forecast_name_width(game: Game, terminal_width: int) -> int:
    narrow = terminal_width < FORECASTS_NARROW  # 14: the numbers and a short trend still fit 40 columns
    width = min(14 if narrow else 24, max(len(p) for p in player_names(game.scenario)))
    return width if narrow else max(width, len("player"))


def forecast_labels(game: Game, terminal_width: int) -> list[str]:
    return fit_unique(player_names(game.scenario), forecast_name_width(game, terminal_width))


def matrix_player_labels(game: Game, width: int, listed: bool) -> list[str]:
    """The matrix's player names: whole labels ("A · Alice") on their own lines where they fit."""
    if listed:
        labels = [player_label(p) for p in game.scenario.players]
        if max(map(len, labels)) <= width:
            return labels
    return fit_unique(player_names(game.scenario), width)


def matrix_action_labels(sc: Scenario, width: int) -> list[list[str]]:
    """Per player, the action names of the list layout in `width` columns (as much of the label as fits),
    told apart within a player."""
    out = []
    for names in action_texts(sc):
        shown = [shorten(n, width) for n in names]
        out.append(shown if len(set(shown)) == len(shown) else fit_unique(names, width))
    return out


def rules_label(name: str, room: int) -> str:
    """A rule set's name; for a variant too long for the room, its base and how many switches it turns
    ("paper + 2 switches", then "paper+2"): never a switch name cut in the middle."""
    if len(name) <= room:
        return name
    cut = next((i for i, ch in enumerate(name) if ch in "+-"), len(name))
    base, switches = name[:cut], sum(ch in "+-" for ch in name[cut:])
    if not switches:
        return name
    longer = f"{base} + {switches} switch{'es' * (switches != 1)}"
    return longer if len(longer) <= room else f"{base}+{switches}"


def rules_words(name: str) -> str:
    """A rule set's name spaced at its switches ("paper + lower_reference_credibility + mcts_leaf_myopic"),
    so that text wrapping breaks a variant between switches, never inside one."""
    return re.sub(r"([+-])", r" \1 ", name)


def clock_words(seconds: float) -> str:
    """A countdown as people read it: 12:05 (whole seconds, rounded up: 0:00 only when it has run out)."""
    whole = int(seconds + 0.999)
    hours, minutes = divmod(whole // 60, 60)
    return f"{hours}:{minutes:02d}:{whole % 60:02d}" if hours else f"{minutes}:{whole % 60:02d}"
