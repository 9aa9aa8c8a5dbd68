"""A class's seating (classroom/seating.py): a roster file read with every mistake named by its line, and a
random seating with every role played by as many trainees."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from negtui.classroom.course_loading import load_course
from negtui.classroom.seating import RosterError, balanced, parse_roster
from tests.keeper import CLASS, TRIO


def test_a_roster_names_every_mistake_with_its_line(tmp_path: Path) -> None:
    course = tmp_path / "course.toml"
    course.write_text(TRIO)
    loaded = load_course(course)
    good = "trainee,exercise,table,seat\nalice,trio,red,A\nbob,trio,red,B\ncarol,pill,1,A\n"
    plans = parse_roster(good, "r.csv", loaded, set(CLASS))
    assert [(p.exercise, p.label, p.seats) for p in plans] == [("trio", "red", {"A": "alice", "B": "bob"}),
                                                                ("pill", "1", {"A": "carol"})]
    bad = ("trainee,exercise,table,seat\nzed,trio,red,A\nalice,alone,1,B\nbob,trio,red,Q\nalice,trio,red,A\n"
           "carol,trio,red,A\nalice,trio,blue,B\n")
    with pytest.raises(RosterError) as err:
        parse_roster(bad, "r.csv", loaded, set(CLASS))
    text = err.value.render()
    assert "line 2, trainee: no trainee 'zed'" in text
    assert "line 3, exercise: 'alone' is played alone, not at a table" in text
    assert "line 4, seat: 'Q' is not a person's seat of 'trio'" in text
    assert "line 6, seat: table 'red' gives A to alice already" in text
    assert "line 7, trainee: alice is seated at 'trio' already, on line 5" in text
    with pytest.raises(RosterError, match="line 2, table: a table's name of 41 characters; at most 40"):
        parse_roster(f"trainee,exercise,table,seat\nalice,trio,{'n' * 41},A\n", "r.csv", loaded, set(CLASS))
    with pytest.raises(RosterError, match="the header must be trainee,exercise,table,seat"):
        parse_roster("name,seat\n", "r.csv", loaded, set(CLASS))


@pytest.mark.parametrize("exercise, people, tables", [("trio", 6, 2), ("trio", 7, 3), ("pill", 5, 3)])
def test_a_random_seating_fills_the_tables_evenly_and_balances_the_roles(tmp_path: Path, exercise, people,
                                                                        tables) -> None:
    course = tmp_path / "course.toml"
    course.write_text(TRIO)
    loaded = load_course(course)
    names = [f"t{k}" for k in range(people)]
    plans = balanced(loaded, exercise, names, seed=3)
    assert len(plans) == tables
    sizes = [len(p.seats) for p in plans]
    assert max(sizes) - min(sizes) <= 1 and sum(sizes) == people
    roles = Counter(pid for p in plans for pid in p.seats)
    assert max(roles.values()) - min(roles.values()) <= 1  # every role played by as many trainees, give or take one
    assert sorted(n for p in plans for n in p.seats.values()) == sorted(names)
    assert balanced(loaded, exercise, names, seed=3) == plans  # the same seed: the same seating
