"""A lesson counts turns as everything else people read does, from 1 ("t  1" in the turn log, "turn 1" in the
app): a lesson's "turn N" is a turn of its game, and the turns it tells of are those the bots play."""

from __future__ import annotations

import re

import pytest

from negtui.engine import PAPER, Negotiation
from negtui.scenario import load_scenario
from tests.paths import COALITION_TRAP, SCENARIOS

LESSONS = [f for f in sorted(SCENARIOS.rglob("*.json")) if '"lesson"' in f.read_text(encoding="utf-8")]
TURN = re.compile(r"\bturns? (\d+)\b|\bt(\d+)\b")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_turn_a_lesson_names_is_a_turn_of_its_game_counted_from_1(path):
    sc = load_scenario(path)
    T = Negotiation.from_scenario(sc, PAPER).game.T
    named = [int(a or b) for a, b in TURN.findall(sc.lesson)]
    assert all(1 <= n <= T for n in named), (path.name, named, T)


def test_the_coalition_traps_turns_are_the_turns_of_the_turn_log(cli):
    """C earmarks on turn 1 under the exact solver; myopic Finance signs the raid on turn 2."""
    lesson = load_scenario(COALITION_TRAP).lesson
    assert "earmarks alone on turn 1" in lesson and "with Operations on turn 2" in lesson
    assert cli("solve", COALITION_TRAP).stdout.splitlines()[0].startswith("t  1 C → C: C commits earmark")
    log = cli("autoplay", COALITION_TRAP, "--lens", "myopic").stdout.splitlines()
    assert next(ln for ln in log if ln.startswith("t  2")).startswith("t  2 r1  A → B accepted: A commits transfer")
