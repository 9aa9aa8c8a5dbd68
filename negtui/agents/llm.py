"""A language model in a seat, through any OpenAI-compatible chat-completions API.

The paper's Appendix E baseline, done properly: the model sees the game as its seat knows it (observation_text),
is told its objectives (its own final payoff; offers the partner accepts), proposes a partner and an
offer in one structured JSON answer, and, unlike the reference, also decides as the partner.  An
answer that cannot be used (not JSON, an unknown partner or commitment, over the budget, against an
exclusive set) is sent back once with the reason; a second unusable answer, a timeout or an API error
raises `AgentFault`, so the turn is played as a pass or a rejection.

Base URL, model and key come from the seat and options, else from OPENAI_BASE_URL and OPENAI_API_KEY
as the `openai` SDK reads them, so local servers (llama.cpp, vLLM, Ollama) work the same way.  Prompt
text lives in llm_prompts.toml.  A seat with `prompt = "paper"` is the paper's own baseline instead
(llm_paper.py): zero-shot JSON, no answer sent back, API errors retried with exponential backoff.  No
temperature is sent unless the seat has one (some models accept only their default).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
import tomllib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from string import Template
from typing import TypeVar

from negtui.agents import llm_paper
from negtui.engine.knowledge import seat_negotiation
from negtui.engine.negotiation import IllegalMove, Negotiation, State
from negtui.engine.observation import observation_text
from negtui.engine.offers import Offer
from negtui.engine.turns import Agent, AgentFault
from negtui.scenario.untrusted import Untrusted, loads, one_line
from negtui.seats import Seat, SeatError

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_BODY = 4 << 20  # bytes of a server's answer read at most: a chat completion is a few kilobytes
PROMPTS = Path(__file__).with_name("llm_prompts.toml")
T = TypeVar("T")

_CELL = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}


@cache
def prompts() -> dict[str, Template]:
    with PROMPTS.open("rb") as fh:
        return {k: Template(v.strip()) for k, v in tomllib.load(fh).items()}


BACKOFF_ATTEMPTS = 5  # tries of one request under the paper's prompt (its runner: 5)
REFUSED_FORMAT = (400, 422)  # statuses with which a server refuses a response format it does not know
BACKOFF_FIRST = 0.5  # s before the second try, doubled each time, within the decision's time limit


class Unusable(ValueError):
    """An answer the game cannot use; the reason goes back to the model once."""


class ApiError(AgentFault):
    """The server could not be reached or answered with an error status: worth another try."""


class LLMAgent:
    def __init__(self, neg: Negotiation, player: int, seat: Seat, api_key: str | None = None,
                 information: str = "public", responder: Agent | None = None):
        """`responder`: the agent that answers offers to this seat in its place (a lens bot), else the model."""
        try:
            import httpx
        except ImportError:
            raise SeatError("llm: seats need the optional dependency httpx: pip install 'negtui[llm]'") from None
        self.neg, self.player, self.seat = neg, player, seat
        self.information = information
        self.label = seat.label
        self.model = seat.model or ""
        self.timeout = seat.decision_timeout
        self.base_url = (seat.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._httpx = httpx
        g = neg.game
        self._plan: tuple[tuple[int, int], int, Offer] | None = None  # (state, partner, offer) of choose_partner
        self.last_reason = ""
        self.paper = seat.prompt == "paper"
        self._rng = random.Random(player)  # the paper's random partner where the model names none that is legal
        self.responder = responder
        self.schema_refused = ""  # why the server took no strict JSON schema: answers are then JSON objects
        self.notes: list[str] = []  # what a result should say of how this seat was asked
        # requests sent and chat completions received: a seat asked that never got one played no game of its
        # own (every decision a pass), and a study must not read that as the model's play
        self.asked = self.answered = 0
        self.failure = ""  # why the last request got no answer
        # set when a whole decision's tries found no server and none ever answered: the seat asks no more (a
        # server that is down would otherwise cost every later decision its tries and waits, minutes a game,
        # for a play that is void anyway)
        self.given_up = ""
        p = g.scenario.players[player]
        self._system = prompts()["system"].substitute(
            seat=p.id, name=p.display, players=g.n, turns=g.T, budget=g.budget)
        if g.simultaneous:  # only then: a game of one proposer a turn is asked in the words it always was
            k = max(len(g.proposers(t)) for t in range(g.T)) if g.T else 1
            self._system += "\n\n" + prompts()["simultaneous"].substitute(k=k, budget=g.budget)

    # --- talking to the API ---------------------------------------------------------------------------
    def _state(self, s: State) -> str:
        """The state in words, as this seat may know it (engine.knowledge)."""
        return observation_text(self.neg, s, self.player, self.information)

    def _chat(self, messages: list[dict], schema: dict | None, deadline: float | None = None) -> str:
        """One chat completion's text; `schema` asks for that JSON shape (strict), None for any JSON object.
        A server that refuses a strict schema is asked for JSON objects from then on, and the seat says so."""
        strict = schema is not None and not self.schema_refused
        body: dict[str, object] = {"model": self.model, "messages": messages, "seed": self.seat.seed,
                                   "response_format": {"type": "json_schema", "json_schema": {
                                       "name": "negtui_decision", "strict": True, "schema": schema}} if strict
                                   else {"type": "json_object"}}
        if self.seat.temperature is not None:
            body["temperature"] = self.seat.temperature
        self.asked += 1
        try:
            status, text = self._post(body, deadline)
        except AgentFault as err:
            self.failure = str(err)
            raise
        if strict and status in REFUSED_FORMAT:
            self.schema_refused = f"{status}: {one_line(text, 120)}"
            self.notes.append(f"{self.model}: the server refused a strict JSON schema ({self.schema_refused}); "
                              "answers were asked for as JSON objects")
            return self._chat(messages, schema, deadline)
        if status != 200:
            self.failure = f"{self.base_url} answered {status}: {one_line(text, 200)}"
            raise ApiError(self.failure)
        try:
            content = loads(text)["choices"][0]["message"]["content"]  # type: ignore[index]
        except (Untrusted, LookupError, TypeError):
            self.failure = f"{self.base_url} answered {one_line(text, 200)!r}, not a chat completion"
            raise AgentFault(self.failure) from None
        if not isinstance(content, str):
            self.failure = f"{self.model} answered no text"
            raise AgentFault(self.failure)
        self.answered += 1
        return content

    @property
    def unanswered(self) -> str:
        """Why this seat never got an answer, where it was asked and never did; "" otherwise."""
        if not self.asked or self.answered:
            return ""
        return f"{self.label}: no answer from the model server in {self.asked} requests ({self.failure})"

    def _post(self, body: dict, deadline: float | None = None) -> tuple[int, str]:
        """The status and text of the answer, at most MAX_BODY bytes, with connecting, the response's headers
        and its body all bounded by one deadline, the decision's time limit.  httpx's own timeout holds per
        network operation, so a server sending its headers or its body a byte now and then would hold a
        decision for hours; only cancelling the whole request at the deadline bounds it, and a blocking
        client cannot be cancelled, so the request runs on an event loop of its own."""
        deadline = deadline if deadline is not None else time.monotonic() + self.timeout
        httpx = self._httpx
        try:
            return asyncio.run(self._post_by(body, deadline))
        except (TimeoutError, httpx.TimeoutException):  # the deadline cancelled it, wherever it was (or a read)
            raise AgentFault(f"no answer from {self.model} within {self.timeout:g} s") from None
        except httpx.HTTPError as err:
            raise ApiError(f"cannot reach {self.base_url}: {one_line(str(err), 200)}") from None

    async def _post_by(self, body: dict, deadline: float) -> tuple[int, str]:
        """A connection per request (an answer takes seconds, a connection on the loop that then closes
        costs milliseconds), all of it cancelled at `deadline` (time.monotonic)."""
        client = self._httpx.AsyncClient(base_url=self.base_url, headers=self._headers, timeout=self.timeout)
        async with (asyncio.timeout(max(0.0, deadline - time.monotonic())), client,
                    client.stream("POST", "/chat/completions", json=body) as res):
            pieces, size = [], 0
            async for piece in res.aiter_bytes():
                size += len(piece)
                if size > MAX_BODY:
                    raise AgentFault(f"{self.base_url} answered with over {MAX_BODY:,} bytes")
                pieces.append(piece)
            return res.status_code, b"".join(pieces).decode("utf-8", "replace")

    def _chat_with_backoff(self, messages: list[dict], schema: dict) -> str:
        """The paper's runner retries a failed API call with exponential waits; here within the decision's
        time limit (its 60-100 s waits would outlast any)."""
        if self.given_up:
            raise ApiError(self.given_up)
        deadline = time.monotonic() + self.timeout
        wait = BACKOFF_FIRST
        for attempt in range(BACKOFF_ATTEMPTS):
            try:
                return self._chat(messages, schema, deadline)
            except ApiError:
                if attempt == BACKOFF_ATTEMPTS - 1 or time.monotonic() + wait >= deadline:
                    if not self.answered:
                        self.given_up = f"{self.failure}; not asked again after {attempt + 1} tries"
                    raise
            time.sleep(wait)
            wait *= 2
        raise AssertionError("unreachable")

    def _decide(self, prompt: str, schema: dict, use: Callable[[dict], T]) -> T:
        """Ask; an unusable answer goes back once with the reason, a second one is a fault."""
        messages = [{"role": "system", "content": self._system}, {"role": "user", "content": prompt}]
        problem = ""
        for _ in range(2):
            content = self._chat(messages, schema)
            try:
                return use(_json_object(content))
            except Unusable as err:
                problem = str(err)
            messages += [{"role": "assistant", "content": content},
                         {"role": "user", "content": prompts()["retry"].substitute(problem=problem)}]
        raise AgentFault(f"{self.model} gave no usable answer twice: {problem}")

    # --- the agent ------------------------------------------------------------------------------------
    def choose_partner(self, s: State) -> int:
        """The model picks the partner and the offer in one answer; `make_offer` then returns that offer."""
        if self.paper:
            q, offer = self._paper_proposal(s)
            self._plan = ((s.t, s.bits), q, offer)
            return q
        neg = self.neg
        ids = neg.game.player_ids
        legal = [ids[q] for q in neg.legal_partners(s)]
        schema = {"type": "object", "additionalProperties": False, "required": ["partner", "offer", "reason"],
                  "properties": {"partner": {"type": "string", "enum": legal},
                                 "offer": {"type": "array", "items": _CELL}, "reason": {"type": "string"}}}
        prompt = prompts()["propose"].substitute(
            turn=s.t + 1, turns=neg.game.T, budget=neg.game.budget, partners=", ".join(legal),
            state=self._state(s)) + self._at_once("simultaneous_propose", s)

        def use(answer: dict) -> tuple[int, Offer]:
            partner = answer.get("partner")
            if partner not in legal:
                raise Unusable(f"partner {partner!r} is not one of {', '.join(legal)}")
            q = ids.index(partner)
            cells = self._cells_of(answer.get("offer"))
            try:
                offer = neg.offer(s, q, cells)
                neg.check_offer(s, offer)  # an illegal offer goes back to the model with the rule it breaks
            except IllegalMove as err:
                raise Unusable(str(err)) from None
            self.last_reason = str(answer.get("reason", ""))
            return q, offer

        q, offer = self._decide(prompt, schema, use)
        self._plan = ((s.t, s.bits), q, offer)
        return q

    def make_offer(self, s: State, partner: int) -> Offer:
        plan = self._plan
        self._plan = None
        if plan is None or plan[0] != (s.t, s.bits) or plan[1] != partner:
            if self.choose_partner(s) != partner:
                raise AgentFault("the model wanted another partner than the one asked for")
            plan, self._plan = self._plan, None
        assert plan is not None  # choose_partner made one
        return plan[2]

    def binds_offers(self, s: State) -> bool:
        """Offers made unchecked, as the reference's runner applies its model's: the partner is not asked."""
        return self.seat.binds_offers

    def respond(self, s: State) -> bool:
        if self.responder is not None:
            return self.responder.respond(s)
        if self.paper:
            return self._paper_answer(s)
        neg = self.neg
        o, ids = s.pending, neg.game.player_ids
        assert o is not None
        words = "; ".join(f"{ids[i]} commits " + ", ".join(neg.game.cell_pair(c)[1] for c in o.cells
                                                            if int(neg.game.owner[c]) == i)
                          for i in dict.fromkeys((o.proposer, o.partner))
                          if any(int(neg.game.owner[c]) == i for c in o.cells))
        schema = {"type": "object", "additionalProperties": False, "required": ["accept", "reason"],
                  "properties": {"accept": {"type": "boolean"}, "reason": {"type": "string"}}}
        prompt = prompts()["respond"].substitute(proposer=ids[o.proposer], turn=s.t + 1, turns=neg.game.T,
                                                 offer=words, state=self._state(s)) + \
            self._at_once("simultaneous_respond", s)

        def use(answer: dict) -> bool:
            accept = answer.get("accept")
            if not isinstance(accept, bool):
                raise Unusable(f'"accept" must be true or false, not {json.dumps(accept)}')
            self.last_reason = str(answer.get("reason", ""))
            return accept

        return self._decide(prompt, schema, use)

    def _at_once(self, template: str, s: State) -> str:
        """Under simultaneous rules, what a decision's prompt adds of the turn's proposers; "" otherwise."""
        g = self.neg.game
        if not g.simultaneous:
            return ""
        return "\n\n" + prompts()[template].substitute(proposers=", ".join(g.player_ids[p] for p in g.proposers(s.t)))

    def _cells_of(self, offer: object) -> list[int]:
        if not isinstance(offer, list):
            raise Unusable('"offer" must be a list of [player id, action id] pairs')
        cells = []
        for item in offer:
            if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
                raise Unusable(f"{json.dumps(item)} is not a [player id, action id] pair")
            c = self.neg.game.cell_index.get((item[0], item[1]))
            if c is None:
                raise Unusable(f"{item[0]}.{item[1]} is not a commitment of this game")
            cells.append(c)
        return cells

    # --- the paper's baseline (llm_paper.py) -----------------------------------------------------------
    def _paper_messages(self, system: str, s: State, proposer: int) -> list[dict]:
        known = seat_negotiation(self.neg, self.player, self.information).game  # the values this seat knows
        text = prompts()[system].substitute(budget=known.budget)
        if known.simultaneous:  # only then: the paper's own prompt stays as it is
            text += "\n\n" + prompts()["paper_simultaneous"].substitute(budget=known.budget)
        return [{"role": "system", "content": text},
                {"role": "user", "content": llm_paper.static_context(known)},
                {"role": "user", "content": llm_paper.turn_state(known, s, proposer)}]

    def _paper_ask(self, messages: list[dict], schema: dict) -> dict:
        content = self._chat_with_backoff(messages, schema)
        try:
            return _json_object(content)
        except Unusable as err:
            raise AgentFault(f"{self.model}: {err}") from None  # zero commitments, as the paper's runner

    def _paper_proposal(self, s: State) -> tuple[int, Offer]:
        answer = self._paper_ask(self._paper_messages("paper_system", s, self.player), llm_paper.PROPOSAL)
        return llm_paper.read_proposal(self.neg, s, self.player, answer, self._rng)

    def _paper_answer(self, s: State) -> bool:
        assert s.pending is not None
        messages = self._paper_messages("paper_respond_system", s, s.pending.proposer)
        messages.append({"role": "user", "content": llm_paper.offer_text(self.neg.game, s.pending)})
        accept = self._paper_ask(messages, llm_paper.ANSWER).get("accept")
        if not isinstance(accept, bool):
            raise AgentFault(f'{self.model} answered "accept" with {json.dumps(accept)[:40]}, not true or false')
        return accept

    def close(self) -> None:
        if self.responder is not None and hasattr(self.responder, "close"):
            self.responder.close()


def _json_object(content: str) -> dict:
    text = content.strip()
    if text.startswith("```"):  # some servers wrap JSON in a code fence despite the response format
        text = text.strip("`").removeprefix("json").strip()
    try:
        data = loads(text)
    except Untrusted as err:
        raise Unusable(f"the answer is {one_line(str(err), 160)}") from None
    if not isinstance(data, dict):
        raise Unusable("the answer must be one JSON object")
    return data
