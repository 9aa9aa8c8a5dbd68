"""A table's rules, with people as plain socket clients: one owner applies every move, people see the
same game, refused moves change nothing, seats survive drops, clocks run out, messages are clean,
private where addressed and kept in the record."""

from __future__ import annotations

import json
import time
from pathlib import Path

from negtui.record import load_record
from negtui.record.audit import audit
from negtui.record.replay import Replay
from negtui.record.signing import check_chain, read_key
from negtui.table.client import TableClient
from tests.table.conftest import FakeClock, table_spec


def _decide_all(people: dict, table, accept: bool = False, limit: float = 60.0) -> None:
    """Every person passes when proposing and answers `accept` until the game is over."""
    deadline = time.monotonic() + limit
    host = table.host
    while not (host.game is not None and host.game.over):
        assert time.monotonic() < deadline, (f"the game did not end within {limit:.0f} s; at "
                                             f"{host.game and host.game.state}, thinking {host.thinking}")
        game = host.game
        if game is not None and not host.thinking and game.waiting_for_person():
            pid = game.neg.game.player_ids[game.deciding]
            s = game.state
            move = ({"type": "move", "t": s.t, "phase": "respond", "accept": accept} if s.pending is not None
                    else {"type": "move", "t": s.t, "phase": "propose", "partner": pid, "cells": []})
            people[pid].send(move)
            people[pid].expect("move", lambda m, t=s.t: m["move"]["t"] == t)
        time.sleep(0.02)


def test_two_people_and_a_bot_play_a_whole_game_that_verifies(open_table, person, tmp_path: Path) -> None:
    table = open_table()
    alice, bob = person(table.path, "alice"), person(table.path, "bob")
    welcome = alice.expect("welcome")
    assert welcome["you"] == "A" and not welcome["started"]
    assert bob.expect("welcome")["you"] == "B"
    started = alice.expect("started")
    assert started["seats"]["A"] == {"agent": "human", "person": "alice"}
    assert started["seats"]["C"]["agent"] == "lens"
    _decide_all({"A": alice, "B": bob}, table)
    over = bob.expect("over")
    assert alice.expect("over") == over
    game = table.host.game
    assert over["payoffs"] == [float(v) for v in game.neg.returns(game.state)]
    # both saw every move, in the order the table applied them
    moves = [m["move"] for m in alice.seen if m["type"] == "move"]
    assert moves == [m["move"] for m in bob.seen if m["type"] == "move"] == table.host.moves
    table.stop()
    rec = load_record(tmp_path / "table.jsonl")
    assert rec.complete and rec.header.seats["A"].person == "alice"
    assert audit(Replay(rec)) == []
    assert check_chain(rec.lines, read_key(tmp_path / "record.key")).status == "valid"


def test_a_move_out_of_turn_or_against_the_rules_is_refused_and_changes_nothing(open_table, person) -> None:
    table = open_table()
    alice, bob = person(table.path, "alice"), person(table.path, "bob")
    alice.expect("started")
    # turn 0 is the bot C's: its offer to A waits for A's answer
    alice.expect("move", lambda m: m["move"]["phase"] == "propose")
    before = table.host.game.state
    bob.send({"type": "move", "t": before.t, "phase": "respond", "accept": True})
    assert bob.expect("refused")["why"] == "it is not your move"
    alice.send({"type": "move", "t": before.t + 1, "phase": "respond", "accept": True})
    assert "another moment" in alice.expect("refused")["why"]
    assert table.host.game.state == before
    alice.send({"type": "move", "t": before.t, "phase": "respond", "accept": False})
    alice.expect("move", lambda m: m["move"]["player"] == "A")
    # A proposes next: an offer of B's cell to C is not A's to make
    s = table.host.game.state
    assert table.host.game.neg.game.player_ids[table.host.game.deciding] == "A"
    alice.send({"type": "move", "t": s.t, "phase": "propose", "partner": "C", "cells": [["B", "transfer"]]})
    assert "belongs to neither" in alice.expect("refused")["why"]
    alice.send({"type": "move", "t": s.t, "phase": "propose", "partner": "C", "cells": [["A", "nothing"]]})
    assert "no action 'nothing'" in alice.expect("refused")["why"]
    assert table.host.game.state == s


def test_messages_are_cleaned_rate_limited_private_when_addressed_and_recorded(open_table, person,
                                                                                tmp_path: Path) -> None:
    table = open_table()
    alice, bob = person(table.path, "alice"), person(table.path, "bob")
    alice.expect("started")
    bob.expect("started")
    alice.send({"type": "say", "text": "hello \x1b[2J\x1b]0;owned\x07 everyone\u202e!\n\tbye", "to": None})
    said = bob.expect("said")["said"]
    assert said == {"t": 0, "sender": "A", "to": None, "text": "hello [2J]0;owned everyone! bye"}
    alice.send({"type": "say", "text": "just for C", "to": "C"})  # a bot: nobody else reads it
    bob.send({"type": "say", "text": "between us", "to": "A"})
    assert alice.expect("said", lambda m: m["said"]["sender"] == "B")["said"]["text"] == "between us"
    assert bob.expect("said")["said"]["text"] == "between us"  # the sender sees their own
    assert not any(m["type"] == "said" and m["said"]["text"] == "just for C" for m in bob.seen)
    for k in range(6):
        bob.send({"type": "say", "text": f"spam {k}"})
    assert "too many messages" in bob.expect("refused")["why"]
    bob.send({"type": "say", "text": "hi", "to": "Z"})
    assert bob.expect("refused", lambda m: "no player" in m["why"])["why"] == "no player 'Z' at this table"
    _decide_all({"A": alice, "B": bob}, table)
    table.stop()
    rec = load_record(tmp_path / "table.jsonl")
    kept = [(m.sender, m.to, m.text) for m in rec.messages]
    assert kept[:3] == [("A", None, "hello [2J]0;owned everyone! bye"), ("A", "C", "just for C"),
                        ("B", "A", "between us")]
    assert len(kept) == 3 + 4  # four of the six went through the rate limit (5 in 10 s, "between us" counted)
    assert audit(Replay(rec)) == []


def test_a_dropped_person_keeps_the_seat_then_a_bot_takes_it_and_coming_back_retakes_it(open_table, person,
                                                                                         tmp_path: Path) -> None:
    table = open_table(grace=0.5, on_drop="bot")
    alice, bob = person(table.path, "alice"), person(table.path, "bob")
    alice.expect("started")
    bob.close()
    seen = alice.expect("people", lambda m: not m["people"][1]["online"])
    assert seen["people"][1]["seat"] == {"agent": "human", "person": "bob"}  # within the grace: still bob's
    taken = alice.expect("people", lambda m: m["people"][1]["seat"]["agent"] == "lens")
    assert taken["people"][1]["name"] == "bob"
    back = person(table.path, "bob")
    assert back.expect("welcome")["you"] == "B"
    alice.expect("people", lambda m: m["people"][1]["seat"] == {"agent": "human", "person": "bob"})
    _decide_all({"A": alice, "B": back}, table)
    table.stop()
    rec = load_record(tmp_path / "table.jsonl")
    switched = [t.seats["B"] for t in rec.turns if t.seats and "B" in t.seats]
    assert [s.agent for s in switched][:2] in (["lens", "human"], ["human"])  # the bot's spell is marked
    assert audit(Replay(rec)) == []


def test_a_decision_left_past_its_time_is_a_pass_or_a_rejection(open_table, person, tmp_path: Path) -> None:
    table = open_table(decision_time=0.4)
    alice, bob = person(table.path, "alice"), person(table.path, "bob")
    clock = alice.expect("clock", lambda m: m["seconds"] is not None)
    assert clock["player"] == "A" and 0 < clock["seconds"] <= 0.4
    rejected = alice.expect("move", lambda m: m["move"]["player"] == "A")["move"]
    assert rejected == {"t": 0, "player": "A", "phase": "respond", "accept": False, "fault": "time ran out"}
    passed = bob.expect("move", lambda m: m["move"]["player"] == "A" and m["move"]["phase"] == "propose")["move"]
    assert passed["cells"] == [] and passed["fault"] == "time ran out"
    table.stop()
    rec = load_record(tmp_path / "table.jsonl")
    assert rec.turns[0].fault == "time ran out" and not rec.turns[0].accepted


def test_a_full_table_refuses_a_third_person_and_the_same_name_retakes_its_seat(open_table, person) -> None:
    table = open_table()
    alice = person(table.path, "alice", seat="B")
    assert alice.expect("welcome")["you"] == "B"  # the seat asked for
    bob = person(table.path, "bob")
    assert bob.expect("welcome")["you"] == "A"
    carol = person(table.path, "carol")
    assert "taken" in carol.expect("refused")["why"]
    again = person(table.path, "alice")  # a second login: the first connection is told and let go
    assert again.expect("welcome")["you"] == "B"
    assert "another connection" in alice.expect("closed")["why"]


def test_a_table_waits_then_seats_bots_in_empty_seats_and_the_trainer_steers_it(open_table, person) -> None:
    table = open_table(start_after=0.3)
    alice = person(table.path, "alice")
    started = alice.expect("started")
    assert started["seats"]["B"]["agent"] == "lens"  # nobody came for B
    trainer = person(table.path, None, watch=True)
    assert trainer.expect("welcome")["you"] is None
    alice.expect("move", lambda m: m["move"]["player"] == "C")
    trainer.send({"type": "pause"})
    assert alice.expect("paused")["paused"] is True
    s = table.host.game.state
    alice.send({"type": "move", "t": s.t, "phase": "respond", "accept": True})
    assert alice.expect("refused")["why"] == "the table is paused"
    trainer.send({"type": "resume"})
    alice.expect("paused", lambda m: m["paused"] is False)
    alice.send({"type": "say", "text": "to the room"})
    assert trainer.expect("said")["said"]["text"] == "to the room"  # the trainer reads everything
    trainer.send({"type": "end"})  # call time: the game ends as it stands
    over = alice.expect("over")
    assert over["ended"] == "trainer" and table.host.game.ended == "trainer" and table.host.ended is None


def _let_go(client: TableClient) -> bool:
    """Whether the table ended the connection: the end of the stream (or a reset: the table left unread what
    was sent); a silence of 30 s fails with TimeoutError rather than passing for an end."""
    client._sock.settimeout(30)
    try:
        return client._file.readline() == b""
    except ConnectionResetError:
        return True


def test_bad_lines_are_refused_and_the_table_goes_on(open_table, person) -> None:
    table = open_table()
    alice = person(table.path, "alice")
    alice.expect("welcome")
    raw = TableClient(table.path)
    raw._sock.sendall(b"not json\n")
    raw._sock.sendall(b"[" * 5000 + b"\n")
    raw._sock.sendall(b'{"type": "move", "t": 0}\n')
    for _ in range(3):
        line = raw.receive(30)
        assert line is not None and line["type"] == "refused", line
    raw._sock.sendall(b'{"type": "say", "text": "' + b"x" * 20_000 + b'"}\n')  # over a client's line limit
    line = raw.receive(30)
    assert line is not None and "bytes" in line["why"], line
    assert _let_go(raw)  # such a client is let go
    raw.close()
    bob = person(table.path, "bob")
    assert bob.expect("welcome")["you"] == "B"
    alice.expect("started")


def test_leaving_before_the_start_gives_the_seat_up_and_the_start_shows_the_bots(open_table, person,
                                                                                   tmp_path: Path) -> None:
    table = open_table(table_spec(tmp_path, people=("A", "B", "C"), places=3))
    alice = person(table.path, "alice", "A")
    assert alice.expect("welcome")["you"] == "A"
    carol = person(table.path, "carol", "B")
    carol.expect("welcome")
    alice.expect("people", lambda m: any(p["name"] == "carol" for p in m["people"]))
    carol.close()
    people = alice.expect("people", lambda m: not any(p["name"] == "carol" for p in m["people"]))
    assert {p["player"]: p["name"] for p in people["people"]}["B"] is None  # B is free again
    bob = person(table.path, "bob", "C")
    assert bob.expect("welcome")["you"] == "C"
    trainer = person(table.path, None, watch=True)
    trainer.expect("welcome")
    trainer.send({"type": "start"})  # with a seat nobody took: a bot's
    assert alice.expect("started")["seats"]["B"]["agent"] == "lens"
    seated = alice.expect("people", lambda m: m["people"][1]["seat"]["agent"] == "lens")
    assert [(p["player"], p["name"]) for p in seated["people"]] == [("A", "alice"), ("B", None), ("C", "bob")]


def test_under_private_information_each_person_is_sent_their_own_values_and_role_until_the_end(
        open_table, person, tmp_path: Path) -> None:
    from tests.secrets import leaks, write_secret_scenario

    spec = table_spec(tmp_path, scenario=write_secret_scenario(tmp_path / "secret.json"), information="private",
                      roles={"A": "you are Finance", "B": "you are Operations"})
    table = open_table(spec)
    alice, bob = person(table.path, "alice"), person(table.path, "bob")
    trainer = person(table.path, None, watch=True)
    welcome = alice.expect("welcome")
    assert welcome["information"] == "private" and welcome["role"] == "you are Finance"
    values = [g["values"] for g in welcome["game"]["scenario"]["goals"]]
    assert values == [{"A": 10}, {}, {"A": 6}] and leaks(json.dumps(welcome)) == []
    assert bob.expect("welcome")["role"] == "you are Operations"
    assert leaks(json.dumps(trainer.expect("welcome"))) != []  # a watcher sees the whole game
    _decide_all({"A": alice, "B": bob}, table)
    over = alice.expect("over")
    assert leaks(json.dumps(over["game"])) != []  # the end reveals everyone's values
    assert leaks(json.dumps(alice.seen[:-1])) == []
    table.stop()
    rec = load_record(tmp_path / "table.jsonl")
    assert rec.header.information == "private" and audit(Replay(rec)) == []


def test_the_trainer_keeps_seats_for_people_and_steer_says_what_the_table_answered(open_table, person,
                                                                                    tmp_path: Path) -> None:
    import pytest

    from negtui.table.client import TableGone
    from negtui.table.steer import steer

    table = open_table(table_spec(tmp_path, people=("A", "B")))
    steer(table.path, {"type": "assign", "name": "bob", "seat": "A"})
    steer(table.path, {"type": "assign", "name": "bob", "seat": "B"})  # not here yet: moved
    with pytest.raises(TableGone, match="not a seat for a person"):
        steer(table.path, {"type": "assign", "name": "carol", "seat": "C"})
    alice = person(table.path, "alice")
    assert alice.expect("welcome")["you"] == "A"  # B is kept for bob
    with pytest.raises(TableGone, match="alice sits in A"):
        steer(table.path, {"type": "assign", "name": "carol", "seat": "A"})
    assert table.host.game is None  # bob has not come: the table waits for him
    bob = person(table.path, "bob")
    assert bob.expect("welcome")["you"] == "B"
    alice.expect("started")
    with pytest.raises(TableGone, match="started already"):
        steer(table.path, {"type": "start"})
    steer(table.path, {"type": "pause"})
    assert alice.expect("paused")["paused"] is True
    steer(table.path, {"type": "say", "text": "ten minutes left"})
    said = bob.expect("said")["said"]
    assert (said["sender"], said["to"], said["text"]) == ("trainer", None, "ten minutes left")
    steer(table.path, {"type": "resume"})
    steer(table.path, {"type": "end"})
    assert alice.expect("over")["ended"] == "trainer"
    with pytest.raises(TableGone, match="the game is over"):
        steer(table.path, {"type": "pause"})


def test_a_seat_kept_for_someone_who_has_not_come_is_a_bots_at_the_start_and_theirs_when_they_come(
        open_table, person, tmp_path: Path) -> None:
    from negtui.table.steer import steer

    table = open_table(table_spec(tmp_path, people=("A", "B")))
    steer(table.path, {"type": "assign", "name": "bob", "seat": "B"})
    alice = person(table.path, "alice")
    alice.expect("welcome")
    steer(table.path, {"type": "start"})
    assert alice.expect("started")["seats"]["B"]["agent"] == "lens"
    bob = person(table.path, "bob")
    assert bob.expect("welcome")["you"] == "B"
    alice.expect("people", lambda m: m["people"][1]["seat"]["agent"] == "human")


def test_an_assessed_table_tells_its_people_to_play_unguided_and_its_watcher_everything(open_table, person,
                                                                                        tmp_path: Path) -> None:
    from negtui.table.source import TableSource

    table = open_table(table_spec(tmp_path, guided=False, hints=False))
    alice, trainer = person(table.path, "alice"), person(table.path, None, watch=True)
    welcome = alice.expect("welcome")
    assert (welcome["guided"], welcome["hints"]) == (False, False)
    assert trainer.expect("welcome")["guided"] is True  # the trainer watching sees every value
    source = TableSource(alice.client, welcome)
    try:
        assert not source.guided and not source.hints and not source.game.exact_available
        snap = source.snapshot()
        assert snap.withheld == frozenset(range(snap.game.n)) - {source.me}
        assert snap.foresees(source.me) and not any(snap.foresees(i) for i in snap.withheld)  # her own only
        assert all(not opt.value for opt in source.partner_options())  # partners, no suggested offers
    finally:
        source.game.close()


# --- the round's clock, the decision's clock and the trainer's seating ------------------------------------------

def test_a_round_timer_ends_the_game_as_it_stands_and_the_record_says_so(open_table, person, tmp_path: Path,
                                                                         cli) -> None:
    clock = FakeClock()
    table = open_table(clock=clock, game_time=600)
    alice, bob = person(table.path, "alice"), person(table.path, "bob")
    assert alice.expect("welcome")["round"] == {"type": "round", "seconds": 600.0, "running": False}
    assert alice.expect("round", lambda m: m["running"])["seconds"] == 600.0  # it runs from the start
    first = table.host.game.state
    clock.advance(601)
    over = bob.expect("over")
    assert over["ended"] == "clock"
    table.stop()
    rec = load_record(tmp_path / "table.jsonl")
    assert rec.complete and rec.result.ended == "clock" and len(rec.turns) < table.host.game.neg.game.T
    assert rec.result.commitments == table.host.game.neg.game.pairs_of(table.host.game.state.bits)
    assert table.host.game.state.t >= first.t
    res = cli("replay", tmp_path / "table.jsonl", "--verify")
    assert res.exit_code == 0 and "verified" in res.stdout, res.output
    assert audit(Replay(rec)) == []


def test_pausing_stops_every_clock_and_the_trainer_sets_the_round(open_table, person) -> None:
    clock = FakeClock()
    table = open_table(clock=clock, game_time=600, decision_time=30)
    alice, _bob = person(table.path, "alice"), person(table.path, "bob")
    deciding = alice.expect("clock", lambda m: m["seconds"] is not None)["player"]
    trainer = person(table.path, None, watch=True)
    trainer.expect("welcome")
    clock.advance(100)
    trainer.send({"type": "pause"})
    assert alice.expect("clock")["seconds"] is None  # no countdown on any screen while paused
    stopped = alice.expect("round", lambda m: not m["running"])
    assert stopped["seconds"] == 500.0
    clock.advance(10_000)  # an hour and more paused: neither clock runs
    trainer.send({"type": "time", "seconds": 120, "extend": True})
    trainer.expect("done", lambda m: m["op"] == "time")
    assert alice.expect("round", lambda m: not m["running"])["seconds"] == 620.0
    trainer.send({"type": "resume"})
    assert alice.expect("round", lambda m: m["running"])["seconds"] == 620.0
    again = alice.expect("clock", lambda m: m["seconds"] is not None)
    assert again["player"] == deciding and again["seconds"] == 30.0  # the decision's whole time again
    trainer.send({"type": "time", "seconds": -5})
    assert "above 0" in trainer.expect("refused")["why"]
    assert not table.host.game.over


def test_no_time_runs_against_a_person_who_is_away(open_table, person) -> None:
    """At a table that waits for people who drop, the decision's clock stops while the person is away
    (whatever time passes) and starts again in full when they are back."""
    clock = FakeClock()
    table = open_table(clock=clock, decision_time=5, on_drop="wait", grace=0.0)
    people = {"A": person(table.path, "alice"), "B": person(table.path, "bob")}
    first = people["A"].expect("clock", lambda m: m["seconds"] is not None)
    away = first["player"]
    other = "B" if away == "A" else "A"
    people[away].close()
    held = people[other].expect("clock", lambda m: m.get("held") == away)
    assert held["seconds"] is None
    clock.advance(3_600)
    back = person(table.path, "alice" if away == "A" else "bob")
    assert back.expect("welcome")["you"] == away
    again = back.expect("clock", lambda m: m["seconds"] is not None)
    assert again["player"] == away and again["seconds"] == 5.0
    assert not any(m["type"] == "move" and m["move"].get("fault") for m in people[other].seen), \
        "a decision of the absent person timed out"


def test_seats_kept_at_the_opening_are_the_trainees(open_table, person, tmp_path: Path) -> None:
    table = open_table(spec=table_spec(tmp_path, reserved={"A": "bob"}))
    alice = person(table.path, "alice")
    assert alice.expect("welcome")["you"] == "B"  # A is kept for bob
    bob = person(table.path, "bob")
    assert bob.expect("welcome")["you"] == "A"
    alice.expect("started")


def test_a_seat_is_asked_for_by_id_or_by_the_name_shown_and_an_unknown_one_is_refused(open_table, person) -> None:
    """`table join --as`: the name the app shows finds the seat ('operations' is B); a name no player has, or a
    bot's seat, is refused with the people's seats named, never swapped for the first free one."""
    table = open_table()  # people sit in A (Finance) and B (Operations); C (Research) is a bot's
    nobody = person(table.path, "dora", seat="Marketing")
    why = nobody.expect("refused")["why"]
    assert "no player 'Marketing'" in why and "A · Finance, B · Operations" in why
    bots = person(table.path, "erin", seat="research")
    assert "C · Research is played by a bot" in bots.expect("refused")["why"]
    alice = person(table.path, "alice", seat="operations")
    assert alice.expect("welcome")["you"] == "B"
    bob = person(table.path, "bob", seat="A · Finance")
    assert bob.expect("welcome")["you"] == "A"
