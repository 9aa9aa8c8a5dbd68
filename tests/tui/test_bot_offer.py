"""A bot's offer to a person: the answer dialog with its preview, accepted or rejected, from a built-in lens
bot or from an outside program in the seat.  On the poison pill a myopic A offers B the bundle
bait+poison, which leaves A 40 and B 7 if B accepts."""

from __future__ import annotations

import numpy as np
import pytest

from negtui.seats import Seat
from negtui.tui.screens.dialogs import PartnerScreen, RespondScreen
from negtui.tui.screens.game import GameScreen
from negtui.tui.screens.summary import SummaryScreen
from tests.paths import LENS_AGENT

# poison-pill cells, player-major: A.bait, A.side, B.bait, B.poison
A_BAIT, A_SIDE, B_BAIT, B_POISON = 0, 1, 2, 3

pytestmark = pytest.mark.asyncio


@pytest.fixture
def bot_offer_to_human_b(settle, wait_until, screen_text):
    """A (a bot) offers B (a person) the bundle: the answer dialog, checked before B answers."""
    async def bot_offer_to_human_b(pilot, app) -> RespondScreen:
        assert isinstance(app.screen, GameScreen) and not app.game.is_human(app.game.proposer)
        await pilot.press("n")
        await settle(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "the answer dialog")
        await wait_until(pilot, lambda: "A offers B a deal" in screen_text(app), "the answer dialog drawn")
        dlg = app.screen
        assert dlg.title_text == "A offers B a deal"
        assert dlg.words == "A commits bait; B commits bait, poison"
        assert dlg.preview.partner["myopic"].accept == pytest.approx(7.0)
        assert dlg.preview.partner["myopic"].reject == pytest.approx(0.0)
        assert app.game.events == []  # nothing happens until B answers
        return dlg

    return bot_offer_to_human_b


async def test_bot_offer_to_human_accepted(screen_text, wait_until, pill_app, payoffs, bot_offer_to_human_b):
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await bot_offer_to_human_b(pilot, app)
        await pilot.press("a")
        await wait_until(pilot, lambda: app.game.events, "B's answer")
        ev = app.game.events[0]
        assert ev.accepted is True and ev.decided_by == "B (human)"
        assert app.game.state.bits == 0b1101
        assert payoffs(app) == [40.0, 7.0]
        # B's own turn now, with B's actions all made and nothing worth asking A for: passed, not asked
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")
        assert not any(isinstance(s, PartnerScreen) for s in app.screen_stack)
        assert app.game.events[-1].offer.is_noop
        assert app.game.over
        np.testing.assert_allclose(app.game.neg.returns(app.game.state), [40.0, 7.0])
        await wait_until(pilot, lambda: "Game over" in screen_text(app), "the summary drawn")
        text = screen_text(app)
        assert "40.00" in text and "7.00" in text


async def test_bot_offer_to_human_rejected_then_human_offers_bait(settle, wait_until, pill_app, payoffs,
                                                                  bot_offer_to_human_b):
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dialog = await bot_offer_to_human_b(pilot, app)
        await pilot.press("r")  # autoplay everywhere else: here it must not answer the offer
        await pilot.pause()
        assert app.screen is dialog and app.game.events == []
        await pilot.press("x")  # x rejects, as it passes a turn elsewhere: no deal
        await pilot.pause()
        ev = app.game.events[-1]
        assert ev.accepted is False and ev.decided_by == "B (human)"
        assert app.game.state.t == 1 and app.game.state.bits == 0  # no commitments from that turn
        assert payoffs(app) == [0.0, 0.0]
        # B proposes the bait alone to A; a myopic A accepts: 30/30
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's partner dialog")
        assert [o.partner for o in app.screen.options] == [0, 1]
        await pilot.press("enter")  # A
        await pilot.pause()
        await pilot.press("enter", "up", "up", "enter", "o")  # B.bait (the cursor starts on B's row), A.bait
        await settle(pilot)
        assert app.game.over
        assert app.game.events[-1].accepted is True and app.game.events[-1].decided_by == "A (myopic)"
        assert payoffs(app) == [30.0, 30.0]
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")


async def test_an_outside_program_in_a_seat_offers_to_a_person(play_screen, pill_app, payoffs, bot_offer_to_human_b,
                                                              wait_until):
    """A is a program speaking the agent protocol (the example lens agent, myopic): its offer reaches the
    person at B through the same reply dialog, and the matrix marks the offered cells behind it."""
    import shlex
    import sys

    agent = LENS_AGENT
    seat = Seat(agent="cmd", command=f"{shlex.quote(sys.executable)} {shlex.quote(str(agent))} --lens myopic")
    app = pill_app(A=seat, B=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dlg = await bot_offer_to_human_b(pilot, app)
        assert dlg.preview.partner["myopic"].gain == pytest.approx(7.0)
        assert play_screen(app).source.snapshot().offer_cells == {A_BAIT, B_BAIT, B_POISON}
        await pilot.press("a")
        await wait_until(pilot, lambda: app.game.events, "B's answer")
        ev = app.game.events[0]
        assert ev.accepted and ev.decided_by == "B (human)" and payoffs(app) == [40.0, 7.0]
        assert ev.offer.cells == (A_BAIT, B_BAIT, B_POISON) and ev.fault is None
        assert app.game.seats["A"].label.startswith("cmd: ")


async def test_an_offer_put_aside_stays_aside_until_asked_for(settle, wait_until, pill_app, bot_offer_to_human_b,
                                                              screen_text):
    """Escape puts the answer dialog aside; whatever comes meanwhile (at a table: someone leaves, a message
    arrives, and each redraws the game) must not bring it back in the person's face; n brings it back."""
    app = pill_app(A=Seat.lens("myopic"), B=Seat.human())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await bot_offer_to_human_b(pilot, app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, GameScreen), "the dialog put aside")
        assert "it waits for your answer" in screen_text(app)
        for _ in range(3):  # what a table line does: the screen goes on from where the game is
            app.screen.advance()
            await settle(pilot)
        assert isinstance(app.screen, GameScreen) and app.game.events == []
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "the offer asked for again")
