"""The class debrief of a case of issues: what each table agreed, issue by issue, read from the result line of
its record; a play whose record has no result in reach is listed as not known, never guessed."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from negtui.classroom.agreements import TAIL, final_commitments
from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.classroom.debrief import class_debrief
from negtui.classroom.results import keep
from negtui.coach.debrief import debrief
from negtui.coach.sheet import Sheet
from negtui.console.debrief_pane import agreed
from negtui.engine import PAPER, Phase
from negtui.play import LiveGame
from negtui.seats import Seat
from tests.paths import ROOT

COURSE = ROOT / "courses" / "cases.toml"
CITY = 1


PLAN = {"authority": ["network.grid", "fares.flat"], "city": ["network.grid"], "upland": ["fares.flat"],
        "valley": ["network.grid", "fares.flat"]}  # settles the network on the grid and fares on one flat fare


def _file(db: ResultsDB, course, record: Path, trainee: str) -> LiveGame:
    """A game of the bus case whose members back the options of PLAN, offer by offer (every offer accepted), the
    City's seat filed as the trainee's."""
    sc = course.scenarios["bus-veto"]
    game = LiveGame(sc, PAPER, {p: Seat.human(p) for p in sc.player_ids}, record=record)
    g = game.neg.game
    left = {i: [g.cell_index[(pid, a)] for a in PLAN[pid]] for i, pid in enumerate(g.player_ids)}
    while not game.over:
        if game.driver.phase is Phase.RESPOND:
            game.submit(game.answer(True))
            continue
        p = game.neg.proposer(game.state)
        q = next((k for k in range(g.n) if k != p and left[k]), p)
        cells = left[p] + (left[q] if q != p else [])
        left[p], left[q] = [], []
        game.submit(game.propose(q, cells))
    db.add_trainee(trainee)
    gid = db.game_started(trainee, "cases", "bus-veto", sc.name, "d", "city", record)
    keep(db, gid, game, debrief(game.neg, CITY, game.state, []), 10.0)
    game.close()
    return game


def test_the_class_debrief_says_what_each_table_agreed_on_each_issue(tmp_path: Path) -> None:
    course = load_course(COURSE)
    with ResultsDB.open(tmp_path / "data") as db:
        game = _file(db, course, tmp_path / "one.jsonl", "ann")
        _file(db, course, tmp_path / "two.jsonl", "bob")
        (tmp_path / "two.jsonl").write_text('{"type": "header"}\n')  # a record cut short: no result line
        d = class_debrief(db, course, "bus-veto")
    sheet = Sheet(game.neg.game)
    want = tuple(i.outcome.id if i.outcome else "" for i in sheet.issues(game.state.bits, 0))
    assert want == ("grid", "flat", "", "")
    assert d.issues == ("Network", "Fares", "Deficit", "Service")
    assert [(a.where, a.settled, a.walked) for a in d.agreements] == [
        ("ann alone (game 1)", want, ()), ("bob alone (game 2)", None, ())]
    console = Console(width=46, record=True)  # the pane beside the exercises at 80 columns
    console.print(agreed(d))
    text = console.export_text()
    assert [line.rstrip() for line in text.splitlines()] == [
        "",
        "What each table agreed, issue by issue",
        " ann alone (game 1): Network grid · Fares flat",
        "· Deficit open · Service open",
        " bob alone (game 2): not known (no result in",
        "its record)", ""]


def test_a_result_line_out_of_reach_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_text('{"type": "header"}\n{"type": "result", "commitments": [["a", "' + "x" * TAIL + '"]]}\n')
    assert final_commitments(path) is None  # the line begins before the end read
    path.write_text('{"type": "header"}\n{"type": "result", "commitments": [["a", "b"]]}\n')
    assert final_commitments(path) == [["a", "b"]]
    assert final_commitments(tmp_path / "gone.jsonl") is None
