"""Random words where names go: escapes, bidi controls, line breaks, spreadsheet formulas, 200 KB runs.

A property of every channel at once, seeded so a failure is reproduced by its seed: each name-like field of a
scenario (ids, names, labels, texts), an outside program's answers and a table's messages get random strings,
and through autoplay, `replay --print`, the app's screens, the CSVs and the class export,
- no raw control or bidi character reaches a terminal (a file holding one is refused, with a plain message),
- no CSV cell starts a formula,
- no command ends in a traceback, and none takes over 300 MB.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import random
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from negtui.csvcells import NUMBER
from negtui.scenario.untrusted import control_problem
from tests.paths import PILL

SEEDS = range(6)
PIECES = ("\x1b[2J", "\x1b]0;PWN\x07", "\x1b[31m", "\u202e", "\u2066", "\u200f", "\n", "\r", "\t", "\x00", "\x08",
          "\x7f", "\x9b", "\u2028", '=HYPERLINK("http://x","y")', "+1", "-2", "@SUM(A1)", "'", '"', "\\", "<b>",
          "&amp;", "Ω", "👩\u200d💻", " ", "A", "x", "é", "%s", "{0}", "[red]", "[/]", "\u200b")
FORMULA = tuple("=+-@\t\r")
pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads a command's peak in /proc")
MEMORY = 300 * 2**20  # bytes any one command may take
PY = shlex.quote(sys.executable)


def hostile(rng: random.Random, big: bool = False) -> str:
    words = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8)))
    if big and rng.random() < 0.3:
        words += rng.choice("Wx=") * 200_000
    return words


def terminal_safe(text: str) -> bool:
    return control_problem(text, "\n") is None


def formulas(text: str) -> list[str]:
    return [c for row in csv.reader(io.StringIO(text)) for c in row
            if c.startswith(FORMULA) and not re.fullmatch(NUMBER, c)]


# the command, and its own peak resident memory (VmHWM) written to a file as it ends: getrusage's peak of a child
# is the largest of every child the test process had, and a child's own starts at its parent's size at the fork
MEASURED = ("import runpy, sys\n"
            "peak = sys.argv.pop(1)\n"
            "try:\n"
            "    runpy.run_module('negtui.cli', run_name='__main__', alter_sys=True)\n"
            "finally:\n"
            "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
            "    open(peak, 'w').write(hwm)\n")


def negtui(*args: object, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    peak = cwd / "peak.kb"
    res = subprocess.run([sys.executable, "-c", MEASURED, peak, *map(str, args)], capture_output=True, text=True,
                         timeout=timeout, cwd=cwd, errors="surrogateescape")
    assert "Traceback" not in res.stderr, res.stderr[-3000:]
    assert res.returncode in (0, 2), (res.returncode, res.stderr[-3000:])
    assert terminal_safe(res.stdout) and terminal_safe(res.stderr), (res.stdout[-2000:], res.stderr[-2000:])
    took = int(peak.read_text()) * 1024
    assert took < MEMORY, f"negtui {args[0]} took {took / 2**20:.0f} MB"
    return res


def hostile_scenario(rng: random.Random, printable_ids: bool) -> dict:
    """The poison pill with every name-like field random; ids stay unique (and, with `printable_ids`, free of
    what a scenario refuses, so that the game is played and its words travel)."""
    data = copy.deepcopy(json.loads(PILL.read_text()))

    def word(big: bool = False) -> str:
        w = hostile(rng, big)
        if not printable_ids:
            return w
        return "".join(ch for ch in w if control_problem(ch, strict=True) is None)[:90_000]  # under MAX_TEXT

    data["name"] = (word() or "n")[:150]
    for field in ("description", "lesson"):
        data[field] = hostile(rng, big=True) if not printable_ids else word(big=True)
    ids = {}
    for k, player in enumerate(data["players"]):
        ids[player["id"]] = f"{word()[:80]}{k}"
        player["id"] = ids[player["id"]]
        player["name"] = word(big=True)
        for a in player["actions"]:
            a["label"] = word(big=True)
    for j, goal in enumerate(data["goals"]):
        goal["id"] = f"{word()[:80]}{j}"
        goal["label"] = word(big=True)
        goal["public_label"] = word()
        for r in goal["requires"]:
            r["player"] = ids[r["player"]]
        goal["values"] = {ids[p]: v for p, v in goal["values"].items()}
        goal.pop("ranges", None)
    if data["protocol"].get("schedule"):
        data["protocol"]["schedule"] = [ids[p] for p in data["protocol"]["schedule"]]
    return data


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_a_scenarios_words_reach_no_terminal_raw(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    refused = tmp_path / "refused.json"
    refused.write_text(json.dumps(hostile_scenario(rng, printable_ids=False)))
    res = negtui("autoplay", refused, cwd=tmp_path)
    assert res.returncode == 2 or terminal_safe(refused.read_text())  # refused, or it held nothing to refuse
    played = tmp_path / "played.json"
    played.write_text(json.dumps(hostile_scenario(rng, printable_ids=True)))
    record = tmp_path / "game.jsonl"
    res = negtui("autoplay", played, "--record", record, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    negtui("autoplay", played, "--json", cwd=tmp_path)
    negtui("replay", record, "--print", cwd=tmp_path)
    negtui("replay", record, "--verify", cwd=tmp_path)
    negtui("welfare", played, cwd=tmp_path)
    negtui("describe", played, cwd=tmp_path)


def _answering_agent(tmp_path: Path, seed: int) -> Path:
    """A program that answers every request with random words in every field a reply has (and some it has
    not), now and then with a legal answer."""
    script = tmp_path / "agent.py"
    script.write_text(f"""
import json, random, sys
rng = random.Random({seed})
PIECES = {PIECES!r}
def word():
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8)))
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "game_over":
        continue
    if kind == "hello":
        answer = {{"type": "ready", "name": word()}}
    elif kind == "choose_partner":
        answer = {{"id": msg["id"], "partner": rng.choice([word()] + msg["legal_partners"])}}
    elif kind == "make_offer":
        answer = {{"id": msg["id"], "offer": [[word(), word()]] if rng.random() < 0.7 else []}}
    else:
        answer = {{"id": msg["id"], "accept": rng.choice([word(), True, False])}}
    if rng.random() < 0.3:
        answer[word()] = word()
    out = json.dumps(answer, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.2:
        out = word() + out
    sys.stdout.write(out + "\\n")
    sys.stdout.flush()
""")
    return script


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_an_agents_words_reach_no_terminal_raw(tmp_path: Path, seed: int) -> None:
    agent = _answering_agent(tmp_path, seed)
    record = tmp_path / "game.jsonl"
    negtui("autoplay", PILL, "--seat", f"A=cmd:{PY} {shlex.quote(str(agent))}", "--seat", "B=upper",
           "--agent-timeout", 10, "--record", record, cwd=tmp_path)
    negtui("replay", record, "--print", cwd=tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_a_tables_messages_reach_no_terminal_raw(tmp_path: Path, seed: int) -> None:
    """Messages in a record (a table writes what was said): `replay --print` shows them cleaned."""
    rng = random.Random(seed)
    record = tmp_path / "game.jsonl"
    negtui("autoplay", PILL, "--record", record, cwd=tmp_path)
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    turns = [k for k, line in enumerate(lines) if line["type"] == "turn"]
    for k in reversed(turns):
        lines.insert(k, {"type": "message", "t": lines[k]["t"], "sender": rng.choice(["A", "B", "trainer"]),
                         "to": rng.choice([None, "A", "B"]), "text": hostile(rng, big=True)[:2000]})
    record.write_text("".join(json.dumps(line) + "\n" for line in lines))
    negtui("replay", record, "--print", cwd=tmp_path)


@pytest.mark.slow
@pytest.mark.asyncio
@pytest.mark.parametrize("seed", SEEDS[:3])
async def test_the_apps_screens_show_no_raw_control_character(tmp_path: Path, seed: int, settle, screen_text) -> None:
    """The scenario's random words on the game screen, in the lesson, the seat dialog, help, the final payoffs
    and the welfare dialog, at 80×24."""
    from negtui.seats import Seat
    from negtui.tui.app import NegtuiApp

    rng = random.Random(seed)
    path = tmp_path / "words.json"
    data = hostile_scenario(rng, printable_ids=True)
    path.write_text(json.dumps(data))
    seats = {p["id"]: Seat.lens("upper") for p in data["players"]}
    app = NegtuiApp(path, seats=seats, ask_seats=False, record=False, data_dir=tmp_path / "data")
    seen = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in ("l", "escape", "s", "escape", "question_mark", "escape", "space", "space", "w", "escape"):
            await pilot.press(key)
            await settle(pilot)
            seen.append(screen_text(app))
    for text in seen:
        assert terminal_safe(text), text


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_no_csv_cell_starts_a_formula_and_the_export_stays_small(tmp_path: Path, seed: int, cli) -> None:
    """Random player ids and trainee names through every CSV a class writes, and the class export."""
    from negtui.classroom.db import DB_NAME, ResultsDB
    from negtui.classroom.dbtypes import now_iso

    rng = random.Random(seed)
    data = hostile_scenario(rng, printable_ids=True)
    ids = [p["id"] for p in data["players"]]
    (tmp_path / "pill.json").write_text(json.dumps(data))
    course = tmp_path / "course.toml"
    course.write_text(f'name = "c"\ntitle = "C"\n\n[[exercises]]\nid = "pill"\ntitle = "Pill"\n'
                      f'scenario = "pill.json"\nhumans = {json.dumps(ids)}\n')
    names = [hostile(rng)[:60] + str(k) for k in range(2)]
    store = tmp_path / "data"
    with ResultsDB.open(store):
        pass
    import sqlite3

    with sqlite3.connect(store / DB_NAME) as con:
        con.executemany("INSERT INTO trainees (name, created) VALUES (?, ?)", [(n, now_iso()) for n in names])
    with ResultsDB.open(store) as db:
        table = db.tables.opened("c", "pill", "-")
        db.tables.over(table)
        for k, (seat, name) in enumerate(zip(ids, names, strict=True)):
            game = db.game_started(name, "c", "pill", data["name"], "d", seat, "/r.jsonl", table_id=table)
            db.game_finished(game, payoff=[-3.5, 30.0][k], payoffs=[-3.5, 30.0], baseline=-2.0, counterfactuals={},
                             welfare_optimum=60.0, efficiency=-0.1, duration=60.0, seat_optimum=30.0,
                             table_efficiency=0.44, bot_turns=0, mode="practice", decisions=[])
    for extra in ((), ("--decisions",), ("--gradebook",), ("--gradebook", "--wide")):
        res = cli("results", "--csv", "--course", course, "--data-dir", store, *extra)
        assert res.exit_code == 0, res.output
        assert formulas(res.stdout) == [], extra
    out = tmp_path / "export"
    res = cli("class", "--export", out, "--course", course, "--data-dir", store)
    assert res.exit_code == 0, res.output
    for f in (out / "data").glob("*.csv"):
        assert formulas(f.read_text(encoding="utf-8")) == [], f.name
    assert sum(f.stat().st_size for f in out.rglob("*") if f.is_file()) < 20 * 2**20
