"""Graded attempts hold across sessions: one trainee logged in twice, starting the same assessment in both,
starts one graded game.  The plays left are counted in the transaction that files the game, so whichever
session comes second is refused, whatever its own lobby said a moment before."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import DBError
from negtui.classroom.gradebook import Allowance, NoAttempt
from negtui.trainee.briefing import BriefingScreen
from negtui.trainee.lobby import LobbyScreen
from negtui.trainee.training import TrainingApp
from negtui.tui.screens.dialogs import ConfirmScreen
from tests.racing import at_once

COURSE = """\
name = "graded"
title = "Graded"

[[exercises]]
id = "exam"
title = "The poison pill, graded"
scenario = "poison-pill"
seat = "B"
mode = "assessment"
attempts = 1
"""
ONE_TRY = Allowance(plays=1, every_start=True)


def _start(db: ResultsDB, session: int, allowance: Allowance = ONE_TRY, record: str = "") -> int:
    return db.game_started("alice", "graded", "exam", "poison-pill", "d", "B", record or f"/r/{session}.jsonl",
                           allowance=allowance)


@pytest.mark.parametrize("allowance", [ONE_TRY, Allowance(plays=None, every_start=True)],
                         ids=["one-attempt", "unlimited-attempts"])
def test_of_sessions_starting_at_the_same_moment_exactly_one_files_a_game(tmp_path: Path,
                                                                          allowance: Allowance) -> None:
    """Eight sessions, each with its own connection to the same file, released together: one graded game is
    filed, every other start is refused with the reason (with unlimited attempts too: the game under way
    is the one to resume)."""
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("alice")
    sessions = 8
    won, refused = at_once(tmp_path, sessions, lambda db, k: _start(db, k + 1, allowance), NoAttempt)
    assert len(won) == 1 and len(refused) == sessions - 1, (won, refused)
    assert all("your game of this exercise is under way" in why for why in refused), refused
    with ResultsDB.open(tmp_path) as db:
        assert db.grades.attempts("alice", "graded", "exam", every_start=True) == 1
        assert [g.id for g in db.unfinished_games("alice")] == won


def test_a_refused_start_files_nothing_and_a_claim_is_an_ordinary_database_error(tmp_path: Path) -> None:
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("alice")
        first = _start(db, 1)
        with pytest.raises(NoAttempt, match="under way"):
            _start(db, 2)
        db.game_abandoned(first)  # left past the idle timeout: still the one attempt
        with pytest.raises(NoAttempt, match=r"no plays of this exercise left \(1 of 1 used\)"):
            _start(db, 3)
        assert [g.id for g in db.unfinished_games("alice")] == []
        assert issubclass(NoAttempt, DBError)  # every caller of the database already says what went wrong


def test_a_start_cut_off_before_its_record_was_named_spends_no_attempt(tmp_path: Path) -> None:
    """A session whose app was killed between filing its attempt and naming the game's record played nothing:
    once that session has ended, the next start is not refused for it."""
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("alice")
        cut = db.session_started("alice", "127.0.0.1:1", "SHA256:x")
        db.game_started("alice", "graded", "exam", "poison-pill", "d", "B", "", cut, allowance=ONE_TRY)
        with pytest.raises(NoAttempt, match="under way"):  # its session still open: it may be starting
            _start(db, 2)
        db.session_ended(cut, "disconnected")
        game = _start(db, 3)
        assert [g.id for g in db.unfinished_games("alice")] == [game]
        assert db.grades.attempts("alice", "graded", "exam", every_start=True) == 1


@pytest.mark.asyncio
async def test_a_session_whose_lobby_said_one_play_left_is_refused_when_another_started_meanwhile(
        tmp_path: Path, wait_until, screen_text) -> None:
    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    data = tmp_path / "data"
    with ResultsDB.open(data) as db, ResultsDB.open(data) as other:
        db.add_trainee("alice")
        app = TrainingApp(course, db, "alice", data_dir=data)
        async with app.run_test(size=(140, 44), notifications=True) as pilot:
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "0 plays of 1" in
                             screen_text(app), "the lobby, one play left")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, BriefingScreen), "the briefing")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
            record = tmp_path / "elsewhere.jsonl"  # the other session's game, as it is written there
            record.write_text("")
            elsewhere = _start(other, 9, record=str(record))  # the same trainee's other session starts it first
            await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, LobbyScreen) and any(
                "cannot start" in n.message for n in app._notifications), "the refusal, back in the lobby")
            assert app.live is None and app.game_id is None
            (told,) = [n.message for n in app._notifications if "cannot start" in n.message]
            assert told.startswith("'The poison pill, graded' cannot start: your game of this exercise is under way")
            await wait_until(pilot, lambda: "resume" in screen_text(app), "the other session's game, to resume")
            assert [g.id for g in db.unfinished_games("alice")] == [elsewhere]
            assert db.grades.attempts("alice", "graded", "exam", every_start=True) == 1
            assert not list((data / "records").rglob("*.jsonl"))  # the game that did not start left no record


@pytest.mark.asyncio
async def test_a_game_open_in_another_session_is_resumed_only_once_that_session_has_ended(
        tmp_path: Path, wait_until) -> None:
    """Playing on one graded game in two sessions would be two tries at one attempt (see the outcome in one,
    play the other differently): a session resumes a game only when no other open session holds it."""
    from textual.widgets import OptionList

    from negtui.tui.screens.dialogs import PartnerScreen

    def lobby(app: TrainingApp) -> bool:
        return isinstance(app.screen, LobbyScreen) and app.screen.query_one(OptionList).option_count > 0

    (tmp_path / "course.toml").write_text(COURSE)
    course = load_course(tmp_path / "course.toml")
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_trainee("alice")
        first, second = (db.session_started("alice", f"127.0.0.1:{k}", "SHA256:x") for k in (1, 2))
        app = TrainingApp(course, db, "alice", data_dir=data, session_id=first)
        async with app.run_test(size=(140, 44)) as pilot:
            await wait_until(pilot, lambda: lobby(app), "the first session's lobby")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, BriefingScreen), "the briefing")
            await pilot.press("ctrl+s")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
            await pilot.press("y")
            await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "B's turn")
            await pilot.press("ctrl+q")  # the first session's app is left as it is: its session still open
        (game,) = db.unfinished_games("alice")
        app = TrainingApp(course, db, "alice", data_dir=data, session_id=second)
        async with app.run_test(size=(140, 44), notifications=True) as pilot:
            await wait_until(pilot, lambda: lobby(app), "the second session's lobby")
            await pilot.press("enter")  # the game to resume comes first
            await wait_until(pilot, lambda: any("open in another session" in n.message for n in app._notifications),
                             "the refusal")
            assert app.live is None and isinstance(app.screen, LobbyScreen)
            assert db.game(game.id).session_id == first
            db.session_ended(first, "disconnected")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, PartnerScreen), "the game, resumed where it was")
            assert db.game(game.id).session_id == second
        assert [g.id for g in db.unfinished_games("alice")] == [game.id]
        assert db.grades.attempts("alice", "graded", "exam", every_start=True) == 1
