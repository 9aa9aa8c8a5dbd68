"""Names and texts of a scenario are shown on terminals (the app, autoplay's log, a trainee's SSH session):
none may hold what a terminal acts on.  Each kind of field refuses escapes, carriage returns and bidi
controls, with its JSON path; a paragraph keeps its line breaks and tabs; an id refuses invisible characters
too.  And whatever an error quotes reaches the terminal as plain text, escapes spelled out."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from negtui.scenario.io import ScenarioError, parse_scenario
from negtui.scenario.untrusted import control_problem, printable
from tests.paths import PILL

BASE = json.loads(PILL.read_text())
HOSTILE = ("\x1b]0;PWN\x07", "\x1b[2J", "a\rb", "\u202eevil", "\u2066x", "\x08", "\x00", "\x9b31m")


def _with(path: tuple, value: str) -> dict:
    data = copy.deepcopy(BASE)
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] += value
    return data


FIELDS = {
    ("name",): "$.name", ("description",): "$.description", ("lesson",): "$.lesson",
    ("players", 0, "name"): "$.players[0].name", ("players", 1, "actions", 0, "label"): "$.players[1].actions[0].label",
    ("goals", 0, "label"): "$.goals[0].label",
}


@pytest.mark.parametrize("field", list(FIELDS))
@pytest.mark.parametrize("bad", HOSTILE)
def test_a_name_or_text_holding_what_a_terminal_acts_on_is_refused_where_it_is(field, bad):
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_with(field, bad), "x.json")
    paths = [p.path for p in err.value.problems]
    assert FIELDS[field] in paths, paths
    assert all(control_problem(p.message) is None for p in err.value.problems)  # the message is plain itself


def test_ids_refuse_invisible_characters_and_line_breaks_where_paragraphs_keep_them():
    data = copy.deepcopy(BASE)
    data["players"][0]["id"] = "A\u200b"  # a zero-width space: two ids that look alike
    with pytest.raises(ScenarioError) as err:
        parse_scenario(data, "x.json")
    assert any(p.path == "$.players[0].id" and "invisible" in p.message for p in err.value.problems)
    with pytest.raises(ScenarioError):
        parse_scenario(_with(("players", 0, "name"), "\nB"), "x.json")
    sc = parse_scenario(_with(("lesson",), "\n\tsecond line, indented"), "x.json")
    assert sc.lesson.endswith("\n\tsecond line, indented")
    assert parse_scenario(_with(("players", 0, "name"), " — Álvaro 👩\u200d💻"), "x.json").players[0].name


def test_autoplay_of_a_hostile_scenario_exits_2_and_prints_plain_text(tmp_path):
    data = copy.deepcopy(BASE)
    data["players"][0]["id"] = "A\x1b]0;PWN\x07"
    data["description"] = "\u202e\x1b[2J"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data))
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", path], capture_output=True, text=True,
                         timeout=60)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "$.players[0].id" in res.stderr and "$.description" in res.stderr
    assert control_problem(res.stderr, "\n") is None and control_problem(res.stdout, "\n") is None


def test_printable_shows_what_a_terminal_would_act_on_as_escapes_and_keeps_the_lines():
    assert printable("a\x1b[2Jb\n\tc\u202ed\r") == "a\\x1b[2Jb\n\tc\\u202ed\\x0d"
    assert printable("Zürich — 30\u00a0%") == "Zürich — 30\u00a0%"
