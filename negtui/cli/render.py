"""Rich tables for the terminal: final payoffs, the No-Negotiation baseline, welfare optima.

Players and actions are named as the app names them (negtui.names); a player's name wraps rather than
lose its end, since people type it back in `--seat` (which takes an id or a name)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from negtui.engine.game import Game
from negtui.names import action_names, player_names

if TYPE_CHECKING:
    from negtui.welfare.options import WelfareResult

PAYOFF_COLUMNS: tuple[tuple[str, JustifyMethod], ...] = (
    ("player", "left"), ("seat", "left"), ("payoff", "right"), ("no negotiation", "right"), ("Δ", "right"))


def _made(game: Game, i: int, bits_or_row: int | Sequence[int]) -> str:
    names = action_names(game.scenario)[i]
    if isinstance(bits_or_row, int):
        made = [names[a] for a in range(int(game.m[i])) if bits_or_row >> (int(game.offset[i]) + a) & 1]
    else:
        made = [names[a] for a, v in enumerate(bits_or_row) if v]
    return "; ".join(made) or "—"  # names may hold commas


def _table(game: Game, columns: Sequence[tuple[str, JustifyMethod]]) -> Table:
    t = Table()
    names = min(max(len(name) for name in player_names(game.scenario)), 24)  # whole where they fit, else folded
    for col, just in columns:
        t.add_column(col, justify=just, overflow="fold", min_width=names if col == "player" else None)
    return t


def _commitments(console: Console, game: Game, made: Sequence[int | Sequence[int]], title: str) -> None:
    """Each player's commitments by name, under the numbers: a column of sentences beside them would leave
    the numbers no room at 80 columns."""
    console.print(Text(title, style="italic"))  # a table's own title wraps to the table's width
    t = Table(box=None, show_header=False, padding=(0, 1))
    t.add_column(no_wrap=True, style="bold")
    t.add_column(overflow="fold")
    for i, pid in enumerate(player_names(game.scenario)):
        t.add_row(pid, _made(game, i, made[i]))
    console.print(t)


def payoff_table(game: Game, result: dict, labels: list[str]) -> None:
    t = _table(game, PAYOFF_COLUMNS)
    imp = result["improvement"]["per_player"]
    for i, pid in enumerate(player_names(game.scenario)):
        t.add_row(pid, labels[i], f"{result['payoffs'][i]:z.2f}", f"{result['baseline']['payoffs'][i]:z.2f}",
                  f"{imp[i]:+z.2f}")
    t.add_section()
    t.add_row("sum", "", f"{sum(result['payoffs']):z.2f}", f"{sum(result['baseline']['payoffs']):z.2f}",
              f"{result['improvement']['sum']:+z.2f}")
    console = Console()
    console.print(Text("Final payoffs", style="italic"))
    console.print(t)
    console.print(f"improved: {result['improvement']['fraction_improved']:z.0%} of players, "
                  f"worst change {result['improvement']['min']:+z.2f}; "
                  f"unilateral regret {sum(result['regret']):z.2f}")
    _commitments(console, game, result["commitments"], "Commitments made")


def baseline_table(game: Game, payoffs: Sequence[float], commitments: Sequence[Sequence[int]]) -> None:
    t = _table(game, (("player", "left"), ("payoff", "right")))
    for i, pid in enumerate(player_names(game.scenario)):
        t.add_row(pid, f"{payoffs[i]:z.2f}")
    t.add_section()
    t.add_row("sum", f"{sum(payoffs):z.2f}")
    console = Console()
    console.print(Text("No-Negotiation baseline: each player's best commitments made alone", style="italic"))
    console.print(t)
    _commitments(console, game, commitments, "Commitments made alone")


def welfare_table(game: Game, res: WelfareResult, negotiated: Sequence[float] | None,
                  gap: Sequence[float] | None) -> None:
    """`gap` (optimum − negotiated, per player) goes with `negotiated`."""
    if res.payoffs is None or res.bits is None:
        raise ValueError(f"no {res.objective} optimum to show: {res.status}")
    if negotiated and gap is None:
        raise ValueError("the negotiated payoffs come with their gap to the optimum")
    cols = ["player", "optimal payoff"] + (["negotiated", "optimum − negotiated"] if negotiated else [])
    t = _table(game, [(c, "left" if c == "player" else "right") for c in cols])
    for i, pid in enumerate(player_names(game.scenario)):
        row = [pid, f"{res.payoffs[i]:z.2f}"]
        if negotiated and gap is not None:
            row += [f"{negotiated[i]:z.2f}", f"{gap[i]:+z.2f}"]
        t.add_row(*row)
    console = Console()
    console.print(Text(f"{res.objective} optimum", style="italic"))
    console.print(t)
    bits = res.bits
    _commitments(console, game, [bits] * game.n, f"Commitments at the {res.objective} optimum")
