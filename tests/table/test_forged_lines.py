"""A table's socket as an attacker on the same machine uses it: a raw client that sends fields only the table
sets (a move's fault) and a name holding terminal escapes.  The table records what it decided and nothing
the client claimed, and no escape reaches the record, the other seats, the host's terminal or a printed
replay."""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from pathlib import Path
from typing import Any

from negtui.record import load_record
from negtui.record.signing import check_chain, read_key
from negtui.table.host import TableHost
from tests.table.conftest import Person, Running, table_spec

FORGED = "\x1b]0;PWNED\x07FORGED"
NAME = "\x1b]0;PWNED\x07bob\x1b[2J"
SHOWN = "]0;PWNEDbob[2J"  # the name as the table keeps it: printable characters only


class RawClient:
    """JSON lines written on a bare Unix socket, as any program could; the table's lines read in a thread."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.lines: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with self.sock.makefile("rb") as stream:
            for line in stream:
                self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def expect(self, kind: str, where: Any = lambda m: True, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind!r} line within {timeout} s; saw {[m['type'] for m in self.seen[-12:]]}"
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            assert line is not None, f"the table closed the connection waiting for {kind!r}"
            self.seen.append(line)
            if line["type"] == kind and where(line):
                return line

    def close(self) -> None:
        self.sock.close()


def _play_out(table: Running, alice: Person, bob: RawClient, limit: float = 60.0) -> None:
    """alice offers B the raid of C's reserve once, then passes and rejects; bob accepts every offer and
    passes, each of his lines claiming a fault (and to be A)."""
    host, deadline, offered = table.host, time.monotonic() + limit, False
    while not (host.game is not None and host.game.over):
        assert time.monotonic() < deadline, f"no end within {limit:.0f} s: {host.game and host.game.state}"
        game = host.game
        if game is not None and not host.thinking and game.waiting_for_person():
            pid = game.neg.game.player_ids[game.deciding]
            s = game.state
            move: dict[str, Any] = ({"type": "move", "t": s.t, "phase": "respond", "accept": pid == "B"}
                                    if s.pending is not None else
                                    {"type": "move", "t": s.t, "phase": "propose", "partner": pid, "cells": []})
            if pid == "B":
                bob.send({**move, "fault": FORGED, "player": "A"})
                bob.expect("move", lambda m, t=s.t: m["move"]["t"] == t and m["move"]["player"] == "B")
                continue
            if s.pending is None and not offered:
                offered = True
                move.update(partner="B", cells=[["A", "transfer"], ["B", "transfer"]])
            alice.send(move)
            alice.expect("move", lambda m, t=s.t: m["move"]["t"] == t and m["move"]["player"] == "A")
        time.sleep(0.02)


def test_a_clients_forged_fault_is_not_recorded_and_its_escapes_reach_no_screen(tmp_path: Path, cli) -> None:
    path, said = tmp_path / "t.sock", []
    table = Running(TableHost(table_spec(tmp_path), path, log=said.append), path)
    alice = Person(path, "alice")
    bob = RawClient(path)
    try:
        alice.expect("welcome")
        bob.send({"type": "join", "name": NAME})
        assert bob.expect("welcome")["you"] == "B"
        people = alice.expect("people", lambda m: any(p["name"] for p in m["people"] if p["player"] == "B"))
        assert [p["name"] for p in people["people"] if p["player"] == "B"] == [SHOWN]
        alice.expect("started")
        _play_out(table, alice, bob)
        assert not any("fault" in m for m in table.host.moves), table.host.moves
        announced = [m["move"] for m in alice.seen if m["type"] == "move" and m["move"]["player"] == "B"]
        assert announced and not any("fault" in m for m in announced)
    finally:
        alice.close()
        bob.close()
        table.stop()
    assert said and not any("\x1b" in line or "\x07" in line for line in said), said
    assert any(SHOWN in line for line in said)
    record = tmp_path / "table.jsonl"
    rec = load_record(record)
    assert rec.header.seats["B"].person == SHOWN
    assert all(turn.fault is None for turn in rec.turns), [t.fault for t in rec.turns]
    offered_to_b = [turn for turn in rec.turns if turn.partner == "B" and turn.proposer != "B" and turn.offer]
    assert offered_to_b and all(turn.accepted for turn in offered_to_b)  # what B decided, as the table applied it
    kept = record.read_text(encoding="utf-8")
    assert "\x1b" not in kept and "\\u001b" not in kept.lower() and "FORGED" not in kept
    assert check_chain(rec.lines, read_key(tmp_path / "record.key")).status == "valid"
    printed = cli("replay", record, "--print")
    assert printed.exit_code == 0, printed.output
    assert "\x1b" not in printed.output and "FORGED" not in printed.output and "agent failed" not in printed.output
    assert "B → " in printed.output or "→ B accepted" in printed.output
    verified = cli("replay", record, "--verify", "--key", tmp_path / "record.key")
    assert verified.exit_code == 0, verified.output
    assert "verified: every bot decision" in verified.output and "FORGED" not in verified.output
    assert "\x1b" not in verified.output


def test_a_name_of_nothing_but_escapes_is_refused_with_the_reason(open_table) -> None:
    table = open_table()
    raw = RawClient(table.path)
    raw.send({"type": "join", "name": "\x1b\x07\u202e\t \x00"})
    assert raw.expect("refused")["why"] == "a name is needed to sit down"
    raw.close()
