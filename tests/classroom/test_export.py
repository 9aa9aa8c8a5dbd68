"""The class debrief exported to project (`negtui class --export`): a small class built in a temporary data
directory (tables of the poison pill, one with a bot in a seat, a trainee whose name is markup, a time-out among
the costliest decisions), exported, the page parsed for its figures and tables, its escaping checked, its CSVs
read with pandas, the console's debrief tab showing the same numbers, and the page opened in a real headless
browser whose screenshot must hold the figures' colours."""

from __future__ import annotations

import csv
import shutil
import sqlite3
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from negtui.classroom.course import LoadedCourse
from negtui.classroom.course_loading import load_course
from negtui.classroom.db import DB_NAME, ResultsDB
from negtui.classroom.dbtypes import Decision, now_iso
from negtui.classroom.debrief import class_debrief
from negtui.classroom.export import BASELINE, COST, OPTIMUM, PERSON
from tests.console.test_console import show_tab

COURSE = """\
name = "class"
title = "A <b>class</b> & its debrief"

[[exercises]]
id = "pill"
title = "The poison pill, in pairs"
scenario = "poison-pill"
humans = ["A", "B"]

[[exercises]]
id = "trap"
title = "The coalition trap, any two"
scenario = "coalition-trap"
humans = 2
"""
MARKUP = '<script>alert("x")</script>'  # a name the database holds (`trainees add` would refuse it)


def _numbers(cost: float) -> dict:
    """A decision's coaching numbers as the coach files them (coach.assess.describe)."""
    return {"reference": "mean", "cost": cost,
            "yours": {"who": "you", "values": {"myopic": 0.0, "upper": 0.0, "lower": 0.0}, "partner": "B",
                      "offer": [], "words": "nothing", "accept": False},
            "others": [{"who": "upper", "values": {"myopic": cost, "upper": cost, "lower": cost}, "partner": "B",
                        "offer": [["A", "bait"], ["B", "bait"]], "words": "A commits bait; B commits bait",
                        "accept": True}],
            "agreeing": []}


def _table(db: ResultsDB, seats: dict[str, str], payoffs: list[float], costs: dict[str, float],
           timed_out: str | None = None, ending: str = "turns", turn: int = 6) -> None:
    """A finished table of the pill: `seats` maps a seat to the trainee in it (a seat left out: a bot); `ending`
    how its game ended, at `turn` of 6."""
    table = db.tables.opened("class", "pill", "-")
    db.tables.started(table, None, 6, {"A": 0.0, "B": 0.0})
    db.tables.progress(table, turn, dict(zip("AB", payoffs, strict=True)))
    db.tables.over(table, ending)
    for seat, name in seats.items():
        i = "AB".index(seat)
        game = db.game_started(name, "class", "pill", "poison-pill", "d", seat, "/r.jsonl", table_id=table)
        clock = seat == timed_out
        db.game_finished(game, payoff=payoffs[i], payoffs=payoffs, baseline=0.0, counterfactuals={},
                         welfare_optimum=60.0, efficiency=payoffs[i] / 30.0, duration=60.0, seat_optimum=30.0,
                         table_efficiency=sum(payoffs) / 60.0, bot_turns=0, mode="practice",
                         decisions=[Decision(0 if seat == "A" else 1, "propose", "no offer" if clock else "to B: bait",
                                             costs.get(seat, 0.0), _numbers(costs.get(seat, 0.0)), timed_out=clock)])


@pytest.fixture
def klass(tmp_path: Path) -> tuple[LoadedCourse, Path, Path]:
    """The course, its file and the data directory: five tables of the pill (the first the oldest), one with a
    bot in B; nobody has played the trap."""
    (tmp_path / "course.toml").write_text(COURSE)
    data = tmp_path / "data"
    with ResultsDB.open(data) as db:
        for name in ("alice", "bob", "carol", "dave"):
            db.add_trainee(name)
    with sqlite3.connect(data / DB_NAME) as con:
        con.execute("INSERT INTO trainees (name, created) VALUES (?, ?)", (MARKUP, now_iso()))
    with ResultsDB.open(data) as db:
        _table(db, {"A": "dave", "B": "carol"}, [10.0, -23.0], {"A": 5.0})  # the oldest: left out at --tables 4
        _table(db, {"A": "alice", "B": "bob"}, [30.0, 30.0], {"B": 1.0})
        _table(db, {"A": "carol"}, [40.0, 7.0], {"A": 2.0}, ending="trainer", turn=4)  # a bot in B; time called
        _table(db, {"A": MARKUP, "B": "dave"}, [0.0, 0.0], {"A": 30.0, "B": 3.0}, timed_out="A", ending="clock",
               turn=2)
        _table(db, {"A": "bob", "B": "alice"}, [30.0, 30.0], {})
        table = db.tables.opened("class", "pill", "-")  # a game under way: counted apart
        db.game_started("bob", "class", "pill", "poison-pill", "d", "A", "/r.jsonl", table_id=table)
    return load_course(tmp_path / "course.toml"), tmp_path / "course.toml", data


class Page(HTMLParser):
    """What a browser would build of the page: its tags, images, links, figure captions, table cells, text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.imgs: list[str] = []
        self.links: list[str] = []
        self.captions: list[str] = []
        self.cells: list[str] = []
        self.text: list[str] = []
        self._in: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        a = dict(attrs)
        if tag == "img":
            self.imgs.append(a["src"] or "")
        elif tag == "a":
            self.links.append(a["href"] or "")
        if tag in ("figcaption", "td"):
            self._in.append(tag)
            (self.captions if tag == "figcaption" else self.cells).append("")

    def handle_endtag(self, tag: str) -> None:
        if self._in and self._in[-1] == tag:
            self._in.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in:
            (self.captions if self._in[-1] == "figcaption" else self.cells)[-1] += data


def test_the_export_holds_every_figure_its_numbers_and_escapes_names(klass, cli) -> None:
    _, course_file, data = klass
    out = data.parent / "debrief"
    res = cli("class", "--export", out, "--course", course_file, "--data-dir", data, "--tables", 4)
    assert res.exit_code == 0, res.output
    raw = (out / "index.html").read_text(encoding="utf-8")
    page = Page(raw)
    text = " ".join(page.text)

    # escaped: a trainee's name and the course's title are text, never markup
    assert "script" not in page.tags and "b" not in page.tags and "<script>" not in raw
    assert "A <b>class</b> & its debrief: class debrief" in text
    assert f"{MARKUP} (A)" in page.cells
    # self-contained: nothing fetched from anywhere; every figure a file beside the page, as SVG and PNG
    assert "http:" not in raw and "https:" not in raw and "//" not in raw.replace("://", "")
    assert len(page.imgs) == 3 and all(src.startswith("figures/") and src.endswith(".svg") for src in page.imgs)
    for link in page.imgs + page.links:
        if not link.startswith("#"):
            assert (out / link).is_file(), link
    assert {Path(p).suffix for p in page.links if not p.startswith("#")} == {".png", ".csv"}
    for svg in (out / "figures").glob("*.svg"):
        body = svg.read_text(encoding="utf-8")
        assert "<script" not in body and 'href="http' not in body and "<text" in body  # text kept as text
    assert "n = 4 plays; the 1 oldest left out" in (out / "figures" / "01-pill-seats.svg").read_text()
    assert "&lt;script&gt;" in (out / "figures" / "01-pill-costly.svg").read_text()

    # every figure states its n, every mean its spread; bounded, and what was left out said
    assert len(page.captions) == 3 and all("n = " in c for c in page.captions)
    assert "the 1 oldest left out" in text and "1 unfinished or abandoned game not counted" in text
    assert sum("±" in c and "s.d." in c for c in page.cells) == 2  # one mean per seat
    assert "share of the welfare optimum: mean" in text and "No table has finished this exercise yet." in text
    assert "no offer (time ran out)" in page.cells  # the clock's pass, marked where it ranks first

    # the CSVs behind the figures
    seats = pd.read_csv(out / "data" / "01-pill-seats.csv")
    assert len(seats) == 8 and set(seats["seat"]) == {"A", "B"}  # 4 plays × 2 seats
    assert seats["trainee"].isna().sum() == 1 and (seats["optimum"] == 30.0).all()
    tables = pd.read_csv(out / "data" / "01-pill-tables.csv")
    assert len(tables) == 4 and tables["share"].max() == pytest.approx(1.0)
    # how each table's game ended: the clock's and the trainer's at the turn they ended it
    assert sorted(tables["ended"]) == ["all 6 turns", "all 6 turns", "by the clock after 2 of 6 turns",
                                       "by the trainer after 4 of 6 turns"]
    assert "by the clock after 2 of 6 turns" in page.cells and "by the trainer after 4 of 6 turns" in page.cells
    costly = pd.read_csv(out / "data" / "01-pill-costly.csv")
    first = costly.iloc[0]
    assert (first["trainee"], first["cost"], bool(first["timed_out"]), first["choice"]) == (MARKUP, 30.0, True,
                                                                                           "no offer")
    assert 5.0 not in set(costly["cost"])  # the oldest table's decision is left out with it
    with (out / "data" / "01-pill-tables.csv").open() as f:
        assert next(csv.reader(f)) == ["exercise", "where", "people", "total", "optimum", "share", "ended"]
    assert not list((out / "figures").glob("02-*"))  # the trap: nothing played, nothing drawn


@pytest.mark.asyncio
async def test_the_console_shows_the_numbers_the_export_states(klass, wait_until, screen_text) -> None:
    from negtui.classroom.export import export_class
    from negtui.console.app import ClassApp

    course, _, data = klass
    with ResultsDB.open(data) as db:
        d = class_debrief(db, course, "pill")
        done = export_class(db, course, data.parent / "debrief")
        page = " ".join(Page(done.index.read_text(encoding="utf-8")).text)
        for line in [s.summary for s in d.seats] + [d.share_summary]:
            assert line.split(" · ")[0] in page or line in page
        for s in d.seats:
            assert s.n == 5 and s.mean is not None and s.sd is not None
        app = ClassApp(course, db, data_dir=data)
        async with app.run_test(size=(220, 70)) as pilot:
            await wait_until(pilot, lambda: "3 Class debrief" in screen_text(app), "the console")
            await show_tab(pilot, app, "3", "#class-exercises", wait_until)
            wanted = [s.summary for s in d.seats] + [d.share_summary, "no offer (time ran out)"]
            await wait_until(pilot, lambda: all(w in screen_text(app) for w in wanted), "the class debrief's numbers")
            shown = screen_text(app)
            for s in d.seats:
                assert s.summary in shown
                mean_sd = s.summary.split(" · ")[1].removeprefix("mean ")
                assert mean_sd in page  # the export's seat table: the same mean ± s.d.
            assert d.share_summary in shown and d.share_summary in page
            assert "no offer (time ran out)" in shown and "◆" in shown
            assert f"{d.unfinished} unfinished or abandoned game not counted" in shown and d.unfinished == 1
            assert "by the clock after 2 of 6 turns" in shown and "by the trainer after 4 of 6 turns" in shown


def _near(image: np.ndarray, colour: str, tolerance: float = 0.12) -> int:
    """Pixels of the screenshot within `tolerance` of a figure's colour (each channel, 0–1)."""
    rgb = np.array([int(colour[k:k + 2], 16) / 255 for k in (1, 3, 5)])
    return int((np.abs(image[..., :3] - rgb) < tolerance).all(axis=-1).sum())


@pytest.mark.chromium
@pytest.mark.slow
def test_the_page_opens_in_a_headless_browser_with_its_figures(klass, tmp_path: Path) -> None:
    from matplotlib.image import imread

    from negtui.classroom.export import export_class

    course, _, data = klass
    with ResultsDB.open(data) as db:
        done = export_class(db, course, tmp_path / "debrief", tables=4)
    shot = tmp_path / "page.png"
    browser = shutil.which("chromium")
    assert browser is not None
    run = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--disable-component-update", "--no-first-run", "--disable-sync",
                          f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1280,1600",
                          done.index.resolve().as_uri()], capture_output=True, text=True, timeout=180)
    assert shot.is_file(), f"no screenshot (exit {run.returncode}): {run.stderr[-2000:]}"
    image = imread(shot)
    assert image.shape[:2] == (1600, 1280)
    ink = (image[..., :3] < 0.9).any(axis=-1).mean()
    assert ink > 0.02 and image[..., :3].std() > 0.05, "a blank page"
    seen = {name: _near(image, colour) for name, colour in
            (("trainee", PERSON), ("baseline", BASELINE), ("optimum", OPTIMUM), ("cost", COST))}
    assert all(n > 50 for n in seen.values()), seen  # every figure drawn: its colours on screen
