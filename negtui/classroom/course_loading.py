"""Reading a course file (classroom/course.py holds its model) and checking it against its scenarios.

A course is written by a trainer and read by the server before anyone connects, so every mistake in it
is reported at once, located by file and JSON path, before a trainee meets a half-working exercise.
The models check the shape; `load_course` then checks each exercise against its scenario (the seat is
a player, the bots parse, the rule set accepts the scenario) and reports every problem together.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from pydantic import ValidationError

from negtui.classroom.course import ANY_SEAT, MAX_EXERCISES, OTHER_SEATS, Course, Exercise, LoadedCourse, duplicate_ids
from negtui.engine import GameError, compile_game, get_rules
from negtui.scenario import Scenario, ScenarioError, load_scenario, untrusted
from negtui.scenario.io import FileProblems, Problem, problems_from_validation
from negtui.scenario.library import present, resolve
from negtui.seats import Seat, SeatError, parse_seat, spelling_from
from negtui.table.spec import seat_refusal

MAX_COURSE_BYTES = 2**20  # a course is a page of text; anything larger is a mistake or an attack


class CourseError(FileProblems):
    """A course file that cannot be used (not a ScenarioError: a course's own problems are its file's)."""

    kind = "course"


# Courses checked with `kept=True` in this process, by path: each with the files it was read from, as they
# were then.  The fork server checks the served course once, and every trainee's app forked from it finds it
# here (about 20 ms of each session's start otherwise); a file edited since is read and checked anew.
_checked: dict[Path, tuple[tuple[tuple[str, int, int, int], ...] | None, LoadedCourse]] = {}
CHECKED_MOST = 16  # courses kept; beyond, the oldest goes


def _as_they_are(files: list[Path]) -> tuple[tuple[str, int, int, int], ...] | None:
    try:
        return tuple((str(f), st.st_ino, st.st_size, st.st_mtime_ns) for f in files for st in (f.stat(),))
    except OSError:
        return None


def load_course(path: str | os.PathLike[str], *, kept: bool = False) -> LoadedCourse:
    """Read, validate and check a course; raises CourseError listing every problem it holds.  `kept`: the
    course as checked before with `kept` in this process, if none of its files has changed since (a file's
    time stamp moves in steps of a few milliseconds: for a server's course, not for one being written)."""
    p = Path(path)
    key = p.absolute()  # the course as named (its LoadedCourse keeps the name given), wherever this runs
    found = _checked.get(key) if kept else None
    if found is not None and found[0] is not None and _as_they_are([Path(f[0]) for f in found[0]]) == found[0]:
        return found[1]
    loaded, read = _check_course(p)
    if kept:
        if len(_checked) >= CHECKED_MOST:
            del _checked[next(iter(_checked))]
        _checked[key] = (_as_they_are([p.resolve(), *read]), loaded)
    return loaded


def _check_course(p: Path) -> tuple[LoadedCourse, list[Path]]:
    """The course checked, and the scenario files it read."""
    data = _models_from(_read(p), p.parent)
    problems: list[Problem] = []
    course: Course | None = None
    raw = data.get("exercises") if isinstance(data, dict) else None
    items = raw if isinstance(raw, list) else []
    try:
        course = Course.model_validate(data)
    except ValidationError as err:
        problems += problems_from_validation(err)
        # pydantic skips the cross-checks of a model whose fields failed; duplicates are still mistakes
        problems += [q for q in duplicate_ids([_get(item, "id") for item in items]) if q not in problems]
    # Exercises are checked one by one, so a mistake elsewhere in the file hides none of their problems.
    scenarios: dict[str, Scenario] = {}
    cache: dict[Path, Scenario | list[str]] = {}
    for i, item in enumerate(items[:MAX_EXERCISES]):  # past the limit the list is refused: check no more
        ex = _salvage(item)
        if ex is None:
            continue  # its problems are reported, with their paths, by the course's validation
        sc, found = check_exercise(ex, f"$.exercises[{i}]", p.parent, cache)
        problems += found
        if sc is not None:
            scenarios.setdefault(ex.id, sc)
    if problems or course is None:
        raise CourseError(str(p), problems)
    return LoadedCourse(course, p, scenarios), list(cache)


def _models_from(data: object, folder: Path) -> object:
    """The course with its bots' `learned:PATH` models read from the course's folder, as its scenarios are
    (a course that passes its shape check is seated from these spellings, wherever the server runs)."""
    exercises = data.get("exercises") if isinstance(data, dict) else None
    for item in exercises if isinstance(exercises, list) else ():
        bots = item.get("bots") if isinstance(item, dict) else None
        if isinstance(bots, str):
            item["bots"] = spelling_from(bots, folder)
        elif isinstance(bots, dict):
            item["bots"] = {k: spelling_from(v, folder) if isinstance(v, str) else v for k, v in bots.items()}
    return data


def _get(item: object, key: str) -> object:
    return item.get(key) if isinstance(item, dict) else None


def _salvage(item: object) -> Exercise | None:
    """The exercise, or what is left of it without its faulty fields (already reported), so that an
    unknown field or a bad `sims` does not hide a wrong seat; None when scenario or seat is what failed."""
    try:
        return Exercise.model_validate(item)
    except ValidationError as err:
        if not isinstance(item, dict):
            return None
        faulty = {e["loc"][0] for e in err.errors() if e["loc"]}
        if faulty & {"scenario", "seat"}:
            return None
        kept = {k: v for k, v in item.items() if k not in faulty}
        kept.update({k: "_" for k in ("id", "title") if k in faulty})  # stand-ins: required, but not checked
        try:
            return Exercise.model_validate(kept)
        except ValidationError:
            return None


def _read(p: Path) -> object:
    """The decoded file, TOML or JSON by its suffix, under the same guards as every untrusted file."""
    try:
        return untrusted.load_document(p, MAX_COURSE_BYTES, "a course")
    except untrusted.Untrusted as err:
        raise CourseError(str(p), [Problem(err.path, str(err))]) from None


def check_exercise(ex: Exercise, at: str, base: Path,
                   cache: dict[Path, Scenario | list[str]] | None = None) -> tuple[Scenario | None, list[Problem]]:
    """Every problem of one exercise against its scenario, with JSON paths under `at`; the scenario
    when it loads.  `cache` keeps each scenario file read once per course."""
    problems: list[Problem] = []
    sc = _scenario(ex.scenario, at, base, problems, {} if cache is None else cache)
    players = sc.player_ids if sc is not None else None
    problems += _table_problems(ex, at, players)
    if sc is not None and ex.seat != ANY_SEAT and ex.seat not in sc.player_ids:
        problems.append(Problem(f"{at}.seat", f"no player {ex.seat!r} in {sc.name!r}; "
                                              f"players are {', '.join(sc.player_ids)} (or 'any')"))
    spellings = [(f"{at}.bots", ex.bots)] if isinstance(ex.bots, str) else [
        (f"{at}.bots{_key(k)}", v) for k, v in ex.bots.items()]
    if isinstance(ex.bots, dict) and players is not None:
        for k in ex.bots:
            if k != OTHER_SEATS and k not in players:
                problems.append(Problem(f"{at}.bots{_key(k)}",
                                        f"no player {k!r}; players are {', '.join(players)} (or '*' for the rest)"))
    base_seat = Seat(partner=ex.partner, sims=ex.sims)
    for path, spelling in spellings:
        try:
            seat = parse_seat(spelling, base=base_seat)
        except SeatError as err:
            problems.append(Problem(path, f"{spelling!r}: {err}"))
            continue
        if seat.is_human:
            problems.append(Problem(path, "a bot cannot be 'human': the trainees' seats are the exercise's "
                                          "`seat` (or `humans`)"))
        elif (why := seat_refusal(seat, get_rules(ex.rules).simultaneous, ex.information)) is not None:
            problems.append(Problem(path, f"{spelling!r} under {ex.rules!r} rules: {why}"))
    if sc is not None:
        try:
            compile_game(sc, get_rules(ex.rules))
        except GameError as err:
            why = str(err).replace("--rules paper", 'rules = "paper"')  # the fix is in the course, not a flag
            problems.append(Problem(f"{at}.rules", f"{ex.rules!r} rules cannot play {sc.name!r}: {why}"))
    return sc, problems


def _table_problems(ex: Exercise, at: str, players: list[str] | None) -> list[Problem]:
    """A table's people against the scenario's players, and a table's settings on a solo exercise."""
    out: list[Problem] = []
    if players is not None:
        out += [Problem(f"{at}.roles{_key(pid)}", f"no player {pid!r}; players are {', '.join(players)}")
                for pid in ex.roles if pid not in players]
    if ex.humans is None:
        changed = [k for k in ("wait", "grace", "on_drop", "decision_time", "game_time") if k in ex.model_fields_set]
        if ex.information == "private":
            out.append(Problem(f"{at}.information", "private information is played at a table: set `humans` "
                                                    "(one trainee against bots sees every value)"))
        out += [Problem(f"{at}.{k}", f"{k} is a table's setting: set `humans` to seat several trainees")
                for k in changed]
        return out
    if ex.seat != ANY_SEAT:
        out.append(Problem(f"{at}.seat", "a table's seats are its `humans`: leave `seat` out"))
    if isinstance(ex.humans, int):
        most = len(players) if players is not None else ex.humans
        if not 2 <= ex.humans <= most:
            out.append(Problem(f"{at}.humans", f"a table seats 2 to {most} people (the scenario's players), "
                                               f"not {ex.humans}; one trainee against bots is `seat`"))
        return out
    if len(ex.humans) < 2:
        out.append(Problem(f"{at}.humans", "a table seats at least 2 people; one trainee against bots is `seat`"))
    seen: set[str] = set()
    for k, pid in enumerate(ex.humans):
        if players is not None and pid not in players:
            out.append(Problem(f"{at}.humans[{k}]", f"no player {pid!r}; players are {', '.join(players)}"))
        elif pid in seen:
            out.append(Problem(f"{at}.humans[{k}]", f"{pid!r} is listed twice"))
        seen.add(pid)
    return out


def _scenario(text: str, at: str, base: Path, problems: list[Problem],
              cache: dict[Path, Scenario | list[str]]) -> Scenario | None:
    where = resolve(text, base=base)
    if not present(where):
        problems.append(Problem(f"{at}.scenario", f"no scenario {text!r}: not a file next to the course, "
                                                  "nor a bundled scenario (negtui scenarios lists them)"))
        return None
    try:
        key = where.resolve()
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13): reading it says so
        key = where.absolute()
    if key not in cache:
        try:
            cache[key] = load_scenario(where)
        except ScenarioError as err:
            cache[key] = [f"{err.source}: {q.path}: {q.message}" for q in err.problems]
    hit = cache[key]
    if isinstance(hit, Scenario):
        return hit
    problems += [Problem(f"{at}.scenario", message) for message in hit]
    return None


def _key(k: str) -> str:
    return f".{k}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k) else f"[{json.dumps(k)}]"


__all__ = ["MAX_COURSE_BYTES", "CourseError", "check_exercise", "load_course"]
