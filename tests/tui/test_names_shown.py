"""Players as people read them on a small terminal: the display name wherever the id only spells it with
`_` (river-basin's Midstream_State is "Midstream State"), in the hint, the welfare dialog and the end of
the game; and the hint's decisions wrapped at words at 80×24, never cut mid-word into a column of eight."""

from __future__ import annotations

import pytest

from negtui.agents import AgentOptions
from negtui.coach.assess import choice_words
from negtui.coach.closing import Closing
from negtui.engine import get_rules
from negtui.play.live import LiveGame
from negtui.play.sources import Ending
from negtui.scenario import load_scenario
from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import PartnerScreen
from negtui.tui.screens.welfare import WelfareScreen
from tests.paths import RIVER_BASIN

pytestmark = pytest.mark.asyncio
IDS = ("Midstream_State", "Upstream_State", "Development_Bank", "River_Basin_Organisation", "Hydropower_Consortium")


def river_app() -> NegtuiApp:
    seats = {"Midstream_State": Seat.human()}
    return NegtuiApp(RIVER_BASIN, seats=seats, ask_seats=False, record=False, partner="greedy", sims=4)


async def test_the_hint_at_80_columns_names_players_by_name_and_wraps_at_words(screen_text, wait_until):
    """80 columns as on an 80×24 terminal (the side pane's width), tall enough to show the whole hint."""
    app = river_app()
    async with app.run_test(size=(80, 60)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "Midstream State's partner dialog")
        await pilot.press("escape", "h")
        await wait_until(pilot, lambda: "hint · turn 1" in screen_text(app), "the hint in the coach pane")
        text = screen_text(app)
        side = app.screen.query_one("#side").region
        pane = [ln[side.x:side.right] for ln in text.splitlines()[side.y:side.bottom]]
        words = " ".join(pane).split()
        assert not [i for i in IDS if i in text], text
        assert "hint · turn 1 · Midstream State's offer" in " ".join(words)
        hint = app.game.hint()
        assert hint is not None
        for c in hint.others:  # every word of every decision whole on some line of the pane
            missing = [w for w in choice_words(app.game.neg.game, c).split() if w not in words]
            assert not missing, (missing, "\n".join(pane))


async def test_the_welfare_dialog_names_players_by_name(screen_text, wait_until):
    app = river_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "Midstream State's partner dialog")
        await pilot.press("escape", "w")
        await wait_until(pilot, lambda: isinstance(app.screen, WelfareScreen) and app.screen.result is not None,
                         "the welfare optimum", timeout=60)
        text = screen_text(app)
        assert "Midstream State" in text and "Development Bank" in text
        assert not [i for i in IDS if i in text], text


async def test_the_end_of_the_game_names_your_seat_once(screen_text, wait_until):
    sc = load_scenario(RIVER_BASIN)
    game = LiveGame(sc, get_rules("paper"), {pid: Seat.lens("myopic", partner="greedy", sims=4) for pid in
                                             sc.player_ids}, options=AgentOptions())
    while not game.over:
        for move in game.think():
            game.submit(move)
    mid = sc.player_ids.index("Midstream_State")
    ending = Ending(game, [mid], {lens: v[0] for lens, v in game.history.items()}, closing=Closing())
    app = NegtuiApp(None, record=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.push_screen(DebriefScreen(ending))
        await wait_until(pilot, lambda: "your game as" in screen_text(app), "the debrief")
        text = " ".join(screen_text(app).split())
        assert "your game as Midstream State" in text
        assert "(Midstream State)" not in text and not [i for i in IDS if i in text], text
    game.close()


@pytest.mark.parametrize("width", [80, 160])
async def test_the_network_pane_cuts_a_name_once_and_never_wraps_it(screen_text, wait_until, cli, tmp_path, width):
    """At 80 columns the pane is 40 wide: a player's name is whole or cut once with '…' at a word, on one line
    (it was cut and wrapped: "Midstre…" over "State"); at 160 columns the names are whole."""
    from negtui.scenario import load_scenario as load
    from negtui.tui.widgets.network import DealNetwork

    rec = tmp_path / "river.jsonl"
    assert cli("autoplay", RIVER_BASIN, "--partner", "greedy", "--quiet", "--record", rec).exit_code == 0
    names = [p.display for p in load(RIVER_BASIN).players]
    app = NegtuiApp(replay=rec, record=False, data_dir=tmp_path)
    async with app.run_test(size=(width, 150)) as pilot:  # tall: the whole pane in sight
        await wait_until(pilot, lambda: "REPLAY 0/24" in screen_text(app), "the replay")
        await pilot.press("g", "2", "4", "enter", "4")
        await wait_until(pilot, lambda: "REPLAY 24/24" in screen_text(app) and "centrality" in screen_text(app),
                         "the network pane at the end")
        pane = app.screen.query_one(DealNetwork).region
        lines = [ln[pane.x:pane.right].rstrip() for ln in screen_text(app).splitlines()[pane.y:pane.bottom]]
        top = lines.index(next(ln for ln in lines if ln.strip() == "centrality"))
        rows = lines[top + 2:top + 2 + len(names)]  # a line per player, its numbers on it
        assert all(ln.split()[-1].replace(".", "").isdigit() for ln in rows), "\n".join(lines)
        shown = [ln.strip().rsplit(None, 3)[0] for ln in rows]
        for name in shown:
            assert name in names or (name.endswith("…") and any(n.startswith(name[:-1] + " ") for n in names)), \
                (name, "\n".join(lines))
        if width >= 160:
            assert sorted(shown) == sorted(names)
        for ln in lines:  # no line begins with the tail of a name cut on the line before
            assert ln.strip() not in {"State", "Bank", "Organisation", "Consortium", "Society", "Basin"}, \
                "\n".join(lines)
