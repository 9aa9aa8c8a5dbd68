"""A table under simultaneous rules (docs/simultaneous.md), people as plain socket clients: every open decision
of a turn is asked at once, each person on a clock of their own; a person sees the offers they made and those
made to them while the turn is under way, never another pair's; the settled turn goes to everyone; the record
verifies.

The race for the port (scenarios/teaching/simultaneous-race.json) with the schedule A, C, B and three proposers
a turn: one turn, proposers A, C, B.  People sit in A and C; B and D are plain greedy myopic bots.  B's best
offer is C's berths 3 and 4 (the corridor), so C answers two offers: A's and B's."""

from __future__ import annotations

import json
import queue
import time
from pathlib import Path
from typing import Any

from negtui.engine import compile_game, get_rules
from negtui.engine.portable import PortableGame
from negtui.record.signing import KEY_FILE, data_dir_key
from negtui.scenario import load_scenario
from negtui.seats import Seat
from negtui.table.spec import TableSpec
from tests.paths import TEACHING

RULES = "paper+simultaneous=3"
QUAY = [["A", "fund"], ["C", "berth1"], ["C", "berth2"]]
CORRIDOR = [["C", "berth3"], ["C", "berth4"]]
BUDGET_VOID = "C would make 4 new commitments in this turn; the budget is 2"


def race_spec(tmp: Path, **policy: Any) -> TableSpec:
    data = json.loads((TEACHING / "simultaneous-race.json").read_text())
    data["protocol"]["schedule"] = ["A", "C", "B"]
    path = tmp / "race.json"
    path.write_text(json.dumps(data))
    sc = load_scenario(path)
    rules = get_rules(RULES)
    game = compile_game(sc, rules)
    bot = Seat.lens("myopic", partner="greedy", sims=4)
    seats = {pid: Seat.human() if pid in ("A", "C") else bot for pid in sc.player_ids}
    data_dir_key(tmp)
    return TableSpec(title="race", game=PortableGame.of(game, rules).as_dict(), seats=seats,
                     record=str(tmp / "table.jsonl"), key_file=str(tmp / KEY_FILE), **policy)


def offers_in(lines: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(proposer, partner) of every offer a client was told of in flight or was asked to answer."""
    out = []
    for m in lines:
        if m["type"] == "flight" and m["move"]["phase"] == "propose":
            out.append((m["move"]["player"], m["move"]["partner"]))
        if m["type"] == "asked":
            out += [(o["proposer"], o["partner"]) for o in m.get("offers", [])]
    return out


def test_two_people_propose_at_once_one_answers_two_offers_and_the_record_verifies(open_table, person, tmp_path,
                                                                                   cli) -> None:
    table = open_table(race_spec(tmp_path))
    alice, carol = person(table.path, "alice", "A"), person(table.path, "carol", "C")
    assert alice.expect("welcome")["you"] == "A" and carol.expect("welcome")["you"] == "C"
    alice.expect("started")
    # both are asked for their offers at once
    assert alice.expect("asked", lambda m: m["phase"] == "propose")["t"] == 0
    assert carol.expect("asked", lambda m: m["phase"] == "propose")["t"] == 0
    carol.send({"type": "move", "t": 0, "phase": "propose", "partner": "D", "cells": [["C", "berth1"]]})
    alice.send({"type": "move", "t": 0, "phase": "propose", "partner": "C", "cells": QUAY})
    # C answers two offers: A's and B's (the bot's), and sees no other
    asked = carol.expect("asked", lambda m: m["phase"] == "respond")
    assert sorted(o["proposer"] for o in asked["offers"]) == ["A", "B"]
    assert next(o for o in asked["offers"] if o["proposer"] == "B")["cells"] == CORRIDOR
    # an answer that names nobody's offer, or an offer that is not C's to answer, is refused
    carol.send({"type": "move", "t": 0, "phase": "respond", "accept": True})
    assert "names the proposer" in carol.expect("refused")["why"]
    alice.send({"type": "move", "t": 0, "phase": "respond", "accept": True, "proposer": "B"})
    assert alice.expect("refused")["why"] == "it is not your move"
    carol.send({"type": "move", "t": 0, "phase": "respond", "accept": True, "proposer": "A"})
    carol.expect("asked", lambda m: m["phase"] == "respond" and len(m["offers"]) == 1)
    carol.send({"type": "move", "t": 0, "phase": "respond", "accept": True, "proposer": "B"})
    turn = alice.expect("turn")
    assert carol.expect("turn") == turn
    moves = turn["moves"]
    assert [m["player"] for m in moves if m["phase"] == "propose"] in (["C", "A", "B"], ["B", "C", "A"],
                                                                         ["C", "B", "A"], ["B", "A", "C"],
                                                                         ["A", "B", "C"], ["A", "C", "B"])
    assert {(m["player"], m.get("proposer")) for m in moves if m["phase"] == "respond"} >= {("C", "A"), ("C", "B")}
    over = alice.expect("over")
    game = table.host.game
    [ev] = game.events
    by = {o.offer.proposer: o for o in ev.outcomes}
    assert by[0].status == "applied"
    assert (by[1].status, by[1].reason) == ("void", BUDGET_VOID)  # B's corridor: C's budget is spent
    assert by[2].status in ("rejected", "void")  # C's berth 1 to D: A's quay committed it first
    assert over["payoffs"] == [float(v) for v in game.neg.returns(game.state)]
    # privacy: while the turn was under way A heard of its own offer only; C of its own and the two made to it
    before_turn = alice.seen[:alice.seen.index(turn)]
    assert set(offers_in(before_turn)) == {("A", "C")}
    assert not any("berth3" in json.dumps(m) or "berth4" in json.dumps(m) for m in before_turn
                   if m["type"] != "welcome")  # the welcome has the game, every action named
    carol_before = carol.seen[:carol.seen.index(turn)]
    assert set(offers_in(carol_before)) == {("A", "C"), ("B", "C"), ("C", "D")}
    table.stop()
    res = cli("replay", "--verify", str(tmp_path / "table.jsonl"))
    assert res.exit_code == 0 and "verified" in res.output, res.output


def until_turn(someone: Any, timeout: float = 30.0) -> dict[str, Any]:
    """The line settling the turn, every offer someone is asked to answer on the way rejected."""
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, f"no turn settled; saw {[m['type'] for m in someone.seen[-12:]]}"
        try:
            line = someone.lines.get(timeout=0.1)
        except queue.Empty:
            continue
        assert line is not None, "the table closed the connection"
        someone.seen.append(line)
        if line["type"] == "turn":
            return line
        if line["type"] == "asked" and line["phase"] == "respond":
            for o in line["offers"]:
                someone.send({"type": "move", "t": line["t"], "phase": "respond", "accept": False,
                              "proposer": o["proposer"]})


def test_each_persons_clock_runs_out_on_their_own_decisions(open_table, person, tmp_path, cli) -> None:
    """Nobody decides: each person's offer is a pass when their time runs out, and C's answer to B's offer a
    rejection; each is told their own clock."""
    table = open_table(race_spec(tmp_path, decision_time=0.4))
    alice, carol = person(table.path, "alice", "A"), person(table.path, "carol", "C")
    assert alice.expect("clock", lambda m: m["seconds"] is not None)["player"] == "A"
    assert carol.expect("clock", lambda m: m["seconds"] is not None)["player"] == "C"
    asked = carol.expect("asked", lambda m: m["phase"] == "respond")
    assert [o["proposer"] for o in asked["offers"]] == ["B"]
    turn = alice.expect("turn")
    mine = [(m["player"], m["phase"], m.get("fault")) for m in turn["moves"] if m["player"] in ("A", "C")]
    assert sorted(mine) == [("A", "propose", "time ran out"), ("C", "propose", "time ran out"),
                            ("C", "respond", "time ran out")]
    assert not any(m["type"] == "clock" and m.get("player") == "C" for m in alice.seen)  # C's clock is C's
    table.stop()
    res = cli("replay", "--verify", str(tmp_path / "table.jsonl"))
    assert res.exit_code == 0, res.output


def test_a_dropped_persons_open_decisions_go_to_the_bot_that_takes_the_seat(open_table, person, tmp_path,
                                                                              cli) -> None:
    table = open_table(race_spec(tmp_path, grace=0.3, on_drop="bot"))
    alice, carol = person(table.path, "alice", "A"), person(table.path, "carol", "C")
    carol.expect("asked", lambda m: m["phase"] == "propose")
    carol.close()
    alice.expect("people", lambda m: next(p for p in m["people"] if p["player"] == "C")["seat"]["agent"] == "lens")
    alice.send({"type": "move", "t": 0, "phase": "propose", "partner": "C", "cells": QUAY})
    turn = until_turn(alice)
    assert {m["player"] for m in turn["moves"] if m["phase"] == "propose"} == {"A", "B", "C"}
    assert ("C", "A") in {(m["player"], m.get("proposer")) for m in turn["moves"]}  # the bot answered A
    table.stop()
    res = cli("replay", "--verify", str(tmp_path / "table.jsonl"))
    assert res.exit_code == 0, res.output


def test_pausing_refuses_decisions_and_the_round_timer_ends_the_turn_as_it_stands(open_table, person, tmp_path,
                                                                                  cli) -> None:
    table = open_table(race_spec(tmp_path, game_time=30.0))
    alice, carol = person(table.path, "alice", "A"), person(table.path, "carol", "C")
    alice.expect("asked", lambda m: m["phase"] == "propose")
    table.call(table.host.pause, True)
    alice.expect("paused", lambda m: m["paused"])
    alice.send({"type": "move", "t": 0, "phase": "propose", "partner": "C", "cells": QUAY})
    assert alice.expect("refused")["why"] == "the table is paused"
    table.call(table.host.pause, False)
    alice.expect("paused", lambda m: not m["paused"])
    alice.send({"type": "move", "t": 0, "phase": "propose", "partner": "C", "cells": QUAY})
    carol.expect("flight", lambda m: m["move"]["player"] == "A")
    table.call(table.host.time_up)
    over = carol.expect("over")
    assert over["ended"] == "clock" and over["payoffs"] == [0.0, 0.0, 0.0, 0.0]  # nothing settled
    assert not any(m["type"] == "turn" for m in carol.seen)
    table.stop()
    res = cli("replay", "--verify", str(tmp_path / "table.jsonl"))
    assert res.exit_code == 0, res.output


def test_coming_back_mid_turn_tells_what_the_seat_may_see_and_the_trainer_sees_every_offer(open_table, person,
                                                                                             tmp_path) -> None:
    table = open_table(race_spec(tmp_path))
    alice, carol = person(table.path, "alice", "A"), person(table.path, "carol", "C")
    trainer = person(table.path, None, watch=True)
    carol.expect("asked", lambda m: m["phase"] == "propose")
    alice.send({"type": "move", "t": 0, "phase": "propose", "partner": "C", "cells": QUAY})
    alice.expect("flight", lambda m: m["move"]["player"] == "A")
    alice.close()
    back = person(table.path, "alice", "A")
    welcome = back.expect("welcome")
    assert welcome["asked"] == {"type": "asked", "t": 0, "phase": None}  # her offer is in
    assert [(m["player"], m["partner"]) for m in welcome["flight"]] == [("A", "C")]
    assert welcome["moves"] == []
    carol.send({"type": "move", "t": 0, "phase": "propose", "partner": "D", "cells": [["C", "berth1"]]})
    until_turn(carol)
    trainer.expect("turn")
    told = [w for m in trainer.seen if m["type"] == "welcome" for w in m.get("flight", [])]  # a bot may offer first
    told += [m["move"] for m in trainer.seen if m["type"] == "flight"]
    seen = {(m["player"], m.get("partner")) for m in told if m["phase"] == "propose"}
    assert seen == {("A", "C"), ("B", "C"), ("C", "D")}  # the trainer's view: every offer in flight


def test_under_private_information_a_simultaneous_table_plays_and_reveals_at_the_end(open_table, person, tmp_path,
                                                                                     cli) -> None:
    table = open_table(race_spec(tmp_path, information="private"))
    alice, carol = person(table.path, "alice", "A"), person(table.path, "carol", "C")
    welcome = alice.expect("welcome")
    assert welcome["information"] == "private" and welcome["game"] != table.host.spec.game
    alice.expect("asked", lambda m: m["phase"] == "propose")
    carol.expect("asked", lambda m: m["phase"] == "propose")
    alice.send({"type": "move", "t": 0, "phase": "propose", "partner": "C", "cells": QUAY})
    carol.send({"type": "move", "t": 0, "phase": "propose", "partner": "C", "cells": []})
    until_turn(carol)
    over = alice.expect("over")
    assert over["game"] == table.host.spec.game  # the end reveals everyone's values
    before = alice.seen[:alice.seen.index(over)]
    assert set(offers_in(before)) == {("A", "C")}
    table.stop()
    res = cli("replay", "--verify", str(tmp_path / "table.jsonl"))
    assert res.exit_code == 0, res.output


def test_a_bot_that_cannot_play_simultaneous_turns_is_refused_when_the_table_opens(cli, tmp_path) -> None:
    res = cli("table", "open", str(TEACHING / "simultaneous-race.json"), "--rules", "paper+simultaneous",
              "--seat", "A=human", "--seat", "B=exact", "--no-record", "--socket", str(tmp_path / "t.sock"))
    assert res.exit_code == 2 and "Traceback" not in res.output, res.output
    assert res.stderr.startswith("error: seats.B: the exact solver does not solve simultaneous games"), res.stderr
    res = cli("table", "open", str(TEACHING / "simultaneous-race.json"), "--rules", "paper+simultaneous",
              "--information", "private", "--seat", "A=human", "--seat", "B=anticipate:myopic", "--no-record",
              "--socket", str(tmp_path / "t.sock"))
    assert res.exit_code == 2 and "seats.B: anticipate: lenses predict the other proposers' deals" in res.stderr
