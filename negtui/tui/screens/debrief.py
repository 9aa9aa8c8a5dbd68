"""The end of a game someone played: the summary, and for each person's seat a debrief — against the
No-Negotiation baseline, against lens bots replaying the seat against the same opponents, against the
welfare optimum — with the costliest decisions, each a key to play again from there."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from negtui.coach.assess import choice_words, coach_lenses
from negtui.coach.debrief import Debrief, counterfactuals, debrief
from negtui.coach.sheet import OptionState, Sheet
from negtui.engine import shown_turn
from negtui.names import player_label
from negtui.play.sources import Ending
from negtui.table.endings import ended_words
from negtui.tui import palette
from negtui.tui.screens.summary import SummaryScreen
from negtui.tui.simultaneous import DEBRIEF_NOTE
from negtui.tui.widgets.coach import summary
from negtui.tui.widgets.fit_table import FitTable
from negtui.tui.widgets.rendered import SteadyStatic
from negtui.welfare import WelfareResult

AT_ONCE_SECONDS = 0.03  # of replays before the first frame, per person: past it, they go on in a worker


def _after(seconds: float) -> Callable[[], bool]:
    """Whether `seconds` have passed since this was made."""
    deadline = time.perf_counter() + seconds
    return lambda: time.perf_counter() > deadline


class CounterfactualDone(Message):
    def __init__(self, player: int, results: dict[str, float]) -> None:
        super().__init__()
        self.player, self.results = player, results


class DebriefScreen(SummaryScreen):
    BINDINGS = [Binding("escape,enter,q", "close", "close"), Binding("1", "retry(0)", "retry 1", show=False),
                Binding("2", "retry(1)", "retry 2", show=False), Binding("3", "retry(2)", "retry 3", show=False)]

    def __init__(self, ending: Ending, retry: Callable[[int], None] | None = None,
                 done: Callable[[list[Debrief]], None] | None = None, score: str | None = None) -> None:
        """`score`: what the game is scored by and what it scored (a course's exercise), said first."""
        session = ending.game
        neg = session.neg
        super().__init__(neg, neg.returns(session.state), session.baseline, ending.first_forecasts,
                         str(session.record_path) if session.record_path else None, solve=ending.closing is None)
        self.session = session
        self.people = ending.people
        self.information = ending.information
        self.closing = ending.closing  # not None: the table works the slow numbers out and sends them
        self.debriefs = {i: debrief(neg, i, session.state, session.assessments) for i in self.people}
        self.retry, self.done, self.score = retry, done, score
        self._pending = set(self.people) | {"welfare"}

    def more(self) -> ComposeResult:
        session = self.session
        ended = ended_words(session.ended, session.state.t, session.neg.game.T)
        if ended:  # before its last turn, as it stood: the numbers below are of that game
            yield Static(Text(ended, style=palette.NEGATIVE))
        if self.score:
            yield Static(Text(self.score, style="bold"))
        for i in self.people:
            yield SteadyStatic(self._debrief_view(i), id=f"debrief-{i}")
        if self.session.neg.game.simultaneous:  # what the numbers above cover under these rules
            yield Static(Text(DEBRIEF_NOTE, style="dim"))
        lesson = self.session.neg.game.scenario.lesson
        if lesson:
            yield Static(Text(f"lesson: {lesson}", style="italic"))

    def on_mount(self) -> None:  # Textual calls SummaryScreen's after this one (the welfare optimum)
        if self.closing is not None:
            self.told(mounting=True)
            return
        for i in self.people:
            # a small game's replays take milliseconds: done before the first frame, the debrief is drawn once,
            # complete; past the budget they are left to a worker, and fill the table as they arrive
            results = self._replays(i, _after(AT_ONCE_SECONDS))
            if len(results) == len(coach_lenses(self.session.neg.game)):
                self._counterfactual_known(i, results)
            else:
                self.run_worker(lambda i=i: self._counterfactual(i), thread=True, group="debrief")

    def told(self, mounting: bool = False) -> None:
        """What the table has sent of the slow numbers so far (called again as more arrive; `mounting`: by
        the screen itself as it mounts, its widgets composed, before Textual counts it mounted)."""
        closing, ids = self.closing, self.session.neg.game.player_ids
        if closing is None or not (mounting or self.is_mounted):  # not composed yet: it reads them as it mounts
            return
        for i in self.people:
            games = closing.counterfactual.get(ids[i])
            if i in self._pending and games is not None:
                self._counterfactual_known(i, games)
        if "welfare" in self._pending and closing.welfare_done:
            if closing.welfare is None:
                self.say_welfare("welfare optimum: not solved in time")
                self._finished("welfare")
                return
            welfare, payoffs = closing.welfare
            self.show_welfare(WelfareResult("utilitarian", "optimal", True, payoffs=payoffs, welfare=welfare))

    def _counterfactual(self, player: int) -> None:
        worker = get_current_worker()
        results = self._replays(player, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(CounterfactualDone(player, results))

    def _replays(self, player: int, cancelled: Callable[[], bool]) -> dict[str, float]:
        """The seat's payoff with each lens bot in it, the game replayed from its start; incomplete if cancelled."""
        ses = self.session
        return counterfactuals(ses.neg, ses.seating.seats, player, ses.start, cancelled=cancelled,
                               information=self.information)

    def on_counterfactual_done(self, message: CounterfactualDone) -> None:
        self._counterfactual_known(message.player, message.results)

    def _counterfactual_known(self, player: int, results: dict[str, float]) -> None:
        self.debriefs[player].counterfactual = results
        self._refresh(player)
        self._finished(player)

    def solved(self, res) -> None:
        for i in self.people:
            d = self.debriefs[i]
            d.welfare_optimum, d.seat_at_optimum = res.welfare, res.payoffs[i]
            self._refresh(i)
        self._finished("welfare")

    def on_welfare_failed(self, message) -> None:  # and then SummaryScreen's, which says so
        self._finished("welfare")

    def _finished(self, part: object) -> None:
        self._pending.discard(part)
        if not self._pending:
            self._report()

    def _report(self) -> None:
        """Hand the debriefs over once: when all is computed, or as they are when the screen closes."""
        if self.done is not None:
            done, self.done = self.done, None
            done([self.debriefs[i] for i in self.people])

    def action_close(self) -> None:
        self._report()
        super().action_close()

    def on_unmount(self) -> None:  # and then SummaryScreen's, which stops a solve under way
        self._report()

    def _refresh(self, player: int) -> None:
        """Numbers can arrive while the screen's widgets come or go (a table's debrief line races the screen
        closing): they are kept in `debriefs` either way, and drawn where the widget is there."""
        for w in self.query(f"#debrief-{player}").results(SteadyStatic):
            w.show(self._debrief_view(player))  # numbers in place of "…": a layout only if a line is added

    def _debrief_view(self, player: int) -> Group:
        g, d = self.session.neg.game, self.debriefs[player]
        t = FitTable(title=f"your game as {player_label(g.scenario.players[player])}")
        t.add_column("against")
        t.add_column("payoff", justify="right")
        t.add_column("yours − it", justify="right")
        t.add_column("what it is", style="dim")

        def row(what: str, value: float | None, meaning: str) -> None:
            if value is None:
                t.add_row(what, "…", "", meaning)
                return
            diff = d.payoff - value
            t.add_row(what, f"{value:z.2f}", Text(f"{diff:+z.2f}", style=palette.signed(diff)), meaning)

        t.add_row("your payoff", f"{d.payoff:z.2f}", "", "what your seat got in this game")
        row("no negotiation", d.baseline, "everyone commits only what is best for itself alone")
        for k, lens in enumerate(coach_lenses(g)):
            row(f"{lens} bot in your seat", d.counterfactual.get(lens),
                "the game replayed with that bot in your seat, against the same opponents" if k == 0 else "")
        row("welfare optimum", d.seat_at_optimum, "your payoff in the completion with the largest sum of payoffs")
        parts: list = [t]
        sheet = Sheet.of(g)
        if sheet is not None:  # a case of issues: what was agreed, in its own terms
            parts += self._agreed(sheet, player)
        if d.costliest:
            again = " (press the number to play again from that turn)" if self.retry is not None else ""
            parts.append(Text(f"your costliest decisions{again}:", style="bold"))
            decisions = Table.grid(padding=(0, 2))  # the numbers in a column: wrapped lines keep under the words
            decisions.add_column(no_wrap=True)
            decisions.add_column()
            for k, a in enumerate(d.costliest, start=1):
                what = "offer" if a.phase.value == "propose" else "answer"
                yours = choice_words(g, a.yours) if a.yours is not None else ""
                words = Text(f"turn {shown_turn(a.t)}, your {what}: {yours}\n")
                words.append(summary(g, a), style="dim")
                decisions.add_row(f" {k}", words)
            parts.append(decisions)
        elif self.session.assessments and g.simultaneous:  # no exact solution; the plain reading (DEBRIEF_NOTE)
            alone = "the lens bots, each judged as its turn's only deal"
            parts.append(_nothing_cost(d.payoff, d.counterfactual, alone))
        elif self.session.assessments:  # judged by the exact solution only where the game was small enough for it
            exact = all(a.reference == "exact" for a in self.session.assessments)
            against = "the lens bots and the exact solution" if exact else "the lens bots (the game is too large to " \
                "solve exactly)"
            parts.append(_nothing_cost(d.payoff, d.counterfactual, against))
        return Group(*parts)

    def _agreed(self, sheet: Sheet, player: int) -> list:
        """Each issue: the option settled (or open), who backed it, its points to the seat, and the best the
        seat could have had there; then the payoff in points."""
        bits = self.session.state.bits
        names = sheet.names
        t = FitTable(title="what was agreed on each issue")
        for col in ("issue", "settled on", "backed by", "yours", "best for you"):
            t.add_column(col, justify="right" if col == "yours" else "left")
        for issue in sheet.issues(bits, player):
            done, top = issue.outcome, issue.best
            who = ", ".join("you" if k == player else names[k] for k in done.backers) if done else ""
            top_words = f"{top.id} ({_pts(top)})" if top is not done else "this"
            t.add_row(issue.label, done.id if done else Text("open", style="dim"), who,
                      _pts(done) if done else "", top_words)
        return [t, Text(sheet.summary(bits, player))]

    def action_retry(self, k: int) -> None:
        picks = [a for i in self.people for a in self.debriefs[i].costliest]
        if self.retry is None or k >= len(picks):
            return
        app, retry = self.app, self.retry
        self.action_close()
        app.call_after_refresh(retry, picks[k].t)  # once this dialog is gone


def _nothing_cost(payoff: float, bots: dict[str, float], against: str) -> Text:
    """No decision judged alone cost anything; said plainly only where no lens bot in the seat did better over the
    whole game, since the table just above would otherwise contradict it (the cost is then in how the decisions
    played together, or in what the others made of them: under simultaneous rules, a deal voided in its turn)."""
    better = {lens: v - payoff for lens, v in bots.items() if v - payoff > 1e-6}
    if not better:
        return Text(f"no decision of yours cost anything against {against}", style=palette.POSITIVE)
    gaps = sorted(set(round(x, 2) for x in better.values()))
    by = f"{gaps[0]:z.2f}" if len(gaps) == 1 else f"{gaps[0]:z.2f} to {gaps[-1]:z.2f}"
    who = "every lens bot" if len(better) == len(bots) else \
        f"the {' and '.join(better)} bot{'s' * (len(better) > 1)}"
    return Text(f"no decision of yours, judged one at a time against {against}, cost anything; yet {who} in your "
                f"seat did {by} better over the whole game (above): the difference is in how your decisions played "
                "together and how the others answered them")


def _pts(o: OptionState) -> str:
    """An option's points to the seat ('25'), or its value above the issue's share where the points are not known."""
    return f"{o.value:+z.4g} net" if o.points is None else f"{o.points:z.4g}"
