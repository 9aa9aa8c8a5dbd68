"""The coach pane: a person's last decision (or, for a hint, the decision to come) beside what each lens
bot and the exact solution would do, every choice valued under every lens for the deciding player."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive

from negtui.coach.assess import YOU, Assessment, Choice, choice_words
from negtui.coach.words import REFERENCE_WORDS, why
from negtui.engine import shown_turn
from negtui.engine.game import Game
from negtui.engine.negotiation import Phase
from negtui.names import player_names
from negtui.tui import palette
from negtui.tui.labels import FORECASTS_NARROW
from negtui.tui.simultaneous import COACH_NOTE
from negtui.tui.widgets.fit_table import FitTable, stacked
from negtui.tui.widgets.pane import StaticPane
from negtui.tui.widgets.panes import LENS_SHORT


def summary(game: Game, a: Assessment, reason: bool = True, caveat: bool = True) -> str:
    """Who would have decided otherwise, what it costs under the reference valuation and (`reason`) why;
    `caveat`: what the values leave out, where the caller does not show it apart."""
    ref = REFERENCE_WORDS[a.reference]
    if a.yours is None:
        best = a.best
        return (f"hint: the best choice under {ref} is {best.whose} — {choice_words(game, best)} "
                f"(worth {a.value(best):z.1f})")
    agree = a.agreeing()
    differ = [c.who for c in a.others if c.who not in agree]
    head = f"coach, turn {shown_turn(a.t)}: "
    if not agree:
        head += f"{', '.join(differ)}: each would have decided otherwise"
    else:
        head += f"{', '.join(agree)} would have done the same" + (f"; {', '.join(differ)} would not" if differ else "")
    said = f" ({a.caveat})" if a.caveat and caveat else ""
    if a.cost > 1e-9:
        return (head + f". Under {ref} your choice is worth {a.value(a.yours):z.1f}, {a.best.whose} "
                f"{a.value(a.best):z.1f} (cost {a.cost:z.1f}){said}." + (" " + why(game, a) if reason else ""))
    return head + f". Under {ref} nothing did better ({a.value(a.yours):z.1f}){said}"


SHORT_DECISION = 8  # characters: an answer (accept, reject, no offer) stays in a column beside its values


def _label(c: Choice, best: Choice) -> Text:
    return Text(c.who + (" ★" if c is best else ""), style="bold" if c.who == YOU else "")


def _packed(items: list[Text], width: int) -> Text:
    """Items on as few lines as fit `width`, separated by ' · ', none of them broken across two lines."""
    out, line = Text(), 0
    for item in items:
        if line and line + 3 + item.cell_len > width:
            out.append("\n")
            line = 0
        elif line:
            out.append(" · ")
            line += 3
        out.append_text(item)
        line += item.cell_len
    return out


class CoachPane(StaticPane):
    coaching: reactive[tuple[Assessment, ...]] = reactive((), repaint=False)

    _guided: bool | None = None  # what the placeholder last said

    def watch_snapshot(self) -> None:
        """The coaching, not each turn, changes what the pane shows (and, once, whether it is an assessment)."""
        if self.snapshot is not None and self.snapshot.guided != self._guided:
            self.request_draw()

    def watch_coaching(self) -> None:
        self.request_draw()

    def draw(self) -> None:
        assessments = self.coaching
        if self.snapshot is not None:
            self._guided = self.snapshot.guided
        if self._guided is False:
            self.show(Text("coach\nan assessment: no coaching while you play. The debrief sets each of your "
                           "decisions beside what each lens bot would have done.", style="dim"))
            return
        if not assessments or self.snapshot is None:
            text = Text("coach\nno decision of yours yet: after each of your decisions this pane sets it beside "
                        "what each lens bot (and, on small games, the exact solution) would have done; "
                        "h asks before you decide.", style="dim")
            if self.snapshot is not None and self.snapshot.game.simultaneous:
                text.append(f"\nUnder {COACH_NOTE}.", style="dim")
            self.show(text)
            return
        game = self.snapshot.game
        parts: list[Text | FitTable] = []
        for a in assessments[-2:]:  # the last turn's decisions (a person may propose and answer in one turn)
            parts += self._one(game, a)
        self.show(stacked(parts))  # as text when the tables fit: the pane is drawn anew after every decision

    @staticmethod
    def _table(a: Assessment, choices: list[Choice], words: list[str], lenses: list[str], narrow: bool,
               below: bool) -> FitTable:
        """Each choice's values under each lens; its decision in a column unless it goes `below` the table."""
        t = FitTable()
        t.add_column("by" if narrow else "choice by", no_wrap=True)
        if not below:
            t.add_column("decision", overflow="fold", min_width=SHORT_DECISION)
        for lens in lenses:
            t.add_column(LENS_SHORT.get(lens, lens) if narrow else f"{lens} value", justify="right", no_wrap=True)
        for c, said in zip(choices, words, strict=True):
            values = [Text(f"{c.values[lens]:z.1f}", style=palette.signed(c.values[lens])) for lens in lenses]
            cells: list[str | Text] = [_label(c, a.best), *([] if below else [said]), *values]
            t.add_row(*cells)
        return t

    def _one(self, game: Game, a: Assessment) -> list[Text | FitTable]:
        who = player_names(game.scenario)[a.player]
        what = "offer" if a.phase is Phase.PROPOSE else "answer"
        kind = "hint" if a.yours is None else "coach"
        title = Text(f"{kind} · turn {shown_turn(a.t)} · {who}'s {what}", style="bold")
        lenses = list(a.others[0].values)
        narrow = self.app.size.width < FORECASTS_NARROW  # the side pane is under ~64 columns: short headers
        choices = ([a.yours] if a.yours is not None else []) + list(a.others)
        words = [choice_words(game, c) for c in choices]
        # narrow, an offer's words go under the table, on lines that wrap at words: the column the values leave
        # them is about eight wide, and cut "Development Bank" into "Developm" and "ent Bank"; so do short ones
        # when a column of values would not fit beside them (five lenses and exact at 80 columns)
        below = narrow and max(map(len, words)) > SHORT_DECISION
        t = self._table(a, choices, words, lenses, narrow, below)
        crowded = narrow and not below and t.text(self.content_size.width) is None
        if crowded:  # short decisions, on a line or two: the pane keeps its legend in view
            t = self._table(a, choices, words, lenses, narrow, True)
        decisions = Text()
        if below:
            for c, said in zip(choices, words, strict=True):
                decisions.append("\n" if decisions else "")
                decisions.append_text(_label(c, a.best).append(": "))
                decisions.append(said)
        elif crowded:
            decisions = _packed([_label(c, a.best).append(f": {said}") for c, said in zip(choices, words, strict=True)],
                                self.content_size.width)
        ref = "exact" if a.reference == "exact" else "the mean of myopic, upper and lower"
        short = " (" + ", ".join(f"{LENS_SHORT.get(lens, lens)} = {lens}" for lens in lenses) + ")" if narrow else ""
        note = Text(f"values: {who}'s payoff forecast after the turn under each lens{short}; ★ best under {ref}",
                    style="dim")
        if game.simultaneous:
            note.append(f"; {COACH_NOTE}")
        caveat = [Text(a.caveat, style=palette.NEGATIVE)] if a.caveat else []
        told = Text(summary(game, a, caveat=False))
        # as text when it fits (a long decision: Rich's table folds it in its column); crowded, the legend of the
        # short headers comes first, where the pane's first screen shows it
        return [title, *caveat, t.text(self.content_size.width) or t, *([decisions] if decisions else []),
                *((note, told) if crowded else (told, note))]

