"""A record is a file anyone may have written: `replay --print` shows what its lines say (an agent's failure,
who decided) as words, never as commands to the terminal it prints on."""

from __future__ import annotations

import json
from pathlib import Path

from tests.paths import PILL


def test_a_records_fault_and_decider_are_printed_without_their_escapes(cli, tmp_path: Path) -> None:
    record = tmp_path / "game.jsonl"
    assert cli("autoplay", PILL, "--record", record).exit_code == 0
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    first = next(line for line in lines if line["type"] == "turn")
    first["fault"] = "\x1b]0;PWNED\x07the program\x1b[2J died\u202e"
    first["decided_by"] = "A (\x1b[31mupper)"
    record.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    printed = cli("replay", record, "--print")
    assert printed.exit_code == 0, printed.output
    assert "agent failed: ]0;PWNEDthe program[2J died)" in printed.output
    assert "(A ([31mupper))" in printed.output
    assert not any(ch in printed.output for ch in "\x1b\x07\u202e"), repr(printed.output)


def test_a_tables_messages_are_printed_in_place_and_cleaned(cli, tmp_path: Path) -> None:
    """What was said at a table is in its record with the turn it was said in: `replay --print` prints each
    message before that turn's line (one said after the last turn after it), naming the players as the turn
    lines do, cleaned of whatever a terminal would act on."""
    record = tmp_path / "game.jsonl"
    assert cli("autoplay", PILL, "--record", record).exit_code == 0
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    turns = [k for k, line in enumerate(lines) if line["type"] == "turn"]
    before_second = {"type": "message", "t": 1, "sender": "B", "to": None,
                     "text": "shall we?\x1b[2J\x1b]0;PWNED\x07\nbait for bait\u202e"}
    at_the_end = {"type": "message", "t": len(turns), "sender": "trainer", "to": "A", "text": "well played"}
    lines.insert(turns[-1] + 1, at_the_end)
    lines.insert(turns[1], before_second)
    record.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    printed = cli("replay", record, "--print")
    assert printed.exit_code == 0, printed.output
    out = printed.stdout.splitlines()
    said = out.index("t  2 said B → everyone: shall we?[2J]0;PWNED bait for bait")
    assert out[said - 1].startswith("t  1 ") and out[said + 1].startswith("t  2 ")
    last = out.index(f"t{len(turns) + 1:>3} said the trainer → A: well played")
    assert out[last - 1].startswith(f"t{len(turns):>3} ") and out[last + 1].startswith("payoffs: ")
    assert not any(ch in printed.output for ch in "\x1b\x07\u202e"), repr(printed.output)
