"""What several commands share: options, loading scenarios, progress bars, JSON output, seats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from negtui.cli.errors import fail

if TYPE_CHECKING:
    from negtui.agents.options import AgentOptions
    from negtui.classroom.course import LoadedCourse
    from negtui.classroom.db import ResultsDB
    from negtui.engine import Negotiation
    from negtui.engine.game import Game
    from negtui.record import Replay
    from negtui.scenario import Scenario
    from negtui.seats import Seat

RULES_HELP = ("Rule set: paper (default) or reference, or either with switches turned on (+) or off (-): "
              "paper+simultaneous (half the players propose at once each turn), paper+simultaneous=K (K of them), "
              "paper-lower_reference_credibility; a switch misspelt is answered with the list of them.")
RulesOpt = Annotated[str, typer.Option("--rules", help=RULES_HELP)]
InformationOpt = Annotated[str | None, typer.Option(
    "--information", help="public (default): every seat knows every value; private: each seat knows its own values "
                          "and the ranges the scenario publishes, and its bots and agents decide on that alone.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]
DataDirOpt = Annotated[Path | None, typer.Option("--data-dir", help="Where the records, results and keys are "
                                                                    "(default: the user data directory).")]
SeatOpt = Annotated[list[str] | None, typer.Option(
    "--seat", help="NAME=SEAT for one seat (repeatable): human, a lens (myopic, upper, lower, exact, adaptive, "
                   "learned or learned:MODEL.npz), PROPOSE/RESPOND lenses, cmd:COMMAND (an outside program) or "
                   "llm:MODEL.")]
AgentTimeoutOpt = Annotated[float | None, typer.Option(
    "--agent-timeout", help="Seconds an outside program or language model may take per decision (default 30).")]
LlmUrlOpt = Annotated[str | None, typer.Option(
    "--llm-base-url", help="Base URL of the OpenAI-compatible API for llm: seats (default: $OPENAI_BASE_URL, "
                           "else OpenAI's).")]
LlmPromptOpt = Annotated[str | None, typer.Option(
    "--llm-prompt", help="Prompt of llm: seats: negtui (default: the state in words, the seat's objectives) or "
                         "paper (the paper's Appendix E: JSON matrices, zero-shot).")]
LlmTemperatureOpt = Annotated[float | None, typer.Option(
    "--llm-temperature", help="Sampling temperature sent to llm: seats (default: none sent, the server's own).")]
LlmOffersOpt = Annotated[str | None, typer.Option(
    "--llm-offers", help="checked (default: the partner answers each offer of an llm: seat) or unchecked (its offers "
                         "bind, as the reference's runner applies them).")]
LlmResponderOpt = Annotated[str | None, typer.Option(
    "--llm-responder", help="Who answers offers to llm: seats: model (default) or a lens (myopic, upper, lower, …).")]
LlmKeyOpt = Annotated[str | None, typer.Option(
    "--llm-api-key", help="API key for llm: seats (default: $OPENAI_API_KEY; local servers need none).")]


def course_and_results(course: Path, data_dir: Path | None) -> tuple[LoadedCourse, Path, ResultsDB]:
    """A course served from a data directory: the course checked (every problem, with its path), the
    directory resolved and its results database open; a clear error and status 2 otherwise."""
    from negtui.classroom.course_loading import CourseError, load_course
    from negtui.classroom.db import DBError, ResultsDB
    from negtui.datadir import user_data_dir

    try:
        loaded = load_course(course)
    except CourseError as err:
        fail(err.render())
    data = (data_dir or user_data_dir()).resolve()
    try:
        return loaded, data, ResultsDB.open(data)
    except DBError as err:
        fail(f"error: {err}")


def load(path: Path) -> Scenario:
    """A scenario file, or a bundled scenario by name (`negtui scenarios` lists them)."""
    from negtui.scenario import load_scenario

    return load_scenario(locate(path))


def locate(path: Path) -> Path:
    """Where the scenario named on the command line is (a file, or a bundled scenario by name); a name that
    is neither exits 2 saying so, with the bundled names it is close to: a typo of a library name would
    otherwise read as a missing file, with no word that library names work at all."""
    from negtui.scenario.library import near_names, present, resolve

    found = resolve(path)
    if present(found) or len(path.parts) != 1:
        return found  # a path into a folder: its loading says what is wrong with it
    near = near_names(str(path))
    hint = (f"; bundled scenarios close to that name: {', '.join(near)}" if near else "")
    fail(f"error: {path}: file not found, and no bundled scenario has that name{hint} (bundled names work "
         "wherever a file does: `negtui scenarios` lists them)")


TURN_HELP = ("With --from-record: the turn to play anew, numbered from 1 as turn logs show it (the turns before it "
             "stay as recorded; default: after the last recorded turn).")


def recorded_turn(replay: Replay, turn: int | None, where: Path) -> int:
    """The state a `--turn` names, as the turns played before it (a record's `t`): people give a turn as
    every screen and log numbers it, from 1 (`--turn 3`: turns 1 and 2 as recorded, turn 3 anew), and the
    messages that follow say "from turn 3" too.  A turn outside the record exits 2, naming the ones it has."""
    from negtui.engine import shown_turn

    if turn is None:
        return replay.last_turn
    first, after = shown_turn(replay.first_turn), shown_turn(replay.last_turn)
    if not first <= turn <= after:
        recorded = f"turns {first}..{after - 1}" if after > first else "no turn"
        fail(f"error: --turn {turn}: {where} records {recorded}; --turn {first} plays its first turn anew and "
             f"--turn {after} goes on after its last")
    return turn - 1


def regime_bots(sc: Scenario) -> tuple[str, str]:
    """The lens bots play wherever no seat names one (the one that suits the scenario's payoff regime), and
    the line that says so under a game's header."""
    from negtui.coach.regime import suggested_lens

    lens, why = suggested_lens(sc)
    return lens, f"bots play {lens} unless told otherwise: {why}"


def information_of(value: str | None) -> Literal["public", "private"]:
    """`--information` as given (default public); any other word exits 2 naming it."""
    from negtui.engine.knowledge import INFORMATION

    if value not in (None, *INFORMATION):
        fail(f"error: --information is public or private, not {value!r}")
    return "private" if value == "private" else "public"


def negotiation(sc: Scenario, rules: str, budget: int | None = None) -> Negotiation:
    from negtui.engine import Negotiation, get_rules

    try:
        r = get_rules(rules)
    except ValueError as err:
        fail(f"error: {err}")
    return Negotiation.from_scenario(sc, r, budget=budget)


def base_seat(lens: str | None = None, partner: str | None = None, sims: int | None = None, ucb: float | None = None,
              seed: int | None = None, timeout: float | None = None, base_url: str | None = None,
              prompt: str | None = None, temperature: float | None = None) -> Seat:
    """The seat every bot starts from: the lens and search options given, the defaults otherwise."""
    from negtui.seats import DEFAULT_LENS, Seat, SeatError, parse_seat

    given = {k: v for k, v in (("partner", partner), ("sims", sims), ("ucb", ucb), ("seed", seed),
                               ("timeout", timeout), ("base_url", base_url), ("prompt", prompt),
                               ("temperature", temperature)) if v is not None}
    from pydantic import ValidationError

    from negtui.scenario.io import problems_from_validation

    try:
        base = Seat(**given)
        # the lens bot keeps only search parameters; what llm: and cmd: seats take from it is put back
        return parse_seat(lens or DEFAULT_LENS, base).model_copy(
            update={"base_url": base.base_url, "timeout": base.timeout, "prompt": base.prompt,
                    "temperature": base.temperature})
    except ValidationError as err:
        p = problems_from_validation(err)[0]
        field = p.path.removeprefix("$.")
        option = {"timeout": "agent-timeout", "base_url": "llm-base-url", "prompt": "llm-prompt",
                  "temperature": "llm-temperature"}.get(field, field)
        fail(f"error: {'--' + option + ': ' if field != '$' else ''}{p.message}")
    except SeatError as err:
        fail(f"error: {err}")


def as_baseline(seats: list[Seat], offers: str | None, responder: str | None) -> list[Seat]:
    """Language-model seats with `--llm-offers` and `--llm-responder` applied (exit 2 naming a bad one)."""
    from negtui.seats import SeatError

    if offers not in (None, "checked", "unchecked"):
        fail(f"error: --llm-offers is checked or unchecked, not {offers!r}")
    try:
        return [s.baseline(offers, responder) for s in seats]
    except SeatError as err:
        fail(f"error: --llm-responder: {err}")


def open_app(scenario: Path | None = None, *, rules: str = "paper", seats: dict[str, Seat] | None = None,
             ask_seats: bool = True, replay: Path | None = None, follow: bool = False, record: bool = True,
             data_dir: Path | None = None, base: Seat | None = None, autoplay: bool = False,
             options: AgentOptions | None = None, loaded: Scenario | None = None,
             compiled: Game | None = None) -> int:
    """Run the app (negtui.tui.app.NegtuiApp, whose arguments these are) with garbage collection held off
    until its first screen is out: start-up makes long-lived objects only, and the app collects again once
    it has drawn.  Textual is imported here, after the collector is off."""
    import gc

    gc.disable()
    from negtui.tui.app import NegtuiApp, run_app

    return run_app(NegtuiApp(scenario, rules=rules, seats=seats, ask_seats=ask_seats, replay=replay, follow=follow,
                             record=record, data_dir=data_dir, base=base, autoplay=autoplay, options=options,
                             loaded=loaded, compiled=compiled))


def progress(total: int, label: str, enabled: bool = True):
    """A progress bar on stderr, shown only when stderr is a terminal."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                    transient=True, disable=not (enabled and console.is_terminal))


def emit_json(obj: object) -> None:
    typer.echo(json.dumps(obj, indent=1))


def report_fault(neg: Negotiation, labels: list[str]):
    """An on_fault callback that tells stderr which seat failed on which turn, and what was played."""
    from negtui.engine import Phase, shown_turn
    from negtui.names import player_names
    from negtui.scenario.untrusted import one_line

    def report(move) -> None:
        played = "a pass" if move.phase is Phase.PROPOSE else "a rejection"
        # the scenario's and the agent's words: nothing a terminal acts on
        seat = one_line(f"{player_names(neg.game.scenario)[move.player]} ({labels[move.player]})", 200)
        typer.echo(f"seat {seat}, turn {shown_turn(move.t)}: {one_line(move.fault or '', 300)}; played as {played}",
                   err=True)

    return report
