"""The offer a person is building, previewed under every lens for both sides (the preview comes with
the snapshot: the source works it out once per offer)."""

from __future__ import annotations

from rich.text import Text
from textual.css.scalar import Scalar

from negtui.names import player_names
from negtui.narrate import offer_words
from negtui.play.views import Preview
from negtui.tui import palette
from negtui.tui.widgets.fit_table import FitTable, stacked
from negtui.tui.widgets.pane import StaticPane

HEAD_LINES = 2  # kept for the head ("offer to …: …" wraps once its commitments are named)


class OfferPanel(StaticPane):
    DEFAULT_CSS = "OfferPanel { height: auto; padding: 0 1; }"  # its height: app.tcss, by terminal height

    def draw(self) -> None:
        """Drawn with every snapshot, repainted only when the offer, its preview or what may be shown of
        the partner changed (most snapshots come while no offer is built)."""
        snap = self.snapshot
        if snap is None or not snap.person_proposing or snap.partner is None:
            self._keep_lines(0)
            self.show("", key=("none",))
            return
        key = (id(snap.game), snap.proposer, snap.partner, snap.offer_cells, snap.preview, snap.known, snap.withheld)
        if key == self._key:
            return
        g, p, partner = snap.game, snap.proposer, snap.partner
        assert p is not None
        alone = partner == p
        unforeseen = not snap.foresees(partner) and not alone  # a line under the table says so
        self._keep_lines(HEAD_LINES + 1 + len(snap.forecasts) + unforeseen)
        names = player_names(g.scenario)
        head = Text(f"{names[p]} alone: " if alone else f"offer to {names[partner]}: ", style="bold")
        head.append(offer_words(g, sum(1 << c for c in snap.offer_cells), p, partner))
        preview = snap.preview or Preview(None, None)
        if preview.error:
            head.append(f"\n{preview.error}", style=palette.NEGATIVE)
            self.show(head, key)
            return
        if preview.offer is None:
            head.append("\n(empty: toggle cells with enter)", style="dim")
            self.show(head, key)
            return
        secret = not snap.knows(partner)
        table = _table(preview, names[partner], alone or not snap.foresees(partner))
        parts: list[Text | FitTable] = [head, table.text(self.content_size.width) or table]
        if not snap.foresees(partner) and not alone:
            why = "values are secret" if secret else "answer is for you to judge in an assessment"
            parts.append(Text(f"{names[partner]}'s {why}: only the answer will tell", style="dim"))
        self.show(stacked(parts), key)

    def _keep_lines(self, lines: int) -> None:
        """From the first word of an offer, the room of its preview (the head's first lines, a row per lens):
        the matrix above keeps its place while commitments are added, and the screen is not laid out anew."""
        kept = Scalar.from_number(lines) if lines else None
        if self.styles.min_height != kept:
            self.styles.min_height = kept


def _table(preview: Preview, partner: str, alone: bool) -> FitTable:
    """`alone`: a commitment made alone (it needs nobody's yes), or a partner whose values are secret:
    no partner columns."""
    t = FitTable()
    them = partner if len(partner) <= 12 else "partner"  # the head names the partner; the column fits 40 columns
    for col in ("lens", "you") if alone else ("lens", "you", them, "accepts?"):
        t.add_column(col, justify="left" if col == "lens" else "right")
    for lens in preview.proposer:
        mine, theirs = preview.proposer[lens].gain, preview.partner[lens].gain
        row: list[str | Text] = [lens, Text(f"{mine:+z.1f}", style=palette.signed(mine))]
        if not alone:
            ok = preview.partner_accepts[lens]
            mark = "yes" if ok else "no"
            if lens == preview.partner_lens:
                mark += " ◀"
            row += [Text(f"{theirs:+z.1f}", style=palette.signed(theirs)),
                    Text(mark, style=palette.POSITIVE if ok else palette.NEGATIVE)]
        t.add_row(*row)
    return t
