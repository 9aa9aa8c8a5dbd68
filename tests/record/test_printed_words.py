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
