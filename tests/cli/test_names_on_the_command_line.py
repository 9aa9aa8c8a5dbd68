"""The command line names players as the app does: river-basin's Upstream_State is "Upstream State" in the
autoplay, welfare and replay tables, and `--seat` takes that name back (or the id), with a clear error when
a name fits two players and a "did you mean" in the names shown when it fits none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from negtui.scenario import load_scenario
from negtui.seats import SeatError, parse_seats
from tests.paths import PILL, RIVER_BASIN

IDS = ("Upstream_State", "Midstream_State", "Development_Bank", "River_Basin_Organisation")


@pytest.fixture(scope="module")
def river_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from typer.testing import CliRunner

    from negtui.cli import app

    rec = tmp_path_factory.mktemp("names") / "river.jsonl"
    res = CliRunner().invoke(app, ["autoplay", str(RIVER_BASIN), "--partner", "greedy", "--seat",
                                   "Upstream State=myopic", "--record", str(rec)])
    assert res.exit_code == 0, res.output
    return rec


def test_autoplay_takes_a_seat_by_the_name_shown_and_tables_it_by_name(cli):
    res = cli("autoplay", RIVER_BASIN, "--partner", "greedy", "--seat", "upstream  state=myopic")
    assert res.exit_code == 0, res.output
    assert not [i for i in IDS if i in res.stdout], res.stdout
    row = next(ln for ln in res.stdout.splitlines() if "Upstream State" in ln and "│" in ln)
    assert "myopic" in row  # the seat the name chose, not some other
    assert "Midstream State" in res.stdout


def test_a_seat_by_id_still_works_and_gives_the_same_game(cli):
    by_id = cli("autoplay", RIVER_BASIN, "--partner", "greedy", "--seat", "Upstream_State=myopic", "--json")
    by_name = cli("autoplay", RIVER_BASIN, "--partner", "greedy", "--seat", "Upstream State=myopic", "--json")
    assert by_id.exit_code == by_name.exit_code == 0, (by_id.output, by_name.output)
    assert json.loads(by_id.stdout)["payoffs"] == json.loads(by_name.stdout)["payoffs"]


def test_a_typo_in_a_seat_suggests_the_name_shown(cli):
    res = cli("autoplay", RIVER_BASIN, "--seat", "upstream stat=myopic")
    assert res.exit_code == 2
    assert "did you mean 'Upstream State'?" in res.stderr
    assert "players are Upstream State, Midstream State" in res.stderr
    assert "Traceback" not in res.output


def test_a_name_two_players_go_by_is_refused_naming_both_ids(tmp_path):
    doc = json.loads(PILL.read_text())
    doc["players"][1]["name"] = "Alice"  # A and B both shown as "… · Alice"
    path = tmp_path / "twins.json"
    path.write_text(json.dumps(doc))
    sc = load_scenario(path)
    with pytest.raises(SeatError, match=r"'Alice' could be A · Alice or B · Alice: give the id \(A, B\)"):
        parse_seats(["Alice=human"], sc)
    assert parse_seats(["B=human"], sc)["B"].agent == "human"  # an id is never ambiguous
    assert list(parse_seats(["a · alice=human"], sc)) == ["A"]  # the seat dialog's label, as typed


def test_replay_print_names_players_and_deciders_by_name(cli, river_record):
    res = cli("replay", river_record, "--print")
    assert res.exit_code == 0, res.output
    assert not [i for i in IDS if i in res.stdout], res.stdout
    assert "(Development Bank (lower))" in res.stdout or "(Upstream State (myopic))" in res.stdout
    assert res.stdout.splitlines()[-1].startswith("payoffs: Upstream State ")


def test_fork_takes_a_seat_by_the_name_shown(cli, river_record, tmp_path):
    res = cli("autoplay", "--from-record", river_record, "--turn", "3", "--seat", "Midstream State=myopic",
              "--record", tmp_path / "fork.jsonl")
    assert res.exit_code == 0, res.output
    row = next(ln for ln in res.stdout.splitlines() if "Midstream State" in ln and "│" in ln)
    assert "myopic" in row


def test_the_welfare_table_names_players_by_name(cli):
    res = cli("welfare", RIVER_BASIN, "--objective", "utilitarian")
    assert res.exit_code == 0, res.output
    assert "Upstream State" in res.stdout and not [i for i in IDS if i in res.stdout], res.stdout
