"""The seats of one game and the agents sitting in them.

A `Seating` turns `Seat` descriptions into agents for the turn driver: lens bots (here, or in a bot
process so that the app's interface never waits), outside programs, language models; a human seat
has no agent (its decisions come from the app).  It is a context manager: leaving it stops every
outside program and bot process.  Lens bots share the seating's `Valuation` and model each partner
with the partner's real responding lens, read from the seating, so a seat switched mid-game is seen
at once.  Playing a seated game is always

    with Seating(neg, seats) as seating:
        TurnDriver(neg, seating.agents, start).play_out(on_turn=...)
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

from negtui.agents.beliefs import Beliefs
from negtui.agents.lens_bot import LensBot
from negtui.agents.llm import LLMAgent
from negtui.agents.options import AgentOptions
from negtui.agents.process import BotProcess, RemoteLensBot
from negtui.agents.stdio import StdioAgent
from negtui.engine.exact import check_size
from negtui.engine.knowledge import check_information, seat_negotiation
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.offers import Offer
from negtui.engine.turns import Agent, AgentFault
from negtui.engine.valuation import Valuation
from negtui.engine.vocabulary import ANTICIPATE, split_anticipation
from negtui.seats import Seat, SeatError

REMOTE_FROM_CELLS = 40  # below this many commitments a bot decides in milliseconds: no process needed


def lens_bot(seat: Seat, valuation: Valuation, lens_of: Callable[[int], str | None] | None = None,
             beliefs: Beliefs | None = None) -> LensBot:
    propose, respond = seat.lenses or ("upper", "upper")
    return LensBot(beliefs.valuation if beliefs is not None else valuation, propose, respond, seat.partner, seat.sims,
                   seat.ucb, seat.seed, partner_lens=lens_of, beliefs=beliefs)


def seat_list(seats: dict[str, Seat] | list[Seat], player_ids: list[str]) -> list[Seat]:
    """Seats in player order; a seat not given is a lens bot with the default lens."""
    if isinstance(seats, dict):
        unknown = sorted(set(seats) - set(player_ids))
        if unknown:
            raise SeatError(f"no player {unknown[0]!r}; players are {', '.join(player_ids)}")
        return [seats.get(pid) or Seat(seed=i) for i, pid in enumerate(player_ids)]
    if len(seats) != len(player_ids):
        raise SeatError(f"{len(seats)} seats for {len(player_ids)} players")
    return list(seats)


class Seating:
    def __init__(self, neg: Negotiation, seats: dict[str, Seat] | list[Seat], options: AgentOptions | None = None,
                 valuation: Valuation | None = None):
        """`valuation`: the one to share with the caller (the app's forecasts and previews); else a new one."""
        self.neg = neg
        self.valuation = valuation if valuation is not None else Valuation(neg)
        self.options = options or AgentOptions()
        check_information(self.options.information)
        self._pictures: dict[int, Valuation] = {}
        self.seats: list[Seat] = seat_list(seats, neg.game.player_ids)
        self._process: BotProcess | None = BotProcess(neg, self.seats) if self._wants_process() else None
        self.agents: list[Agent | None] = []
        try:
            for i in range(len(self.seats)):
                self.agents.append(self._build(i))
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Seating:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _wants_process(self) -> bool:
        return (self.options.remote_bots and self.options.information == "public"
                and self.neg.game.n_cells >= REMOTE_FROM_CELLS
                and any(s.is_lens for s in self.seats))

    def respond_lens(self, q: int) -> str | None:
        """How seat q judges offers, if with a lens (a lens bot, or a language model answering with one)."""
        return self.seats[q].respond_lens

    def _build(self, i: int) -> Agent | None:
        seat = self.seats[i]
        if seat.is_human:
            return None
        if self.options.elsewhere:
            return Elsewhere(seat.label)
        if seat.is_lens:
            if self._process is not None:
                if seat.uses_exact:
                    check_size(self.neg.game)
                return RemoteLensBot(self._process, self.neg, i, seat.label)
            return self._lens(i, seat)
        information = self.options.information
        if seat.agent == "cmd":
            return StdioAgent(self.neg, i, seat, echo_stderr=self.options.echo_stderr, information=information)
        responder = self._lens(i, Seat.lens(seat.respond_lens, seed=seat.seed)) if seat.respond_lens else None
        return LLMAgent(self.neg, i, seat, api_key=self.options.api_key, information=information, responder=responder)

    def _lens(self, i: int, seat: Seat) -> LensBot:
        """A lens bot in this process, for seat i (as it knows the game)."""
        if seat.uses_exact:  # refused up front, with the solver's estimate, when the game is too large;
            check_size(self.neg.game)  # solved when first needed (the app solves it before, with progress)
        if self.options.information == "private":
            if self.neg.game.simultaneous and any(split_anticipation(x)[0] for x in seat.lenses or ()):
                raise SeatError(f"seat {self.neg.game.player_ids[i]}: {ANTICIPATE}: lenses predict the other "
                                "proposers' deals from everyone's values, which private information hides; play them "
                                "under public information")
            return lens_bot(seat, self.valuation, self.respond_lens, Beliefs(self.neg, i))
        return lens_bot(seat, self._valuation_of(i), self.respond_lens)

    def _valuation_of(self, i: int) -> Valuation:
        """The shared valuation, or under private information one on the game as seat i knows it."""
        picture = seat_negotiation(self.neg, i, self.options.information)
        if picture is self.neg:
            return self.valuation
        hit = self._pictures.get(i)
        if hit is None:
            hit = self._pictures[i] = Valuation(picture)
        return hit

    def set(self, i: int, seat: Seat) -> Agent | None:
        """Put another occupant in seat i (also mid-game); returns its agent."""
        old = self.agents[i]
        self.seats[i] = seat
        if self._process is None and self._wants_process():
            self._process = BotProcess(self.neg, self.seats)
        elif self._process is not None:
            self._process.set_seats(self.seats)
        self.agents[i] = self._build(i)
        _close(old)
        return self.agents[i]

    def close(self) -> None:
        for agent in self.agents:
            _close(agent)
        if self._process is not None:
            self._process.close()
            self._process = None


class Elsewhere:
    """A seat whose agent decides in another process (a table's): it names how that agent decides, so a
    copy of the game tells its turns as the table does, and decides nothing itself."""

    def __init__(self, label: str) -> None:
        self.label = label

    def choose_partner(self, s: State) -> int:
        raise AgentFault(f"{self.label} decides at the table")

    def make_offer(self, s: State, partner: int) -> Offer:
        raise AgentFault(f"{self.label} decides at the table")

    def respond(self, s: State) -> bool:
        raise AgentFault(f"{self.label} decides at the table")


def _close(agent: object) -> None:
    close = getattr(agent, "close", None)
    if close is not None:
        close()
