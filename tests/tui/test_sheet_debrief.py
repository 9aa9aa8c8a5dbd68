"""The debrief of a case of issues in the app (negtui/tui/screens/debrief.py): what was agreed on each issue,
who backed it, its points to the seat and the best it could have had there, and the payoff as points against
the reservation value; a party outvoted that walked away is told it kept its reservation value."""

from __future__ import annotations

import re

import pytest

from negtui.agents import AgentOptions
from negtui.engine import Phase, get_rules
from negtui.play.live import LiveGame
from negtui.play.sources import Ending
from negtui.scenario import parse_scenario
from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.debrief import DebriefScreen

pytestmark = pytest.mark.asyncio


def outvoted(walk: bool) -> Ending:
    """Ann and Bob settle x on x1 (2 of 3 parties) on the first turn; Cleo (reservation 5, x1 worth 0 points to
    her) walks away on hers when she may; every seat a person, each of them debriefed."""
    sc = parse_scenario({
        "format": "negtui-scoresheet/1", "title": "Outvoted", "agreement": {"quorum": 2},
        "protocol": {"rounds": 1, "schedule": ["a", "c", "b"]},
        "parties": [{"id": "a", "name": "Ann"}, {"id": "b", "name": "Bob"},
                    {"id": "c", "name": "Cleo", "reservation": 5, "walk_away": walk}],
        "issues": [{"id": "x", "label": "Harbour", "options": [
            {"id": "x1", "points": {"a": 10, "b": 10, "c": 0}}, {"id": "x2", "points": {"a": 0, "b": 0, "c": 10}}]},
            {"id": "y", "label": "Fees", "options": [
                {"id": "y1", "points": {"a": 1, "b": 1, "c": 1}}, {"id": "y2", "points": {"a": 0, "b": 0, "c": 0}}]}]})
    game = LiveGame(sc, get_rules("paper"), {p: Seat.human(p) for p in sc.player_ids}, options=AgentOptions())
    g = game.neg.game
    while not game.over:
        if game.driver.phase is Phase.RESPOND:
            game.submit(game.answer(True))
        elif g.player_ids[game.neg.proposer(game.state)] == "a":
            game.submit(game.propose(1, [g.cell_index[("a", "x.x1")], g.cell_index[("b", "x.x1")]]))
        elif g.player_ids[game.neg.proposer(game.state)] == "c" and walk:
            game.submit(game.propose(2, [g.cell_index[("c", "walk-away")]]))
        else:
            game.submit(game.propose(game.neg.proposer(game.state), []))
    return Ending(game, [0, 2], {lens: v[0] for lens, v in game.history.items()}, closing=None)


@pytest.mark.parametrize("walk", [False, True])
async def test_the_debrief_says_what_was_agreed_on_each_issue_in_points(walk, wait_until, screen_text):
    app = NegtuiApp(None, record=False)
    async with app.run_test(size=(100, 90)) as pilot:
        await pilot.pause()
        screen = DebriefScreen(outvoted(walk))
        await app.push_screen(screen)
        await wait_until(pilot, lambda: not screen._pending, "the replays and the optimum")
        await pilot.pause()
        text = " ".join(re.sub("[▊█▎▔▁▄▀]", " ", screen_text(app)).split())  # the words, line breaks aside
    assert "what was agreed on each issue issue settled on backed by yours best for you" in text
    assert "Harbour x1 you, b 10 this Fees open y1 (1)" in text  # Ann's
    assert "Harbour x1 a, b 0 x2 (10) Fees open y1 (1)" in text  # Cleo's: outvoted on the harbour
    assert "Your reservation value is 0 points. Settled: Harbour, 10 points against the 0 of your reservation value " \
           "it carries: a payoff of +10. Fees stayed open: its share of your reservation value is kept." in text
    if walk:
        assert "You walked away: you keep your reservation value, a payoff of 0, whatever was settled." in text
    else:
        assert ("Your reservation value is 5 points. Settled: Harbour, 0 points against the 5 of your reservation "
                "value it carries: a payoff of -5.") in text
