"""No two labels render the same: over every bundled scenario, at 80×24 and 160×50, the goal bars, the
forecast table and the matrix (both layouts) tell every goal, player and action apart."""

from __future__ import annotations

import pytest

from negtui.engine import PAPER, compile_game
from negtui.names import fit_unique, shorten
from negtui.scenario import load_scenario
from negtui.tui.labels import forecast_labels, goal_labels, matrix_action_labels, matrix_player_labels
from negtui.tui.widgets.matrix import INDENT, left_width, name_width
from tests.paths import SCENARIOS

FILES = sorted(SCENARIOS.rglob("*.json"))
WIDTHS = (80, 160)


def distinct(labels: list[str], what: str) -> None:
    repeated = sorted({x for x in labels if labels.count(x) > 1})
    assert not repeated, f"{what}: {repeated} shown for more than one"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(SCENARIOS)))
@pytest.mark.parametrize("terminal", WIDTHS)
def test_every_label_renders_distinct(path, terminal):
    game = compile_game(load_scenario(path), PAPER)
    sc = game.scenario
    distinct(goal_labels(sc, terminal), "goal bars")
    distinct(forecast_labels(game, terminal), "forecasts")
    left = left_width(game, terminal)
    distinct(matrix_player_labels(game, name_width(game, left), listed=False), "matrix grid")
    distinct(matrix_player_labels(game, left - 4, listed=True), "matrix list")
    for i, names in enumerate(matrix_action_labels(sc, left - 2 - INDENT)):
        distinct(names, f"actions of {game.player_ids[i]}")


def test_the_helpers_keep_apart_what_a_plain_cut_would_merge():
    """Worked example: a cut at 11 would show "Beneficiar…" twice; the middle cut keeps the ends."""
    goals = ["Beneficiary data handed to state services", "Beneficiary data protected"]
    assert [shorten(g, 11) for g in goals] == ["Beneficiar…", "Beneficiar…"]
    shown = fit_unique(goals, 11)
    assert len(set(shown)) == 2 and all(len(s) <= 11 for s in shown), shown
