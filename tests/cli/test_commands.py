"""The command line as a user meets it: exit codes, messages with file and JSON path, JSON output."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.paths import HUMANITARIAN, LARGE_BALANCED, PILL, RIVER_BASIN, SIX


def test_autoplay_json_has_payoffs_and_commitments(cli):
    res = cli("autoplay", PILL, "--lens", "myopic", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["payoffs"] == [40.0, 7.0]
    assert out["commitments"] == [[1, 0], [1, 1]]
    assert out["baseline"]["payoffs"] == [30.0, 30.0]
    assert out["improvement"]["sum"] == pytest.approx(-13.0)
    assert [t["accepted"] for t in out["turns"]] == [True, False]


def test_autoplay_seats_mix_lenses(cli):
    res = cli("autoplay", PILL, "--lens", "myopic", "--seat", "B=upper", "--json")
    out = json.loads(res.stdout)
    assert out["seats"]["B"]["propose"] == "upper" and out["seats"]["B"]["respond"] == "upper"
    assert out["seats"]["A"]["propose"] == "myopic"
    assert out["payoffs"] == [30.0, 30.0]  # B's optimistic lens refuses the pill


def test_autoplay_refuses_a_person_before_the_game_starts(cli):
    res = cli("autoplay", PILL, "--seat", "B=human")
    assert res.exit_code == 2
    assert "autoplay plays bots only, and B would be a person" in res.output
    assert "rules paper" not in res.output  # no game header before the refusal


def test_autoplay_reference_rules_reproduce_the_trap(cli):
    out = json.loads(cli("autoplay", PILL, "--lens", "lower", "--rules", "reference", "--json").stdout)
    assert out["payoffs"] == [40.0, 7.0]
    assert out["commitments"] == [[1, 1], [1, 1]]


def test_autoplay_human_readable_log_and_table(cli):
    res = cli("autoplay", PILL, "--lens", "myopic")
    assert res.exit_code == 0
    assert "A → B accepted: A commits bait; B commits bait, poison" in res.stdout
    assert "Final payoffs" in res.stdout


def test_bots_default_to_the_lens_of_the_payoff_regime_wherever_no_seat_names_one(cli):
    """One default for every entry point (the app's seat dialog is tested in tests/tui/test_starting.py):
    the pill's goals are mostly positive, so lower; the river basin treaty too; the header says why."""
    res = cli("autoplay", PILL, "--seat", "A=myopic")
    assert res.stdout.splitlines()[1].startswith("bots play lower unless told otherwise: positive goals dominate")
    out = json.loads(cli("autoplay", PILL, "--seat", "A=myopic", "--json").stdout)
    assert out["seats"]["B"]["propose"] == "lower" and out["seats"]["A"]["propose"] == "myopic"
    assert "bots play" not in cli("autoplay", PILL, "--lens", "upper").stdout  # named: nothing to explain


def test_results_name_commitments_in_words_under_titled_tables(cli):
    res = cli("autoplay", HUMANITARIAN, "--partner", "greedy", "--sims", "4", "--quiet")
    assert "Commitments made\n" in res.stdout and " a0" not in res.stdout and ", a1" not in res.stdout
    base = cli("baseline", HUMANITARIAN).stdout
    assert base.startswith("No-Negotiation baseline: each player's best commitments made alone\n")
    assert "┃ player" in base and "┃ payoff" in base and "Commitments made alone" in base
    assert "UN Humanitarian Coordinator " in base  # whole, at 80 columns, as the app names it


def test_solve_and_baseline_json(cli):
    out = json.loads(cli("solve", PILL, "--json").stdout)
    assert out["payoffs"] == [30.0, 30.0]
    # A's bait now ties in value with B's bait next turn: the realised-payoff tie rule takes it now
    assert out["path"][0]["partner"] == "B" and out["path"][0]["offer"] == [["A", "bait"], ["B", "bait"]]
    assert out["path"][1]["partner"] is None
    base = json.loads(cli("baseline", PILL, "--json").stdout)
    assert base["payoffs"] == [30.0, 30.0] and base["commitments"] == [[1, 0], [1, 0]]


def test_generate_writes_a_valid_file_and_refuses_to_overwrite(cli, tmp_path):
    f = tmp_path / "g.json"
    args = ["generate", "--players", "4", "--actions", "2", "--goals", "5", "--factors", "2", "--seed", "3",
            "-o", str(f)]
    assert cli(*args).exit_code == 0
    first = f.read_text()
    assert cli("validate", str(f)).exit_code == 0
    res = cli(*args)
    assert res.exit_code == 2 and "--force" in res.stderr
    assert cli(*args, "--force").exit_code == 0 and f.read_text() == first


def test_generate_reference_writes_schedule(cli, tmp_path):
    f = tmp_path / "r.json"
    res = cli("generate", "--players", "5", "--actions", "2", "--goals", "4", "--factors", "2", "--rounds", "2",
              "--rules", "reference", "-o", str(f))
    assert res.exit_code == 0
    assert len(json.loads(f.read_text())["protocol"]["schedule"]) == 10


@pytest.mark.parametrize(
    "content, path",
    [
        ('{"name": "x", "players": [{"id": "A", "actions": [{"id": "a"}]}], '
         '"goals": [{"id": "g", "requires": [{"player": "A", "action": "zz"}]}]}', "$.goals[0].requires[0].action"),
        ('{"name": "x", "players": [{"id": "A", "actions": [{"id": "a"}]}], "goals": [], "extra": 1}', "$.extra"),
        ('{"name": "x", "players": [{"id": "A", "actions": [{"id": "a"}]}], '
         '"goals": [{"id": "g", "threshold": 3, "requires": [{"player": "A", "action": "a"}]}]}',
         "$.goals[0].threshold"),
        ('{"name": ', "$"),
    ],
)
def test_broken_scenario_names_file_and_path(cli, tmp_path, content, path):
    f = tmp_path / "broken.json"
    f.write_text(content)
    for cmd in ("validate", "autoplay", "solve", "baseline"):
        res = cli(cmd, str(f))
        assert res.exit_code == 2, cmd
        assert str(f) in res.stderr and path in res.stderr, res.stderr
        assert "Traceback" not in res.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["autoplay", PILL, "--seat", "Z=upper"], "no player 'Z'"),
        (["autoplay", PILL, "--lens", "best"], "unknown lens"),
        (["autoplay", PILL, "--rules", "nope"], "unknown rule set"),
        (["autoplay", PILL, "--partner", "psychic"], "unknown partner method"),
        (["generate", "--players", "2"], "at least 3 players"),
    ],
)
def test_bad_options_exit_2_with_message(cli, args, message):
    res = cli(*args)
    assert res.exit_code == 2
    assert message in res.stderr


def test_exact_refuses_large_games_cleanly(cli):
    big = str(LARGE_BALANCED)
    res = cli("solve", big)
    assert res.exit_code == 2 and "over the limit" in res.stderr


def test_console_script_has_no_traceback_on_missing_file(tmp_path):
    missing = tmp_path / "missing.json"
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", str(missing)], capture_output=True, text=True)
    assert res.returncode == 2
    assert "file not found" in res.stderr and "Traceback" not in res.stderr


def test_schema_command_matches_committed_schema(cli, root):
    committed = root / "negtui" / "scenario" / "scenario.schema.json"
    res = cli("schema")
    assert json.loads(res.stdout) == json.loads(committed.read_text()), "run `make schema` and commit the result"


def test_welfare_json_side_by_side_with_a_lens(cli):
    res = cli("welfare", PILL, "--lens", "myopic", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["objective"] == "utilitarian" and out["proven_optimal"] is True
    assert out["welfare"] == 60.0 and out["payoffs"] == [30.0, 30.0]
    assert out["commitments"] == [[1, 0], [1, 0]]
    assert out["negotiated"]["payoffs"] == [40.0, 7.0]
    assert out["efficiency"] == pytest.approx(47 / 60)
    assert out["gainers"] == ["B"] and out["losers"] == ["A"]


def test_welfare_says_what_its_efficiency_is_a_share_of(cli):
    """The efficiency line names what it divides, with both numbers: under Nash a ratio of geometric means
    of the payoffs in the product (not of the Σ log shown as welfare); negotiated A 40, B 7, the optimum 30 each."""
    res = cli("welfare", PILL, "--lens", "myopic", "--objective", "nash")
    assert res.exit_code == 0, res.output
    assert ("efficiency 55.8%: the geometric mean payoff of the 2 players in the product, 16.73 negotiated ÷ 30.00 "
            "at the optimum") in res.stdout
    res = cli("welfare", PILL, "--lens", "myopic")
    assert "efficiency 78.3%: the sum of payoffs, 47.00 negotiated ÷ 60.00 at the optimum" in res.stdout


@pytest.mark.parametrize("objective", ["nash", "nash-bargaining", "maximin"])
def test_welfare_objectives_run(cli, objective):
    out = json.loads(cli("welfare", PILL, "--objective", objective, "--no-compare", "--json").stdout)
    assert out["objective"] == objective and out["proven_optimal"] is True
    assert out["payoffs"] == [30.0, 30.0]


def test_welfare_from_a_record_turn(cli, tmp_path):
    rec = tmp_path / "r.jsonl"
    assert cli("autoplay", PILL, "--lens", "myopic", "--record", str(rec), "-q").exit_code == 0
    out = json.loads(cli("welfare", "--from-record", str(rec), "--turn", "2", "--json").stdout)
    # after A's trap deal (turn 1) every completion keeps bait and poison: the optimum is what was reached
    assert out["payoffs"] == [40.0, 7.0] and out["welfare"] == 47.0
    assert out["negotiated"]["record"] == str(rec) and out["efficiency"] == pytest.approx(1.0)
    out0 = json.loads(cli("welfare", "--from-record", str(rec), "--turn", "1", "--json").stdout)
    assert out0["welfare"] == 60.0


def test_welfare_bad_objective_and_solver(cli):
    assert "unknown objective" in cli("welfare", PILL, "--objective", "best").stderr
    assert cli("welfare", PILL, "--solver", "gurobi").exit_code == 2


def test_replay_prints_turns_and_verifies(cli, tmp_path):
    rec = tmp_path / "r.jsonl"
    cli("autoplay", PILL, "--lens", "upper", "--record", str(rec), "-q")
    res = cli("replay", str(rec), "--verify")
    assert res.exit_code == 0 and "verified" in res.stdout and "B → A" in res.stdout


def test_broken_hnc_topfile_names_every_reference_with_its_path(cli, tmp_path):
    topfile = HUMANITARIAN
    data = json.loads(topfile.read_text())
    first = data["countries"][0]
    data["goal_satisfaction"][0]["requirements"][0]["country"] = "Atlantis"
    data["country_data"][first]["goals_value"]["No such goal"] = 3
    data["mutually_exclusive_agreements"][0][0]["action"] = "levitate"
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(data))
    for cmd in ("validate", "autoplay", "import-hnc"):
        res = cli(cmd, str(f))
        assert res.exit_code == 2 and "Traceback" not in res.output
        assert f'$.country_data[{json.dumps(first)}].goals_value["No such goal"]: unknown goal' in res.stderr
        assert "$.goal_satisfaction[0].requirements[0].country: unknown country 'Atlantis'" in res.stderr
        assert "$.mutually_exclusive_agreements[0][0].action" in res.stderr


def test_hnc_round_trip_through_the_commands(cli, tmp_path):
    topfile = RIVER_BASIN
    sc = tmp_path / "sc.json"
    back = tmp_path / "back.json"
    assert cli("import-hnc", str(topfile), "-o", str(sc)).exit_code == 0
    assert cli("export-hnc", str(sc), "-o", str(back)).exit_code == 0
    from negtui.scenario.hnc import HncTopfile

    # same content (defaults such as protocol.unilateral may now be spelled out)
    assert HncTopfile.model_validate_json(back.read_text()) == HncTopfile.model_validate_json(topfile.read_text())


# --- output files ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("where", "says"), [("{tmp}", "it is a directory"),
                                             ("{tmp}/missing/x.json", "there is no directory"),
                                             ("/proc/negtui-x.json", "cannot write /proc/negtui-x.json")])
def test_an_output_that_cannot_be_written_is_a_clear_error(cli, tmp_path, where, says):
    path = where.format(tmp=tmp_path)
    res = cli("generate", "-o", path)
    assert res.exit_code == 2 and says in res.stderr and "Traceback" not in res.output
    assert not (tmp_path / "missing").exists()  # no directory made behind the user's back


def test_generate_json_reports_what_it_wrote(cli, tmp_path):
    out = tmp_path / "g.json"
    res = cli("generate", "--players", "4", "--goals", "5", "--factors", "2", "-o", str(out), "--json")
    assert res.exit_code == 0
    report = json.loads(res.stdout)
    assert report["wrote"] == str(out) and report["players"] == 4 and report["goals"] == 5
    assert json.loads(out.read_text())["players"] and cli("validate", str(out)).exit_code == 0


def test_welfare_refuses_a_scenario_that_is_not_the_records(cli, tmp_path):
    record = tmp_path / "six.jsonl"
    six = str(SIX)
    res = cli("autoplay", six, "--lens", "myopic", "--partner", "greedy", "--record", str(record), "--quiet")
    assert res.exit_code == 0
    res = cli("welfare", PILL, "--from-record", str(record), "--turn", "3")
    assert res.exit_code == 2 and "records the game" in res.stderr and "not the scenario" in res.stderr
    assert cli("welfare", six, "--from-record", str(record), "--turn", "3").exit_code == 0


def test_a_turn_without_an_offer_reads_as_a_pass_not_as_an_approach():
    from negtui.engine import PAPER, Negotiation
    from negtui.engine.turns import TurnEvent
    from negtui.narrate import turn_line
    from negtui.scenario import load_scenario

    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    s = neg.initial_state()
    nothing = neg.legal_offers(s, 1)[0]  # index 0: the pass
    assert nothing.is_noop
    ev = TurnEvent(t=0, proposer=0, partner=1, offer=nothing, accepted=False, decided_by="A (upper)", before=s,
                   after=s, payoffs=neg.returns(s))
    line = turn_line(neg.game, ev)
    assert "A passes — nothing worth offering" in line and "→" not in line


def test_offers_name_actions_in_the_scenarios_words():
    from negtui.engine import PAPER, Negotiation
    from negtui.narrate import offer_words
    from negtui.scenario import load_scenario

    neg = Negotiation.from_scenario(load_scenario(RIVER_BASIN), PAPER)
    g = neg.game
    up = g.player_ids.index("Upstream_State")
    first, second = int(g.offset[up]), int(g.offset[up]) + 1
    words = offer_words(g, (1 << first) | (1 << second), up, up)
    # ids a0, a1; labels "Build the main-stem hydropower dam", "Fill the reservoir over seven years under drought rules"
    assert words == "Upstream State commits Build the main-stem hydropower dam, Fill the reservoir over seven years…"
    # an offer to accept or reject is read in full (the answer dialog has the room)
    assert offer_words(g, (1 << first) | (1 << second), up, up, whole=True) == \
        "Upstream State commits Build the main-stem hydropower dam, Fill the reservoir over seven years under " \
        "drought rules"
    six = Negotiation.from_scenario(load_scenario(SIX), PAPER).game
    assert offer_words(six, 1 << int(six.offset[1]), 1, 1) == "P1 commits action 0"  # "P1 action 0" under P1


def test_replay_without_a_file_lists_the_records_newest_first(cli, tmp_path):
    import os

    assert "no records in" in cli("replay", "--data-dir", str(tmp_path)).stdout
    folder = tmp_path / "records"
    (folder / "alice").mkdir(parents=True)
    old, new = folder / "old.jsonl", folder / "alice" / "new.jsonl"
    for i, path in enumerate((old, new)):
        assert cli("autoplay", PILL, "--lens", "myopic", "--record", str(path), "--quiet").exit_code == 0
        os.utime(path, (1_700_000_000 + i * 100, 1_700_000_000 + i * 100))
    res = cli("replay", "--data-dir", str(tmp_path))
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert lines[0].startswith(f"records in {folder}, newest first (2 of 2)")
    assert lines[1].endswith("alice/new.jsonl") and lines[2].endswith("old.jsonl")
    assert f"negtui replay {new}" in lines[-1]
    listed = json.loads(cli("replay", "--data-dir", str(tmp_path), "--json").stdout)
    assert listed["records"] == [str(new), str(old)] and listed["total"] == 2


def test_play_refuses_a_data_directory_it_cannot_record_in(cli, tmp_path):
    a_file = tmp_path / "not-a-directory"
    a_file.write_text("")
    for where in ("/proc/negtui-nope", str(a_file)):  # (as root, a read-only directory is still writable)
        res = cli("play", PILL, "--seat", "A=human", "--data-dir", where)
        assert res.exit_code == 2 and "cannot keep records in" in res.stderr and "--no-record" in res.stderr


def test_replay_names_a_scenario_or_other_json_for_what_it_is(cli, tmp_path):
    res = cli("replay", PILL, "--print")
    assert res.exit_code == 2 and "this is a scenario file, not a game record" in res.output
    assert "not valid JSON" not in res.output
    other = tmp_path / "list.json"
    other.write_text('[1,\n 2]\n')
    res = cli("replay", other, "--print")
    assert res.exit_code == 2 and "valid JSON, but not a game record: a record is JSON Lines" in res.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"format": \n')
    res = cli("replay", broken, "--print")
    assert res.exit_code == 2 and "not valid JSON" in res.output  # not JSON at all: the line's own error
