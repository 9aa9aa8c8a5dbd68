"""The app at a table under simultaneous rules, driven through Textual's pilot, with the other person a plain
socket client: alice (A) builds her offer to the port while carol (C) offers too; carol answers A's offer and
the bot B's; alice's screen shows nothing of the offers she may not see until the turn settles, and then every
offer of it, the void one with why."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.narrate import turn_line
from negtui.play.simultaneous import seen_by
from negtui.table.client import TableClient
from negtui.table.source import TableSource
from negtui.tui.screens.dialogs import PartnerScreen, RespondScreen
from negtui.tui.table_app import TableApp
from tests.table.test_simultaneous_table import BUDGET_VOID, QUAY, race_spec
from tests.tui.test_simultaneous_play import choose_partner, flat, toggle

pytestmark = pytest.mark.asyncio


def seated_app(path: Path, name: str, seat: str) -> TableApp:
    """The app of a person who joined the table at `path` in `seat`."""
    client = TableClient(path)
    client.send({"type": "join", "name": name, "seat": seat})
    welcome = client.receive(30)
    assert welcome is not None and welcome["you"] == seat
    return TableApp(TableSource(client, welcome))
FUND, BERTH1, BERTH2 = 0, 2, 3


async def test_a_person_offers_at_a_simultaneous_table_and_sees_every_offer_once_settled(
        open_table, person, wait_until, screen_text, tmp_path: Path, cli) -> None:
    table = open_table(race_spec(tmp_path))
    app = seated_app(table.path, "alice", "A")
    async with app.run_test(size=(160, 50)) as pilot:
        carol = person(table.path, "carol", "C")
        carol.expect("asked", lambda m: m["phase"] == "propose")
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "alice's partner dialog")
        await choose_partner(pilot, app, 2)
        await wait_until(pilot, lambda: "offer to C" in screen_text(app), "the offer builder")
        await toggle(pilot, app, FUND, BERTH1, BERTH2)
        await pilot.press("o")
        carol.expect("flight", lambda m: m["move"]["player"] == "A")
        # the headline says what the table waits for: carol's offer (B's, the bot's, is in, unseen)
        await wait_until(pilot, lambda: "awaiting offers from C " in screen_text(app).splitlines()[0] + " ",
                         "the headline awaiting carol's offer")

        def marked() -> list[str]:  # the table pane's seats marked as deciding
            return [line for line in app.screen.query_one("#table-seats").plain.splitlines() if line.startswith("▶")]

        await wait_until(pilot, lambda: len(marked()) == 1 and "carol" in marked()[0], "carol's seat marked")
        carol.send({"type": "move", "t": 0, "phase": "propose", "partner": "D", "cells": [["C", "berth1"]]})
        asked = carol.expect("asked", lambda m: m["phase"] == "respond")
        text = flat(screen_text(app))
        assert "berth 3" not in text.lower() or "C grants berth 3" not in text  # B's offer is not on A's screen
        assert "C → D" not in text and "B → C" not in text
        source = app.table
        await wait_until(pilot, lambda: len(source._flight) == 1, "alice's own offer back from the table")
        assert [(o.proposer, o.partner) for o in seen_by(source.game.neg, source.game.state, {0})] == [(0, 2)]
        assert not source.person_to_move()  # nothing more is asked of alice in this turn
        for o in asked["offers"]:
            carol.send({"type": "move", "t": 0, "phase": "respond", "accept": True, "proposer": o["proposer"]})
        await wait_until(pilot, lambda: len(source.game.events) == 1, "the turn settled at alice's app")
        [ev] = source.game.events
        by = {o.offer.proposer: o for o in ev.outcomes}  # the turn's order is A, C, B
        assert by[0].status == "applied" and (by[1].status, by[1].reason) == ("void", BUDGET_VOID)
        await wait_until(pilot, lambda: "turn 1 settled: 1 applied, 2 void" in flat(screen_text(app)),
                         "the settled turn on the status line")
        # every offer of the turn, as the turn log writes it, from the app's copy of the game
        log = flat(turn_line(source.game.neg.game, ev, whole=True))
        assert "3 proposers at once: 1 applied, 2 void" in log
        assert "A → C accepted" in log and f"B → C accepted but void ({BUDGET_VOID})" in log
        assert "C → D accepted but void" in log
    table.stop()
    res = cli("replay", "--verify", str(tmp_path / "table.jsonl"))
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("information", ["public", "private"])
async def test_a_person_answers_two_offers_at_a_simultaneous_table_in_the_app(open_table, person, wait_until,
                                                                               screen_text, tmp_path: Path,
                                                                               cli, information: str) -> None:
    """carol (C) passes, then answers A's offer and the bot B's, one dialog each, told which of how many; under
    private information her app knows her values only until the end reveals everyone's."""
    table = open_table(race_spec(tmp_path, information=information))
    app = seated_app(table.path, "carol", "C")
    async with app.run_test(size=(160, 50)) as pilot:
        alice = person(table.path, "alice", "A")
        alice.expect("asked", lambda m: m["phase"] == "propose")
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "carol's partner dialog")
        await pilot.press("x")  # a pass
        alice.send({"type": "move", "t": 0, "phase": "propose", "partner": "C", "cells": QUAY})
        answered = []
        for _ in range(2):
            await wait_until(pilot, lambda: isinstance(app.screen, RespondScreen)
                             and "made to you" in screen_text(app), "an offer to carol")
            text = flat(screen_text(app))
            answered.append(text)
            dlg, words = app.screen, app.screen.words
            await pilot.press("a")  # the game keeps one answer dialog: closed, or open again on the next offer
            await wait_until(pilot, lambda d=dlg, w=words: app.screen is not d or d.words != w, "the answer taken")
        source = app.table
        await wait_until(pilot, lambda: len(source.game.events) == 1, "the turn settled at carol's app")
        [ev] = source.game.events
        by = {o.offer.proposer: o for o in ev.outcomes}
        assert by[0].status == "applied" and by[0].answer is True
        assert (by[1].status, by[1].reason, by[1].answer) == ("void", BUDGET_VOID, True)
        assert by[2].status == "passed"
        if information == "private":
            await wait_until(pilot, lambda: source.game.known is None, "everyone's values revealed at the end")
            [ev] = source.game.events  # the turn played again on everyone's values: the same outcomes
            assert [(o.offer.proposer, o.status) for o in ev.outcomes] == [(0, "applied"), (2, "passed"), (1, "void")]
        assert "offer 1 of 2 made to you" in answered[0] and "offer 2 of 2 made to you" in answered[1]
    table.stop()
    res = cli("replay", "--verify", str(tmp_path / "table.jsonl"))
    assert res.exit_code == 0, res.output
