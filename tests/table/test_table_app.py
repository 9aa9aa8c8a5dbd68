"""The app at a table, driven through Textual's pilot, with the other person a plain socket client: the
bot's offer answered in the dialog, a turn passed, a message each way, whose move it is and who is
online on the table pane, and the debrief at the end; the table's record holds it all."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from negtui.coach.debrief import counterfactuals
from negtui.engine.completions import utilitarian_optimum
from negtui.record import load_record
from negtui.record.audit import audit
from negtui.record.replay import Replay
from negtui.table.client import TableClient, TableGone
from negtui.table.source import TableSource
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import ConfirmScreen, PartnerScreen, RespondScreen
from negtui.tui.screens.say import SayScreen
from negtui.tui.table_app import TableApp

pytestmark = pytest.mark.asyncio


async def test_a_person_plays_a_whole_table_game_in_the_app(open_table, person, wait_until, screen_text,
                                                             tmp_path: Path) -> None:
    table = open_table()
    client = TableClient(table.path)
    client.send({"type": "join", "name": "alice"})
    welcome = client.receive(30)
    assert welcome is not None and welcome["you"] == "A"
    app = TableApp(TableSource(client, welcome))
    async with app.run_test(size=(120, 40)) as pilot:
        bob = person(table.path, "bob")
        bob.expect("started")
        # turn 0: the bot C offers A a deal; the app asks alice
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "C's offer to A")
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "alice's own turn")
        accepted = bob.expect("move", lambda m: m["move"]["player"] == "A")["move"]
        assert accepted == {"t": 0, "player": "A", "phase": "respond", "accept": True}
        await pilot.press("x")  # pass
        assert bob.expect("move", lambda m: m["move"]["player"] == "A")["move"]["cells"] == []
        await wait_until(pilot, lambda: "coach, turn 2" in screen_text(app), "alice's pass coached")
        await pilot.press("6")  # the coach pane came up with alice's coaching: back to the table's
        await wait_until(pilot, lambda: "B · Operations  bob ● online" in screen_text(app), "bob on the table pane")
        bob.send({"type": "say", "text": "hello alice"})
        await wait_until(pilot, lambda: "B · Operations (bob) → everyone: hello alice" in screen_text(app),
                         "bob's message")
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, SayScreen), "the message dialog")
        await pilot.press(*"hi bob", "enter")
        assert bob.expect("said", lambda m: m["said"]["sender"] == "A")["said"] == {
            "t": 2, "sender": "A", "to": None, "text": "hi bob"}
        await pilot.press("q")  # leaving a table is asked first
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question before leaving")
        await pilot.press("n")
        assert app.is_running and not app.table.client.closed
        # the rest of the game: bob passes and rejects, alice passes
        host = table.host
        deadline = time.monotonic() + 60
        while not (host.game.over and isinstance(app.screen, DebriefScreen)):
            assert time.monotonic() < deadline, f"the game did not end; screen is {app.screen}"
            game = host.game
            if not game.over and not host.thinking and game.waiting_for_person():
                s, who = game.state, game.neg.game.player_ids[game.deciding]
                if who == "B":
                    bob.send({"type": "move", "t": s.t, "phase": "respond", "accept": False} if s.pending else
                             {"type": "move", "t": s.t, "phase": "propose", "partner": "B", "cells": []})
                    bob.expect("move", lambda m, t=s.t: m["move"]["t"] == t and m["move"]["player"] == "B")
                elif isinstance(app.screen, (PartnerScreen, RespondScreen)):
                    await pilot.press("x")  # passes a turn, rejects an offer
            await pilot.pause(0.05)
        assert app.table.game.state == host.game.state  # alice's copy is the table's game
        # the debrief's slow numbers come from the table, worked out once: alice's seat's games reach
        # her debrief, bob is told only his own, and the app plays none of them itself
        debrief_screen = app.screen
        await wait_until(pilot, lambda: "welfare" not in debrief_screen._pending and 0 not in debrief_screen._pending,
                         "the table's debrief numbers", timeout=60)
        g = host.game
        assert debrief_screen.debriefs[0].counterfactual == counterfactuals(g.neg, g.seating.seats, 0, g.start)
        assert debrief_screen.debriefs[0].welfare_optimum == utilitarian_optimum(g.neg.game)[0]
        told = bob.expect("debrief", lambda m: m["counterfactual"])
        assert set(told["counterfactual"]) == {"B"}
        assert not [w for w in app.workers if w.group == "debrief"]
        assert "upper bot in your seat" in screen_text(app) and "welfare optimum: solving" not in screen_text(app)
    table.stop()
    rec = load_record(tmp_path / "table.jsonl")
    assert rec.complete and [(m.sender, m.text) for m in rec.messages] == [("B", "hello alice"), ("A", "hi bob")]
    assert audit(Replay(rec)) == []


async def test_under_private_roles_no_other_players_value_reaches_the_screen_until_the_end(
        open_table, person, wait_until, screen_text, tmp_path: Path) -> None:
    """Alice's screens through a whole game, every side pane and the focused cells of every player
    included, hold no value of Bob's or the bot's; her role is on the table pane; the end reveals all."""
    from tests.secrets import leaks, write_secret_scenario
    from tests.table.conftest import table_spec

    spec = table_spec(tmp_path, scenario=write_secret_scenario(tmp_path / "secret.json"), information="private",
                      roles={"A": "Finance: the raid is worth 10 to you"})
    table = open_table(spec)
    client = TableClient(table.path)
    client.send({"type": "join", "name": "alice"})
    welcome = client.receive(30)
    assert welcome is not None
    app = TableApp(TableSource(client, welcome))
    seen: list[str] = []
    async with app.run_test(size=(160, 50)) as pilot:
        bob = person(table.path, "bob")
        bob.expect("started")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "C's offer to A")
        seen.append(screen_text(app))
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "alice's own turn")
        seen.append(screen_text(app))
        await pilot.press("escape")  # look around before deciding: every pane, every player's cells
        for pane in "12456":
            await pilot.press(pane)
            for _ in range(6):
                await pilot.press("down")
                seen.append(screen_text(app))
        assert "Finance: the raid is worth 10 to you" in "\n".join(seen)
        assert "values of B (secret)" in "\n".join(seen) and "? another player's values are secret" in "\n".join(seen)
        await pilot.press("w")  # no welfare optimum while values are secret
        assert not isinstance(app.screen, DebriefScreen) and "welfare" not in type(app.screen).__name__.lower()
        host = table.host
        deadline = time.monotonic() + 60
        while not isinstance(app.screen, DebriefScreen):
            assert time.monotonic() < deadline, (f"the game did not end; screen is {app.screen}; table at "
                                                 f"{host.game.state}, over {host.game.over}\n{screen_text(app)}")
            game = host.game
            if not game.over and not host.thinking and game.waiting_for_person():
                s, who = game.state, game.neg.game.player_ids[game.deciding]
                if who == "B":
                    bob.send({"type": "move", "t": s.t, "phase": "respond", "accept": True} if s.pending else
                             {"type": "move", "t": s.t, "phase": "propose", "partner": "C",
                              "cells": [] if s.bits else [["B", "joint"], ["C", "joint"]]})
                    bob.expect("move", lambda m, t=s.t: m["move"]["t"] == t and m["move"]["player"] == "B")
                elif isinstance(app.screen, (PartnerScreen, RespondScreen)):
                    await pilot.press("x")  # passes a turn, rejects an offer
                elif not app.screen.is_modal:
                    await pilot.press("x")
            seen.append(screen_text(app))
            await pilot.pause(0.05)
        assert leaks("\n".join(seen)) == []
        assert app.table.game.known is None and app.table.game.state == host.game.state
        payoffs = host.game.neg.returns(host.game.state)
        assert payoffs[1] not in (0, 10, 6, 16), payoffs  # Bob's: his own values, not Alice's
        await wait_until(pilot, lambda: all(f"{v:.2f}" in screen_text(app) for v in payoffs),
                         "everyone's payoff on everyone's values in the debrief", timeout=60)
    table.stop()


async def test_a_joiner_is_told_the_table_closed_and_the_dialog_goes(open_table, person, wait_until,
                                                                    screen_text) -> None:
    """Ctrl-C in the host's terminal ends the table (`host.end`): the offer's dialog open in a joiner's app
    closes, the screen says the table closed and why, and no key sends anything to a table that is gone."""
    table = open_table()
    client = TableClient(table.path)
    client.send({"type": "join", "name": "alice"})
    welcome = client.receive(30)
    assert welcome is not None
    app = TableApp(TableSource(client, welcome))
    async with app.run_test(size=(120, 40)) as pilot:
        bob = person(table.path, "bob")
        bob.expect("started")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "C's offer to A")
        table.call(table.host.end, "the table's terminal closed it")  # what its Ctrl-C does
        table.thread.join(60)
        await wait_until(pilot, lambda: not isinstance(app.screen, RespondScreen), "the offer's dialog closed")
        closed = "the table closed (the table's terminal closed it): nothing more can be played from here"
        await wait_until(pilot, lambda: closed in screen_text(app), "the screen saying the table closed")
        for key in ("a", "x", "n", "space"):
            await pilot.press(key)
        await pilot.pause()
        assert not isinstance(app.screen, RespondScreen) and closed in screen_text(app)
        assert "Broken pipe" not in screen_text(app) and app.is_running


async def test_an_answer_to_a_table_just_gone_says_so_in_words(open_table, person, wait_until, screen_text) -> None:
    """The table went before its closing line came (the answer's write fails): the status says the connection
    is lost, in words, and not the connection's error ("Broken pipe")."""
    table = open_table()
    client = TableClient(table.path)
    client.send({"type": "join", "name": "alice"})
    welcome = client.receive(30)
    assert welcome is not None
    app = TableApp(TableSource(client, welcome))
    async with app.run_test(size=(120, 40)) as pilot:
        bob = person(table.path, "bob")
        bob.expect("started")
        await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen), "C's offer to A")

        def gone(message: object) -> None:
            raise TableGone("the table is gone: Broken pipe")

        client.send = gone  # type: ignore[method-assign]
        await pilot.press("a")
        await wait_until(pilot, lambda: "the connection to the table is lost" in screen_text(app),
                         "the status saying the connection is lost")
        assert "Broken pipe" not in screen_text(app) and not isinstance(app.screen, RespondScreen)
    table.stop()
