"""Course files for `negtui serve`: a trainer's ordered set of exercises, each a scenario to play.

A course is written by a trainer and read by the server before anyone connects, so every mistake in it
is reported at once, located by file and JSON path, before a trainee meets a half-working exercise.
The models check the shape; `load_course` then checks each exercise against its scenario (the seat is
a player, the bots parse, the rule set accepts the scenario) and reports every problem together.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Final, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from negtui.engine import GameError, compile_game, get_rules
from negtui.engine.portable import PortableGame
from negtui.engine.rules import rule_set_name
from negtui.scenario import Scenario, ScenarioError, load_scenario, untrusted
from negtui.scenario.io import FileProblems, Problem, problems_from_validation
from negtui.scenario.library import present, resolve
from negtui.scenario.limits import MAX_TEXT
from negtui.seats import Seat, SeatError, parse_seat, spelling_from
from negtui.table.spec import TableSpec, seat_refusal

FORMAT: Final = "negtui-course/1"
MAX_COURSE_BYTES = 2**20  # a course is a page of text; anything larger is a mistake or an attack
MAX_EXERCISES = 200
ANY_SEAT = "any"
OTHER_SEATS = "*"  # key of a `bots` table: every seat not named
DEFAULT_BOTS = "upper"
_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _id_like(value: str) -> str:
    if not _ID_RE.fullmatch(value):
        raise ValueError("an id is 1 to 64 letters, digits, '-' or '_'")
    return value


def _bots_shape(value: object) -> object:
    """One readable message for a wrong type, instead of one per branch of the union."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return value
    raise ValueError('bots is a seat spelling ("upper", "upper/lower", "cmd:…") or a table of player id → spelling')


CourseId = Annotated[str, AfterValidator(_id_like)]
Title = Annotated[str, Field(min_length=1, max_length=200)]
Text = Annotated[str, Field(max_length=MAX_TEXT)]
Bots = Annotated[str | dict[str, str], BeforeValidator(_bots_shape)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Exercise(_Strict):
    id: CourseId = Field(description="Unique in the course; results are filed under it.")
    title: Title
    briefing: Text = Field(default="", description="Shown to the trainee before play.")
    scenario: Annotated[str, Field(min_length=1, max_length=1000)] = Field(
        description="A bundled scenario's name (as `negtui scenarios` lists it) or a path relative to the course file.")
    seat: Annotated[str, Field(min_length=1, max_length=200)] = Field(
        default=ANY_SEAT, description="The trainee's player id, or 'any' to let the trainee pick.")
    humans: list[Annotated[str, Field(min_length=1, max_length=200)]] | int | None = Field(
        default=None, description=("A table several trainees share: the seats people play (player ids), or how "
                                   "many people sit at it (each picks a seat).  Unset: one trainee against bots."))
    wait: float | None = Field(default=None, ge=0.0, le=86_400.0, description=(
        "Seconds a table waits for people; then bots take the empty seats (unset: until every seat is taken or "
        "the trainer starts it)."))
    grace: float = Field(default=120.0, ge=0.0, le=86_400.0,
                         description="Seconds a trainee who drops keeps the seat at a table.")
    on_drop: Literal["bot", "wait"] = Field(
        default="bot", description="After the grace: a bot takes the seat over, or the table waits.")
    decision_time: float | None = Field(default=None, gt=0.0, le=86_400.0, description=(
        "Seconds a trainee at a table has per decision (then a pass, or a rejection); unset: no limit."))
    game_time: float | None = Field(default=None, gt=0.0, le=7 * 86_400.0, description=(
        "Seconds a table's game may last, paused time not counted: at zero it ends as it stands (the commitments "
        "made bind) and the record says the clock ended it; unset: no limit.  The trainer may set or extend it."))
    bots: Bots = Field(default=DEFAULT_BOTS, description=(
        "How the other seats play: one seat spelling for all, or a table player id → spelling ('*' for the rest)."))
    partner: Literal["mcts", "greedy", "random"] = "mcts"
    sims: int = Field(default=50, ge=1, le=1_000_000)
    rules: Annotated[str, Field(max_length=512, description=(
        "paper, reference, or a variant of one such as paper+lower_reference_credibility (documentation: Rule sets)")),
        AfterValidator(rule_set_name)] = "paper"
    attempts: int | None = Field(default=None, ge=1, description="Plays allowed; null is unlimited.")
    hints: bool = True
    mode: Literal["practice", "assessment"] = Field(default="practice", description=(
        "assessment: a graded run. No hint, exact solution, suggested offer, welfare optimum or other players' "
        "forecasts while playing (coaching comes in the debrief); every game started is an attempt, resumed "
        "rather than restarted, and one left past the server's idle timeout is abandoned."))
    score: Literal["payoff", "gain", "table_total", "table_minimum"] = Field(default="payoff", description=(
        "What the debrief and the leaderboard rank by: your payoff, your gain over the No-Negotiation baseline, "
        "the table's total payoff or its lowest payoff."))
    leaderboard: Literal["named", "anonymous"] = Field(default="named", description=(
        "anonymous: trainees see their own place on the leaderboard, not the others' names."))
    results: Literal["shown", "held"] | None = Field(default=None, description=(
        "held: no result of this exercise is shown to trainees (leaderboards, best results) until the trainer "
        "releases them; unset: held under private information, where the other side's result tells a role's "
        "values, shown otherwise."))
    information: Literal["public", "private"] = Field(default="public", description=(
        "private: each person at a table sees only their own values and the ranges the scenario publishes "
        "(its goals' `ranges`); bots decide on what their seats know; the debrief reveals everything."))
    roles: dict[str, Text] = Field(default_factory=dict, description=(
        "A confidential briefing per player id, shown only to the person in that seat."))

    @model_validator(mode="after")
    def _assessed(self) -> Exercise:
        if self.mode == "assessment" and self.hints and "hints" in self.model_fields_set:
            raise ValueError("hints: an assessment gives no hints (leave hints out, or set it false)")
        return self

    @property
    def is_table(self) -> bool:
        return self.humans is not None

    @property
    def guided(self) -> bool:
        """Guidance while playing: every mode but an assessment."""
        return self.mode != "assessment"

    @property
    def one_role(self) -> bool:
        """Whether a trainee may play one seat of it only: its roles are confidential (private information,
        or a briefing per seat), and reading a second would tell them the other side's."""
        return self.information == "private" or bool(self.roles)

    @property
    def results_held(self) -> bool:
        """Whether trainees see no result of it until the trainer releases them (see `results`)."""
        return self.results == "held" or (self.results is None and self.information == "private")

    def people_seats(self, players: list[str]) -> list[str]:
        """The seats people may take at this exercise's table (every player when `humans` is a count)."""
        if isinstance(self.humans, list):
            return [p for p in players if p in self.humans]
        return list(players) if self.humans is not None else []

    def room(self, players: list[str]) -> int:
        """How many people sit at a table of this exercise."""
        return self.humans if isinstance(self.humans, int) else len(self.people_seats(players))

    def bot_seat(self, players: list[str], pid: str) -> Seat:
        """`pid`'s seat when a bot plays it; bot i is seeded i, so two plays of the exercise meet the same
        opponents."""
        return parse_seat(self.bot_spelling(pid), base=Seat(partner=self.partner, sims=self.sims,
                                                              seed=players.index(pid)))

    def bot_spelling(self, player_id: str) -> str:
        """The spelling that seats `player_id` when it is a bot: its own entry, else '*', else the default."""
        if isinstance(self.bots, str):
            return self.bots
        return self.bots.get(player_id, self.bots.get(OTHER_SEATS, DEFAULT_BOTS))


class Course(_Strict):
    format: Literal["negtui-course/1"] = FORMAT
    name: CourseId
    title: Title
    description: Text = ""
    exercises: list[Exercise] = Field(min_length=1, max_length=MAX_EXERCISES)

    @property
    def graded(self) -> list[str]:
        """The ids of the exercises played as assessments."""
        return [ex.id for ex in self.exercises if not ex.guided]

    @model_validator(mode="after")
    def _unique_ids(self) -> Course:
        found = _duplicate_ids([ex.id for ex in self.exercises])
        if found:
            raise ValueError("\n".join(f"{p.path}: {p.message}" for p in found))
        return self


def _duplicate_ids(ids: list[object]) -> list[Problem]:
    seen: set[str] = set()
    out = []
    for i, ex_id in enumerate(ids):
        if not isinstance(ex_id, str):  # not an id at all (a list, a table): reported as the wrong type
            continue
        if ex_id in seen:
            out.append(Problem(f"$.exercises[{i}].id", f"duplicate exercise id {ex_id!r}"))
        seen.add(ex_id)
    return out


class CourseError(FileProblems):
    """A course file that cannot be used (not a ScenarioError: a course's own problems are its file's)."""

    kind = "course"


@dataclass
class LoadedCourse:
    """A course checked against its scenarios, with each exercise's scenario loaded once."""

    course: Course
    path: Path
    scenarios: dict[str, Scenario] = field(default_factory=dict)  # by exercise id

    def exercise(self, exercise_id: str) -> Exercise:
        for ex in self.course.exercises:
            if ex.id == exercise_id:
                return ex
        ids = ", ".join(ex.id for ex in self.course.exercises)
        raise KeyError(f"no exercise {exercise_id!r} in course {self.course.name!r}; exercises are {ids}")

    def seats_for(self, exercise_id: str, trainee_seat: str) -> dict[str, Seat]:
        """Every player's seat for one play: the trainee at the app, the rest as the exercise's bots."""
        ex = self.exercise(exercise_id)
        players = self.scenarios[ex.id].player_ids
        if ex.is_table:
            raise ValueError(f"exercise {ex.id!r} is played at a table of several trainees")
        if trainee_seat not in players:
            raise ValueError(f"exercise {ex.id!r}: no player {trainee_seat!r}; players are {', '.join(players)}")
        if ex.seat != ANY_SEAT and trainee_seat != ex.seat:
            raise ValueError(f"exercise {ex.id!r} is played as {ex.seat!r}, not {trainee_seat!r}")
        return {pid: Seat.human() if pid == trainee_seat else ex.bot_seat(players, pid) for pid in players}

    def table_spec(self, exercise_id: str, *, title: str, record: Path | None, key_file: Path | None) -> TableSpec:
        """How a table of this exercise is run: people's seats, the bots around them (and for a person's
        seat nobody takes), the course's wait, grace, drop and clock settings."""
        ex = self.exercise(exercise_id)
        sc = self.scenarios[ex.id]
        players = sc.player_ids
        people = ex.people_seats(players)
        seats = {pid: Seat.human() if pid in people else ex.bot_seat(players, pid) for pid in players}
        bots = {pid: ex.bot_seat(players, pid) for pid in people}
        rules = get_rules(ex.rules)
        return TableSpec(title=title, game=PortableGame.of(compile_game(sc, rules), rules).as_dict(), seats=seats,
                         places=ex.humans if isinstance(ex.humans, int) else None, bots=bots,
                         record=str(record) if record else None, key_file=str(key_file) if key_file else None,
                         grace=ex.grace, on_drop=ex.on_drop, decision_time=ex.decision_time, start_after=ex.wait,
                         game_time=ex.game_time,
                         hints=ex.hints, guided=ex.guided, information=ex.information,
                         roles=dict(ex.roles))


def scenario_digest(scenario: Scenario) -> str:
    """Identifies a scenario by content, so results can tell an edited scenario from the one played."""
    text = json.dumps(scenario.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- loading ----------------------------------------------------------------------------------------------


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
        problems += [q for q in _duplicate_ids([_get(item, "id") for item in items]) if q not in problems]
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


__all__ = ["FORMAT", "MAX_COURSE_BYTES", "Course", "CourseError", "Exercise", "LoadedCourse", "check_exercise",
           "load_course", "scenario_digest"]
