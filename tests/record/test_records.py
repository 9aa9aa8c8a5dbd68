"""Game records (docs/design.md §5): record → replay → verify, hand edits caught, truncation, forking, format errors,
size and speed.

Records are made by the command line (`negtui autoplay --record`) and read back both through the command
line (`negtui replay`) and through the library (`load_record`, `Replay`). Where a test needs a record
edited by hand it rewrites the JSON Lines itself; state digests are recomputed here from the header's
scenario (cells numbered player-major) rather than with the replay code under test.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from negtui.engine import PAPER
from negtui.engine.rules import RULES as RULE_SETS
from negtui.generator import GeneratorParams, generate
from negtui.record import RecordError, Replay, load_record, state_digest
from negtui.scenario import write_scenario
from tests.paths import LARGE_BALANCED, PILL, SIX

LENSES = ("myopic", "upper", "lower", "exact")
RULES = ("paper", "reference")
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def play(cli) -> Callable[..., dict]:
    def play(scenario: object, record: Path, *args: object) -> dict:
        """autoplay with --json --record; the parsed output (asserting success)."""
        res = cli("autoplay", *([scenario] if scenario is not None else []), "--record", record, "--json", *args)
        assert res.exit_code == 0, res.output + res.stderr
        return json.loads(res.stdout)

    return play


def lines_of(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def write_lines(path: Path, objs: list[dict], trailing_newline: bool = True) -> Path:
    path.write_text("\n".join(json.dumps(o) for o in objs) + ("\n" if trailing_newline else ""), encoding="utf-8")
    return path


def cell_numbers(scenario: dict) -> dict[tuple[str, str], int]:
    """(PLAYER, ACTION) -> global cell number, player-major, read straight from a scenario dict."""
    out, c = {}, 0
    for p in scenario["players"]:
        for a in p["actions"]:
            out[p["id"], a["id"]] = c
            c += 1
    return out


def redigest(objs: list[dict]) -> list[dict]:
    """Recompute every turn's digest from the header's start commitments and the turns' offers/flags."""
    header = objs[0]
    cells = cell_numbers(header["scenario"])
    bits = sum(1 << cells[tuple(n)] for n in header.get("start_commitments", []))
    for o in objs[1:]:
        if o["type"] != "turn":
            continue
        if o["accepted"]:
            for n in o["offer"]:
                bits |= 1 << cells[tuple(n)]
        o["digest"] = state_digest(o["t"] + 1, bits)
    return objs


def final_commitments(replay: Replay) -> list[list[str]]:
    return replay.neg.game.pairs_of(replay.final.bits)


def grid(scenario: dict, cells: list[list[str]]) -> list[list[int]]:
    """Commitments ([player, action] pairs) as the 0/1 grid the JSON outputs use."""
    chosen = {tuple(c) for c in cells}
    return [[int((p["id"], a["id"]) in chosen) for a in p["actions"]] for p in scenario["players"]]


def gen_file(path: Path, **params) -> Path:
    write_scenario(generate(GeneratorParams(**params)), path)
    return path


# --- fixtures ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_games(tmp_path_factory) -> dict[str, Path]:
    """A small generated game per rule set (small enough for the exact lens)."""
    d = tmp_path_factory.mktemp("games")
    return {rules: gen_file(d / f"small-{rules}.json", players=4, actions=2, goals=6, factors=2, rounds=2, seed=1,
                            rules=rules) for rules in RULES}


@pytest.fixture(scope="module")
def dealing(play, tmp_path_factory) -> tuple[Path, dict]:
    """A myopic game with several multi-cell deals early on: the base of the hand-edit tests."""
    d = tmp_path_factory.mktemp("dealing")
    sc = gen_file(d / "g.json", players=5, actions=2, goals=8, factors=3, rounds=3, payoff="positive", seed=0)
    rec = d / "rec.jsonl"
    out = play(sc, rec, "--lens", "myopic", "--sims", 8)
    return rec, out


def pick_deal(objs: list[dict], min_cells: int = 2) -> int:
    """Index (into the record's lines) of the first accepted turn whose offer has at least min_cells cells
    and that is not the last turn."""
    turns = [k for k, o in enumerate(objs) if o["type"] == "turn"]
    for k in turns[:-1]:
        if objs[k]["accepted"] and len(objs[k]["offer"]) >= min_cells:
            return k
    pytest.fail("the fixture game has no multi-cell deal before its last turn; pick another seed")


# --- record → replay → identical outcome ------------------------------------------------------------------

@pytest.fixture(scope="module")
def check_round_trip(cli) -> Callable[[object, Path, dict], None]:
    return lambda scenario, rec, out: _check_round_trip(cli, scenario, rec, out)


def _check_round_trip(cli, scenario: object, rec: Path, out: dict) -> None:
    record = load_record(rec)
    assert record.complete and record.stopped is None
    # every turn as played
    assert [(t.t, t.proposer, t.partner, t.offer, t.accepted) for t in record.turns] == \
        [(t["t"], t["proposer"], t["partner"], t["offer"], t["accepted"]) for t in out["turns"]]
    rp = Replay(record)
    assert rp.first_turn == 0 and rp.last_turn == len(out["turns"]) and rp.neg.is_terminal(rp.final)
    assert list(rp.neg.returns(rp.final)) == pytest.approx(out["payoffs"], abs=1e-9)
    assert grid(record.header.scenario, final_commitments(rp)) == out["commitments"]
    assert record.result.payoffs == pytest.approx(out["payoffs"], abs=1e-9)
    assert sorted(record.result.commitments) == sorted(final_commitments(rp))
    # the command line agrees, and every bot decision re-runs identically
    res = cli("replay", rec, "--verify", "--json")
    assert res.exit_code == 0, res.stderr
    v = json.loads(res.stdout)
    assert v["verified"] is True and v["divergence"] is None and v["complete"] is True
    assert v["payoffs"] == pytest.approx(out["payoffs"], abs=1e-9) and v["commitments"] == out["commitments"]
    assert v["turns"] == len(out["turns"]) and v["rules"] == out["rules"]


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("lens", LENSES)
def test_generated_game_round_trip_every_lens_and_rule_set(play, check_round_trip, tmp_path, small_games, rules, lens):
    rec = tmp_path / "rec.jsonl"
    out = play(small_games[rules], rec, "--lens", lens, "--rules", rules, "--sims", 8)
    check_round_trip(small_games[rules], rec, out)
    assert load_record(rec).header.rules.name == rules
    assert {s.propose_lens for s in load_record(rec).header.seats.values()} == {lens}


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("lens", LENSES)
def test_poison_pill_round_trip_every_lens_and_rule_set(play, check_round_trip, tmp_path, rules, lens):
    rec = tmp_path / "pill.jsonl"
    out = play(PILL, rec, "--lens", lens, "--rules", rules, "--sims", 8)
    check_round_trip(PILL, rec, out)


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("partner", ["greedy", "random"])
def test_greedy_and_seeded_random_partner_choice_verify(play, check_round_trip, tmp_path, small_games, rules, partner):
    rec = tmp_path / "rec.jsonl"
    out = play(small_games[rules], rec, "--lens", "myopic", "--rules", rules, "--partner", partner, "--seed", 7)
    check_round_trip(small_games[rules], rec, out)
    seats = load_record(rec).header.seats
    assert {s.partner for s in seats.values()} == {partner}
    assert sorted(s.seed for s in seats.values()) == [7, 8, 9, 10]


def test_mixed_seats_and_budget_override_round_trip(play, check_round_trip, tmp_path, small_games):
    rec = tmp_path / "rec.jsonl"
    out = play(small_games["paper"], rec, "--lens", "upper/lower", "--seat", "P1=exact/myopic", "--budget", 1,
               "--sims", 8)
    check_round_trip(small_games["paper"], rec, out)
    h = load_record(rec).header
    assert h.budget == 1
    assert (h.seats["P1"].propose_lens, h.seats["P1"].respond_lens) == ("exact", "myopic")
    assert (h.seats["P0"].propose_lens, h.seats["P0"].respond_lens) == ("upper", "lower")


# --- the format itself ------------------------------------------------------------------------------------

def test_record_is_json_lines(dealing):
    rec, out = dealing
    raw = rec.read_text(encoding="utf-8")
    assert raw.endswith("\n")
    rows = [json.loads(x) for x in raw.splitlines()]
    assert all(isinstance(r, dict) for r in rows)
    assert [r["type"] for r in rows] == ["header"] + ["turn"] * len(out["turns"]) + ["result"]
    h = rows[0]
    assert h["format"] == "negtui-record/2" and h["rules"]["name"] == "paper" and h["scenario"]["players"]
    assert h["rules"] == PAPER.as_dict()  # every switch, so a variant of a rule set replays as played
    assert set(h["seats"]) == {p["id"] for p in h["scenario"]["players"]}
    for r in rows[1:-1]:
        assert {"t", "proposer", "partner", "offer", "accepted", "decided_by", "digest"} <= set(r)
    assert rows[-1]["payoffs"] == pytest.approx(out["payoffs"], abs=1e-9)


def test_digests_are_the_state_after_each_turn(dealing):
    rec, _ = dealing
    objs = lines_of(rec)
    recorded = [o["digest"] for o in objs if o["type"] == "turn"]
    assert [o["digest"] for o in redigest(lines_of(rec)) if o["type"] == "turn"] == recorded
    assert len(set(recorded)) == len(recorded)  # the turn number is part of the digest


# --- verification catches hand edits ----------------------------------------------------------------------

def test_verify_passes_on_untouched_record(cli, dealing):
    rec, out = dealing
    res = cli("replay", rec, "--verify")
    assert res.exit_code == 0, res.stderr
    assert f"every bot decision of {len(out['turns'])} turns re-runs identically" in res.stdout


@pytest.mark.parametrize("edit", ["offer", "accepted"])
def test_edit_without_fixing_digest_fails_to_load(cli, tmp_path, dealing, edit):
    rec, _ = dealing
    objs = lines_of(rec)
    k = pick_deal(objs)
    if edit == "offer":
        objs[k]["offer"] = objs[k]["offer"][:-1]
    else:
        objs[k]["accepted"] = False
    bad = write_lines(tmp_path / "edited.jsonl", objs)
    with pytest.raises(Exception) as info:
        load_record_and_replay(bad)
    assert f"line {k + 1}" in str(info.value) and "$.digest" in str(info.value)
    for args in (["replay", bad], ["replay", bad, "--verify"], ["autoplay", "--from-record", bad]):
        res = cli(*args)
        assert res.exit_code == 2, args
        assert str(bad) in res.stderr and f"line {k + 1}" in res.stderr and "digest" in res.stderr, res.stderr
        assert "Traceback" not in res.output


def load_record_and_replay(path: Path) -> Replay:
    return Replay(load_record(path))


@pytest.mark.parametrize("edit", ["offer", "accepted"])
def test_edit_with_recomputed_digests_loads_but_verify_names_the_turn(cli, tmp_path, dealing, edit):
    rec, _ = dealing
    objs = lines_of(rec)
    k = pick_deal(objs)
    t = objs[k]["t"]
    if edit == "offer":
        objs[k]["offer"] = objs[k]["offer"][:-1]
    else:
        objs[k]["accepted"] = False
    redigest(objs)
    changed = [o["t"] for o, p in zip(objs, lines_of(rec)) if o["type"] == "turn" and o["digest"] != p["digest"]]
    assert changed and changed[0] == t and len(changed) > 1  # the edit moved every later digest too
    # the result line no longer matches the turns (a load error of its own): drop it, as if unfinished
    objs = [o for o in objs if o["type"] != "result"]
    bad = write_lines(tmp_path / "edited.jsonl", objs)
    rp = load_record_and_replay(bad)  # loads: it is a consistent game, just not the one the bots played
    assert len(rp.record.turns) == len(objs) - 1
    res = cli("replay", bad)
    assert res.exit_code == 0, res.stderr
    res = cli("replay", bad, "--verify")
    assert res.exit_code == 2
    assert str(bad) in res.stderr and f"verification failed at turn {t + 1}:" in res.stderr, res.stderr  # from 1
    assert ("offer" if edit == "offer" else "answer") in res.stderr
    js = cli("replay", bad, "--verify", "--json")
    assert js.exit_code == 2
    body = json.loads(js.stdout)
    assert body["verified"] is False and body["divergence"].startswith(f"turn {t + 1}:")


def test_edited_empty_offer_flag_is_caught_on_loading(cli, tmp_path, dealing):
    """Under paper rules an empty offer is no deal; flipping its flag leaves the state (and the digest)
    unchanged, but replaying the turn through the rules tells at once."""
    rec, _ = dealing
    objs = lines_of(rec)
    k = next((k for k, o in enumerate(objs) if o["type"] == "turn" and not o["offer"]), None)
    assert k is not None, "the fixture game has no empty offer"
    assert objs[k]["accepted"] is False
    objs[k]["accepted"] = True
    bad = write_lines(tmp_path / "edited.jsonl", objs)
    with pytest.raises(RecordError, match=r"\$\.accepted: an empty offer is no deal under paper rules"):
        load_record_and_replay(bad)
    for args in (["replay", bad], ["replay", bad, "--verify"]):
        res = cli(*args)
        assert res.exit_code == 2 and f"line {k + 1}" in res.stderr and "an empty offer" in res.stderr, res.stderr


def test_edit_that_breaks_the_rules_names_the_line(cli, tmp_path, dealing):
    rec, _ = dealing
    objs = lines_of(rec)
    k = pick_deal(objs)
    later, cell = next((j, c) for j in range(k + 1, len(objs)) if objs[j]["type"] == "turn"
                       for c in objs[k]["offer"] if c[0] in (objs[j]["proposer"], objs[j]["partner"]))
    objs[later]["offer"] = [cell]  # a cell of the proposer or partner, committed earlier
    objs[later]["accepted"] = True
    bad = write_lines(tmp_path / "edited.jsonl", redigest(objs))
    res = cli("replay", bad)
    assert res.exit_code == 2
    assert f"line {later + 1}" in res.stderr and "already committed" in res.stderr, res.stderr


# --- truncated and unfinished records ---------------------------------------------------------------------

def test_truncated_record_loads_every_complete_turn(cli, tmp_path, dealing):
    rec, _out = dealing
    raw = rec.read_text(encoding="utf-8").splitlines(keepends=True)
    keep = 6  # header + 5 complete turns
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(raw[:keep]) + raw[keep][: len(raw[keep]) // 2], encoding="utf-8")
    record = load_record(cut)
    assert len(record.turns) == keep - 1 and not record.complete
    assert record.stopped is not None and f"line {keep + 1}" in record.stopped
    full = Replay(load_record(rec))
    assert Replay(record).final == full.state_at(keep - 1)
    res = cli("replay", cut)
    assert res.exit_code == 0, res.stderr
    assert "note:" in res.stdout and f"line {keep + 1} is cut off" in res.stdout
    res = cli("replay", cut, "--verify", "--json")
    assert res.exit_code == 0, res.stderr
    body = json.loads(res.stdout)
    assert body["verified"] is True and body["complete"] is False and body["turns"] == keep - 1
    assert body["stopped"] == record.stopped


def test_record_cut_inside_the_result_line(tmp_path, dealing):
    rec, out = dealing
    raw = rec.read_text(encoding="utf-8")
    cut = tmp_path / "cut.jsonl"
    cut.write_text(raw[: len(raw) - 20], encoding="utf-8")
    record = load_record(cut)
    assert len(record.turns) == len(out["turns"]) and record.result is None and record.stopped is not None


def test_cut_in_a_middle_line_is_an_error_not_a_truncation(cli, tmp_path, dealing):
    rec, _ = dealing
    raw = rec.read_text(encoding="utf-8").splitlines(keepends=True)
    raw[3] = raw[3][:30] + "\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(raw), encoding="utf-8")
    res = cli("replay", bad)
    assert res.exit_code == 2 and "line 4" in res.stderr and "not valid JSON" in res.stderr, res.stderr


def test_record_without_result_line_is_not_finished(cli, tmp_path, dealing):
    rec, out = dealing
    objs = lines_of(rec)[:-1]
    nores = write_lines(tmp_path / "nores.jsonl", objs)
    record = load_record(nores)
    assert not record.complete and record.stopped is None and len(record.turns) == len(out["turns"])
    res = cli("replay", nores)
    assert res.exit_code == 0
    assert "no result line" in res.stdout and "not finished" in res.stdout
    body = json.loads(cli("replay", nores, "--json").stdout)
    assert body["complete"] is False and body["payoffs"] == pytest.approx(out["payoffs"], abs=1e-9)


# --- forking ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def upper_game(play, tmp_path_factory) -> tuple[Path, Path, dict]:
    """Every seat `upper` with (deterministic) MCTS, under reference rules: deals along the way."""
    d = tmp_path_factory.mktemp("fork")
    sc = gen_file(d / "g.json", players=5, actions=2, goals=8, factors=3, rounds=3, payoff="positive", seed=5,
                  rules="reference")
    rec = d / "orig.jsonl"
    out = play(sc, rec, "--lens", "upper", "--rules", "reference", "--sims", 8)
    return sc, rec, out


def fork_turn(rec: Path) -> int:
    """The turn just after the first deal, so the fork starts from commitments."""
    for line in load_record(rec).turns:
        if line.accepted and line.offer:
            return line.t + 1
    pytest.fail("the fixture game has no deal; pick another seed")


def test_fork_without_override_replays_the_original(play, tmp_path, upper_game):
    _, rec, out = upper_game
    t = fork_turn(rec)
    fork = tmp_path / "fork.jsonl"
    fout = play(None, fork, "--from-record", rec, "--turn", t + 1)  # turns are given as shown, from 1
    orig = load_record(rec)
    forked = load_record(fork)
    assert forked.header.start_turn == t
    assert [x.model_dump() for x in forked.turns] == [x.model_dump() for x in orig.turns[t:]]
    assert fout["payoffs"] == out["payoffs"] and fout["commitments"] == out["commitments"]
    assert forked.result.payoffs == orig.result.payoffs
    assert fout["parent"] == {"file": str(rec), "turn": t, "digest": orig.turns[t - 1].digest}


@pytest.mark.parametrize("t", [0, 4, 14, 15])
def test_fork_at_any_turn_without_override(play, tmp_path, upper_game, t):
    _, rec, out = upper_game
    fork = tmp_path / "fork.jsonl"
    fout = play(None, fork, "--from-record", rec, "--turn", t + 1)
    orig = load_record(rec)
    forked = load_record(fork)
    assert [x.model_dump() for x in forked.turns] == [x.model_dump() for x in orig.turns[t:]]
    assert fout["payoffs"] == out["payoffs"]
    assert forked.complete


def test_fork_with_seat_override_names_its_parent_and_verifies(play, cli, tmp_path, upper_game):
    from negtui.agents import Seating
    from negtui.engine import TurnDriver
    from negtui.seats import Seat

    _, rec, _ = upper_game
    t = fork_turn(rec)
    fork = tmp_path / "fork.jsonl"
    fout = play(None, fork, "--from-record", rec, "--turn", t + 1, "--seat", "P3=lower")
    orig = Replay(load_record(rec))
    at_t = orig.state_at(t)
    h = load_record(fork).header
    assert h.parent is not None
    assert (h.parent.file, h.parent.turn) == (str(rec), t)
    assert h.parent.digest == state_digest(t, at_t.bits) == orig.record.turns[t - 1].digest
    assert h.start_turn == t
    assert sorted(h.start_commitments) == sorted(orig.neg.game.pairs_of(at_t.bits))
    assert h.start_commitments  # the fork starts after a deal
    assert (h.seats["P3"].propose_lens, h.seats["P3"].respond_lens) == ("lower", "lower")
    assert all(s.propose_lens == "upper" for pid, s in h.seats.items() if pid != "P3")
    assert h.rules.name == "reference" and h.scenario == orig.record.header.scenario
    res = cli("replay", fork, "--verify")
    assert res.exit_code == 0, res.stderr
    assert f"fork of {rec} from turn {t + 1}" in res.stdout and "verified" in res.stdout
    # the fork is the game a fresh match from that state plays
    game = orig.neg.game
    seats = [Seat.lens("lower" if pid == "P3" else "upper", sims=8, seed=i) for i, pid in enumerate(game.player_ids)]
    match = TurnDriver(orig.neg, Seating(orig.neg, seats).agents, state=at_t)
    match.play_out()
    events = match.events
    forked = load_record(fork)
    assert [(x.t, x.proposer, x.partner, x.offer, x.accepted) for x in forked.turns] == \
        [(e.t, game.player_ids[e.proposer], game.player_ids[e.partner],
          game.pairs_of(e.offer.bits), e.accepted) for e in events]
    assert fout["payoffs"] == pytest.approx(list(orig.neg.returns(match.state)), abs=1e-9)


def test_fork_of_a_fork_keeps_verifying(play, cli, tmp_path, upper_game):
    _, rec, _ = upper_game
    f1, f2 = tmp_path / "f1.jsonl", tmp_path / "f2.jsonl"
    play(None, f1, "--from-record", rec, "--turn", 4, "--seat", "P0=myopic")
    play(None, f2, "--from-record", f1, "--turn", 8, "--lens", "lower")
    h = load_record(f2).header
    assert h.start_turn == 7 and h.parent.file == str(f1) and h.parent.turn == 7
    assert {s.propose_lens for s in h.seats.values()} == {"lower"}
    assert cli("replay", f2, "--verify").exit_code == 0


@pytest.mark.parametrize("turn", [0, 17])
def test_fork_outside_the_record_is_refused(cli, tmp_path, upper_game, turn):
    """Turns are given as every log shows them, from 1: the record's turns 1..15 played anew, or 16 after them."""
    _, rec, _ = upper_game
    fork = tmp_path / "fork.jsonl"
    res = cli("autoplay", "--from-record", rec, "--turn", turn, "--record", fork)
    assert res.exit_code == 2 and f"--turn {turn}: {rec} records turns 1..15" in res.stderr, res.stderr
    assert "--turn 1 plays its first turn anew and --turn 16 goes on after its last" in res.stderr
    assert not fork.exists()


def test_a_fork_says_the_turn_it_was_given_wherever_it_is_told(cli, play, tmp_path, upper_game):
    """`--turn 3` plays turn 3 anew (turns 1 and 2 as recorded): autoplay says it continues from turn 3,
    replay that the record is a fork from turn 3, as the app's "take over from turn 3" does."""
    _, rec, _ = upper_game
    fork = tmp_path / "fork.jsonl"
    res = cli("autoplay", "--from-record", rec, "--turn", 3, "--record", fork)
    assert res.exit_code == 0, res.output
    assert f"continuing {rec} from turn 3" in res.stdout
    assert load_record(fork).header.start_turn == 2  # two turns played before it: a record counts from 0
    assert f"fork of {rec} from turn 3" in cli("replay", fork, "--print").stdout
    help_text = " ".join(cli("autoplay", "--help", env={"COLUMNS": "200"}).stdout.split())
    assert "the turn to play anew, numbered from 1 as turn logs show it" in help_text


# --- bad files: clear messages, exit 2, nothing overwritten -----------------------------------------------

def test_unknown_format_version_exits_2_without_traceback(tmp_path, dealing):
    rec, _ = dealing
    objs = lines_of(rec)
    objs[0]["format"] = "negtui-record/99"
    bad = write_lines(tmp_path / "future.jsonl", objs)
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "replay", str(bad)], capture_output=True, text=True)
    assert res.returncode == 2
    assert str(bad) in res.stderr and "line 1" in res.stderr
    assert "unknown record format 'negtui-record/99'" in res.stderr and "negtui-record/1" in res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""


@pytest.mark.parametrize(
    "edit, path",
    [
        (lambda sc: sc["goals"][0]["requires"][0].update(player="ZZ"), "$.scenario.goals[0].requires[0].player"),
        (lambda sc: sc.update(extra=1), "$.scenario.extra"),
        (lambda sc: sc["players"][1].update(id=sc["players"][0]["id"]), "$.scenario.players[1].id"),
    ],
)
def test_embedded_scenario_errors_name_the_json_path(cli, tmp_path, dealing, edit, path):
    rec, _ = dealing
    objs = lines_of(rec)
    edit(objs[0]["scenario"])
    bad = write_lines(tmp_path / "badsc.jsonl", objs)
    for args in (["replay", bad], ["replay", bad, "--verify"], ["autoplay", "--from-record", bad]):
        res = cli(*args)
        assert res.exit_code == 2, args
        assert str(bad) in res.stderr and "line 1" in res.stderr and path in res.stderr, res.stderr
        assert "Traceback" not in res.output


@pytest.mark.parametrize("which", ["header", "turn", "result"])
def test_unknown_field_exits_2(cli, tmp_path, dealing, which):
    rec, _ = dealing
    objs = lines_of(rec)
    k = {"header": 0, "turn": 3, "result": len(objs) - 1}[which]
    objs[k]["surprise"] = 1
    bad = write_lines(tmp_path / "extra.jsonl", objs)
    res = cli("replay", bad)
    assert res.exit_code == 2
    assert str(bad) in res.stderr and f"line {k + 1}" in res.stderr and "$.surprise" in res.stderr, res.stderr


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda objs: objs.insert(2, dict(objs[2])), "1 where 2 was expected (t counts turns from 0)"),
        (lambda objs: objs.insert(3, {"type": "comment"}), "unknown line type 'comment'"),
        (lambda objs: objs.insert(2, {"type": "result", "payoffs": [], "commitments": []}), "after the result"),
    ],
)
def test_structural_damage_names_the_line(cli, tmp_path, dealing, mutate, message):
    rec, _ = dealing
    objs = lines_of(rec)
    mutate(objs)
    bad = write_lines(tmp_path / "bad.jsonl", objs)
    res = cli("replay", bad)
    assert res.exit_code == 2 and message in res.stderr and str(bad) in res.stderr, res.stderr


def test_nothing_is_overwritten_without_force(play, cli, tmp_path, small_games, upper_game):
    rec = tmp_path / "rec.jsonl"
    rec.write_text("precious\n", encoding="utf-8")
    res = cli("autoplay", small_games["paper"], "--record", rec, "--sims", 8)
    assert res.exit_code == 2 and str(rec) in res.stderr and "--force" in res.stderr
    assert rec.read_text(encoding="utf-8") == "precious\n"
    _, orig, _ = upper_game
    res = cli("autoplay", "--from-record", orig, "--turn", 3, "--record", rec)
    assert res.exit_code == 2 and "--force" in res.stderr
    assert rec.read_text(encoding="utf-8") == "precious\n"
    out = play(small_games["paper"], rec, "--sims", 8, "--force")
    assert load_record(rec).complete and load_record(rec).result.payoffs == pytest.approx(out["payoffs"], abs=1e-9)


def test_missing_and_empty_records(cli, tmp_path):
    res = cli("replay", tmp_path / "nope.jsonl")
    assert res.exit_code == 2 and "file not found" in res.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    res = cli("replay", empty)
    assert res.exit_code == 2 and "no header" in res.stderr



def test_result_line_must_match_the_replayed_turns(cli, tmp_path, dealing):
    """A record whose result line disagrees with its turns (a turn line dropped before it, or edited
    payoffs) is damaged; it must not load as a complete, verified game."""
    rec, _ = dealing
    objs = lines_of(rec)
    bad = write_lines(tmp_path / "dropped.jsonl", objs[:-2] + objs[-1:])
    res = cli("replay", bad, "--verify")
    assert res.exit_code == 2, res.stdout


# --- size and speed -------------------------------------------------------------------------------------

def test_large_game_record_is_small_and_fast_to_load(cli, tmp_path):
    sc = gen_file(tmp_path / "big.json", players=22, actions=8, goals=45, rounds=9, payoff="positive", seed=0)
    rec = tmp_path / "big.jsonl"
    res = cli("autoplay", sc, "--lens", "myopic", "--partner", "mcts", "--sims", 4, "--record", rec, "--quiet")
    assert res.exit_code == 0, res.stderr
    size = rec.stat().st_size
    started = time.perf_counter()
    rp = Replay(load_record(rec))
    seconds = time.perf_counter() - started
    print(f"22-player record: {size} bytes, load + replay {seconds:.3f} s")
    assert len(rp.record.turns) == 198 and rp.record.complete and rp.neg.game.n == 22
    assert size < 2_000_000
    assert seconds < 1.0


def test_seat_switched_mid_game_is_recorded_and_verifies(tmp_path):
    """A seat handed to another lens during play is written on the next turn line; verification and
    forks use the seats in force at each turn."""
    from negtui.agents import Seating
    from negtui.play import LiveGame
    from negtui.record import Replay, load_record, verify
    from negtui.scenario import load_scenario
    from negtui.seats import Seat

    sc = load_scenario(LARGE_BALANCED)
    path = tmp_path / "switch.jsonl"
    ses = LiveGame(sc, PAPER, {p.id: Seat.lens("myopic", partner="greedy", seed=i) for i, p in enumerate(sc.players)},
                  record=path)
    for k in range(ses.neg.game.T):
        if k == 3:  # P3 then makes different moves from turn 4 on
            ses.set_seat("P3", Seat.lens("upper", partner="greedy", seed=3))
        for move in ses.think():  # the proposer's offer, and the partner's answer when one is needed
            ses.submit(move)
    ses.close()
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    switched = [x for x in lines if x["type"] == "turn" and "seats" in x]
    assert [x["t"] for x in switched] == [3] and switched[0]["seats"]["P3"]["propose"] == "upper"
    rp = Replay(load_record(path))
    assert verify(rp, Seating) is None
    assert rp.seats_at(3)["P3"].propose_lens == "myopic" and rp.seats_at(4)["P3"].propose_lens == "upper"
    # the same record without the switch line no longer verifies once P2 proposes again
    for x in switched:
        del x["seats"]
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(json.dumps(x) + "\n" for x in lines))
    div = verify(Replay(load_record(bare)), Seating)
    assert div is not None and div.t == 4


# --- records written before format 2 ------------------------------------------------------------------------

V1_RECORDS = sorted(DATA.glob("record-v1-*.jsonl"))


@pytest.mark.parametrize("path", V1_RECORDS, ids=lambda p: p.stem)
def test_format_1_records_load_replay_and_verify(cli, path):
    """Records written by negtui before format 2 (rules by name, `SeatSpec` seats) still load, replay and
    verify: format 1 is converted on loading."""
    rec = load_record(path)
    assert json.loads(path.read_text().splitlines()[0])["format"] == "negtui-record/1"
    # the paper rules as they were then: before the realised-payoff tie rule
    name = json.loads(path.read_text().splitlines()[0])["rules"]
    assert rec.header.rules == RULE_SETS[name].with_(offer_ties_realised=False, exact_ties_realised=False)
    assert rec.complete
    rp = Replay(rec)
    assert rp.final.t == rp.neg.game.T
    res = cli("replay", path, "--verify")
    assert res.exit_code == 0, res.stderr
    assert "verified: every bot decision" in res.stdout


def test_format_1_record_with_a_person_and_a_switch_forks_into_format_2(cli, tmp_path):
    path = DATA / "record-v1-human-switch.jsonl"
    rp = Replay(load_record(path))
    assert rp.seats_at(0)["P1"].is_human and rp.seats_at(6)["P3"].lenses == ("upper", "lower")
    fork = tmp_path / "fork.jsonl"
    res = cli("autoplay", "--from-record", path, "--turn", 9, "--seat", "P1=lower", "--record", fork, "--quiet")
    assert res.exit_code == 0, res.stderr
    h = load_record(fork).header
    assert h.format == "negtui-record/2" and h.seats["P1"].lenses == ("lower", "lower")
    assert h.seats["P3"].lenses == ("upper", "lower")  # the switch recorded before turn 9 (t = 8) holds
    assert cli("replay", fork, "--verify").exit_code == 0


def test_replay_reads_the_recorded_forecasts_back(tmp_path, dealing):
    """The forecasts a record holds are what a replay shows; only a line without them is recomputed."""
    import numpy as np

    rec, _ = dealing
    objs = lines_of(rec)
    rp = Replay(load_record(rec))
    n = rp.neg.game.n
    for t in (rp.first_turn, rp.first_turn + 3, rp.last_turn):
        computed = {lens: rp.valuation.forecast(rp.state_at(t), lens) for lens in ("myopic", "upper", "lower")}
        shown = rp.forecasts_at(t)
        assert all(np.allclose(shown[lens], computed[lens], atol=1e-6) for lens in computed)
    objs[3]["forecasts"]["upper"] = [1234.5] * n  # the forecasts after turn 2, as shown when it was played
    del objs[4]["forecasts"]
    rp = Replay(load_record(write_lines(tmp_path / "edited.jsonl", objs)))
    assert list(rp.forecasts_at(3)["upper"]) == [1234.5] * n
    assert np.allclose(rp.forecasts_at(4)["upper"], rp.valuation.forecast(rp.state_at(4), "upper"))


def test_records_written_before_the_realised_tie_rule_replay_with_the_rules_they_were_played_by(cli, tmp_path):
    """A format 2 record whose rule set predates `offer_ties_realised` (no such key) loads with it off,
    and an all-upper game recorded so verifies; with the switch on the same moves would not be made."""
    from negtui.engine.rules import rules_from

    old = {k: v for k, v in PAPER.as_dict().items() if k != "offer_ties_realised"}
    assert rules_from(old) == PAPER.with_(offer_ties_realised=False) != PAPER
    sc = SIX
    rec = tmp_path / "upper.jsonl"
    res = cli("autoplay", sc, "--lens", "upper", "--partner", "greedy", "--record", rec, "--quiet")
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    assert lines[0]["rules"]["offer_ties_realised"] is True
    assert cli("replay", rec, "--verify").exit_code == 0
    lines[0]["rules"] = old  # as a record written before the switch existed: it no longer verifies
    rec.write_text("".join(json.dumps(x) + "\n" for x in lines))
    res = cli("replay", rec, "--verify")
    assert res.exit_code == 2 and "verification failed" in res.stderr


def test_following_a_record_being_written_starts_at_its_last_turn_and_keeps_up(cli, tmp_path: Path) -> None:
    """`negtui watch` shows the game as it is now, and every turn added after, without a key press."""
    from negtui.play.sources import ReplaySource

    whole = tmp_path / "whole.jsonl"
    assert cli("autoplay", PILL, "--record", whole).exit_code == 0
    lines = whole.read_text().splitlines(keepends=True)
    growing = tmp_path / "growing.jsonl"
    growing.write_text("".join(lines[:2]))  # the header and the first turn
    src = ReplaySource(Replay(load_record(growing)), follow=growing)
    first = src.replay.last_turn
    assert first > 0 and src.pos == first and src.at_end
    with growing.open("a") as f:
        f.write("".join(lines[2:]))
    assert src.reload() and src.pos == src.replay.last_turn > first
    assert ReplaySource(Replay(load_record(growing))).pos == 0  # a replay starts at the start
