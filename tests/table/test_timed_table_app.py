"""The app at a table whose clocks end things: a round timer at a private-role table ends the game on every
person's screen (the reveal of everyone's values, then the debrief, saying the clock ended it), and a decision
whose time ran out closes its dialog and says what the table decided."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from negtui.table.client import TableClient
from negtui.table.source import TableSource
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import RespondScreen
from negtui.tui.table_app import TableApp
from tests.paths import TEACHING
from tests.table.conftest import table_spec

pytestmark = pytest.mark.asyncio

CAR = TEACHING / "private-car-sale.json"


def seated_app(path: Path, name: str, seat: str) -> TableApp:
    client = TableClient(path)
    client.send({"type": "join", "name": name, "seat": seat})
    welcome = client.receive(30)
    assert welcome is not None and welcome["you"] == seat
    return TableApp(TableSource(client, welcome))


async def test_a_round_timer_at_a_private_table_ends_the_game_on_both_screens(open_table, wait_until, screen_text,
                                                                            tmp_path: Path) -> None:
    """Two people at the car sale, each with their own secret limit, a round of 3 s, nobody moves: both apps
    get the reveal (the copy played again on everyone's values, over as the table's is) and the debrief,
    which says the clock ended the game and where."""
    spec = table_spec(tmp_path, people=("B", "S"), scenario=CAR, information="private", game_time=3.0)
    table = open_table(spec)
    buyer, seller = seated_app(table.path, "alice", "B"), seated_app(table.path, "bob", "S")
    async with buyer.run_test(size=(120, 40)) as pilot, seller.run_test(size=(120, 40)):
        await wait_until(pilot, lambda: table.host.game is not None and table.host.game.over, "the clock's end")
        assert table.host.game.ended == "clock"
        apps = (buyer, seller)
        await wait_until(pilot, lambda: all(isinstance(app.screen, DebriefScreen) for app in apps),
                         "the debrief on both screens", timeout=30)
        played = table.host.game.state.t
        said = ("Game over", f"the round's time ran out after {played} of 6 turns: the game ended as it stood",
                "every player's values are shown now")
        for app in apps:
            assert app.table.game.known is None and app.table.over  # every value revealed, over as it stood
            assert app.table.game.state == table.host.game.state and app.table.game.ended == "clock"
            await wait_until(pilot, lambda app=app: all(words in screen_text(app) for words in said),
                             "the end said on the screen")
            assert "game over" in screen_text(app).splitlines()[0]  # the headline: nobody is to move any more


async def test_a_decision_whose_time_ran_out_closes_its_dialog_and_says_so(open_table, person, wait_until,
                                                                          screen_text, tmp_path: Path) -> None:
    table = open_table(decision_time=2.0)
    app = seated_app(table.path, "alice", "A")
    async with app.run_test(size=(120, 40)) as pilot:
        bob = person(table.path, "bob")
        bob.expect("started")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "C's offer to A")
        timed_out = bob.expect("move", lambda m: m["move"]["player"] == "A")["move"]
        assert timed_out["phase"] == "respond" and timed_out["fault"] == "time ran out"
        deadline = time.monotonic() + 10
        while not any("your time ran out: the table rejected the offer to you" in n.message
                      for n in app._notifications):
            assert time.monotonic() < deadline, f"no word of the time-out\n{screen_text(app)}"
            await pilot.pause(0.05)
        assert not any(isinstance(s, RespondScreen) for s in app.screen_stack)  # the offer's dialog went
