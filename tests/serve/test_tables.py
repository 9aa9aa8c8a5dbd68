"""The training server's tables: a trainee's app asks the server, which opens a table process of its own
for the course's exercise; trainees sit at it as its clients; the table process alone writes the record,
its row and each trainee's result with the debrief's numbers; stopping the server closes its tables."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from negtui.classroom.db import ResultsDB
from negtui.record import load_record
from negtui.record.audit import audit
from negtui.record.replay import Replay
from negtui.record.signing import check_chain, read_key
from negtui.table.source import TableSource, sit
from negtui.trainee.hub import ask
from tests.keeper import Server
from tests.waiting import wait_for


def play_through(source: TableSource, accept: bool = False, limit: float = 60.0) -> list[float]:
    """This person passes when proposing and answers `accept`, until the game is over; the payoffs."""
    deadline = time.monotonic() + limit
    while True:
        assert time.monotonic() < deadline, "the game did not end"
        line = source.client.receive(limit)
        assert line is not None, "the table closed the connection"
        source.receive(line)
        if line["type"] == "over":
            return line["payoffs"]
        if source.person_to_move():
            source.answer(accept) if source.pending is not None else source.pass_turn()


def read_until(source: TableSource, cond: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Take in the table's lines until `cond` holds, failing after `timeout` seconds naming `what`."""
    deadline = time.monotonic() + timeout
    while not cond():
        left = deadline - time.monotonic()
        assert left > 0, f"timed out after {timeout:.0f} s waiting for {what}"
        line = source.client.receive(left)
        assert line is not None, f"the table closed the connection (or said nothing) while waiting for {what}"
        source.receive(line)


def test_two_trainees_play_a_table_the_server_opened_and_each_result_is_kept(server: Server) -> None:
    answer = server.open("pill")
    assert answer["ok"], answer
    (row,) = server.db.tables.live("tables", "pill")
    assert row.status == "forming" and row.socket == answer["socket"]
    assert os.stat(answer["socket"]).st_mode & 0o777 == 0o600
    alice = sit(Path(answer["socket"]), "alice", "A")
    bob = sit(Path(answer["socket"]), "bob")
    assert (alice.view.you, bob.view.you) == ("A", "B")  # bob is given the seat left
    def seated() -> list[Any]:
        named = [s for s in (server.db.tables.get(row.id) or row).people if s.name]
        return named if len(named) == 2 else []

    assert {(s.player, s.name) for s in wait_for(seated, "seats kept")} == {("A", "alice"), ("B", "bob")}
    with ThreadPoolExecutor(2) as both:  # each plays on as the table asks; a failure in either is raised here
        playing = {name: both.submit(play_through, src) for name, src in (("alice", alice), ("bob", bob))}
        results = {name: game.result() for name, game in playing.items()}
    assert results["alice"] == results["bob"]
    payoffs = results["alice"]
    def finished() -> list[dict[str, Any]]:
        rows = [g for g in server.db.results("tables") if g["status"] == "finished"]
        return rows if len(rows) == 2 else []

    by_seat = {g["seat"]: g for g in wait_for(finished, "both results")}
    assert by_seat["A"]["trainee"] == "alice" and by_seat["B"]["trainee"] == "bob"
    assert [by_seat["A"]["payoff"], by_seat["B"]["payoff"]] == pytest.approx(payoffs)
    assert by_seat["A"]["decisions"] > 0 and by_seat["B"]["decisions"] > 0  # every decision, coached
    assert by_seat["A"]["welfare_optimum"] is not None and by_seat["A"]["counterfactual_upper"] is not None
    done = wait_for(lambda: (r := server.db.tables.get(row.id)) and r.status == "over" and r, "the table over",
                 seen=lambda: server.db.tables.get(row.id))
    rec = load_record(done.record_path)  # one record for the table, written by its process alone
    assert rec.complete and rec.header.seats["A"].person == "alice" and rec.header.seats["B"].person == "bob"
    assert by_seat["A"]["record_path"] == by_seat["B"]["record_path"] == done.record_path
    assert audit(Replay(rec)) == []
    assert check_chain(rec.lines, read_key(server.data / "record.key")).status == "valid"
    alice.close()
    bob.close()
    wait_for(lambda: row.id not in server.keeper.open, "the table's process to end", seen=lambda: server.keeper.open)
    assert not Path(answer["socket"]).exists()


def test_a_count_of_people_lets_each_pick_a_seat_and_late_comers_are_refused(server: Server) -> None:
    answer = server.open("trap")
    path = Path(answer["socket"])
    bob = sit(path, "bob", "C")
    alice = sit(path, "alice", "A")
    assert (bob.view.you, alice.view.you) == ("C", "A")
    with pytest.raises(Exception, match="every seat for a person at this table is taken"):
        sit(path, "carol", "B")  # two people sit at this table; B is a bot's
    wait_for(lambda: (r := server.db.tables.get(answer["table"])) and r.status == "playing", "the start")
    alice.close()
    bob.close()


def test_only_a_trainees_app_may_ask_and_only_for_a_table_exercise(server: Server) -> None:
    assert not server.open("alone")["ok"] and "played alone" in server.open("alone")["why"]
    assert "no exercise 'nope'" in server.open("nope")["why"]
    assert "nothing else" in server.run(server.keeper.answer("alice", {"op": "shell"}))["why"]
    first = server.open("pill")
    assert server.open("pill") == first  # the same trainee's table nobody else joined yet: no second one
    server.apps.clear()  # this process is nobody's app now
    refused = ask(server.path, {"op": "open", "exercise": "pill"})
    assert refused == {"ok": False, "why": "only a trainee's app may ask for a table"}
    server.apps[os.getpid()] = "bob"
    assert ask(server.path, {"op": "open", "exercise": "pill"})["table"] != first["table"]
    server.apps[os.getpid()] = "carol"
    assert ask(server.path, {"op": "open", "exercise": "trap"})["ok"]
    server.apps[os.getpid()] = "dave"  # no empty table of their own: the server's limit is what refuses
    assert "runs 3 tables already" in ask(server.path, {"op": "open", "exercise": "pill"})["why"]


def test_stopping_the_server_closes_its_tables_and_abandons_their_games(server: Server) -> None:
    answer = server.open("pill")
    alice = sit(Path(answer["socket"]), "alice")
    bob = sit(Path(answer["socket"]), "bob")
    wait_for(lambda: len([g for g in server.db.results("tables") if g["status"] == "playing"]) == 2, "the games",
          seen=lambda: [(g["trainee"], g["status"]) for g in server.db.results("tables")])
    read_until(alice, alice.person_to_move, "alice's move")  # she opens: a turn played, the record keeps it
    alice.pass_turn()
    read_until(alice, lambda: alice.game.state.t > 0, "alice's pass to be played")
    server.run(server.keeper.stop())
    row = server.db.tables.get(answer["table"])
    assert row is not None and row.status == "closed" and row.end_reason == "the training server stopped"
    assert server.db.unfinished_games("alice") == []
    rec = load_record(row.record_path)
    assert not rec.complete and rec.header.seats["A"].person == "alice"  # kept as far as it got
    assert Replay(rec).last_turn == 1
    alice.close()
    bob.close()


def test_tables_a_stopped_server_left_open_are_closed_at_the_next_start(tmp_path: Path) -> None:
    with ResultsDB.open(tmp_path) as db:
        db.add_trainee("alice")
        t = db.tables.opened("c", "e", "/nowhere.sock")
        db.tables.started(t, None, 6, {"A": 0.0})
        game = db.game_started("alice", "c", "e", "s", "d", "A", "/r.jsonl", table_id=t)
        assert db.tables.close_left_over("the training server stopped") == 1
        assert db.tables.get(t).status == "closed" and db.game(game).status == "abandoned"
        assert db.tables.live("c") == []


def test_a_trainee_has_one_empty_table_open_whatever_the_exercise(server: Server) -> None:
    first = server.open("pill")
    assert first["ok"], first
    refused = server.open("trap")  # another exercise: still one empty table per trainee
    assert refused == {"ok": False, "why": f"your table of 'The poison pill, in pairs' (table {first['table']}) waits "
                                          "for people: sit at it, or leave it to close (an empty table closes within a "
                                          "minute)"}
    assert server.open("pill") == first and len(server.keeper.open) == 1
    bob = sit(Path(first["socket"]), "bob")  # someone else sits down: no longer an empty table of alice's
    wait_for(lambda: any(s.name == "bob" for s in (server.db.tables.get(first["table"]) or []).people), "bob seated",
             seen=lambda: server.db.tables.get(first["table"]))
    assert server.open("trap")["ok"]
    bob.close()
