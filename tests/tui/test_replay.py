"""Replaying a record in the app: stepping back and forth, jumping, autoplaying to the end and taking over
(a fork that records its parent); a broken record; a game left before its first turn leaves no record."""

from __future__ import annotations

import json

import pytest

from negtui.record import Replay, load_record, parent_at
from negtui.seats import Seat
from negtui.tui.app import NegtuiApp
from negtui.tui.screens.dialogs import HelpScreen, JumpScreen
from negtui.tui.screens.live import LiveScreen
from negtui.tui.screens.replay import ReplayScreen
from negtui.tui.screens.seats import SeatsScreen
from tests.paths import PILL

pytestmark = pytest.mark.asyncio


async def test_replay_step_back_jump_and_take_over(screen_text, settle, wait_until, play_screen, record_game, tmp_path):
    rec = record_game(tmp_path / "six.jsonl")
    rp = Replay(load_record(rec))
    assert rp.last_turn == 24 and rp.state_at(4).bits != 0
    app = NegtuiApp(replay=rec, record=True, data_dir=tmp_path, partner="greedy", sims=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        ps = play_screen(app)
        assert isinstance(ps, ReplayScreen) and app.game is None
        assert ps.source.pos == 0
        await wait_until(pilot, lambda: "REPLAY 0/24 turns played" in screen_text(app), "the replay's first screen")
        assert not ps.check_action("seats", ()) and not ps.check_action("submit", ())
        await pilot.press("full_stop", "full_stop", "full_stop")
        await pilot.pause()
        assert ps.source.pos == 3 and ps.source.state == rp.state_at(3)
        text = screen_text(app)
        third = rp.record.turns[2]
        assert "REPLAY 3/24 turns played" in text and f"t  3 r1  {third.proposer} → {third.partner}" in text
        await pilot.press("comma")
        await pilot.pause()
        assert ps.source.pos == 2 and ps.source.state == rp.state_at(2)
        await pilot.press("comma", "comma", "comma")  # stops at the first turn
        assert ps.source.pos == 0
        # jump: out of range is refused, then turn 20
        await pilot.press("g")
        await pilot.pause()
        assert isinstance(app.screen, JumpScreen)
        await pilot.press("9", "9", "enter")
        await pilot.pause()
        assert isinstance(app.screen, JumpScreen) and ps.source.pos == 0
        await pilot.press("question_mark")  # the turn field takes digits only: ? is help, even while typing
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "help over the jump dialog")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, JumpScreen), "back to the jump dialog")
        assert app.screen.query_one("#turn").value == "99"
        app.screen.query_one("#turn").value = ""
        await pilot.press("2", "0", "enter")
        await pilot.pause()
        assert app.screen is ps and ps.source.pos == 20 and ps.source.state == rp.state_at(20)
        await wait_until(pilot, lambda: "REPLAY 20/24 turns played" in screen_text(app)
                         and f"t 20 r4  {rp.record.turns[19].proposer}" in screen_text(app), "the jump shown")
        text = screen_text(app)
        assert "REPLAY 20/24 turns played" in text and "turn 21/24" not in text  # one counter, not two
        assert f"t 20 r4  {rp.record.turns[19].proposer}" in text  # the status follows the jump
        # autoplay the replay to its end; stepping past the end does nothing
        await pilot.press("plus", "plus", "r")
        await wait_until(pilot, lambda: not ps.autoplay.running, "the replay's end")
        assert ps.source.pos == 24 and ps.source.state == rp.final
        await pilot.press("full_stop")
        assert ps.source.pos == 24
        await wait_until(pilot, lambda: "REPLAY 24/24 turns played" in screen_text(app), "the last turn shown")
        await pilot.press("g")
        await pilot.press("4", "enter")
        await pilot.pause()
        assert app.screen is ps and ps.source.pos == 4 and ps.source.state == rp.state_at(4)
        # take over (fork) after 4 turns played: from turn 5
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, SeatsScreen) and app.screen.title_text == "Take over from turn 5"
        assert all(app.screen.plays(pid) == "myopic" for pid in rp.neg.game.player_ids)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen), "the game taken over")
        live = play_screen(app)
        assert isinstance(live, LiveScreen) and live.source.game is app.game
        ses = app.game
        assert ses.state == rp.state_at(4) and ses.start == rp.state_at(4)
        assert ses.events == []
        assert ses.record_path is not None and ses.record_path.parent == tmp_path / "records"
        header = json.loads(ses.record_path.read_text().splitlines()[0])
        assert header["parent"]["file"] == str(rec.resolve()) and header["parent"]["turn"] == 4
        assert header["parent"]["digest"] == parent_at(rp, 4).digest
        assert header["start_turn"] == 4
        # the fork plays on from turn 4
        await pilot.press("n")
        await settle(pilot)
        assert len(ses.events) == 1 and ses.events[0].t == 4 and ses.state.t == 5
        await wait_until(pilot, lambda: "turn 6/24" in screen_text(app), "the fork's turn on the screen")
        assert "REPLAY" not in screen_text(app)
        # the log and the trends keep the game the fork continues: turns 0-3 from the record, then its own
        snap = live.source.snapshot()
        assert [ev.t for ev in snap.events] == [0, 1, 2, 3, 4] and len(snap.payoff_history) == 6
        same = [(e.t, e.proposer, e.partner, e.offer.bits, e.accepted) for e in rp.events[:4]]
        assert [(e.t, e.proposer, e.partner, e.offer.bits, e.accepted) for e in snap.events[:4]] == same
        await pilot.press("3")  # the log
        await pilot.pause()
        assert f"t  1 r1  {rp.record.turns[0].proposer}" in screen_text(app)
    fork = load_record(ses.record_path)
    assert fork.header.parent.turn == 4 and [t.t for t in fork.turns] == [4]
    # signed with the key of the data directory asked for, not the default one
    from negtui.record.signing import check_chain, data_dir_key

    assert (tmp_path / "record.key").is_file()
    lines = [json.loads(line) for line in ses.record_path.read_text().splitlines()]
    assert check_chain(lines, data_dir_key(tmp_path)).status == "valid"


async def test_a_replays_key_bar_at_80_columns_keeps_jump_and_take_over(wait_until, record_game, tmp_path):
    """Too short for every key, the bar keeps the replay's own keys (step back and on, jump, take over)."""
    from negtui.tui.widgets.keybar import KeyBar

    rec = record_game(tmp_path / "six.jsonl")
    app = NegtuiApp(replay=rec, record=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.screen.query_one(KeyBar).size.width == 80, "the key bar laid out")
        line = app.screen.query_one(KeyBar).render().plain
        assert "…" in line  # not every key fits
        assert all(k in line for k in (", ◀ turn", ". turn ▶", "g jump", "t take over", "? help", "q quit")), line


async def test_broken_record_exits_with_a_message(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header"}\n')
    app = NegtuiApp(replay=bad, record=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.return_code == 2 and app.game is None


async def test_a_game_left_before_its_first_turn_leaves_no_record(wait_until, tmp_path):
    """Quitting at turn 0 removes the empty record; one played turn keeps the file."""
    app = NegtuiApp(PILL, seats={"A": Seat.lens("myopic"), "B": Seat.lens("myopic")}, ask_seats=False,
                    record=True, data_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert len(list((tmp_path / "records").glob("*.jsonl"))) == 1  # written while the game is open
        await pilot.press("ctrl+q")
    assert list((tmp_path / "records").glob("*.jsonl")) == []
    app = NegtuiApp(PILL, seats={"A": Seat.lens("myopic"), "B": Seat.lens("myopic")}, ask_seats=False,
                    record=True, data_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        await wait_until(pilot, lambda: app.game.state.t == 1, "one turn")
        await pilot.press("ctrl+q")
    [kept] = list((tmp_path / "records").glob("*.jsonl"))
    assert len(kept.read_text().splitlines()) == 2  # the header and the turn


async def test_the_replays_marks_are_of_one_turn(screen_text, wait_until, play_screen, record_game, tmp_path):
    """▶ marks who proposes next, as the top bar says; no ◆ marks the previous turn's partner beside it."""
    from negtui.tui.widgets.matrix import CommitmentMatrix

    rec = record_game(tmp_path / "six.jsonl")
    rp = Replay(load_record(rec))
    app = NegtuiApp(replay=rec, record=False, data_dir=tmp_path)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: "REPLAY 0/24 turns played" in screen_text(app), "the replay's first screen")
        await pilot.press("full_stop", "full_stop", "full_stop")
        await wait_until(pilot, lambda: "REPLAY 3/24 turns played" in screen_text(app), "turn 3 played")
        assert rp.events[2].partner != rp.neg.game.proposer(3)  # the previous turn's partner is another player
        region = app.screen.query_one(CommitmentMatrix).region
        rows = screen_text(app).splitlines()[region.y:region.bottom]
        grid = "\n".join(ln[region.x:region.right] for ln in rows)
        next_proposer = rp.neg.game.player_ids[rp.neg.game.proposer(3)]
        assert grid.count("▶") == 1 and f"▶ {next_proposer}" in grid, grid
        assert "◆" not in grid, grid


async def test_the_jump_dialogs_shown_turn_is_where_enter_goes(screen_text, wait_until, play_screen, record_game,
                                                               tmp_path):
    """The empty field shows the last turn; enter goes there (it said "a number of turns, please")."""
    rec = record_game(tmp_path / "six.jsonl")
    app = NegtuiApp(replay=rec, record=False, data_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: "REPLAY 0/24 turns played" in screen_text(app), "the replay's first screen")
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, JumpScreen), "the jump dialog")
        assert app.screen.query_one("#turn").value == "" and "24" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, JumpScreen), "the dialog closed")
        assert play_screen(app).source.pos == 24
