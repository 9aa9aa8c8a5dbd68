"""The trainer calls time at a table: a game under way ends as it stands (the commitments made bind, the payoffs
they give told to everyone, the record's result saying the trainer ended it, `replay --verify` accepting it); a
table nobody has played at closes with nothing to end."""

from __future__ import annotations

from pathlib import Path

from negtui.record import load_record
from negtui.table.steer import steer


def test_call_time_ends_a_game_under_way_as_it_stands(open_table, person, tmp_path: Path, cli) -> None:
    table = open_table()
    alice, bob = person(table.path, "alice"), person(table.path, "bob")
    alice.expect("started")
    alice.expect("move", lambda m: m["move"]["player"] == "C")  # the bot C offers A a deal: accepted, it binds
    s = table.host.game.state
    alice.send({"type": "move", "t": s.t, "phase": "respond", "accept": True})
    alice.expect("move", lambda m: m["move"]["player"] == "A")
    steer(table.path, {"type": "end"})
    over = bob.expect("over")
    game = table.host.game
    assert over["ended"] == "trainer" and game.ended == "trainer"
    assert game.state.bits and over["payoffs"] == [float(v) for v in game.neg.returns(game.state)]
    assert table.host.ended is None  # ended as a game, not closed as a table
    table.stop()
    rec = load_record(tmp_path / "table.jsonl")
    assert rec.complete and rec.result.ended == "trainer" and len(rec.turns) < game.neg.game.T
    assert rec.result.commitments == game.neg.game.pairs_of(game.state.bits)
    res = cli("replay", tmp_path / "table.jsonl", "--verify")
    assert res.exit_code == 0 and "verified" in res.stdout, res.output
    assert f"the trainer called time after {len(rec.turns)} of {game.neg.game.T} turns" in res.stdout


def test_call_time_at_a_table_nobody_has_played_at_closes_it(open_table, person) -> None:
    table = open_table()
    alice = person(table.path, "alice")
    alice.expect("welcome")
    steer(table.path, {"type": "end"})
    assert alice.expect("closed")["why"] == "the trainer closed the table before its game started"
    assert table.host.game is None
