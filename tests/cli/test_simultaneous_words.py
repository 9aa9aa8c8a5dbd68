"""What the command line says of simultaneous rules is true of the game at hand: `solve` under one proposer a
turn says that it refuses every simultaneous game and that this one is the sequential game, not that it has
several proposers a turn; autoplay's header counts the proposers the turns really have; a void offer's reason
in the log names actions and players as the log does."""

from __future__ import annotations

from pathlib import Path

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


def test_autoplay_header_counts_the_proposers_each_turn_has(cli, tmp_path: Path):
    """Five players proposing once each, two a turn: the schedule makes turns of 2, 2 and 1."""
    game = tmp_path / "five.json"
    made = cli("generate", "--players", 5, "--actions", 2, "--goals", 3, "--factors", 1, "--rounds", 1,
               "--budget", 1, "--seed", 0, "-o", game)
    assert made.exit_code == 0, made.output
    res = cli("autoplay", game, "--rules", "paper+simultaneous=2", "--lens", "myopic", "--partner", "greedy")
    assert res.exit_code == 0, res.output
    head = res.stdout.splitlines()[0]
    assert "3 turns of up to 2 proposers at once (1 of them with fewer)" in head, head
    one = cli("autoplay", game, "--rules", "paper+simultaneous=1", "--lens", "myopic", "--partner", "greedy")
    assert "5 turns of one proposer each" in one.stdout.splitlines()[0]


def test_a_void_offer_in_the_log_names_actions_and_players_as_the_log_does():
    """The turn log names an action by its label where its id only counts ('action 0', not 'a0'): a void
    offer's reason there does too, while records and JSON keep the engine's words, by id."""
    from negtui.engine import compile_game, get_rules
    from negtui.engine.offers import Offer
    from negtui.engine.simultaneous import settle
    from negtui.narrate import outcome_words, void_words
    from negtui.scenario import load_scenario
    from tests.paths import SIX

    game = compile_game(load_scenario(SIX), get_rules("paper+simultaneous"))
    cell = int(game.offset[1])  # P1's first action, a0 ("P1 action 0")
    first = Offer(0, 1, 1 << cell | 1 << int(game.offset[0]))
    second = Offer(2, 1, 1 << cell)
    _, void = settle(game, 0, [first, second], [True, True], noop_is_deal=False).outcomes
    assert (void.status, void.void, void.reason) == ("void", "committed", "P1.a0 was committed earlier in this turn")
    assert void_words(game, void) == "P1's action 0 was committed earlier in this turn"
    assert "(P1's action 0 was committed earlier in this turn)" in outcome_words(game, void)
    assert "P1.a0" not in outcome_words(game, void)
