"""Where a trainee takes a seat at a table (seatbook.py): one transaction checks and claims it, so that one
trainee logged in twice — two sessions, each with its own connection to the results database, interleaved
here step by step — can neither hold more attempts of an exercise than it allows, nor read two of its
confidential roles, nor sit away from a seat the trainer keeps for them.  And a game played alone: a practice
game under way counts against the plays left when another session starts one."""

from __future__ import annotations

from pathlib import Path

import pytest

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.classroom.gradebook import Allowance, NoAttempt, gradebook
from negtui.classroom.seatbook import SeatClosed, SeatRules
from negtui.table.views import Occupant
from tests.racing import at_once

COURSE = """\
name = "seats"
title = "Seats"

[[exercises]]
id = "pair"
title = "The pill, in pairs, once"
scenario = "poison-pill"
humans = ["A", "B"]
attempts = 1
"""
ONCE = SeatRules("seats", "pair", Allowance(1, every_start=False), one_role=False)
SECRET = SeatRules("seats", "secret", Allowance(None, every_start=False), one_role=True, labels={"A": "Alice"})


def _finish(db: ResultsDB, game: int) -> None:
    db.game_finished(game, payoff=1.0, payoffs=[1.0, 1.0], baseline=0.0, counterfactuals={}, welfare_optimum=None,
                     efficiency=None, duration=1.0, decisions=[], mode="practice")


def _tables(db: ResultsDB, n: int, exercise: str = "pair") -> list[int]:
    return [db.tables.opened("seats", exercise, f"/t{k}.sock") for k in range(n)]


def test_two_sessions_sitting_at_two_tables_hold_one_attempt_between_them(tmp_path: Path) -> None:
    """The picker of each session said one play left; the first seat taken is the attempt, the second session
    is told where it is, and once that game is finished no table seats her again."""
    with ResultsDB.open(tmp_path) as first, ResultsDB.open(tmp_path) as second:
        first.add_trainee("alice")
        own, classmates = _tables(first, 2)
        game = first.seats.claim(own, "alice", "A", ONCE)
        with pytest.raises(SeatClosed, match=f"you sit at table {own} of this exercise already"):
            second.seats.claim(classmates, "alice", "B", ONCE)
        assert second.seats.claim(own, "alice", "A", ONCE) == game  # back at her own table: the same game
        first.seats.started(own, "/r.jsonl", {"A": "alice"}, ONCE)
        _finish(first, game)
        with pytest.raises(NoAttempt, match=r"no plays of this exercise left \(1 of 1 used\)"):
            second.seats.claim(classmates, "alice", "B", ONCE)
        (tmp_path / "course.toml").write_text(COURSE)
        (row,) = gradebook(first, load_course(tmp_path / "course.toml").course)
        assert (row["attempts_used"], row["attempts_allowed"]) == (1, 1)


@pytest.mark.parametrize("every_start", [False, True], ids=["practice", "assessment"])
def test_of_sessions_sitting_down_at_the_same_moment_at_different_tables_exactly_one_is_seated(
        tmp_path: Path, every_start: bool) -> None:
    sessions = 6
    rules = SeatRules("seats", "pair", Allowance(1, every_start), one_role=False)
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("alice")
        tables = _tables(db, sessions)
    won, refused = at_once(tmp_path, sessions, lambda db, k: db.seats.claim(tables[k], "alice", "A", rules),
                           SeatClosed)
    assert len(won) == 1 and len(refused) == sessions - 1, (won, refused)
    with ResultsDB.open(tmp_path) as db:
        assert len(db.rows("SELECT id FROM games WHERE status = 'playing'")) == 1


def test_a_seat_given_up_or_at_a_table_that_never_started_is_no_attempt_and_a_started_one_is(tmp_path: Path) -> None:
    exam = SeatRules("seats", "pair", Allowance(1, every_start=True), one_role=False)
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("alice")
        left, unstarted, played, later = _tables(db, 4)
        db.seats.claim(left, "alice", "A", exam)
        db.seats.given_up(left, "alice")  # left before the start
        db.seats.claim(unstarted, "alice", "A", exam)
        db.tables.closed(unstarted, "nobody else came")
        assert db.rows("SELECT id FROM games") == []
        db.seats.claim(played, "alice", "B", exam)
        db.tables.started(played, "/r.jsonl", 6, {})
        db.seats.started(played, "/r.jsonl", {"B": "alice"}, exam)
        db.seats.given_up(played, "alice")  # a drop after the start gives nothing up
        db.tables.closed(played, "the trainer ended the table")
        assert db.grades.attempts("alice", "seats", "pair", every_start=True) == 1  # abandoned: an attempt
        with pytest.raises(NoAttempt, match=r"\(1 of 1 used\)"):
            db.seats.claim(later, "alice", "A", exam)


def test_one_confidential_role_per_trainee_and_exercise_whatever_the_table_or_session(tmp_path: Path) -> None:
    with ResultsDB.open(tmp_path) as first, ResultsDB.open(tmp_path) as second:
        first.add_trainee("alice")
        one, two = _tables(first, 2, "secret")
        first.seats.claim(one, "alice", "A", SECRET)  # shown A's role
        first.seats.given_up(one, "alice")  # leaves before the start: the role stays read
        refusal = "you have been shown the confidential role of Alice \\(A\\) in this exercise: at its tables you " \
                  "sit as Alice \\(A\\) only"
        with pytest.raises(SeatClosed, match=refusal):
            second.seats.claim(one, "alice", "B", SECRET)
        with pytest.raises(SeatClosed, match=refusal):
            second.seats.claim(two, "alice", "B", SECRET)
        with pytest.raises(SeatClosed, match="alice has been shown the role of Alice \\(A\\) in this exercise: keep "
                                             "Alice \\(A\\) for them"):
            second.seats.may_keep(two, "alice", "B", SECRET)
        second.seats.claim(two, "alice", "A", SECRET)
        assert first.seats.role_seen("alice", "seats", "secret") == "A"


def test_a_seat_kept_for_a_trainee_binds_them_and_no_second_one_is_kept(tmp_path: Path) -> None:
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("alice")
        kept, other = _tables(db, 2)
        db.tables.seated(kept, (Occupant("A", "human", "alice", False, True),
                                Occupant("B", "human", None, False, True)))  # A kept for her, not come yet
        with pytest.raises(SeatClosed, match=f"the trainer keeps A at table {kept} for you"):
            db.seats.claim(other, "alice", "B", ONCE)
        with pytest.raises(SeatClosed, match=f"A at table {kept} is kept for alice already"):
            db.seats.may_keep(other, "alice", "B", ONCE)
        db.seats.claim(kept, "alice", "A", ONCE)  # her kept seat


def test_a_bots_seat_given_to_a_latecomer_binds_them_and_a_table_is_named_by_its_name(tmp_path: Path) -> None:
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("dave")
        north = db.tables.opened("seats", "pair", "/north.sock", "north")
        other = db.tables.opened("seats", "pair", "/other.sock")
        db.tables.started(north, "/r.jsonl", 2, {"A": 0.0, "B": 0.0})  # under way, nobody in a person's seat
        db.tables.seated(north, (Occupant("A", "upper", "dave", False, True),  # given to dave, a bot plays it
                                 Occupant("B", "upper", None, False, True)))
        with pytest.raises(SeatClosed, match="the trainer keeps A at table north for you"):
            db.seats.claim(other, "dave", "A", ONCE)
        with pytest.raises(SeatClosed, match="A at table north is kept for dave already"):
            db.seats.may_keep(other, "dave", "A", ONCE)
        db.seats.claim(north, "dave", "A", ONCE, "/r.jsonl")  # he sits down: his game there
        with pytest.raises(SeatClosed, match="you sit at table north of this exercise already"):
            db.seats.claim(other, "dave", "B", ONCE)


def test_a_practice_game_under_way_in_one_session_is_the_last_play_for_another(tmp_path: Path) -> None:
    once = Allowance(1, every_start=False)
    with ResultsDB.open(tmp_path) as first, ResultsDB.open(tmp_path) as second:
        first.add_trainee("alice")
        game = first.game_started("alice", "seats", "solo", "poison-pill", "d", "B", "/r1.jsonl", allowance=once)
        with pytest.raises(NoAttempt, match="your game of this exercise under way is your last play"):
            second.game_started("alice", "seats", "solo", "poison-pill", "d", "B", "/r2.jsonl", allowance=once)
        _finish(first, game)
        assert first.grades.attempts("alice", "seats", "solo") == 1
        assert len(first.rows("SELECT id FROM games")) == 1
