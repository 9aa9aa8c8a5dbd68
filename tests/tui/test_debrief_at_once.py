"""A small game's debrief opens complete (negtui/tui/screens/debrief.py, summary.py): the replays of the
seat and the welfare optimum take milliseconds, worked out before the first frame; a larger game's are left
to workers and fill the screen as they arrive."""

from __future__ import annotations

import threading

import pytest

from negtui.agents import AgentOptions
from negtui.engine import get_rules
from negtui.engine.vocabulary import CLOSED_FORM_LENSES
from negtui.play.live import LiveGame
from negtui.play.sources import Ending
from negtui.scenario import load_scenario
from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens import debrief as debrief_screen
from negtui.tui.screens import summary
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.widgets.rendered import SteadyStatic
from tests.paths import PILL

pytestmark = pytest.mark.asyncio


def pill_ending() -> Ending:
    """The poison pill played to its end by upper bots, B the person debriefed."""
    sc = load_scenario(PILL)
    game = LiveGame(sc, get_rules("paper"), {pid: Seat.lens("upper") for pid in sc.player_ids},
                    options=AgentOptions())
    while not game.over:
        for move in game.think():
            game.submit(move)
    return Ending(game, [1], {lens: v[0] for lens, v in game.history.items()}, closing=None)


async def debrief_opened(app: NegtuiApp, pilot) -> tuple[DebriefScreen, list[str], list[str]]:
    """The debrief pushed: the screen, the workers it started and the welfare line as its first frame drew it."""
    screen = DebriefScreen(pill_ending())
    await app.push_screen(screen)
    first = str(screen.query_one("#summary-welfare", SteadyStatic).content)
    workers = [f"{w.group}:{w.name}" for w in app.workers if w.node is screen]
    return screen, workers, [first]


async def test_a_small_games_debrief_is_complete_before_its_first_frame(monkeypatch, wait_until):
    # what is tested is the choice made within the budget, not the replays' speed (a benchmark's business):
    # a budget no loaded machine misses (30 ms did, once, under a full suite on two cores)
    monkeypatch.setattr(debrief_screen, "AT_ONCE_SECONDS", 5.0)
    app = NegtuiApp(None, record=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        screen, workers, (welfare_line,) = await debrief_opened(app, pilot)
        assert workers == []
        d = screen.debriefs[1]
        assert sorted(d.counterfactual) == sorted((*CLOSED_FORM_LENSES, "learned"))
        assert d.welfare_optimum is not None and d.seat_at_optimum is not None
        assert welfare_line.startswith("utilitarian optimum"), welfare_line
        assert not screen._pending  # nothing left to arrive


async def test_past_the_budget_the_numbers_arrive_from_workers(monkeypatch, wait_until):
    monkeypatch.setattr(debrief_screen, "AT_ONCE_SECONDS", 0.0)
    monkeypatch.setattr(summary, "AT_ONCE_FREE_CELLS", 0)
    solve = threading.Event()  # the optimum's worker waits for the first frame to be read
    enumerated = summary.SummaryScreen._enumerated
    monkeypatch.setattr(summary.SummaryScreen, "_enumerated", lambda self: solve.wait(10) and enumerated(self))
    app = NegtuiApp(None, record=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        screen, workers, (welfare_line,) = await debrief_opened(app, pilot)
        solve.set()
        assert sorted(workers) == ["debrief:<lambda>", "welfare:_enumerate"], workers
        assert "solving" in welfare_line
        await wait_until(pilot, lambda: not screen._pending, "the replays and the optimum")
        assert sorted(screen.debriefs[1].counterfactual) == sorted((*CLOSED_FORM_LENSES, "learned"))
        assert "utilitarian optimum" in str(screen.query_one("#summary-welfare", SteadyStatic).content)


@pytest.mark.parametrize("guarded", [True, False])
async def test_a_debrief_whose_scrollbar_appears_is_laid_out_twice(guarded, wait_until):
    """As it opens and once for its scrollbar, and the picker below it not at all; without our screens'
    override, its first size, passed on to the picker below, laid the picker out again."""
    from contextlib import nullcontext

    from negtui.tui.screen_base import NegtuiScreen
    from tests.tui.layouts import as_textuals, screens_laid_out

    app = NegtuiApp(None, record=False)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        with as_textuals(NegtuiScreen, "_screen_resized") if not guarded else nullcontext(), \
                screens_laid_out() as laid_out:
            screen = DebriefScreen(pill_ending())
            await app.push_screen(screen)
            for _ in range(6):
                await pilot.pause(0.05)
        assert screen.query_one("#dialog").show_vertical_scrollbar
    assert (laid_out == ["DebriefScreen"] * 2) is guarded, laid_out


async def test_a_tables_numbers_told_before_the_debrief_opens_are_shown_as_it_opens():
    """At a table the numbers come from the table; those that came before the debrief opened used to be left
    out (told as it mounted, it was not yet counted mounted), and the welfare line said "solving …" for good."""
    from negtui.coach.closing import Closing

    ending = pill_ending()
    closing = Closing(welfare=(60.0, [30.0, 30.0]), welfare_done=True,
                      counterfactual={"B": {lens: 30.0 for lens in CLOSED_FORM_LENSES}})
    app = NegtuiApp(None, record=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        screen = DebriefScreen(Ending(ending.game, ending.people, ending.first_forecasts, closing=closing))
        await app.push_screen(screen)
        await pilot.pause()
        assert str(screen.query_one("#summary-welfare", SteadyStatic).content).startswith("utilitarian optimum 60.00")
        assert screen.debriefs[1].counterfactual == {lens: 30.0 for lens in CLOSED_FORM_LENSES}
        assert not screen._pending


async def test_a_debriefs_tables_are_rendered_at_one_width(monkeypatch):
    """The debrief's body scrolls beside a scrollbar always shown: its tables are measured at the width they
    are drawn at (Textual measured them at the whole width first, and every table was rendered twice)."""
    from negtui.tui.widgets import rendered

    widths: dict[int, set[int]] = {}
    real = rendered.RenderedOnce._render_at

    def render_at(self, width: int) -> None:
        widths.setdefault(id(self), set()).add(width)
        real(self, width)

    monkeypatch.setattr(rendered.RenderedOnce, "_render_at", render_at)
    app = NegtuiApp(None, record=False)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        screen, _, _ = await debrief_opened(app, pilot)
        await pilot.pause()
        body = screen.query_one("#dialog")
        assert body.show_vertical_scrollbar
        assert len(widths) >= 2
        assert all(w == {body.scrollable_content_region.width} for w in widths.values()), widths


async def test_a_costly_decisions_words_wrap_under_themselves(pill_app, wait_until):
    """At 80 columns the coach's words on a costly decision take several lines: each keeps under the first
    word, none starts at the margin, and the number stands alone in its column."""
    from negtui.seats import Seat
    from negtui.tui.screens.dialogs import RespondScreen

    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")  # A (myopic) offers the poisoned bundle
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "A's offer")
        await pilot.press("a")  # B accepts it: a decision the upper lens and the exact solution call costly
        # (B's own turn then passes by itself: nothing of B's is left to offer)
        await wait_until(pilot, lambda: isinstance(app.screen, DebriefScreen), "the debrief")
        view = app.screen.query_one("#debrief-1", SteadyStatic)
        await wait_until(pilot, lambda: "costliest" in "".join(s.text for s in view.render_lines(
            view.region.reset_offset)), "the costliest decisions drawn")
        lines = [s.text.rstrip() for s in view.render_lines(view.region.reset_offset)]
        first = next(k for k, line in enumerate(lines) if line.startswith(" 1  turn 1, your answer: accept"))
        said = lines[first + 1:]
        said = said[:next((k for k, line in enumerate(said) if not line.startswith("    ")), len(said))]
        assert said[0].startswith("    coach, turn 1:") and len(said) >= 3, lines[first:]
        assert "".join(said).count("Why:") == 1  # the whole summary, under its words
