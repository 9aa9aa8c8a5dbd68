"""A course's table under simultaneous rules, opened by the training server as any table: two trainees propose
in the same turn through their apps' game sources, each result is filed with the debrief's numbers, and the
table's one record verifies (docs/simultaneous.md)."""

from __future__ import annotations

from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from negtui.record import load_record
from negtui.record.audit import audit
from negtui.record.replay import Replay
from negtui.table.source import sit
from tests.keeper import Server
from tests.serve.test_tables import play_through
from tests.waiting import wait_for

COURSE = """\
name = "race"
title = "At once"

[[exercises]]
id = "race"
title = "The race for the port, in pairs"
scenario = "simultaneous-race"
humans = ["A", "B"]
rules = "paper+simultaneous"
bots = "myopic"
partner = "greedy"
sims = 4
decision_time = 60
"""


@pytest.fixture
def race_server(tmp_path: Path) -> Generator[Server]:
    course = tmp_path / "course.toml"
    course.write_text(COURSE)
    s = Server(tmp_path / "data", course)
    yield s
    s.stop()


def test_two_trainees_play_a_simultaneous_table_and_each_result_is_kept(race_server: Server) -> None:
    server = race_server
    answer = server.open("race")
    assert answer["ok"], answer
    (row,) = server.db.tables.live("race", "race")
    alice = sit(Path(answer["socket"]), "alice", "A")
    bob = sit(Path(answer["socket"]), "bob", "B")
    with ThreadPoolExecutor(2) as both:  # both pass their offers of the one turn; a failure in either is raised here
        playing = {name: both.submit(play_through, src) for name, src in (("alice", alice), ("bob", bob))}
        results = {name: game.result() for name, game in playing.items()}
    assert results["alice"] == results["bob"] == [0.0, 0.0, 0.0, 0.0]  # both passed the one turn
    [ev] = alice.game.events
    assert [o.status for o in ev.outcomes] == ["passed", "passed"]

    def finished() -> list[dict[str, Any]]:
        rows = [g for g in server.db.results("race") if g["status"] == "finished"]
        return rows if len(rows) == 2 else []

    by_seat = {g["seat"]: g for g in wait_for(finished, "both results")}
    assert by_seat["A"]["trainee"] == "alice" and by_seat["B"]["trainee"] == "bob"
    assert by_seat["A"]["decisions"] == 1 and by_seat["B"]["decisions"] == 1  # each one's offer, coached
    done = wait_for(lambda: (r := server.db.tables.get(row.id)) and r.status == "over" and r, "the table over",
                    seen=lambda: server.db.tables.get(row.id))
    rec = load_record(done.record_path)
    assert rec.complete and rec.header.seats["A"].person == "alice" and audit(Replay(rec)) == []
    alice.close()
    bob.close()
