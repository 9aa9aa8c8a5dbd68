"""What the command line says of simultaneous rules is true of the game at hand: `solve` under one proposer a
turn says that it refuses every simultaneous game and that this one is the sequential game, not that it has
several proposers a turn."""

from __future__ import annotations

from tests.paths import TEACHING

RACE = TEACHING / "simultaneous-race.json"


def test_solve_refuses_one_proposer_a_turn_in_true_words(cli):
    res = cli("solve", RACE, "--rules", "paper+simultaneous=1")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "several proposers" not in res.stderr and "offers made at once" not in res.stderr
    assert res.stderr.startswith("error: the exact solver does not solve simultaneous games, even of one proposer a "
                                 "turn: every turn of this game has one, so it is the sequential game move for move")
    assert "solve it under the rules without +simultaneous" in res.stderr
    assert cli("solve", RACE).exit_code == 0  # which it solves
    many = cli("solve", RACE, "--rules", "paper+simultaneous")
    assert many.exit_code == 2 and "offers made at once in a turn" in many.stderr and "even of one" not in many.stderr
