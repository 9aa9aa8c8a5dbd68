"""Rich tables for the terminal: final payoffs, welfare optima."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console, JustifyMethod
from rich.table import Table

from negtui.engine.game import Game

if TYPE_CHECKING:
    from negtui.welfare.options import WelfareResult

PAYOFF_COLUMNS: tuple[tuple[str, JustifyMethod], ...] = (
    ("player", "left"), ("seat", "left"), ("payoff", "right"), ("no negotiation", "right"), ("Δ", "right"),
    ("commitments", "left"))


def _made(game: Game, i: int, bits_or_row: int | Sequence[int]) -> str:
    acts = game.scenario.players[i].actions
    if isinstance(bits_or_row, int):
        made = [acts[a].id for a in range(int(game.m[i])) if bits_or_row >> (int(game.offset[i]) + a) & 1]
    else:
        made = [acts[a].id for a, v in enumerate(bits_or_row) if v]
    return ", ".join(made) or "—"


def payoff_table(game: Game, result: dict, labels: list[str]) -> None:
    t = Table(title="Final payoffs", title_justify="left")
    for col, just in PAYOFF_COLUMNS:
        t.add_column(col, justify=just)
    imp = result["improvement"]["per_player"]
    for i, pid in enumerate(game.player_ids):
        t.add_row(pid, labels[i], f"{result['payoffs'][i]:.2f}", f"{result['baseline']['payoffs'][i]:.2f}",
                  f"{imp[i]:+.2f}", _made(game, i, result["commitments"][i]))
    t.add_section()
    t.add_row("sum", "", f"{sum(result['payoffs']):.2f}", f"{sum(result['baseline']['payoffs']):.2f}",
              f"{result['improvement']['sum']:+.2f}", "")
    console = Console()
    console.print(t)
    console.print(f"improved: {result['improvement']['fraction_improved']:.0%} of players, "
                  f"worst change {result['improvement']['min']:+.2f}; "
                  f"unilateral regret {sum(result['regret']):.2f}")


def welfare_table(game: Game, res: WelfareResult, negotiated: Sequence[float] | None,
                  gap: Sequence[float] | None) -> None:
    """`gap` (optimum − negotiated, per player) goes with `negotiated`."""
    if res.payoffs is None or res.bits is None:
        raise ValueError(f"no {res.objective} optimum to show: {res.status}")
    if negotiated and gap is None:
        raise ValueError("the negotiated payoffs come with their gap to the optimum")
    t = Table(title=f"{res.objective} optimum", title_justify="left")
    cols = ["player", "optimal payoff", "commitments"] + (["negotiated", "optimum − negotiated"] if negotiated else [])
    for c in cols:
        t.add_column(c, justify="left" if c in ("player", "commitments") else "right")
    for i, pid in enumerate(game.player_ids):
        row = [pid, f"{res.payoffs[i]:.2f}", _made(game, i, res.bits)]
        if negotiated and gap is not None:
            row += [f"{negotiated[i]:.2f}", f"{gap[i]:+.2f}"]
        t.add_row(*row)
    Console().print(t)
