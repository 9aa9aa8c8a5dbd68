"""The class export in bounded time and memory whatever the class holds: a player named in 99,000 characters
is cut (figures, page, CSV) and its figure stays a few hundred pixels wide; a scenario of many seats and a class
of many tables are drawn up to a cap, the figures saying what they left to the page's tables and the CSVs; the
console's plot cuts a label with the same '…'."""

from __future__ import annotations

import json
import struct
import time
from pathlib import Path

import pandas as pd
import pytest

from negtui.classroom.course_loading import load_course
from negtui.classroom.db import ResultsDB
from negtui.classroom.debrief import NAME
from negtui.classroom.export import MAX_TABLES, SEATS_DRAWN, TABLES_DRAWN
from tests.paths import ROOT

PILL = ROOT / "scenarios" / "teaching" / "poison-pill.json"
HUGE = ("Alice of the very long name " * 4000)[:99_000]
MOST_PIXELS = 2_000  # a figure's width or height: a few rows of marks and names cut at NAME characters


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height from the PNG's header (decoding a runaway figure would take gigabytes)."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", path
    return struct.unpack(">II", head[16:24])


def _course(tmp: Path, scenario: dict, seats: str) -> Path:
    """A course of one exercise, the game `scenario`, seated as `seats` says (`humans = […]` or `seat = "P0"`)."""
    (tmp / "game.json").write_text(json.dumps(scenario))
    (tmp / "course.toml").write_text(f'name = "c"\ntitle = "C"\n\n[[exercises]]\nid = "ex"\ntitle = "The game"\n'
                                     f'scenario = "game.json"\n{seats}\n')
    return tmp / "course.toml"


def _finished_table(db: ResultsDB, seats: dict[str, str], payoffs: list[float], alone: bool = False) -> None:
    """A finished game of every trainee in `seats`, at one table (or, `alone`, a game of one trainee)."""
    table = None
    if not alone:
        table = db.tables.opened("c", "ex", "-")
        db.tables.over(table)
    for seat, name in seats.items():
        game = db.game_started(name, "c", "ex", "game", "d", seat, "/r.jsonl", table_id=table)
        db.game_finished(game, payoff=payoffs[0], payoffs=payoffs, baseline=0.0, counterfactuals={},
                         welfare_optimum=60.0, efficiency=0.5, duration=60.0, seat_optimum=30.0, table_efficiency=0.5,
                         bot_turns=0, mode="practice", decisions=[])


def test_a_player_named_in_99000_characters_is_cut_and_its_figure_stays_small(tmp_path: Path, cli) -> None:
    scenario = json.loads(PILL.read_text())
    scenario["players"][0]["name"] = HUGE
    course = _course(tmp_path, scenario, 'humans = ["A", "B"]')
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        for name in ("alice", "bob"):
            db.add_trainee(name)
        _finished_table(db, {"A": "alice", "B": "bob"}, [10.0, -3.5])
    out = tmp_path / "debrief"
    start = time.perf_counter()
    res = cli("class", "--export", out, "--course", course, "--data-dir", data)
    took = time.perf_counter() - start
    assert res.exit_code == 0, res.output
    print(f"export of a 99,000-character name: {took:.2f} s")  # 19 s and a 753,959-pixel-wide PNG before the cut

    for png in (out / "figures").glob("*.png"):
        width, height = _png_size(png)
        assert width <= MOST_PIXELS and height <= MOST_PIXELS, (png.name, width, height)
    label = f"A · {HUGE}"
    svg = (out / "figures" / "01-ex-seats.svg").read_text(encoding="utf-8")
    page = (out / "index.html").read_text(encoding="utf-8")
    cut = "A · Alice of the very long name Alice of the very long name…"  # at a word's end
    assert len(cut) <= NAME and cut in svg and cut in page
    assert HUGE[:NAME * 2] not in svg and HUGE[:NAME * 2] not in page and len(page) < 20_000

    # the data: the seat's id whole (the key to the scenario, where the name is whole), its label cut as shown:
    # a whole name on every row of every play would make the CSV gigabytes
    seats = pd.read_csv(out / "data" / "01-ex-seats.csv")
    assert list(seats["seat"]) == ["A", "B"] and list(seats["label"]) == [cut, "B · Bob"]
    assert label not in (out / "data" / "01-ex-seats.csv").read_text(encoding="utf-8")
    assert list(seats["payoff"]) == [10.0, -3.5]


def _many_seats(players: int) -> dict:
    """A game of `players` players, each with one action; one goal wants them all."""
    ids = [f"P{k}" for k in range(players)]
    return {"format": "negtui-scenario/1", "name": "many",
            "players": [{"id": p, "name": f"Player {k} of a long, long name", "actions": [{"id": "a"}]}
                        for k, p in enumerate(ids)],
            "goals": [{"id": "all", "kind": "linear", "requires": [{"player": p, "action": "a"} for p in ids],
                       "values": {p: 1 for p in ids}}]}


@pytest.mark.slow
def test_many_seats_and_tables_are_drawn_up_to_a_cap_and_the_figures_say_so(tmp_path: Path, cli) -> None:
    players, plays = SEATS_DRAWN + 10, TABLES_DRAWN + 5
    course = _course(tmp_path, _many_seats(players), 'seat = "P0"')
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        db.add_trainee("ada")
        for k in range(plays):
            _finished_table(db, {"P0": "ada"}, [float(k % 7 - 3)] * players, alone=True)
    out = tmp_path / "debrief"
    res = cli("class", "--export", out, "--course", course, "--data-dir", data, "--tables", plays)
    assert res.exit_code == 0, res.output
    for png in (out / "figures").glob("*.png"):
        width, height = _png_size(png)
        assert width <= MOST_PIXELS and height <= 4 * MOST_PIXELS, (png.name, width, height)
    seats_svg = (out / "figures" / "01-ex-seats.svg").read_text(encoding="utf-8")
    assert f"the first {SEATS_DRAWN} of {players} seats drawn" in seats_svg
    assert f"P{SEATS_DRAWN - 1} · Player" in seats_svg and f"P{SEATS_DRAWN} · Player" not in seats_svg
    assert f"the {TABLES_DRAWN} best shares of {plays} drawn" in (out / "figures" / "01-ex-tables.svg").read_text()
    page = (out / "index.html").read_text(encoding="utf-8")
    assert f"the first {SEATS_DRAWN} of {players} seats drawn" in page and f"P{players - 1} · Player" in page
    # the CSVs keep everything the figures left out
    assert len(pd.read_csv(out / "data" / "01-ex-seats.csv")) == players * plays
    assert len(pd.read_csv(out / "data" / "01-ex-tables.csv")) == plays


def test_more_tables_than_an_export_reads_is_refused_by_name(tmp_path: Path, cli) -> None:
    course = _course(tmp_path, json.loads(PILL.read_text()), 'humans = ["A", "B"]')
    res = cli("class", "--export", tmp_path / "out", "--course", course, "--data-dir", tmp_path / "data",
              "--tables", MAX_TABLES + 1)
    assert res.exit_code == 2 and "--tables" in res.output and str(MAX_TABLES) in res.output
    assert "Traceback" not in res.output and not (tmp_path / "out").exists()


def test_the_export_reads_at_most_max_tables_plays_whatever_it_is_asked(tmp_path: Path) -> None:
    from negtui.classroom.export import export_class

    course = _course(tmp_path, json.loads(PILL.read_text()), 'humans = ["A", "B"]')
    with ResultsDB.open(tmp_path / "data") as db:
        done = export_class(db, load_course(course), tmp_path / "out", tables=10**9)
    assert f"at most {MAX_TABLES} plays per exercise" in done.index.read_text(encoding="utf-8")



def test_the_consoles_plot_cuts_a_seats_label_with_an_ellipsis() -> None:
    from negtui.classroom.debrief import Outcome, SeatSpread
    from negtui.console.plot import LABEL, strip_plot

    seat = SeatSpread("A", "A · Alice of the long name", 0.0, (Outcome(1.0, "table 1", "ada"),), 2.0)
    first = strip_plot([seat], 60).plain.splitlines()[0]
    assert first.startswith("A · Alice of the…") and first[LABEL] == " "
