"""Course files for `negtui serve`: a trainer's ordered set of exercises, each a scenario to play.

The models here check a course's shape (pydantic, unknown fields refused); a course as the server uses it is
a `LoadedCourse`, each exercise with its scenario.  Reading a course file and checking each exercise
against its scenario is classroom/course_loading.py.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Final, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from negtui.engine import compile_game, get_rules
from negtui.engine.portable import PortableGame
from negtui.engine.rules import rule_set_name
from negtui.scenario import Scenario
from negtui.scenario.io import Problem
from negtui.scenario.limits import MAX_TEXT
from negtui.seats import Seat, parse_seat
from negtui.table.spec import TableSpec

FORMAT: Final = "negtui-course/1"
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
        found = duplicate_ids([ex.id for ex in self.exercises])
        if found:
            raise ValueError("\n".join(f"{p.path}: {p.message}" for p in found))
        return self


def duplicate_ids(ids: list[object]) -> list[Problem]:
    """Each exercise id met again, at its path: the model's own check, and the loading's of a course whose
    fields failed (pydantic then skips the model's cross-checks)."""
    seen: set[str] = set()
    out = []
    for i, ex_id in enumerate(ids):
        if not isinstance(ex_id, str):  # not an id at all (a list, a table): reported as the wrong type
            continue
        if ex_id in seen:
            out.append(Problem(f"$.exercises[{i}].id", f"duplicate exercise id {ex_id!r}"))
        seen.add(ex_id)
    return out


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


__all__ = ["FORMAT", "Course", "Exercise", "LoadedCourse", "duplicate_ids", "scenario_digest"]
