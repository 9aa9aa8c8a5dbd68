"""A graded run (`mode = "assessment"`), driven through the pilot as a trainee plays it: no solver's
help on any screen before the debrief, every started game an attempt, a resume the same game, no second
game while one is under way, and the debrief coaching and scoring it by the exercise's objective."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.classroom.course_loading import CourseError, load_course
from negtui.classroom.db import ResultsDB
from negtui.trainee.briefing import BriefingScreen
from negtui.trainee.lobby import LobbyScreen
from negtui.trainee.training import TrainingApp
from negtui.tui.screens.debrief import DebriefScreen
from negtui.tui.screens.dialogs import ConfirmScreen, PartnerScreen
from negtui.tui.screens.live import LiveScreen
from negtui.tui.screens.welfare import WelfareScreen

COURSE = """\
name = "graded"
title = "Graded"

[[exercises]]
id = "exam"
title = "The poison pill, graded"
scenario = "poison-pill"
seat = "B"
mode = "assessment"
attempts = 2
score = "gain"
leaderboard = "anonymous"
"""
# words only the solver's help uses: the exact solution, the welfare optimum, a hint, a suggested offer
HELP_WORDS = ("exact", "welfare", "hint ·", "suggested offer", "best (", "★", "coach, turn")


def _course(tmp_path: Path, text: str = COURSE):
    path = tmp_path / "course.toml"
    path.write_text(text)
    return load_course(path)


def test_an_assessment_with_hints_asked_for_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CourseError, match="an assessment gives no hints"):
        _course(tmp_path, COURSE + "hints = true\n")
    with pytest.raises(CourseError, match="score"):
        _course(tmp_path, COURSE.replace('score = "gain"', 'score = "luck"'))


@pytest.mark.asyncio
async def test_an_assessment_shows_no_solver_help_before_the_debrief(tmp_path: Path, wait_until, settle,
                                                                     screen_text) -> None:
    course = _course(tmp_path)
    data = tmp_path / "data"
    seen: list[str] = []  # every screen the trainee saw before the debrief

    def look(app) -> str:
        seen.append(text := screen_text(app))
        return text

    with ResultsDB.open(data) as db:
        db.add_trainee("alice")
        app = TrainingApp(course, db, "alice", data_dir=data)
        async with app.run_test(size=(160, 50)) as pilot:
            await wait_until(pilot, lambda: "assessment" in look(app), "the lobby")
            assert "leaderboard by seat (best gain)" in seen[-1]
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, BriefingScreen)
                             and "soon as it starts." in look(app), "the briefing")
            await pilot.press("ctrl+s")  # a graded attempt is asked for before it counts
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen)
                             and "Start a graded attempt?" in look(app), "the confirmation")
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(app.screen, BriefingScreen), "back at the briefing")
            assert app.plays_used(course.exercise("exam")) == 0
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation again")
            await pilot.press("y")
            # A (upper) commits its share of the project alone; then it is B's turn
            await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's turn")
            assert app.plays_used(course.exercise("exam")) == 1  # started: an attempt
            text = look(app)
            assert "an assessment: no suggestions until the debrief" in text and "b to start" not in text
            await pilot.press("b")  # no suggested offer to load
            await settle(pilot)  # whatever the key set going has finished
            assert isinstance(app.screen, PartnerScreen) and app.live is not None and app.live.partner is None
            look(app)
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, LiveScreen), "the game")
            for key in ("h", "w"):  # no hint, no welfare optimum
                await pilot.press(key)
                await settle(pilot)
                assert isinstance(app.screen, LiveScreen) and not any(isinstance(s, WelfareScreen)
                                                                      for s in app.screen_stack)
                look(app)
            await pilot.press("2")
            await wait_until(pilot, lambda: "the others' forecasts come with the debrief" in look(app),
                             "the forecasts, the others' withheld")
            await pilot.press("5")
            await wait_until(pilot, lambda: "an assessment: no coaching while you play" in look(app), "the coach")
            game = app.live.game
            assert not game.valuation.exact_solved and game.lenses == ("myopic", "upper", "lower")
            await pilot.press("q")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "leave?")
            await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "resume" in look(app),
                             "the lobby, the game kept")
            (left,) = db.unfinished_games("alice")
            await pilot.press("down", "enter")  # the exercise itself: a second game while one is under way
            await wait_until(pilot, lambda: "is under way: resume it" in look(app), "the refusal")
            assert db.unfinished_games("alice") == [left] and app.plays_used(course.exercise("exam")) == 1
            await pilot.press("up", "enter")  # resume
            await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's turn again")
            look(app)
            (resumed,) = db.unfinished_games("alice")
            assert resumed.id == left.id and resumed.record_path != left.record_path  # the same game, continued
            await pilot.press("x")  # B passes the last turn
            await wait_until(pilot, lambda: isinstance(app.screen, DebriefScreen), "the debrief")
            for text in seen:
                for word in HELP_WORDS:
                    assert word not in text, f"{word!r} on a screen before the debrief:\n{text}"
            await wait_until(pilot, lambda: "score: " in screen_text(app), "the score")
            text = screen_text(app)
            assert "your gain over the No-Negotiation baseline" in text
            assert "your costliest decisions" in text or "no decision of yours cost anything" in text
            assert "press the number" not in text  # no retry from a decision: an attempt starts afresh
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "2 plays of 2" not in
                             screen_text(app) and "1 play of 2" in screen_text(app), "the lobby after the game")
            (row,) = db.games("graded", "exam")
            assert row.id == left.id and row.status == "finished"
            assert "you" in screen_text(app) and "alice" not in screen_text(app).split("leaderboard")[1]
