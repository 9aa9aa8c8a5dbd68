"""`negtui case sheets`: a role sheet per seat holds what that seat knows and nothing of another role's values
(values planted in copies of the cases, looked for on every page); the teaching note holds every role, the
welfare optimum, the baseline, the exact solution and the lens bots' games, with the numbers `negtui welfare`
and `negtui autoplay` give; a scoresheet's pages read in its own terms; hostile names print as text; PDFs
where chromium is installed, a clear word where it is not; every mistake of the command line ends with
status 2 and a message."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from negtui.cases.terms import settled
from negtui.engine import PAPER, compile_game
from negtui.scenario import parse_scenario
from negtui.scenario.scoresheets import validate_sheet
from tests.paths import TEACHING
from tests.secrets import leaks, write_secret_scenario

CAR = TEACHING / "private-car-sale.json"
LENSES = ("myopic", "upper", "lower")


class _Tables(HTMLParser):
    """Every table of a page as rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables(page: Path) -> list[list[list[str]]]:
    parser = _Tables()
    parser.feed(page.read_text())
    return parser.tables


def sheets(cli, scenario: Path | str, out: Path, *more: str):
    res = cli("case", "sheets", scenario, "-o", out, *more)
    assert res.exit_code == 0, res.output
    return res


def planted_car(tmp_path: Path) -> Path:
    """The car sale with values nothing else prints: the seller's 3.137 (sale at 15) and 4.219 (at 16), the
    buyer's 5.381 (at 13); a private label and a lesson only the teaching note may hold."""
    data = json.loads(CAR.read_text())
    goals = {g["id"]: g for g in data["goals"]}
    goals["deal15"]["values"]["S"] = 3.137
    goals["deal16"]["values"]["S"] = 4.219
    goals["deal13"]["values"]["B"] = 5.381
    goals["deal14"] |= {"label": "sale at 14, the seller's FLOORWORD", "public_label": "sale at 14"}
    data["lesson"] = "LESSONWORD: the zone is [12, 18]."
    path = tmp_path / "car.json"
    path.write_text(json.dumps(data))
    return path


def test_a_role_sheet_holds_its_own_values_and_none_of_the_other_roles(cli, tmp_path: Path) -> None:
    out = tmp_path / "car"
    sheets(cli, planted_car(tmp_path), out)
    buyer, seller = (out / "role-1-buyer.html").read_text(), (out / "role-2-seller.html").read_text()
    note = (out / "teaching-note.html").read_text()
    assert "5.381" in buyer and "3.137" in seller and "4.219" in seller  # each its own
    assert "3.137" not in buyer and "4.219" not in buyer  # nothing of the other's
    assert "5.381" not in seller
    for page in (buyer, seller):
        assert "FLOORWORD" not in page and "LESSONWORD" not in page
        assert "between 0 and 6" in page  # the ranges every seat is told
    assert all(x in note for x in ("3.137", "4.219", "5.381", "FLOORWORD", "LESSONWORD"))  # the trainer's
    # the buyer's own row as the engine's observation of its seat gives it
    rows = {r[0]: r for r in tables(out / "role-1-buyer.html")[0][1:]}
    assert rows["sale at 13"][2] == "5.381" and rows["sale at 10"][2] == "8"
    assert rows["sale at 14"][1] == "all of: Buyer: pay 14; Seller: deliver the car"


def test_a_role_sheet_of_a_game_of_secret_values_holds_none_of_them(cli, tmp_path: Path) -> None:
    """The coalition trap whose B and C values are the tests' secrets (tests/secrets.py): A's sheet holds
    A's own 10 and 6 and none of theirs; the teaching note holds them all."""
    out = tmp_path / "trap"
    sheets(cli, write_secret_scenario(tmp_path / "secret.json"), out)
    pages = sorted(out.glob("role-*.html"))
    assert len(pages) == 3
    mine = pages[0].read_text()
    assert leaks(mine) == []
    assert [r[2] for r in tables(pages[0])[0][1:]] == ["10", "0", "6"]
    note = (out / "teaching-note.html").read_text()
    assert {"11.375", "7.625", "31.75", "3.125", "6.875"} <= set(leaks(note))


def test_the_teaching_note_holds_every_role_the_optimum_the_baseline_and_the_lens_games(cli, tmp_path) -> None:
    out = tmp_path / "car"
    sheets(cli, CAR, out)
    note = out / "teaching-note.html"
    outcomes = tables(note)[0]
    assert outcomes[0] == ["Player", "welfare optimum", "exact solution", "No-Negotiation baseline", "myopic bots",
                           "upper bots", "lower bots"]
    rows = {r[0]: [float(x) for x in r[1:]] for r in outcomes[1:4]}
    columns = {title: [rows["Buyer"][k], rows["Seller"][k]] for k, title in enumerate(outcomes[0][1:])}
    welfare = json.loads(cli("welfare", CAR, "--json").stdout)
    assert columns["welfare optimum"] == welfare["payoffs"] and welfare["proven_optimal"]
    assert "proven optimal by the HiGHS solver" in note.read_text()
    solved = json.loads(cli("solve", CAR, "--json").stdout)
    assert columns["exact solution"] == solved["payoffs"]
    base = json.loads(cli("baseline", CAR, "--json").stdout)
    assert columns["No-Negotiation baseline"] == base["payoffs"]
    for lens in LENSES:  # every seat that lens, deciding on what its seat knows, as the class plays
        played = json.loads(cli("autoplay", CAR, "--lens", lens, "--information", "private", "--json").stdout)
        assert columns[f"{lens} bots"] == played["payoffs"], lens
    assert rows["Sum"] == [sum(c) for c in columns.values()]
    # every role with its values, each by name
    text = note.read_text()
    assert "<h3>Buyer</h3>" in text and "<h3>Seller</h3>" in text
    assert [t[0] for t in tables(note)[-2:]] == [["Goal", "Value", "Published range"]] * 2


def test_the_lens_games_of_the_note_play_as_the_class_is_told(cli, tmp_path: Path) -> None:
    """--information public: bots that know every value (the upper bots then split the car sale otherwise)."""
    out = tmp_path / "public"
    sheets(cli, CAR, out, "--information", "public")
    outcomes = tables(out / "teaching-note.html")[0]
    upper = outcomes[0].index("upper bots")
    played = json.loads(cli("autoplay", CAR, "--lens", "upper", "--information", "public", "--json").stdout)
    assert [float(outcomes[k][upper]) for k in (1, 2)] == played["payoffs"]
    assert "every one knowing every value (public information)" in (out / "teaching-note.html").read_text()


def small_sheet(tmp_path: Path) -> Path:
    """Three parties, two issues; b's points and c's reservation value planted where only they may read them."""
    text = """format = "negtui-scoresheet/1"
title = "Two issues"
description = "Three neighbours settle a fence and a hedge."
lesson = "LESSONWORD"

[agreement]
quorum = 2
vetoes = ["a"]

[[parties]]
id = "a"
name = "Ann"
reservation = 8

[[parties]]
id = "b"
name = "Bea"
reservation = 6

[[parties]]
id = "c"
name = "Cal"
reservation = 2.375

[[issues]]
id = "x"
label = "Fence"
options = [
  { id = "x1", label = "a low fence", points = { a = 10, b = 0.625, c = 4 } },
  { id = "x2", label = "a high fence", points = { a = 0, b = 8, c = 6 } },
]

[[issues]]
id = "y"
label = "Hedge"
options = [
  { id = "y1", label = "keep the hedge", points = { a = 6, b = 4.875, c = 0 } },
  { id = "y2", label = "cut the hedge", points = { a = 2, b = 2, c = 10 } },
]
"""
    path = tmp_path / "two.toml"
    path.write_text(text)
    return path


def test_a_scoresheets_role_reads_in_its_own_terms_and_only_its_own_points(cli, tmp_path: Path) -> None:
    out = tmp_path / "two"
    sheets(cli, small_sheet(tmp_path), out)
    ann, bea, cal = (out / f"role-{k}-{n}.html" for k, n in ((1, "ann"), (2, "bea"), (3, "cal")))
    assert [[r for r in t] for t in tables(ann)] == [
        [["Option", "Your points"], ["a low fence", "10"], ["a high fence", "0"]],
        [["Option", "Your points"], ["keep the hedge", "6"], ["cut the hedge", "2"]]]
    text = ann.read_text()
    assert "Your reservation value: <strong>8 points</strong>" in text
    assert "worth 16 points:\n8 above walking away" in text or "worth 16 points: 8 above walking away" in " ".join(
        text.split())
    said = " ".join(text.split())
    assert "An issue is settled on an option once 2 of the 3 parties back it, Ann among them." in said
    assert "goals" not in said and "Compiled from" not in said  # the sheet's terms, not its compiled goals
    for secret in ("0.625", "4.875", "2.375"):  # Bea's points, Cal's reservation value
        assert secret not in text
    assert "0.625" in bea.read_text() and "4.875" in bea.read_text() and "2.375" not in bea.read_text()
    assert "2.375" in cal.read_text() and "0.625" not in cal.read_text()
    note = out / "teaching-note.html"
    assert all(x in note.read_text() for x in ("0.625", "4.875", "2.375", "LESSONWORD"))
    settles = next(t for t in tables(note) if t[0][0] == "Issue")
    assert [r[0] for r in settles[1:]] == ["Fence", "Hedge", "Ann: points", "Bea: points", "Cal: points"]


def test_what_a_scoresheets_game_settles_is_read_from_its_goals(tmp_path: Path) -> None:
    """Quorum 2 with Ann's veto: Bea and Cal backing a high fence settle nothing; Ann and Bea do."""
    import tomllib

    data = tomllib.loads(small_sheet(tmp_path).read_text())
    sheet, _ = validate_sheet(data)
    game = compile_game(parse_scenario(data), PAPER)

    def backing(*pairs: tuple[str, str]) -> dict[str, str | None]:
        return settled(sheet, game, game.bits_of(list(pairs)))

    assert backing(("b", "x.x2"), ("c", "x.x2")) == {"x": None, "y": None}
    assert backing(("a", "x.x2"), ("b", "x.x2")) == {"x": "x2", "y": None}
    assert backing(("a", "x.x1"), ("b", "x.x1"), ("c", "x.x1"), ("a", "y.y2"), ("c", "y.y2")) == {"x": "x1",
                                                                                                  "y": "y2"}


HOSTILE = "<script>alert(1)</script>"


def test_hostile_names_print_as_text_and_long_ones_are_cut(cli, tmp_path: Path) -> None:
    data = json.loads(CAR.read_text())
    data["name"] = "car"
    data["players"][0]["name"] = HOSTILE
    data["players"][1]["name"] = "Seller " + "x" * 5000
    data["goals"][0]["label"] = '"><img src=x onerror=alert(2)>'
    data["players"][1]["actions"][0]["label"] = "deliver <b>the</b> car & keys"
    data["description"] = "A sale. {{ 7 * 7 }} {% raw %}"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "out"
    sheets(cli, path, out)
    for page in out.glob("*.html"):
        text = page.read_text()
        assert "<script>" not in text and "<img" not in text and "<b>the</b>" not in text, page.name
        assert "x" * 200 not in text, page.name  # a name cut where a page prints it
        if page.name != "index.html":
            assert "{{ 7 * 7 }} {% raw %}" in text  # words, not a template
    buyer = next(out.glob("role-1-*.html")).read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in buyer
    assert "deliver &lt;b&gt;the&lt;/b&gt; car &amp; keys" in buyer
    assert sorted(p.name for p in out.glob("role-*.html")) == ["role-1-script-alert-1-script.html",
                                                                "role-2-seller-" + "x" * 33 + ".html"]


@pytest.mark.chromium
def test_pdf_pages_are_printed_where_chromium_is_installed(cli, tmp_path: Path) -> None:
    out = tmp_path / "car"
    res = sheets(cli, CAR, out, "--pdf")
    pdfs = sorted(p.name for p in out.glob("*.pdf"))
    assert pdfs == ["role-1-buyer.pdf", "role-2-seller.pdf", "teaching-note.pdf"]
    assert all((out / p).read_bytes()[:5] == b"%PDF-" for p in pdfs)
    assert "each with its PDF" in res.stdout and 'href="role-1-buyer.pdf"' in (out / "index.html").read_text()


def test_without_chromium_the_pages_are_written_and_the_missing_pdfs_said(cli, tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    out = tmp_path / "car"
    res = cli("case", "sheets", CAR, "-o", out, "--pdf", env={"PATH": str(empty)})
    assert res.exit_code == 0, res.output
    assert "no PDF written: PDFs are printed by a headless chromium, and there is none on PATH" in res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["index.html", "role-1-buyer.html", "role-2-seller.html",
                                                      "teaching-note.html"]


def test_a_bundled_name_and_a_scoresheet_work_as_paths_do(cli, tmp_path: Path) -> None:
    res = sheets(cli, "private-car-sale", tmp_path / "car")
    assert res.stdout.startswith(f"wrote {tmp_path / 'car' / 'index.html'}: 2 role sheets and the teaching note")
    index = tables(tmp_path / "car" / "index.html")[0]
    assert index[1:] == [["Buyer", "role-1-buyer.html"], ["Seller", "role-2-seller.html"]]


def _refused(res, *words: str) -> None:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    for w in words:
        assert w in res.stderr, res.stderr


def test_mistakes_end_with_status_2_and_say_what_is_wrong(cli, tmp_path: Path) -> None:
    _refused(cli("case", "sheets", "privat-car-sale", "-o", tmp_path / "a"),
             "privat-car-sale: file not found, and no bundled scenario has that name", "private-car-sale")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**json.loads(CAR.read_text()), "players": "two"}))
    _refused(cli("case", "sheets", broken, "-o", tmp_path / "b"), "invalid scenario", "$.players")
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    _refused(cli("case", "sheets", CAR, "-o", full), f"{full} is not empty; pass --force")
    assert sorted(p.name for p in full.iterdir()) == ["notes.txt"]
    sheets(cli, CAR, full, "--force")
    assert (full / "notes.txt").read_text() == "mine" and (full / "index.html").is_file()
    a_file = tmp_path / "file"
    a_file.write_text("")
    _refused(cli("case", "sheets", CAR, "-o", a_file), f"cannot write into {a_file}: it is a file, not a folder")
    _refused(cli("case", "sheets", CAR, "-o", a_file / "under"), f"cannot write into {a_file / 'under'}")
    _refused(cli("case", "sheets", CAR, "-o", tmp_path / "c", "--information", "secret"),
             "--information is public or private")
    _refused(cli("case", "sheets", CAR, "-o", tmp_path / "d", "--rules", "house"), "unknown rule")
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


def test_a_case_too_large_to_print_is_refused(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("negtui.cases.terms.MAX_ROLES", 1)
    _refused(cli("case", "sheets", CAR, "-o", tmp_path / "a"),
             "private-car-sale: 2 roles; role sheets are printed for cases of at most 1 roles")
    monkeypatch.setattr("negtui.cases.terms.MAX_ROLES", 100)
    monkeypatch.setattr("negtui.cases.terms.MAX_GOALS", 3)
    _refused(cli("case", "sheets", CAR, "-o", tmp_path / "a"), "11 goals; role sheets list every goal")
    sheets(cli, small_sheet(tmp_path), tmp_path / "two")  # a scoresheet's pages list its options, not its goals


def test_a_lens_game_out_of_time_is_shown_as_it_stood(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("negtui.cases.note.LENS_SECONDS", 0.0)
    out = tmp_path / "car"
    sheets(cli, CAR, out)
    text = " ".join((out / "teaching-note.html").read_text().split())
    assert "The game of upper bots stopped after 0 s, 0 of 6 turns played" in text
    outcomes = tables(out / "teaching-note.html")[0]
    assert [r[outcomes[0].index("upper bots")] for r in outcomes[1:3]] == ["0", "0"]


def test_every_template_escapes_every_word() -> None:
    """Autoescape is on, and no template marks a value as safe markup or turns escaping off."""
    import negtui.cases
    from negtui.cases.pages import environment

    env = environment()
    assert env.autoescape is True
    folder = Path(negtui.cases.__file__).parent / "templates"
    assert sorted(p.name for p in folder.iterdir()) == sorted(env.list_templates())
    for template in folder.iterdir():
        assert not re.search(r"\|\s*safe|autoescape\s+false|Markup", template.read_text()), template.name
