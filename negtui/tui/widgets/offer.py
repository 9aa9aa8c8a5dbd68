"""The offer a person is building, previewed under every lens for both sides."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from negtui.narrate import offer_words
from negtui.session import Session
from negtui.tui import palette


class OfferPanel(Static):
    DEFAULT_CSS = "OfferPanel { height: auto; max-height: 9; padding: 0 1; }"

    def show(self, session: Session | None, partner: int | None, cells: set[int]) -> None:
        if session is None or partner is None:
            self.update("")
            return
        g, p = session.neg.game, session.proposer
        preview = session.preview(partner, sorted(cells))
        alone = partner == p
        head = Text(f"{g.player_ids[p]} alone: " if alone else f"offer {g.player_ids[p]} → {g.player_ids[partner]}: ",
                    style="bold")
        head.append(offer_words(g, sum(1 << c for c in cells), p, partner))
        if preview.error:
            head.append(f"\n{preview.error}", style=palette.NEGATIVE)
            self.update(head)
            return
        if preview.offer is None:
            head.append("\n(empty: toggle cells with enter)", style="dim")
            self.update(head)
            return
        t = Table(box=None, padding=(0, 1))
        # a commitment made alone needs nobody's yes: no partner columns
        for col in ("lens", "you") if alone else ("lens", "you", g.player_ids[partner], "accepts?"):
            t.add_column(col, justify="left" if col == "lens" else "right")
        for lens in preview.proposer:
            mine, theirs = preview.proposer[lens].gain, preview.partner[lens].gain
            row = [lens, Text(f"{mine:+.1f}", style=palette.signed(mine))]
            if not alone:
                ok = preview.partner_accepts[lens]
                mark = "yes" if ok else "no"
                if lens == preview.partner_lens:
                    mark += " ◀"
                row += [Text(f"{theirs:+.1f}", style=palette.signed(theirs)),
                        Text(mark, style=palette.POSITIVE if ok else palette.NEGATIVE)]
            t.add_row(*row)
        self.update(Group(head, t))
