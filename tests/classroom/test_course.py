"""Course files for `negtui serve`: the bundled course loads and seats every exercise; TOML and JSON
read the same; every mistake a trainer can make is reported with its file and JSON path, all at once."""

from __future__ import annotations

import json
import os
import shutil
import time
import tomllib
from pathlib import Path

import pytest

from negtui.classroom.course import Course, LoadedCourse, scenario_digest
from negtui.classroom.course_loading import MAX_COURSE_BYTES, CourseError, load_course
from negtui.scenario import load_scenario
from negtui.scenario.library import bundled_root
from negtui.seats import Seat
from tests.paths import CLASS_COURSE, INTRO_COURSE

SMALL_TOML = """\
name = "small"
title = "A small course"

[[exercises]]
id = "pill"
title = "The poison pill"
scenario = "poison-pill"
seat = "B"
bots = "myopic"
attempts = 3

[[exercises]]
id = "trap"
title = "The coalition trap"
scenario = "coalition-trap"
seat = "any"
bots = { A = "upper/lower", "*" = "lower" }
partner = "greedy"
sims = 7
hints = false
"""


def write(tmp_path: Path, text: str, name: str = "course.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def course_with(tmp_path: Path, exercise: str, name: str = "course.toml") -> Path:
    """A one-exercise course whose exercise is the given TOML lines (after id and title)."""
    return write(tmp_path, f'name = "c"\ntitle = "C"\n\n[[exercises]]\nid = "e"\ntitle = "E"\n{exercise}\n', name)


def problems(path: Path) -> tuple[CourseError, dict[str, str]]:
    """The error refusing the file, and its problems by JSON path."""
    with pytest.raises(CourseError) as info:
        load_course(path)
    err = info.value
    return err, {p.path: p.message for p in err.problems}


def located(path: Path) -> dict[str, str]:
    return problems(path)[1]


# --- the bundled course --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def intro() -> LoadedCourse:
    return load_course(INTRO_COURSE)


def test_the_bundled_course_loads_with_every_scenario(intro):
    course = intro.course
    assert course.name == "intro" and course.format == "negtui-course/1"
    assert 5 <= len(course.exercises) <= 7
    assert set(intro.scenarios) == {ex.id for ex in course.exercises}
    names = [intro.scenarios[ex.id].name for ex in course.exercises]
    assert names[:2] == ["poison-pill", "coalition-trap"]
    assert {"humanitarian-access", "river-basin-treaty"} <= set(names)
    assert sum(n.startswith("regime-") for n in names) in (2, 3)
    for ex in course.exercises:
        assert ex.briefing.strip() and len(ex.title) <= 200
        assert ex.bots != "human"
    assert course.exercises[0].seat == "B" and course.exercises[0].attempts == 3
    assert course.exercises[-1].attempts is None


def test_every_bundled_exercise_seats_the_trainee_and_the_bots(intro):
    for ex in intro.course.exercises:
        players = intro.scenarios[ex.id].player_ids
        trainee_seats = players if ex.seat == "any" else [ex.seat]
        for seat in trainee_seats:
            seats = intro.seats_for(ex.id, seat)
            assert list(seats) == players
            assert seats[seat].is_human
            bots = [s for pid, s in seats.items() if pid != seat]
            assert bots and all(s.is_lens for s in bots)
            assert all(s.partner == ex.partner and s.sims == ex.sims for s in bots)
            assert [s.seed for pid, s in seats.items() if pid != seat] == [
                i for i, pid in enumerate(players) if pid != seat]


def test_a_fixed_seat_refuses_another_and_unknown_ids_are_named(intro):
    with pytest.raises(ValueError, match="played as 'B'"):
        intro.seats_for("poison-pill", "A")
    with pytest.raises(ValueError, match=r"no player 'Z'.*players are A, B"):
        intro.seats_for("poison-pill", "Z")
    with pytest.raises(KeyError, match="no exercise 'nope' in course 'intro'; exercises are poison-pill"):
        intro.exercise("nope")


def test_a_bots_table_seats_named_players_and_the_rest(tmp_path):
    loaded = load_course(write(tmp_path, SMALL_TOML))
    seats = loaded.seats_for("trap", "B")
    assert seats["B"] == Seat.human()
    assert seats["A"] == Seat.lens("upper", "lower", partner="greedy", sims=7, seed=0)
    assert seats["C"] == Seat.lens("lower", partner="greedy", sims=7, seed=2)
    seats = loaded.seats_for("trap", "A")  # the trainee's seat is never a bot, even when the table names it
    assert seats["A"].is_human and seats["B"].lenses == ("lower", "lower")


# --- TOML and JSON ----------------------------------------------------------------------------------------------


def test_an_exercise_plays_a_rule_set_variant(tmp_path):
    loaded = load_course(course_with(tmp_path, 'scenario = "poison-pill"\nseat = "B"\n'
                                               'rules = "paper+mcts_leaf_myopic+lower_reference_credibility"'))
    assert loaded.course.exercises[0].rules == "paper+lower_reference_credibility+mcts_leaf_myopic"  # canonical


def test_toml_and_json_give_the_same_course(tmp_path):
    toml_path = write(tmp_path, SMALL_TOML)
    json_path = write(tmp_path, json.dumps(tomllib.loads(SMALL_TOML), indent=1), "course.json")
    a, b = load_course(toml_path), load_course(json_path)
    assert a.course == b.course
    assert a.course.exercises[1].bots == {"A": "upper/lower", "*": "lower"}
    assert a.course.exercises[1].attempts is None and a.course.exercises[1].hints is False
    assert a.course.model_dump() == Course.model_validate(a.course.model_dump()).model_dump()


def test_json_courses_are_read_as_untrusted_json(tmp_path):
    p = write(tmp_path, '{"name": "c", "title": "C", "exercises": [{"id": "e", "title": "E", "scenario": '
                        '"poison-pill", "seat": "B", "sims": NaN}]}', "course.json")
    found = located(p)
    assert list(found) == ["$"] and "NaN is not a number JSON allows" in found["$"]
    found = located(course_with(tmp_path, 'scenario = "poison-pill"\nseat = "B"\nsims = nan'))
    assert found == {"$.exercises[0].sims": "number out of range (not finite)"}  # TOML allows nan; courses do not


# --- every kind of problem, located ---------------------------------------------------------------------------


BROKEN_SCENARIO = {
    "name": "broken",
    "players": [{"id": "A", "actions": [{"id": "x"}]}, {"id": "B", "actions": [{"id": "y"}]}],
    "goals": [{"id": "g0", "requires": [{"player": "A", "action": "x"}], "values": {"A": 1}},
              {"id": "g1", "requires": [{"player": "Q", "action": "x"}], "values": {"A": 1}}],
}

CASES = {
    "unknown field": ('scenario = "poison-pill"\nseat = "B"\ncolour = "red"',
                      "$.exercises[0].colour", "unknown field"),
    "unknown scenario": ('scenario = "no-such-game"\nseat = "A"', "$.exercises[0].scenario",
                         ("no scenario 'no-such-game': not a file next to the course, nor a bundled scenario "
                          "(negtui scenarios lists them)")),
    "seat not a player": ('scenario = "poison-pill"\nseat = "C"', "$.exercises[0].seat",
                          "no player 'C' in 'poison-pill'; players are A, B (or 'any')"),
    "bots table names an unknown player": (
        'scenario = "poison-pill"\nseat = "B"\nbots = { Z = "upper" }', "$.exercises[0].bots.Z",
        "no player 'Z'; players are A, B (or '*' for the rest)"),
    "bots spelling that does not parse": ('scenario = "poison-pill"\nseat = "B"\nbots = "uper"',
                                          "$.exercises[0].bots", "'uper': unknown lens 'uper'"),
    "bots table spelling that does not parse": (
        'scenario = "poison-pill"\nseat = "B"\nbots = { "*" = "upper/nope" }', '$.exercises[0].bots["*"]',
        "'upper/nope': unknown lens 'nope'"),
    "empty cmd bot": ('scenario = "poison-pill"\nseat = "B"\nbots = "cmd:"', "$.exercises[0].bots",
                      "cmd: needs a command after the colon"),
    "human bot": ('scenario = "poison-pill"\nseat = "B"\nbots = { A = "human" }', "$.exercises[0].bots.A",
                  "a bot cannot be 'human'"),
    "reference rules with exclusive sets": (
        'scenario = "coalition-trap"\nseat = "C"\nrules = "reference"', "$.exercises[0].rules",
        ("'reference' rules cannot play 'coalition-trap': the reference rule set has no exclusive sets; "
         'play this scenario with rules = "paper"')),
    "an unknown rule-set switch": ('scenario = "poison-pill"\nseat = "B"\nrules = "paper+nope"',
                                   "$.exercises[0].rules", "unknown switch 'nope'"),
    "bad id": ('id = "has space"', "$.exercises[0].id", "an id is 1 to 64 letters, digits, '-' or '_'"),
    "attempts below one": ('scenario = "poison-pill"\nseat = "B"\nattempts = 0', "$.exercises[0].attempts",
                           "greater than or equal to 1"),
    "unknown partner": ('scenario = "poison-pill"\nseat = "B"\npartner = "psychic"', "$.exercises[0].partner",
                        "'mcts', 'greedy' or 'random'"),
    "bots of the wrong type": ('scenario = "poison-pill"\nseat = "B"\nbots = 3', "$.exercises[0].bots",
                               "bots is a seat spelling"),
    "a table's person who is no player": ('scenario = "poison-pill"\nhumans = ["A", "Q"]',
                                          "$.exercises[0].humans[1]", "no player 'Q'; players are A, B"),
    "a table's person listed twice": ('scenario = "coalition-trap"\nhumans = ["A", "A"]',
                                      "$.exercises[0].humans[1]", "'A' is listed twice"),
    "a table of one": ('scenario = "poison-pill"\nhumans = ["A"]', "$.exercises[0].humans",
                       "a table seats at least 2 people"),
    "a table of more people than players": ('scenario = "poison-pill"\nhumans = 3', "$.exercises[0].humans",
                                            "a table seats 2 to 2 people (the scenario's players), not 3"),
    "a table with a seat": ('scenario = "poison-pill"\nseat = "B"\nhumans = 2', "$.exercises[0].seat",
                            "a table's seats are its `humans`: leave `seat` out"),
    "a table's setting on a solo exercise": ('scenario = "poison-pill"\nseat = "B"\ndecision_time = 30',
                                             "$.exercises[0].decision_time", "set `humans` to seat several"),
    "an unknown drop rule": ('scenario = "poison-pill"\nhumans = 2\non_drop = "leave"', "$.exercises[0].on_drop",
                             "'bot' or 'wait'"),
    "private information on a solo exercise": ('scenario = "poison-pill"\nseat = "A"\ninformation = "private"',
                                               "$.exercises[0].information", "private information is played at"),
    "unknown information": ('scenario = "poison-pill"\nhumans = 2\ninformation = "secret"',
                            "$.exercises[0].information", "'public' or 'private'"),
    "a role for no player": ('scenario = "poison-pill"\nhumans = 2\nroles = { Q = "spy" }', "$.exercises[0].roles.Q",
                             "no player 'Q'; players are A, B"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_problem_is_reported_at_its_json_path(tmp_path, case):
    lines, path, message = CASES[case]
    if case == "bad id":  # the id is given twice otherwise: write the exercise whole
        p = write(tmp_path, 'name = "c"\ntitle = "C"\n[[exercises]]\nid = "has space"\ntitle = "E"\n'
                            'scenario = "poison-pill"\nseat = "B"\n')
    else:
        p = course_with(tmp_path, lines)
    err, found = problems(p)
    assert path in found, err.render()
    assert message in found[path]
    rendered = err.render()
    count = f"{len(err.problems)} problem{'s' * (len(err.problems) != 1)}"
    assert rendered.splitlines()[0] == f"{p}: invalid course ({count})"
    assert f"  {path}: " in rendered


def test_a_duplicate_exercise_id_is_reported(tmp_path):
    ex = '[[exercises]]\nid = "same"\ntitle = "T"\nscenario = "poison-pill"\nseat = "B"\n'
    found = located(write(tmp_path, 'name = "c"\ntitle = "C"\n' + ex + ex))
    assert found == {"$.exercises[1].id": "duplicate exercise id 'same'"}


def test_an_exercise_id_that_is_not_text_is_a_problem_of_its_type(tmp_path):
    found = located(write(tmp_path, json.dumps({"name": "c", "title": "C", "exercises": [
        {"id": [], "title": "T", "scenario": "poison-pill"}, {"id": {}, "title": "T", "scenario": "poison-pill"}]}),
        "course.json"))
    assert found == {"$.exercises[0].id": "Input should be a valid string",
                     "$.exercises[1].id": "Input should be a valid string"}


def test_exercises_past_the_limit_are_refused_without_checking_each(tmp_path):
    exercises = [{"id": f"e{k}", "title": "T", "scenario": "poison-pill"} for k in range(15_000)]
    path = write(tmp_path, json.dumps({"name": "c", "title": "C", "exercises": exercises}), "course.json")
    started = time.monotonic()
    found = located(path)
    assert found == {"$.exercises": "List should have at most 200 items after validation, not 15000"}
    assert time.monotonic() - started < 4  # each compiled: about ten seconds


def test_a_broken_scenario_next_to_the_course_reports_its_own_problems(tmp_path):
    (tmp_path / "broken.json").write_text(json.dumps(BROKEN_SCENARIO), encoding="utf-8")
    err, found = problems(course_with(tmp_path, 'scenario = "broken.json"\nseat = "A"'))
    scenario_file = tmp_path / "broken.json"
    assert [p.path for p in err.problems] == ["$.exercises[0].scenario"]
    assert found["$.exercises[0].scenario"] == f"{scenario_file}: $.goals[1].requires[0].player: unknown player 'Q'"
    assert f"  $.exercises[0].scenario: {scenario_file}: $.goals[1]" in err.render()


def test_a_scenario_next_to_the_course_is_found_before_a_bundled_one(tmp_path):
    shutil.copy(bundled_root() / "teaching" / "coalition-trap.json", tmp_path / "poison-pill.json")
    loaded = load_course(course_with(tmp_path, 'scenario = "poison-pill.json"\nseat = "C"'))
    assert loaded.scenarios["e"].name == "coalition-trap"


def test_bad_toml_is_reported_with_its_line(tmp_path):
    p = write(tmp_path, 'name = "c"\ntitle = "C"\nexercises = [\n  { id = "e", title = }\n]\n')
    err, found = problems(p)
    assert list(found) == ["$"]
    assert found["$"].startswith("not valid TOML:") and "line 4" in found["$"]
    assert str(p) in err.render()


@pytest.mark.parametrize("suffix", [".yaml", ""])
def test_only_toml_and_json_files_are_courses(tmp_path, suffix):
    p = write(tmp_path, SMALL_TOML, "course" + suffix)
    found = located(p)
    assert list(found) == ["$"] and found["$"].startswith("a course is a .toml or .json file, not ")
    assert (repr(suffix) if suffix else "a file without a suffix") in found["$"]


def test_a_directory_is_not_a_course(tmp_path):
    d = tmp_path / "course.toml"
    d.mkdir()
    found = located(d)
    assert found == {"$": "cannot read a directory: give a regular file"}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    for name in ("course.toml", "course.json"):
        os.mkfifo(tmp_path / name)
        found = located(tmp_path / name)
        assert found == {"$": "cannot read a FIFO: give a regular file"}


@pytest.mark.parametrize("name", ["course.toml", "course.json"])
def test_a_file_over_the_limit_is_refused(tmp_path, name):
    padding = ("#" if name.endswith(".toml") else " ") * MAX_COURSE_BYTES
    body = SMALL_TOML if name.endswith(".toml") else json.dumps(tomllib.loads(SMALL_TOML))
    found = located(write(tmp_path, body + "\n" + padding + "\n", name))
    assert found == {"$": "file is over the limit of 1 MiB"}


def test_a_missing_file_is_named(tmp_path):
    err, found = problems(tmp_path / "absent.toml")
    assert found == {"$": "file not found"} and str(tmp_path / "absent.toml") in err.render()


def test_every_problem_of_a_file_is_reported_at_once(tmp_path):
    (tmp_path / "broken.json").write_text(json.dumps(BROKEN_SCENARIO), encoding="utf-8")
    p = write(tmp_path, """\
name = "bad name"
title = "C"
surprise = 1

[[exercises]]
id = "one"
title = "Unknown field, yet its scenario is still checked"
scenario = "poison-pill"
seat = "C"
colour = "red"

[[exercises]]
id = "two"
title = "Three problems against its scenario"
scenario = "coalition-trap"
seat = "Z"
bots = { Q = "upper", A = "human", B = "uper" }
rules = "reference"

[[exercises]]
id = "two"
title = "Duplicate id, unknown scenario"
scenario = "nowhere"
seat = "A"

[[exercises]]
id = "four"
title = "Broken scenario"
scenario = "broken.json"
seat = "A"

[[exercises]]
id = "five!"
title = ""
scenario = "poison-pill"
seat = "Z"
sims = 0
""")
    err, found = problems(p)
    assert set(found) == {
        "$.name", "$.surprise", "$.exercises[0].colour", "$.exercises[0].seat", "$.exercises[1].seat",
        "$.exercises[1].bots.Q", "$.exercises[1].bots.A", "$.exercises[1].bots.B", "$.exercises[1].rules",
        "$.exercises[2].id", "$.exercises[2].scenario", "$.exercises[3].scenario",
        "$.exercises[4].id", "$.exercises[4].title", "$.exercises[4].sims", "$.exercises[4].seat",
    }
    assert err.render().splitlines()[0] == f"{p}: invalid course (16 problems)"
    assert len(err.render().splitlines()) == 17


# --- digests ----------------------------------------------------------------------------------------------------


def test_the_scenario_digest_is_stable_and_tells_an_edited_scenario_apart(tmp_path):
    bundled = bundled_root() / "teaching" / "poison-pill.json"
    shutil.copy(bundled, tmp_path / "pill.json")
    course = course_with(tmp_path, 'scenario = "pill.json"\nseat = "B"')
    first = scenario_digest(load_course(course).scenarios["e"])
    assert first == scenario_digest(load_course(course).scenarios["e"])
    assert first == scenario_digest(load_scenario(bundled))
    assert len(first) == 64 and int(first, 16) >= 0

    data = json.loads((tmp_path / "pill.json").read_text(encoding="utf-8"))
    data["goals"][0]["values"]["A"] += 1
    (tmp_path / "pill.json").write_text(json.dumps(data, indent=4), encoding="utf-8")
    assert scenario_digest(load_course(course).scenarios["e"]) != first


# --- tables ------------------------------------------------------------------------------------------------


def test_the_bundled_class_course_seats_people_at_tables(tmp_path):
    course = load_course(CLASS_COURSE)
    assert all(ex.is_table for ex in course.course.exercises)
    spec = course.table_spec("coalition-pairs", title="t", record=tmp_path / "r.jsonl", key_file=None)
    assert spec.people == ["A", "B"] and spec.room == 2 and spec.seats["C"].label == "upper"
    assert spec.bot_for("A").label == "upper" and spec.decision_time == 90 and spec.start_after == 300
    access = course.table_spec("access-three", title="t", record=None, key_file=None)
    assert access.room == 3 and len(access.people) == 6  # any three of the six parties
    with pytest.raises(ValueError, match="played at a table"):
        course.seats_for("pill-pairs", "A")
    car = course.table_spec("car-private", title="t", record=None, key_file=None)
    assert car.information == "private" and car.people == ["B", "S"]
    assert "worth 18 to you" in car.roles["B"] and "cost you 12" in car.roles["S"]
    assert spec.information == "public" and spec.roles == {}


def test_a_table_exercise_takes_the_courses_settings_and_bots(tmp_path):
    p = course_with(tmp_path, 'scenario = "coalition-trap"\nhumans = 2\nbots = { A = "lower", "*" = "myopic" }\n'
                              'wait = 30\ngrace = 5\non_drop = "wait"\ndecision_time = 12\nhints = false\nsims = 9')
    spec = load_course(p).table_spec("e", title="t", record=None, key_file=None)
    assert spec.places == 2 and spec.people == ["A", "B", "C"]
    assert {pid: spec.bot_for(pid).label for pid in spec.people} == {"A": "lower", "B": "myopic", "C": "myopic"}
    assert spec.bot_for("B").sims == 9 and spec.bot_for("B").seed == 1
    assert (spec.start_after, spec.grace, spec.on_drop, spec.decision_time, spec.hints) == (30, 5, "wait", 12, False)


def test_validate_checks_courses_as_it_checks_scenarios(cli, tmp_path):
    ok = cli("validate", str(CLASS_COURSE), str(INTRO_COURSE))
    assert ok.exit_code == 0 and "course class: 4 exercises (4 at tables)" in ok.output
    bad = course_with(tmp_path, 'scenario = "poison-pill"\nhumans = ["A", "Z"]')
    as_json = write(tmp_path, json.dumps({"name": "c", "title": "C", "exercises": [
        {"id": "e", "title": "E", "scenario": "poison-pill", "seat": "Q"}]}), "course.json")
    for path, where in ((bad, "$.exercises[0].humans[1]: no player 'Z'"), (as_json, "$.exercises[0].seat")):
        out = cli("validate", str(path))
        assert out.exit_code == 2 and f"{path}: invalid course" in out.output and where in out.output
        assert "Traceback" not in out.output


def test_a_kept_course_is_checked_once_until_one_of_its_files_changes(tmp_path):
    """The fork server checks the served course and each app forked from it takes that check (`kept`); an
    edit to the course or to a scenario it reads is checked anew, and without `kept` every load checks."""
    shutil.copy(bundled_root() / "teaching" / "poison-pill.json", tmp_path / "pill.json")
    path = tmp_path / "c.toml"
    path.write_text(SMALL_TOML.replace('scenario = "poison-pill"', 'scenario = "pill.json"'))
    first = load_course(path, kept=True)
    assert load_course(path, kept=True) is first
    assert load_course(path) is not first
    scenario = json.loads((tmp_path / "pill.json").read_text())
    scenario["name"] = "the pill, edited"
    (tmp_path / "pill.json").write_text(json.dumps(scenario, indent=1))  # another size: another stamp
    edited = load_course(path, kept=True)
    assert edited is not first and edited.scenarios["pill"].name == "the pill, edited"
    path.write_text(path.read_text().replace("A small course", "A small course, retitled"))
    retitled = load_course(path, kept=True)
    assert retitled is not edited and retitled.course.title == "A small course, retitled"
    assert load_course(path, kept=True) is retitled
    (tmp_path / "pill.json").unlink()
    with pytest.raises(CourseError):  # a scenario gone: checked anew, and wrong
        load_course(path, kept=True)


def test_a_learned_bots_model_is_read_from_the_courses_folder(tmp_path: Path, monkeypatch, cli) -> None:
    """`learned:models/m.npz` in a course names the model beside the course file, as its scenarios are named,
    wherever negtui runs; a model missing there is refused naming the exercise and where it was looked for."""
    import numpy as np

    from tests.engine.test_learned_lens import network_arrays

    folder = tmp_path / "course"
    (folder / "models").mkdir(parents=True)
    model = folder / "models" / "m.npz"
    np.savez(model, **network_arrays())
    path = course_with(folder, 'scenario = "poison-pill"\nseat = "B"\nbots = "learned:models/m.npz/lower"')
    per_player = course_with(folder, 'scenario = "coalition-trap"\nseat = "A"\n'
                                     'bots = { "*" = "upper/learned:models/m.npz" }', name="per-player.toml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    seats = load_course(path).seats_for("e", "B")
    assert seats["A"].lenses == (f"learned:{model.resolve()}", "lower")
    seats = load_course(per_player).seats_for("e", "A")
    assert seats["B"].lenses == ("upper", f"learned:{model.resolve()}")
    assert cli("validate", path).exit_code == 0
    model.unlink()
    result = cli("validate", path)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "$.exercises[0].bots" in result.output and str(folder / "models" / "m.npz") in result.output, result.output
