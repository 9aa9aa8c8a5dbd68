"""A record of a game ended before its last turn (the round's clock, the trainer calling time): replayed, its
last position is game over, as it was on the players' screens; a game played to its last turn is over there
by its turns, and an earlier position of either is not."""

from __future__ import annotations

from negtui.agents import AgentOptions
from negtui.engine import get_rules
from negtui.play.live import LiveGame
from negtui.play.sources import ReplaySource
from negtui.record import Replay, load_record
from negtui.scenario import load_scenario
from negtui.seats import Seat
from tests.paths import SIX


def test_a_record_the_clock_ended_replays_to_game_over(tmp_path) -> None:
    sc = load_scenario(SIX)
    record = tmp_path / "clock.jsonl"
    game = LiveGame(sc, get_rules("paper"), {pid: Seat.lens("myopic", partner="greedy") for pid in sc.player_ids},
                    record=record, options=AgentOptions())
    for _ in range(3):
        for move in game.think():
            game.submit(move)
    game.end_now("clock")
    game.close()
    rp = Replay(load_record(record))
    assert rp.record.result is not None and rp.record.result.ended == "clock"
    source = ReplaySource(rp)
    source.jump(rp.last_turn)
    end = source.snapshot()
    assert end.ended and end.over and end.state.t < end.game.T
    source.jump(rp.first_turn)
    assert not source.snapshot().over
