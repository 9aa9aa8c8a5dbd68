"""A course's exercise one trainee plays against bots, under simultaneous rules (docs/simultaneous.md): the
training app drives the turn as `negtui play` does, the debrief coaches and scores it, and the result is filed.
A table of several trainees takes them too (tests/table/test_simultaneous_table.py plays one).

scenarios/teaching/simultaneous-race.json: one turn, proposers A then B; plain greedy A goes to the port C;
the trainee in B offers C berths 3 and 4 too, and C's budget voids the second deal."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.classroom.course_loading import CourseError, load_course
from negtui.classroom.db import ResultsDB
from negtui.trainee.briefing import BriefingScreen
from negtui.trainee.training import TrainingApp
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import PartnerScreen
from negtui.tui.widgets.matrix import CommitmentMatrix

COURSE = """\
name = "sim"
title = "At once"

[[exercises]]
id = "race"
title = "The race for the port"
scenario = "simultaneous-race"
seat = "B"
rules = "paper+simultaneous"
bots = "myopic"
partner = "greedy"
sims = 4
mode = "MODE"
score = "gain"
"""
BERTH3, BERTH4 = 4, 5
BUDGET_VOID = "C would make 4 new commitments in this turn; the budget is 2"


def _course(tmp_path: Path, text: str):
    path = tmp_path / "course.toml"
    path.write_text(text)
    return load_course(path)


def test_a_table_of_trainees_under_simultaneous_rules_is_specified_with_its_clock(tmp_path: Path) -> None:
    table = COURSE.replace('seat = "B"\n', 'humans = ["B", "C"]\ndecision_time = 30\n').replace("MODE", "practice")
    course = _course(tmp_path, table)
    spec = course.table_spec("race", title="race", record=None, key_file=None)
    assert spec.game["rules"]["simultaneous"] is True and spec.people == ["B", "C"] and spec.decision_time == 30


def test_a_bot_that_cannot_play_simultaneous_turns_is_refused_where_the_course_names_it(tmp_path: Path) -> None:
    with pytest.raises(CourseError) as err:
        _course(tmp_path, COURSE.replace('bots = "myopic"', 'bots = "exact"').replace("MODE", "practice"))
    assert "the exact solver does not solve simultaneous games" in str(err.value)
    assert [p.path for p in err.value.problems] == ["$.exercises[0].bots"], err.value.problems


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", ["practice", "assessment"])
async def test_a_trainee_plays_a_simultaneous_turn_and_the_result_is_filed(tmp_path: Path, mode: str, wait_until,
                                                                            screen_text, cli) -> None:
    course = _course(tmp_path, COURSE.replace("MODE", mode))
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_trainee("alice")
        app = TrainingApp(course, db, "alice", data_dir=data)
        async with app.run_test(size=(160, 50)) as pilot:
            await wait_until(pilot, lambda: "The race for the port" in screen_text(app), "the lobby")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, BriefingScreen), "the briefing")
            await pilot.press("ctrl+s")
            if mode == "assessment":
                await wait_until(pilot, lambda: "Start a graded attempt?" in screen_text(app), "the confirmation")
                await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's partner dialog")
            dlg = app.screen
            k = [o.partner for o in dlg.options].index(2)
            await pilot.press(*["down"] * k, "enter")
            await wait_until(pilot, lambda: app.screen is not dlg and "offer to C" in screen_text(app),
                             "the offer builder")
            assert app.live is not None
            game = app.live.game
            assert game.neg.game.simultaneous and game.events == []
            assert "awaiting offers from A, B" in screen_text(app).splitlines()[0]
            matrix = app.screen.query_one(CommitmentMatrix)
            g = game.neg.game
            for c in (BERTH3, BERTH4):
                matrix.cursor = (c - int(g.offset[int(g.owner[c])]), int(g.owner[c]))
                await pilot.press("enter")
            await pilot.press("o")
            await wait_until(pilot, lambda: isinstance(app.screen, DebriefScreen), "the debrief")
            [ev] = game.events
            assert [(o.status, o.reason) for o in ev.outcomes] == [("applied", ""), ("void", BUDGET_VOID)]
            await wait_until(pilot, lambda: "score: " in screen_text(app), "the score")
            text = screen_text(app)
            assert "your gain over the No-Negotiation baseline" in text
            assert "was void" in text or "void" in text  # the coaching names the void offer
            assessments = game.assessments
            assert assessments and any("was void" in a.caveat for a in assessments)
        (row,) = db.games("sim", "race")
        assert row.status == "finished"
        assert row.record_path and Path(row.record_path).exists()
    res = cli("replay", "--verify", str(row.record_path))
    assert res.exit_code == 0 and "verified" in res.output, res.output
