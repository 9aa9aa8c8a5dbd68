"""What a sweep plays: a grid over the paper's generator axes (or a list of scenario files), seeds,
rule sets and methods.  Written as a TOML or JSON file, or taken from a preset that matches the paper.

A spec is read before any game runs, so every mistake in it is reported at once, located by file and
JSON path, and nothing starts half-configured."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Final, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from negtui.engine.rules import rule_set_name
from negtui.generator.params import parse_actions
from negtui.scenario import untrusted
from negtui.scenario.io import FileProblems, Problem, problems_from_validation
from negtui.scenario.limits import MAX_ACTIONS, MAX_BUDGET, MAX_GOALS, MAX_PLAYERS, MAX_ROUNDS, MAX_TURNS
from negtui.seats import PARTNER_METHODS, LlmPrompt, SeatError, parse_seat

FORMAT: Final = "negtui-sweep/1"
MAX_SPEC_BYTES = 2**20
PayoffRegime = Literal["balanced", "positive", "negative", "negative-pp"]  # negative-pp: with the poison pill
PAYOFF_REGIMES: tuple[PayoffRegime, ...] = ("balanced", "positive", "negative", "negative-pp")
LENS_METHODS = ("myopic", "upper", "lower")
BASELINE, EXACT = "baseline", "exact"  # the two reference rows every game has (exact: small games)


class SpecError(FileProblems):
    kind = "sweep spec"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _method_shape(value: object) -> object:
    """"upper" is shorthand for {name = "upper", seats = "upper"}."""
    return {"name": value, "seats": value} if isinstance(value, str) else value


class Method(_Strict):
    """Who plays: one seat spelling for every seat ("upper", "upper/lower", "cmd:python bot.py"), or a
    list cycled over the players in order ("upper", "lower", "upper", …)."""

    name: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:/+-]+$")]
    seats: str | list[str]

    @field_validator("seats")
    @classmethod
    def _seats_parse(cls, value: str | list[str]) -> str | list[str]:
        for text in [value] if isinstance(value, str) else value:
            try:
                seat = parse_seat(text)
            except SeatError as err:
                raise ValueError(str(err)) from None
            if seat.is_human:
                raise ValueError("a sweep has no people: every seat is a bot or an outside agent")
        if isinstance(value, list) and not value:
            raise ValueError("at least one seat")
        return value

    @model_validator(mode="after")
    def _not_reserved(self) -> Method:
        if self.name in (BASELINE, EXACT):
            raise ValueError(f"{self.name!r} is a reference row every game has; name the method otherwise")
        return self

    @property
    def uses_llm(self) -> bool:
        """A method with a language model in it: played `llm_samples` times a game."""
        return any(text.strip().startswith("llm:") for text in ([self.seats] if isinstance(self.seats, str)
                                                                else self.seats))

    def seat_texts(self, n: int) -> list[str]:
        seats = [self.seats] if isinstance(self.seats, str) else self.seats
        return [seats[i % len(seats)] for i in range(n)]


def _positive_ints(values: list[int]) -> list[int]:
    if any(v < 1 for v in values):
        raise ValueError("every value is at least 1")
    return values


def _fractions(values: list[float]) -> list[float]:
    if any(not 0 <= v <= 1 for v in values):
        raise ValueError("every fraction is between 0 and 1")
    return values


def _zipf(values: list[float]) -> list[float]:
    if any(v <= 1 for v in values):
        raise ValueError("a Zipf exponent is above 1")
    return values


Axis = Annotated[list[int], Field(min_length=1, max_length=64)]
# each count axis within what a scenario may hold (scenario.limits), checked before any game is built
AXIS_LIMITS = {"players": MAX_PLAYERS, "actions": MAX_ACTIONS, "goals": MAX_GOALS, "rounds": MAX_ROUNDS,
               "budget": MAX_BUDGET, "factors": MAX_GOALS}
MAX_SWEEP_GAMES = 1_000_000  # games (cells × seeds × rules × methods) in one sweep


class Grid(_Strict):
    """The generator's axes; every combination is a cell of the grid."""

    players: Axis = [10]
    # a count for every player, or "LOW-HIGH": each player's count drawn by the seed ("1-2": the paper's small games)
    actions: Annotated[list[int | str], Field(min_length=1, max_length=64)] = [1]
    goals: Axis = [15]
    rounds: Axis = [5]
    budget: Axis = [2]
    factors: Axis = [5, 15]
    structure: Annotated[list[Literal["cooperative", "adversarial"]], Field(min_length=1)] = ["adversarial",
                                                                                             "cooperative"]
    all_or_nothing: Annotated[list[float], Field(min_length=1, max_length=64)] = [0.0, 0.15, 0.3, 0.5]
    zipf: Annotated[list[float], Field(min_length=1, max_length=64)] = [1.6, 3.0]
    payoff: Annotated[list[PayoffRegime], Field(min_length=1)] = list(PAYOFF_REGIMES)

    @field_validator("actions")
    @classmethod
    def _actions(cls, values: list[int | str]) -> list[int | str]:
        for v in values:
            if isinstance(v, int):
                low, high = v, v
            else:
                try:
                    first, up_to = parse_actions(v)
                except ValueError:
                    raise ValueError(f"{v!r} is not a count or LOW-HIGH (e.g. 1-2)") from None
                if up_to is None or not isinstance(first, int):
                    raise ValueError(f"{v!r} is not LOW-HIGH (e.g. 1-2); a count is a number")
                low, high = first, up_to
            if not 1 <= low <= high <= MAX_ACTIONS:
                raise ValueError(f"{v!r}: counts are between 1 and {MAX_ACTIONS} (the scenario limit), LOW <= HIGH")
        return values

    @field_validator("players", "goals", "rounds", "budget", "factors")
    @classmethod
    def _counts(cls, values: list[int], info: ValidationInfo) -> list[int]:
        top = AXIS_LIMITS[str(info.field_name)]
        if any(v > top for v in values):
            raise ValueError(f"every value is at most {top:,} (the scenario limit)")
        return _positive_ints(values)

    @model_validator(mode="after")
    def _turns(self) -> Grid:
        if max(self.rounds) * max(self.players) > MAX_TURNS:
            raise ValueError(f"{max(self.rounds):,} rounds of {max(self.players):,} players exceed the scenario "
                             f"limit of {MAX_TURNS:,} turns")
        return self

    @field_validator("all_or_nothing")
    @classmethod
    def _aon(cls, values: list[float]) -> list[float]:
        return _fractions(values)

    @field_validator("zipf")
    @classmethod
    def _zipf_axis(cls, values: list[float]) -> list[float]:
        return _zipf(values)

    def cells(self) -> int:
        n = 1
        for axis in (self.players, self.actions, self.goals, self.rounds, self.budget, self.factors,
                     self.structure, self.all_or_nothing, self.zipf, self.payoff):
            n *= len(axis)
        return n


class SweepSpec(_Strict):
    format: Literal["negtui-sweep/1"] = FORMAT
    name: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
    description: Annotated[str, Field(max_length=2000)] = ""
    grid: Grid | None = None
    scenarios: Annotated[list[str], Field(max_length=1000)] = []  # files or library names
    # generator seeds per grid cell; for a scenario list they seed only the methods' own randomness
    # (random partner choice), as MCTS and the lenses are deterministic
    seeds: Annotated[int, Field(ge=1, le=100_000)] = 50
    # the first seed: a replication plays seeds disjoint from the study it checks (seed_start = 1000)
    seed_start: Annotated[int, Field(ge=0, le=2**31 - 100_001)] = 0
    # rule sets: paper, reference, or a variant of one (paper+lower_reference_credibility: engine.rules)
    rules: Annotated[list[str], Field(min_length=1, max_length=32)] = ["paper"]
    methods: Annotated[list[Annotated[Method, BeforeValidator(_method_shape)]], Field(min_length=1, max_length=64)] = \
        [Method(name=lens, seats=lens) for lens in LENS_METHODS]
    partner: str = "mcts"
    sims: Annotated[int, Field(ge=1, le=100_000)] = 50
    # llm: seats: the OpenAI-compatible API they ask (default: $OPENAI_BASE_URL, else OpenAI's)
    llm_base_url: Annotated[str | None, Field(max_length=2000, pattern=r"^https?://\S+$")] = None
    llm_prompt: LlmPrompt | None = None  # llm: seats: negtui's prompt or the paper's Appendix E
    llm_temperature: Annotated[float | None, Field(ge=0.0, le=2.0, allow_inf_nan=False)] = None  # sent only if set
    # llm: seats: checked (the partner answers each offer) or unchecked (its offers bind, as the reference's
    # runner applies them); who answers offers to them (a lens, or the model itself); and how many times each
    # game is played by a method with a model in it (each sample with its own seed sent to the server)
    llm_offers: Literal["checked", "unchecked"] = "checked"
    llm_responder: Annotated[str, Field(max_length=64)] = "model"
    llm_samples: Annotated[int, Field(ge=1, le=100)] = 5
    # what the seats know: public (the paper's game), private (each its own values: agents.beliefs); an axis
    information: Annotated[list[Literal["public", "private"]], Field(min_length=1, max_length=2)] = ["public"]
    exact: bool = True  # solve where small enough (engine.outcome.AUTO_EXACT_LIMIT states) and report the L1 error
    welfare: Literal["utilitarian", "nash", "none"] = "utilitarian"

    @field_validator("rules")
    @classmethod
    def _rule_sets(cls, values: list[str]) -> list[str]:
        names = []
        for value in values:
            name = rule_set_name(value)  # ValueError names the switch or the set at fault
            if name in names:
                raise ValueError(f"rule set {value!r} repeats {name!r}")
            names.append(name)
        return names

    @field_validator("llm_responder")
    @classmethod
    def _responder(cls, value: str) -> str:
        if value == "model":
            return value
        from negtui.engine.vocabulary import check_judge

        return check_judge(value)  # ValueError names the lenses

    @field_validator("partner")
    @classmethod
    def _partner(cls, value: str) -> str:
        if value not in PARTNER_METHODS:
            raise ValueError(f"partner choice is one of {', '.join(PARTNER_METHODS)}")
        return value

    @model_validator(mode="after")
    def _games(self) -> SweepSpec:
        if (self.grid is None) == (not self.scenarios):
            raise ValueError("a sweep plays a generator grid or a list of scenarios: give exactly one")
        games = (self.grid.cells() * self.seeds if self.grid is not None else len(self.scenarios)) \
            * len(self.rules) * len(self.information) * sum(self.llm_samples if m.uses_llm else 1 for m in self.methods)
        if games > MAX_SWEEP_GAMES:
            raise ValueError(f"the sweep would play {games:,} games; at most {MAX_SWEEP_GAMES:,} in one sweep")
        if len(set(self.information)) != len(self.information):
            raise ValueError("information repeats a value")
        names = [m.name for m in self.methods]
        if len(set(names)) != len(names):
            raise ValueError(f"method names repeat: {sorted({x for x in names if names.count(x) > 1})}")
        self._simultaneous_methods()
        return self

    def _simultaneous_methods(self) -> None:
        """Methods a simultaneous rule set cannot play, refused before any game runs: an exact seat (the solver
        does not solve simultaneous games), an anticipating one under private information (it predicts the
        others' deals from values a seat does not know)."""
        from negtui.engine.rules import get_rules
        from negtui.engine.vocabulary import ANTICIPATE, split_anticipation

        simultaneous = [r for r in self.rules if get_rules(r).simultaneous]
        if not simultaneous:
            return
        for m in self.methods:
            for text in m.seat_texts(len(m.seats) if isinstance(m.seats, list) else 1):
                seat = parse_seat(text)
                if seat.uses_exact:
                    raise ValueError(f"method {m.name!r}: the exact solver does not solve simultaneous games "
                                     f"({simultaneous[0]}): give its seats a lens")
                if "private" in self.information and any(split_anticipation(x)[0] for x in seat.lenses or ()):
                    raise ValueError(f"method {m.name!r}: {ANTICIPATE}: lenses need public information under "
                                     f"{simultaneous[0]}")


SCENARIO_PRESETS = ("hnc", "table2")  # presets of bundled scenario files, which only a clone of the repository has


def presets() -> dict[str, SweepSpec]:
    """The paper's grids: small games (10 players × 1 action, solved exactly), large ones (10 × 5), the
    bundled real-life (HNC) scenarios, and Table 2's five games of their scale; the scenario presets only
    where the bundled scenarios are (an installed wheel has none)."""
    from negtui.scenario.library import bundled_root

    hnc = sorted(str(p) for p in (bundled_root() / "hnc").rglob("*.json"))
    # Table 2: the climate game and four generated at its scale (scenarios/generated/hnc-scale/README.md)
    climate = bundled_root() / "hnc" / "climate" / "cop-climate-22.json"
    table2 = [str(climate), *sorted(str(p) for p in (bundled_root() / "generated" / "hnc-scale").glob("*.json"))]
    found = {
        "paper-small": SweepSpec(name="paper-small", description="10 players × 1 action, 15 goals, 5 rounds, "
                                 "budget 2: every regime of the paper, exact solutions", grid=Grid(actions=[1])),
        "paper-large": SweepSpec(name="paper-large", description="10 players × 5 actions, 15 goals, 5 rounds, "
                                 "budget 2: every regime of the paper", grid=Grid(actions=[5]), exact=False),
    }
    # a scenario is the same game whatever the seed, and MCTS and the lenses are deterministic: one seed
    if hnc:
        found["hnc"] = SweepSpec(name="hnc", description="the bundled real-life negotiation scenarios", scenarios=hnc,
                                 seeds=1, exact=False)
    if climate.is_file():
        found["table2"] = SweepSpec(name="table2", description="the paper's Table 2: five games of the real-life "
                                    "games' scale (the climate game, four generated at its regime), mean ± sd over "
                                    "the games", scenarios=table2, seeds=1, exact=False)
    return found


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    p = Path(path)
    try:
        data = untrusted.load_document(p, MAX_SPEC_BYTES, "a sweep spec")
    except untrusted.Untrusted as err:
        raise SpecError(str(p), [Problem(err.path, str(err))]) from None
    try:
        spec = SweepSpec.model_validate(data)
    except ValidationError as err:
        raise SpecError(str(p), problems_from_validation(err)) from None
    base = p.parent
    scenarios = [str(base / s) if not Path(s).is_absolute() and (base / s).exists() else s for s in spec.scenarios]
    return spec.model_copy(update={"scenarios": scenarios})
