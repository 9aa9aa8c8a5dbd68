"""The commitment matrix draws only the lines a turn changed (negtui/tui/widgets/matrix.py): a turn moves
the proposer's mark and commits a cell or two, and at a table every trainee's app draws every turn."""

from __future__ import annotations

import pytest

from negtui.tui.widgets.matrix import CommitmentMatrix
from tests.tui.test_snapshots import _steps, _wait_for, six_party_app

pytestmark = pytest.mark.asyncio


async def test_a_turn_draws_the_lines_it_changed_and_no_others(monkeypatch, screen_text):
    drawn: list[int] = []
    real = CommitmentMatrix.render_line
    monkeypatch.setattr(CommitmentMatrix, "render_line", lambda self, y: drawn.append(y) or real(self, y))
    app = six_party_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _steps(1)(pilot)
        matrix = app.screen.query_one(CommitmentMatrix)
        before = [line.plain for line in matrix._lines]
        drawn.clear()
        await pilot.press("n")  # the next turn
        await app.workers.wait_for_complete()
        await _wait_for(pilot, lambda: len(app.game.events) == 2 and not app.screen.thinking, "turn 2 played")
        await pilot.pause()
        after = [line.plain for line in matrix._lines]
        changed = {y for y, (a, b) in enumerate(zip(before, after, strict=True)) if a != b}
        assert changed, "a turn changes the proposer's mark at least"
        assert set(drawn) == changed, (sorted(set(drawn)), sorted(changed))
        assert len(changed) < len(after)
        shown = screen_text(app)
        assert all(line.rstrip() in shown for line in after)  # what was drawn is what the matrix says
