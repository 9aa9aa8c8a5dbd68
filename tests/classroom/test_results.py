"""What a finished game files for a person's seat (classroom/results.py), played for real: the choice's whole
text, a time-out marked as the clock's decision (and marked wherever it ranks among the costliest), the turns a
bot played after the person's seat was handed over, the seat's own efficiency beside the table's, the mode; and
the `negtui results` exports that read them (games and decisions as CSV, read with pandas)."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import DB_NAME, ResultsDB
from negtui.classroom.debrief import class_debrief
from negtui.classroom.results import keep
from negtui.coach.closing import welfare_optimum
from negtui.coach.debrief import debrief
from negtui.engine import PAPER, Phase
from negtui.play import LiveGame
from negtui.scenario import parse_scenario
from negtui.seats import Seat
from negtui.table.clock import expired

LONG_A = "Fund the shared water-treatment plant for the whole valley over the next ten years"
LONG_B = "Build the shared water-treatment plant on the land north of the river by spring"


def _scenario() -> dict:
    """The poison pill over three rounds, its actions named by opaque ids and long labels (the screens shorten
    them; a result keeps them whole)."""
    def act(i: str, label: str) -> dict:
        return {"id": i, "label": label}

    return {
        "format": "negtui-scenario/1", "name": "long-pill",
        "players": [{"id": "A", "name": "Alice", "actions": [act("a0", LONG_A), act("a1", "A side action")]},
                    {"id": "B", "name": "Bob", "actions": [act("b0", LONG_B), act("b1", "A harmful clause")]}],
        "goals": [{"id": "bait", "kind": "linear", "requires": [{"player": "A", "action": "a0"},
                                                                {"player": "B", "action": "b0"}],
                   "values": {"A": 30, "B": 30}},
                  {"id": "poison", "kind": "linear", "requires": [{"player": "B", "action": "b1"}],
                   "values": {"A": 10, "B": -23}}],
        "protocol": {"budget": 2, "schedule": ["A", "B"] * 3},
    }


COURSE = """\
name = "water"
title = "Water"

[[exercises]]
id = "plant"
title = "The plant, alone"
scenario = "long-pill.json"
seat = "B"
"""


def _play(game: LiveGame) -> list[int]:
    """B's decisions: t0 and t2 answered (a rejection), t1 an offer of both plant actions, t3 left to the clock;
    from t4 a bot plays B (the person dropped out).  The turns the bot decided in B's seat."""
    bot_from = 4
    while not game.over:
        t = game.state.t
        if t == bot_from and game.is_human(1):
            game.set_seat("B", Seat.lens("upper"))
        if game.waiting_for_person():
            if t == 3:
                game.submit(expired(game))  # the clock: a pass in B's name
            elif game.driver.phase is Phase.RESPOND:
                game.submit(game.answer(False))
            else:
                game.submit(game.propose(0, [0, 2]))  # to A: both shares of the plant
        else:
            for move in game.think():
                game.submit(move)
    return [ev.t for ev in game.events if ev.t >= bot_from and (
        ev.proposer == 1 or (ev.partner == 1 and not ev.offer.is_noop and ev.proposer != ev.partner))]


@pytest.fixture
def filed(tmp_path: Path) -> tuple[Path, Path, list[int], LiveGame]:
    """A game of B's played to the end and filed as the app files it; (data dir, course file, bot turns, game)."""
    (tmp_path / "long-pill.json").write_text(json.dumps(_scenario()))
    (tmp_path / "course.toml").write_text(COURSE)
    data = tmp_path / "data"
    game = LiveGame(parse_scenario(_scenario()), PAPER, {"A": Seat.lens("myopic"), "B": Seat.human("bob")})
    bots = _play(game)
    game.assess_pending()
    d = debrief(game.neg, 1, game.state, game.assessments)
    optimum = welfare_optimum(game.neg)
    assert optimum is not None
    d.welfare_optimum, d.seat_at_optimum = optimum[0], optimum[1][1]
    with ResultsDB.open(data) as db:
        db.add_trainee("bob")
        gid = db.game_started("bob", "water", "plant", "long-pill", "d", "B", "/r.jsonl")
        keep(db, gid, game, d, 12.0)
    game.close()
    return data, tmp_path / "course.toml", bots, game


def test_a_filed_game_keeps_whole_choices_time_outs_bot_turns_and_the_seats_efficiency(filed, cli) -> None:
    data, course, bots, game = filed
    assert bots, "a bot decided in B's seat after it was handed over"
    out = cli("results", "--decisions", "--csv", "--data-dir", data)
    assert out.exit_code == 0, out.output
    rows = pd.read_csv(io.StringIO(out.stdout))
    assert {1, 2, 4} <= set(rows["turn"]) and max(rows["turn"]) == 4  # B's decisions until the bot took over
    assert list(rows.columns[rows.columns.get_loc("choice"):][:2]) == ["choice", "timed_out"]
    offer = rows[rows["turn"] == 2].iloc[0]
    assert LONG_A in offer["choice"] and LONG_B in offer["choice"] and "…" not in offer["choice"]
    assert offer["choice"] == f"to A: B commits {LONG_B}; A commits {LONG_A} (accepted)"
    assert all("…" not in str(v) for c in rows.columns if c.endswith("_choice") for v in rows[c].dropna())
    assert rows.loc[rows["timed_out"], "turn"].tolist() == [4]  # turn 4: the clock passed for B
    assert rows[rows["timed_out"]].iloc[0]["choice"] == "no offer"

    out = cli("results", "--csv", "--course", course, "--data-dir", data)
    assert out.exit_code == 0, out.output
    games = pd.read_csv(io.StringIO(out.stdout), dtype_backend="numpy_nullable")
    (g,) = games.itertuples()
    assert (g.mode, g.attempt, g.bot_turns, g.bot_played) == ("practice", 1, len(bots), True)
    payoffs = game.neg.returns(game.state)
    assert g.score == pytest.approx(float(payoffs[1]))  # the exercise scores by payoff
    assert g.efficiency == pytest.approx(float(payoffs[1]) / g.seat_optimum)  # the seat's own
    assert g.table_efficiency == pytest.approx(float(payoffs.sum()) / g.welfare_optimum)  # the table's
    assert str(games["table"].dtype) == "Int64" and games["table"].isna().all()  # an integer column, empty alone


def test_a_time_out_among_the_costliest_is_marked(filed) -> None:
    data, course, _, _ = filed
    with sqlite3.connect(data / DB_NAME) as con:  # the clock's pass made the costliest of B's decisions
        con.execute("UPDATE decisions SET cost = 99 WHERE timed_out = 1")
    with ResultsDB.open(data) as db:
        d = class_debrief(db, load_course(course), "plant")
    top = d.costliest[0]
    assert (top.cost, top.timed_out, top.choice, top.chose) == (99.0, True, "no offer", "no offer (time ran out)")
    assert all(c.chose == c.choice for c in d.costliest[1:])


def test_reading_results_from_a_folder_without_a_database_makes_none(cli, tmp_path):
    """A mistyped --data-dir is said, and leaves nothing behind: a read does not create a database."""
    new = tmp_path / "no-such-class"
    res = cli("results", "--data-dir", new)
    assert res.exit_code == 2
    assert f"no results database in {new}" in res.stderr and "Traceback" not in res.output
    assert not new.exists()
    ResultsDB.open(new).close()  # an existing one, empty, reads as no games
    assert cli("results", "--json", "--data-dir", new).stdout.strip() == "[]"


@pytest.mark.parametrize("command", [("trainees", "list"), ("trainees", "remove", "ann"),
                                     ("trainees", "set", "ann", "--student-id", "7")])
def test_trainee_commands_that_only_change_what_exists_make_no_database(cli, tmp_path, command):
    """Listing, removing or changing trainees in a mistyped --data-dir is said and creates nothing there."""
    new = tmp_path / "no-such-class"
    res = cli(*command, "--data-dir", new)
    assert res.exit_code == 2 and f"no results database in {new}" in res.stderr
    assert "Traceback" not in res.output and not new.exists()
