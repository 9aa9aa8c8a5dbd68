"""Every dialog of a game at 80×24, the smallest terminal the app plays on: what it is for in sight, the rest
scrolling within the terminal (a seat dialog showed no seat, the welfare dialog hid its table under the optimum's
commitments, a partner list ran past the edge with the cursor).

The SVG snapshots are of the largest bundled scenario (22 players, 176 actions); the checks of sizes are of
the games a newcomer meets first.  Regenerate the SVGs after an intended change with
`pytest tests/tui/test_dialogs_80x24.py --snapshot-update` and look at them before committing."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Input, Static

from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.dialogs import HelpScreen, PartnerScreen, RespondScreen
from negtui.tui.screens.picker import GenerateScreen
from negtui.tui.screens.seats import SeatsScreen
from negtui.tui.screens.summary import SummaryScreen
from negtui.tui.screens.welfare import WelfareScreen
from tests.paths import LARGE_BALANCED, RIVER_BASIN, SIX, TEACHING, TWENTY_TWO

SIZE = (80, 24)
BOT = Seat.lens("myopic", partner="greedy", sims=4)  # quick, and the same move every run


def big_app(**seats: Seat) -> NegtuiApp:
    """The 22-party game, every seat a quick bot but those given."""
    everyone = {f"P{i}": BOT for i in range(22)}
    return NegtuiApp(TWENTY_TWO, seats={**everyone, **seats}, ask_seats=False, record=False, partner="greedy",
                     sims=4)


def shown(widget: Widget) -> Region:
    """The part of a widget the terminal shows: inside its dialog's box, over the key bar."""
    box = widget.screen.query_one("#dialog")
    return widget.region.intersection(box.content_region).intersection(Region(0, 0, SIZE[0], SIZE[1] - 1))


def wholly_shown(widget: Widget) -> bool:
    return widget.region.height > 0 and shown(widget) == widget.region


# --- what each dialog shows at 80×24 -------------------------------------------------------------------------

@pytest.mark.asyncio
@pytest.mark.parametrize("scenario", [SIX, LARGE_BALANCED, RIVER_BASIN], ids=["six-party", "large-balanced",
                                                                             "river-basin"])
async def test_the_seat_dialog_shows_every_seat_of_a_game_of_up_to_ten_players(scenario, wait_until, laid_out):
    """At 80×24 `negtui play six-party` showed no seat at all (the note on why bots play a lens and the one on
    why exact is not offered took every row), `large-balanced` none, `river-basin-treaty` 3 of 8; the notes
    now give way to the seats."""
    app = NegtuiApp(scenario, ask_seats=True, record=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen) and laid_out(app), "the seat dialog")
        dialog = app.screen
        if scenario == SIX:  # the exact lens's note comes a moment later, from the check of the game's size
            await wait_until(pilot, lambda: len(dialog.query(".seat-note")) == 2 and laid_out(app),
                             "the note on why exact is not offered")
        rows = dialog.grid.rows
        assert wholly_shown(dialog.query_one("#seat-list")), dialog.query_one("#seat-list").region
        assert dialog.query_one("#seat-list").size.height == len(rows)  # every seat, and the every-seat row
        assert wholly_shown(dialog.query_one("#done"))
        notes = dialog.query_one("#seat-notes")
        assert notes.size.height >= 2 and wholly_shown(notes)  # the notes too, scrolling where they must


@pytest.mark.asyncio
async def test_the_seat_dialog_of_22_players_scrolls_its_seats_and_keeps_the_cursor_in_sight(wait_until, laid_out):
    app = NegtuiApp(TWENTY_TWO, ask_seats=True, record=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SeatsScreen) and laid_out(app), "the seat dialog")
        dialog = app.screen
        seats = dialog.query_one("#seat-list")
        assert wholly_shown(seats) and seats.size.height >= 10
        await pilot.press("end")  # the last seat
        await wait_until(pilot, lambda: seats.scroll_y == seats.max_scroll_y > 0 and laid_out(app), "the list scrolled")
        cursor = dialog.grid.cell_region(len(dialog.grid.rows) - 1, 0)
        assert shown(seats).contains_region(cursor), (cursor, shown(seats))


@pytest.mark.asyncio
async def test_the_welfare_dialog_of_make_plays_game_shows_its_table_and_scrolls_the_rest(wait_until, laid_out,
                                                                                          screen_text):
    """`make play`'s game, `w`: the per-player table was below the terminal's edge, under a dozen lines of
    the commitments the optimum adds, and the dialog could not scroll."""
    app = NegtuiApp(RIVER_BASIN, ask_seats=False, record=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, WelfareScreen) and app.screen.result is not None
                         and laid_out(app), "the welfare result", timeout=60)
        dialog = app.screen
        await wait_until(pilot, lambda: dialog.query_one("#welfare-body").max_scroll_y > 0 and laid_out(app),
                         "the results fitted to the terminal")
        body = dialog.query_one("#welfare-body")
        assert wholly_shown(body), body.region
        assert wholly_shown(dialog.query_one("#welfare-table"))  # every player's row
        text = screen_text(app)
        assert "Basin Civil Society" in text and "gap" in text
        adds = dialog.query_one("#welfare-adds")
        assert not wholly_shown(adds)  # what the optimum adds runs on below: scrolled to
        await pilot.press("end")  # the results have the keys: arrows, page keys, home and end scroll them
        await wait_until(pilot, lambda: body.scroll_y == body.max_scroll_y and laid_out(app), "scrolled to the end")
        assert shown(adds).bottom == adds.region.bottom


@pytest.mark.asyncio
async def test_the_generate_dialogs_refusal_shows_at_80x24(wait_until, laid_out, tmp_path):
    """`negtui play`, g, players 2, enter: the refusal and the buttons in sight, the form's fields scrolling."""
    app = NegtuiApp(None, record=False, data_dir=tmp_path, scenarios_dir=TEACHING)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GenerateScreen) and laid_out(app), "the form")
        form = app.screen
        form.query_one("#gen-players", Input).value = "2"
        await pilot.press("enter")
        error = form.query_one("#gen-error", Static)
        await wait_until(pilot, lambda: "at least 3 players" in str(error.render()) and laid_out(app), "the refusal")
        assert wholly_shown(error) and wholly_shown(form.query_one("#go"))
        assert wholly_shown(form.query_one("#gen-rules"))  # compact: every field shows at once


@pytest.mark.asyncio
async def test_the_partner_dialog_of_22_players_scrolls_within_the_terminal(wait_until, laid_out):
    app = big_app(P18=Seat.human())  # P18 proposes first
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen) and laid_out(app), "the partner dialog")
        partners = app.screen.query_one("#partners")
        await wait_until(pilot, lambda: wholly_shown(partners), "the list fitted to the terminal")
        await pilot.press("end")  # the last partner: the list scrolls to it, in sight
        await wait_until(pilot, lambda: partners.scroll_y == partners.max_scroll_y > 0 and laid_out(app), "scrolled")
        assert wholly_shown(partners)


# --- snapshots ------------------------------------------------------------------------------------------------

def wait_for(cond, what: str):
    async def run_before(pilot) -> None:
        from tests.conftest import wait_until
        from tests.tui.conftest import laid_out

        await wait_until(pilot, lambda: cond(pilot.app) and laid_out(pilot.app), what, timeout=60)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return run_before


def test_snapshot_seats_80x24(snap_compare):
    app = NegtuiApp(TWENTY_TWO, ask_seats=True, record=False)
    assert snap_compare(app, terminal_size=SIZE,
                        run_before=wait_for(lambda a: isinstance(a.screen, SeatsScreen), "the seat dialog"))


def test_snapshot_partner_80x24(snap_compare):
    """The game under the dialog is laid out again as its panes answer their first sizes, after the dialog drew
    its backdrop: the backdrop shows the game as it is once it has settled (taken before, the picture
    depended on how soon the snapshot came)."""
    assert snap_compare(big_app(P18=Seat.human()), terminal_size=SIZE,
                        run_before=wait_for(lambda a: isinstance(a.screen, PartnerScreen)
                                            and wholly_shown(a.screen.query_one("#partners"))
                                            and a.screen._backdrop is not None and a.screen._settling is None,
                                            "the partner dialog, its backdrop settled"))


def test_snapshot_respond_80x24(snap_compare):
    """P18 (a bot) offers P10 (a person) a deal."""
    async def run_before(pilot) -> None:
        await pilot.pause()
        await pilot.press("n")
        await wait_for(lambda a: isinstance(a.screen, RespondScreen), "P18's offer to P10")(pilot)

    assert snap_compare(big_app(P10=Seat.human()), terminal_size=SIZE, run_before=run_before)


def test_snapshot_welfare_80x24(snap_compare, monkeypatch):
    async def run_before(pilot) -> None:
        await pilot.pause()
        await pilot.press("w")
        await wait_for(lambda a: isinstance(a.screen, WelfareScreen) and a.screen.result is not None
                       and a.screen.query_one("#welfare-body").max_scroll_y > 0, "the welfare optimum")(pilot)

    monkeypatch.setattr(WelfareScreen, "on_welfare_solved", _solved_in_a_second)  # its time, the same each run
    assert snap_compare(big_app(), terminal_size=SIZE, run_before=run_before)


_solve_shown = WelfareScreen.on_welfare_solved


def _solved_in_a_second(self, message) -> None:
    message.seconds = 1.0
    _solve_shown(self, message)


def test_snapshot_generate_refused_80x24(snap_compare, tmp_path):
    async def run_before(pilot) -> None:
        await pilot.press("g")
        await wait_for(lambda a: isinstance(a.screen, GenerateScreen), "the form")(pilot)
        await pilot.press("backspace", "2", "enter")
        await wait_for(lambda a: "at least 3" in str(a.screen.query_one("#gen-error", Static).render()),
                       "the refusal")(pilot)

    app = NegtuiApp(None, record=False, data_dir=tmp_path, scenarios_dir=TEACHING)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_help_80x24(snap_compare):
    async def run_before(pilot) -> None:
        await pilot.pause()
        await pilot.press("question_mark")
        await wait_for(lambda a: isinstance(a.screen, HelpScreen), "help")(pilot)

    assert snap_compare(big_app(), terminal_size=SIZE, run_before=run_before)


def test_snapshot_game_over_80x24(snap_compare):
    """The game-over dialog over the game (its table first, the rest scrolling), the welfare optimum solved."""
    async def run_before(pilot) -> None:
        app = pilot.app
        await pilot.pause()
        game = app.game
        summary = SummaryScreen(game.neg, game.neg.returns(game.state), game.baseline, {}, None)
        app.push_screen(summary)
        await wait_for(lambda a: a.screen is summary and any("utilitarian optimum" in str(line.render())
                                                             for line in summary.query("#summary-welfare")),
                       "the summary and its optimum")(pilot)

    assert snap_compare(big_app(), terminal_size=SIZE, run_before=run_before)
