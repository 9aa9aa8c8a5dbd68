"""The round's clock runs only while the game can go on: it stops while the table waits for a person who is
away (an hour away loses none of the round) and runs on when they are back; a screen joining meanwhile is shown
no countdown of the absent person's decision.  Everyone is told "5 minutes left" and "1 minute left" as the
round passes them (only what the round is longer than), on the table screen, and a late joiner reads them too."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.table.client import TableClient
from negtui.table.source import TableSource
from negtui.tui.table_app import TableApp
from tests.table.conftest import FakeClock

NAMES = {"A": "alice", "B": "bob"}


def test_the_round_stops_while_the_table_waits_for_an_absent_person(open_table, person) -> None:
    clock = FakeClock()
    table = open_table(clock=clock, game_time=600, decision_time=30, on_drop="wait", grace=0.0)
    people = {pid: person(table.path, name) for pid, name in NAMES.items()}
    away = people["A"].expect("clock", lambda m: m["seconds"] is not None)["player"]
    other = "B" if away == "A" else "A"
    clock.advance(100)
    people[away].close()
    stopped = people[other].expect("round", lambda m: not m["running"])
    assert stopped == {"type": "round", "seconds": 500.0, "running": False, "waiting": away}
    clock.advance(3_600)  # an hour away
    watcher = person(table.path, None, watch=True)
    welcome = watcher.expect("welcome")
    assert welcome["clock"]["seconds"] is None  # no countdown of a decision whose clock waits for them
    assert welcome["round"] == stopped and not table.host.game.over
    back = person(table.path, NAMES[away])
    assert back.expect("round", lambda m: m["running"])["seconds"] == 500.0  # the round as it was left
    assert not table.host.game.over


def test_the_round_timer_tells_everyone_five_minutes_and_one_minute_left(open_table, person) -> None:
    clock = FakeClock()
    table = open_table(clock=clock, game_time=400)
    alice, bob = person(table.path, "alice"), person(table.path, "bob")
    alice.expect("round", lambda m: m["running"])
    clock.advance(101)
    assert bob.expect("notice")["text"] == "5 minutes left in the round"
    clock.advance(240)
    assert bob.expect("notice")["text"] == "1 minute left in the round"
    watcher = person(table.path, None, watch=True)
    assert [n["text"] for n in watcher.expect("welcome")["notices"]] == ["5 minutes left in the round",
                                                                          "1 minute left in the round"]
    assert [alice.expect("notice")["text"] for _ in range(2)] == ["5 minutes left in the round",
                                                                  "1 minute left in the round"]


def test_a_short_round_gives_only_the_notices_it_is_longer_than(open_table, person) -> None:
    clock = FakeClock()
    table = open_table(clock=clock, game_time=200)
    alice = person(table.path, "alice")
    person(table.path, "bob")
    alice.expect("round", lambda m: m["running"])
    clock.advance(150)
    assert alice.expect("notice")["text"] == "1 minute left in the round"
    assert not any(m["type"] == "notice" and m["text"].startswith("5") for m in alice.seen)


@pytest.mark.asyncio
async def test_a_notice_stays_on_the_table_screen(open_table, person, wait_until, screen_text, tmp_path: Path) -> None:
    clock = FakeClock()
    table = open_table(clock=clock, game_time=400)
    client = TableClient(table.path)
    client.send({"type": "join", "name": "alice"})
    welcome = client.receive(30)
    assert welcome is not None
    app = TableApp(TableSource(client, welcome))
    async with app.run_test(size=(120, 40)) as pilot:
        person(table.path, "bob").expect("started")
        await wait_until(pilot, lambda: app.table.view.round is not None and app.table.view.round[2], "the round")
        clock.advance(101)
        await wait_until(pilot, lambda: "⏱ 5 minutes left in the round" in screen_text(app), "the notice on the pane")
        for _ in range(3):  # the status line moves on; the pane keeps it
            await pilot.press("6")
            await pilot.pause(0.1)
        assert "⏱ 5 minutes left in the round" in screen_text(app)


@pytest.mark.asyncio
async def test_a_screen_says_whom_the_stopped_round_waits_for(open_table, person, wait_until, screen_text) -> None:
    table = open_table(game_time=600, on_drop="wait", grace=0.0)
    bob = person(table.path, "bob", "A")  # C, the bot, offers A a deal first: bob's decision
    client = TableClient(table.path)
    client.send({"type": "join", "name": "alice", "seat": "B"})
    welcome = client.receive(30)
    assert welcome is not None
    app = TableApp(TableSource(client, welcome))
    async with app.run_test(size=(160, 50)) as pilot:
        bob.expect("move", lambda m: m["move"]["player"] == "C")
        bob.close()
        await wait_until(pilot, lambda: "bob (A · Finance) is away: the table waits, and no clock runs against them"
                         in screen_text(app), "the table waiting for bob, in words")
        assert app.table.view.round_waits == "A" and "left (stopped)" in screen_text(app).splitlines()[0]
