"""A person's turn among bots that autoplay: what the app says after the person decides (autoplay goes on,
and `r` pauses it), and a turn where the person can do nothing but pass (no partner dialog of partners with
nothing to offer, turn after turn: the pass is made, and the status says why)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.dialogs import PartnerScreen
from negtui.tui.screens.summary import SummaryScreen

pytestmark = pytest.mark.asyncio


def three(tmp_path: Path) -> Path:
    """A commits x alone and gains; B's y and C's z are worth nothing to anyone who could ask for them (y
    costs A and B, z costs C): once x is made, A has nothing to give and nobody takes anything from A."""
    sc = {"format": "negtui-scenario/1", "name": "spent",
          "players": [{"id": "A", "actions": [{"id": "x"}]}, {"id": "B", "actions": [{"id": "y"}]},
                      {"id": "C", "actions": [{"id": "z"}]}],
          "goals": [{"id": "gx", "requires": [{"player": "A", "action": "x"}], "values": {"A": 10}},
                    {"id": "gy", "requires": [{"player": "B", "action": "y"}], "values": {"A": -5, "B": -1}},
                    {"id": "gz", "requires": [{"player": "C", "action": "z"}], "values": {"C": -1}}],
          "protocol": {"rounds": 1, "budget": 1, "schedule": ["A", "B", "C", "A"]}}
    path = tmp_path / "spent.json"
    path.write_text(json.dumps(sc))
    return path


def app_on(path: Path) -> NegtuiApp:
    return NegtuiApp(path, seats={"A": Seat.human(), "B": Seat.lens("myopic"), "C": Seat.lens("myopic")},
                     ask_seats=False, record=False)


async def test_a_decision_while_autoplay_runs_says_it_runs_on(tmp_path, wait_until, play_screen, autoplay_clock):
    app = app_on(three(tmp_path))
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "A's partner dialog")
        screen = play_screen(app)
        clock = autoplay_clock(screen)
        await pilot.press("escape", "r")  # autoplay on, at a person's turn: it waits for them
        assert screen.autoplay.running
        await pilot.press("x")  # A passes; the bots' turns wait on the held clock
        await wait_until(pilot, lambda: app.game.state.t == 1, "A's pass")
        assert "A passes" in screen.view.status_text and "autoplay runs on: r pauses it" in screen.view.status_text
        assert clock.pending, "the next bot's turn is scheduled: autoplay is still running"
        await pilot.press("r")
        assert not screen.autoplay.running


async def test_a_person_who_can_only_pass_is_passed_with_the_reason(tmp_path, wait_until, play_screen):
    app = app_on(three(tmp_path))
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "A's partner dialog")
        await pilot.press("escape")
        screen = play_screen(app)
        screen.source.draft(0, (0,))  # A alone: x
        screen.action_submit()
        await wait_until(pilot, lambda: app.game.state.t == 1, "A's commitment")
        dialogs: list[int] = []  # the turns a partner dialog opened on
        push = app.push_screen

        def pushed(screen, *args, **kwargs):
            if isinstance(screen, PartnerScreen):
                dialogs.append(app.game.state.t)
            return push(screen, *args, **kwargs)

        app.push_screen = pushed
        await pilot.press("r")  # B and C decide; then A, with x made and nothing worth asking for
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the game's end")
        assert dialogs == [], "a partner dialog opened on a turn that could only be a pass"
        last = app.game.events[-1]
        assert (last.proposer, last.offer.is_noop) == (0, True)
        assert ("A passed: its own actions are all made or ruled out, and under no lens would a partner accept an "
                "offer worth anything to it") in screen.view.status_text


async def test_a_step_of_autoplay_due_after_the_person_put_the_dialog_aside_does_not_open_it_again(
        tmp_path, wait_until, play_screen):
    """Autoplay schedules its next step a moment ahead; when it comes due the turn may be a person's, already
    prompted and put aside with escape. That step leaves it aside (p or space opens it again), where it used
    to open the partner dialog over whatever the person was doing (found in a course's assessment test)."""
    app = app_on(three(tmp_path))
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "A's partner dialog")
        await pilot.press("escape")
        game = play_screen(app)
        await wait_until(pilot, lambda: app.screen is game, "the dialog put aside")
        game._autoplay_step()  # the step autoplay scheduled before A's turn, due now
        for _ in range(3):
            await pilot.pause()
        assert app.screen is game
        await pilot.press("p")  # the person opens it again
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the dialog on p")
