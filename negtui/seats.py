"""Who sits in a seat, in one place: the `Seat` model, its one parser and its one default.

The command line (`--seat NAME=…`), the app's seat dialog, game records and the bot process all
describe a seat with this model, so a seat written by one is read the same by every other.
Spelled on the command line as:

    NAME=human                 a person at the app
    NAME=LENS                  a lens bot (myopic, upper, lower, exact, adaptive, learned) proposing and responding
    NAME=PROPOSE/RESPOND       a lens bot with one lens per role, e.g. upper/lower
    NAME=learned[:MODEL.npz]   a lens bot valuing states with a model trained on exact solutions (negtui learn)
    NAME=utilitarian           a welfare-minded bot: the sum of everyone's (myopic) values decides
    NAME=maximin:LENS          a fairness-minded bot: the least of everyone's LENS values decides
    NAME=cmd:COMMAND           an outside program speaking the agent protocol on stdin/stdout
    NAME=llm:MODEL             a language model behind an OpenAI-compatible chat API
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path, PurePath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer, model_validator

from negtui.engine.learned_names import based, short_name
from negtui.engine.vocabulary import CRITERIA, LENSES, PARTNER_METHODS, check_judge, split_judge, split_roles
from negtui.names import name_key, player_labels, player_names, players_named
from negtui.scenario.io import problems_from_validation
from negtui.scenario.model import Scenario

DEFAULT_LENS = "upper"
DEFAULT_TIMEOUT = 30.0  # seconds an outside agent may take for one decision
SeatKind = Literal["lens", "human", "cmd", "llm"]
LlmPrompt = Literal["negtui", "paper"]  # llm: negtui's prompt (the state in words), or the paper's Appendix E


class SeatError(ValueError):
    """A seat that cannot be parsed or built."""


class Seat(BaseModel):
    """A seat's occupant and how it decides.  Lens bots carry their search parameters; outside agents
    their command or model.  Secrets (API keys) never go here: records store seats.

    Records and the bot process spell the lenses `propose` and `respond`; in code they are
    `propose_lens` and `respond_lens`, so that they read apart from an agent's decisions."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_by_name=True, validate_by_alias=True,
                              serialize_by_alias=True)

    agent: SeatKind = "lens"
    # lens bots: the lens when proposing (default DEFAULT_LENS), and when responding (default: the same)
    propose_lens: str | None = Field(default=None, alias="propose")
    respond_lens: str | None = Field(default=None, alias="respond")
    partner: str = "mcts"  # lens bots: partner choice (PARTNER_METHODS)
    sims: int = Field(default=50, ge=1, le=1_000_000)
    ucb: float = Field(default=10.0, ge=0.0, le=1e6, allow_inf_nan=False)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    command: str | None = None  # cmd: the program and its arguments, as a shell would split them
    model: str | None = None  # llm: the model name
    base_url: str | None = None  # llm: the API's base URL (default: OPENAI_BASE_URL or OpenAI's)
    prompt: LlmPrompt | None = None  # llm: which prompt (default negtui's)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0, allow_inf_nan=False)  # llm: sent only if set
    # llm: "unchecked": the model's offers bind the partner without an answer, as the reference's runner applies
    # them (default: checked, the partner answers); `respond_lens` set: the seat answers offers with that lens
    offers: Literal["checked", "unchecked"] | None = None
    person: str | None = Field(default=None, max_length=64)  # human: who sat there (a table's trainee)
    # cmd/llm: seconds per decision
    timeout: float | None = Field(default=None, gt=0.0, le=86_400.0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _complete(self) -> Seat:
        if self.partner not in PARTNER_METHODS:
            raise ValueError(f"unknown partner method {self.partner!r}; choose from {', '.join(PARTNER_METHODS)}")
        if self.agent == "lens":
            propose = self.propose_lens or DEFAULT_LENS
            respond = self.respond_lens or propose
            propose, respond = check_judge(propose), check_judge(respond)
            object.__setattr__(self, "propose_lens", propose)
            object.__setattr__(self, "respond_lens", respond)
        if self.agent == "cmd":
            if not self.command or not self.command.strip():
                raise ValueError("a cmd seat needs a command")
            try:
                if not shlex.split(self.command):
                    raise ValueError("a cmd seat needs a command")
            except ValueError as err:
                raise ValueError(f"cannot split the command {self.command!r}: {err}") from None
        if self.agent == "llm" and not (self.model and self.model.strip()):
            raise ValueError("an llm seat needs a model name")
        if self.agent == "llm" and self.respond_lens is not None:
            object.__setattr__(self, "respond_lens", check_judge(self.respond_lens))
        if self.offers is not None and self.agent != "llm":
            raise ValueError("only an llm seat's offers may go unchecked")
        return self

    @model_serializer(mode="wrap")
    def _compact(self, handler: Callable[[Seat], dict[str, Any]]) -> dict[str, Any]:
        """Only what the seat uses: a human or an outside agent has no search parameters."""
        data = handler(self)
        if self.agent != "lens":
            for key in ("partner", "sims", "ucb") + (() if self.agent == "llm" and self.seed else ("seed",)):
                data.pop(key, None)
        return {k: v for k, v in data.items() if v is not None}

    # --- constructors ---------------------------------------------------------------------------------
    @classmethod
    def lens(cls, propose: str = DEFAULT_LENS, respond: str | None = None, **search: object) -> Seat:
        return cls(agent="lens", propose_lens=propose, respond_lens=respond or propose, **search)

    @classmethod
    def human(cls, person: str | None = None) -> Seat:
        return cls(agent="human", person=person)

    # --- reading ----------------------------------------------------------------------------------------
    @property
    def is_human(self) -> bool:
        return self.agent == "human"

    @property
    def is_lens(self) -> bool:
        return self.agent == "lens"

    @property
    def decision_timeout(self) -> float:
        return self.timeout if self.timeout is not None else DEFAULT_TIMEOUT

    @property
    def lenses(self) -> tuple[str, str] | None:
        """(proposing, responding) lens of a lens bot."""
        if self.agent != "lens" or self.propose_lens is None or self.respond_lens is None:
            return None
        return self.propose_lens, self.respond_lens

    @property
    def uses_exact(self) -> bool:
        """Needs the game's exact solution, which only small games have."""
        return self.is_lens and "exact" in (split_judge(self.propose_lens or "")[1],
                                            split_judge(self.respond_lens or "")[1])

    @property
    def label(self) -> str:
        """Short: 'human', 'upper', 'upper/lower', 'cmd: agent.py', 'llm: MODEL'."""
        if self.agent == "lens":
            p, r = short_name(self.propose_lens or ""), short_name(self.respond_lens or "")
            return p if p == r else f"{p}/{r}"
        if self.agent == "cmd":
            return f"cmd: {self.program}"
        if self.agent == "llm":
            answers = f"/{self.respond_lens}" if self.respond_lens else ""
            return f"llm: {self.model}{answers}" + (" (offers bind)" if self.binds_offers else "")
        return "human"

    @property
    def binds_offers(self) -> bool:
        """A seat whose offers bind the partner without an answer (an llm seat with unchecked offers)."""
        return self.agent == "llm" and self.offers == "unchecked"

    @property
    def program(self) -> str:
        """The outside program by name: `python agents/mine.py --x` is mine.py, `python -m pkg` is pkg."""
        words = shlex.split(self.command or "")
        first = PurePath(words[0]).name if words else ""
        if first.startswith("python"):
            rest = iter(words[1:])
            for word in rest:
                if word == "-m":
                    return next(rest, first)
                if not word.startswith("-"):
                    return PurePath(word).name
        return first

    @property
    def spec(self) -> str:
        """How the command line spells this seat (the inverse of `parse_seat`)."""
        if self.agent == "cmd":
            return f"cmd:{self.command}"
        if self.agent == "llm":
            return f"llm:{self.model}"
        return self.label

    def reaching(self, base_url: str | None) -> Seat:
        """A language-model seat sent to `base_url` when one is given (a record names no address, or an
        address of the machine it was played on); any other seat as it is."""
        if self.agent != "llm" or base_url is None:
            return self
        return self.model_copy(update={"base_url": base_url})

    def baseline(self, offers: str | None = None, responder: str | None = None) -> Seat:
        """A language-model seat with its offers checked or not, answering offers with a lens (`responder`)
        or itself (None or "model"); any other seat as it is.  Raises SeatError for a responder that is not
        a lens."""
        if self.agent != "llm":
            return self
        try:
            return Seat.model_validate({**self.model_dump(), "offers": offers,
                                        "respond": None if responder in (None, "model") else responder})
        except ValidationError as err:
            raise SeatError(problems_from_validation(err)[0].message) from None

    def with_lenses(self, propose: str, respond: str | None = None) -> Seat:
        """This seat as a lens bot with other lenses, keeping its search parameters."""
        return Seat(**{**self.model_dump(include={"partner", "sims", "ucb", "seed"}),
                       "agent": "lens", "propose_lens": propose, "respond_lens": respond or propose})


def spelling_from(text: str, folder: Path) -> str:
    """A seat's spelling with each `learned:PATH` lens's relative PATH read from `folder` (a file that names a
    model, such as a course, names it from where that file is, not from where negtui runs)."""
    kind, colon, _ = text.strip().partition(":")
    if colon and kind in ("cmd", "llm"):
        return text
    propose, respond = split_roles(text)
    return based(propose, folder) + ("" if respond is None else f"/{based(respond, folder)}")


def parse_seat(text: str, base: Seat | None = None) -> Seat:
    """One seat from its command-line spelling; lens bots take their search parameters from `base`."""
    base = base or Seat()
    text = text.strip()
    kind, colon, rest = text.partition(":")
    try:
        if colon and kind in ("cmd", "llm"):
            if not rest.strip():
                raise SeatError(f"{kind}: needs {'a command' if kind == 'cmd' else 'a model name'} after the colon")
            if kind == "cmd":
                return Seat(agent="cmd", command=rest.strip(), timeout=base.timeout)
            return Seat(agent="llm", model=rest.strip(), base_url=base.base_url, timeout=base.timeout,
                        prompt=base.prompt, temperature=base.temperature, seed=base.seed)
        if text == "human":
            return Seat.human()
        propose, respond = split_roles(text)
        return base.with_lenses(propose, respond)
    except ValidationError as err:
        raise SeatError(problems_from_validation(err)[0].message) from None


SPELLINGS = ("human", *LENSES, "learned[:MODEL.npz]", "PROPOSE/RESPOND (e.g. upper/lower)", "utilitarian[:LENS]",
             "maximin[:LENS]",
             "cmd:COMMAND", "llm:MODEL")


def _check_spelling(text: str) -> None:
    """A seat spelled as none of the kinds a seat can be: every spelling named (not the lenses alone, as if a
    person or a program could not sit there), with the one it is closest to.  A spelling with a `/` or a `:`
    is a kind already, whose own check says what is wrong with it."""
    text = text.strip()
    if "/" in text or ":" in text or text == "human":
        return
    try:
        check_judge(text)
    except ValueError:
        import difflib

        near = difflib.get_close_matches(text, ["human", *LENSES, *CRITERIA, "cmd:", "llm:"], n=1, cutoff=0.6)
        guess = f"; did you mean {near[0]}?" if near else ""
        raise SeatError(f"unknown seat {text!r}: a seat is {', '.join(SPELLINGS[:-1])} or {SPELLINGS[-1]}{guess}"
                        ) from None


def parse_seats(specs: list[str], players: list[str] | Scenario, base: Seat | dict[str, Seat] | None = None,
                ) -> dict[str, Seat]:
    """Seats given as NAME=SEAT, by player id; raises SeatError naming the spec at fault.  Given the scenario,
    NAME is an id or a name as the app shows it (`--seat "Upstream State=human"`); the seats are keyed by id.

    Lens bots take their search parameters from `base`: one seat for all (bot i seeded base.seed + i,
    as in `default_seats`), or each player's own (a fork keeps the recorded bots' parameters)."""
    sc, player_ids = (players, players.player_ids) if isinstance(players, Scenario) else (None, players)
    out: dict[str, Seat] = {}
    for spec in specs:
        given, sep, what = spec.partition("=")
        given = given.strip()
        if not sep or not given or not what.strip():
            raise SeatError(f"seat {spec!r}: expected NAME=SEAT, e.g. {player_ids[0]}=upper, "
                            f"{player_ids[0]}=human or {player_ids[0]}=cmd:\"python agent.py\"")
        name = _player(spec, given, player_ids, sc)
        if isinstance(base, dict):
            own = base.get(name) or Seat()
        else:
            own = (base or Seat()).model_copy(update={"seed": (base or Seat()).seed + player_ids.index(name)})
        try:
            _check_spelling(what)
            out[name] = parse_seat(what, own)
        except SeatError as err:
            raise SeatError(f"seat {spec!r}: {err}") from None
    return out


def _player(spec: str, given: str, player_ids: list[str], sc: Scenario | None) -> str:
    """The id of the player a seat's NAME names, or a SeatError saying who the players are (by the names
    the app shows) and which one a typo meant."""
    found = [given] if given in player_ids else [] if sc is None else players_named(sc, given)
    if len(found) == 1:
        return found[0]
    labels = player_labels(sc) if sc is not None else {pid: pid for pid in player_ids}
    if found:
        raise SeatError(f"seat {spec!r}: {given!r} could be {' or '.join(labels[pid] for pid in found)}: give the "
                        f"id ({', '.join(found)})")
    import difflib

    shown = dict(zip(player_ids, player_names(sc) if sc is not None else player_ids, strict=True))
    ways = {name_key(w): shown[pid] for pid in player_ids for w in (pid, shown[pid], labels[pid])}
    near = difflib.get_close_matches(name_key(given), list(ways), n=1, cutoff=0.6)
    guess = f"; did you mean {ways[near[0]]!r}?" if near else ""
    raise SeatError(f"seat {spec!r}: no player {given!r}{guess}; players are {', '.join(labels.values())}")


def default_seats(player_ids: list[str], base: Seat | None = None, lens: str | None = None) -> dict[str, Seat]:
    """Every seat a lens bot with the default lens (or `lens`); bot i gets seed base.seed + i."""
    base = base or Seat()
    propose = lens or base.propose_lens or DEFAULT_LENS
    return {pid: base.with_lenses(propose, None if lens else base.respond_lens).model_copy(
        update={"seed": base.seed + i}) for i, pid in enumerate(player_ids)}


__all__ = ["DEFAULT_LENS", "DEFAULT_TIMEOUT", "PARTNER_METHODS", "Seat", "SeatError", "default_seats", "parse_seat",
           "parse_seats"]
