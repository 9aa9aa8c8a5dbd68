"""One deadline bounds a model's answer from connecting to its last byte: a server that sends its response
headers a byte every 0.3 s (minutes for a few kilobytes) is cut at the seat's time limit, and the decision
falls to the seat's fallback as any other failure of the model does."""

from __future__ import annotations

import threading
import time

from negtui.agents.llm import LLMAgent
from negtui.engine import PAPER, Negotiation, TurnDriver
from negtui.engine.turns import AgentFault
from negtui.scenario import load_scenario
from negtui.seats import Seat
from tests.paths import PILL

DEADLINE = 1.0
HEADER_BYTES = 16 * 1024  # at a byte every 0.3 s: over 80 minutes


def _bounded(call, limit: float) -> BaseException | object:
    """`call()` in a thread: what it returned or raised; fails if it is still running after `limit` s (an
    unbounded wait would hold the test for as long as the server trickles)."""
    out: list[object] = []

    def run() -> None:
        try:
            out.append(call())
        except BaseException as err:  # what the call raised is the answer
            out.append(err)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(limit)
    assert not worker.is_alive(), f"still waiting for the model after {limit:g} s, with a deadline of {DEADLINE:g} s"
    return out[0]


def test_headers_sent_a_byte_at_a_time_are_cut_at_the_deadline(fake_chat) -> None:
    chat = fake_chat(lambda body: ("trickle", 0.3, HEADER_BYTES))
    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    agent = LLMAgent(neg, 0, Seat(agent="llm", model="m", timeout=DEADLINE, base_url=chat.url))
    started = time.monotonic()
    try:
        got = _bounded(lambda: agent.choose_partner(neg.initial_state()), 5 * DEADLINE)
    finally:
        agent.close()
    assert isinstance(got, AgentFault) and str(got) == "no answer from m within 1 s", got
    assert time.monotonic() - started < 5 * DEADLINE
    assert len(chat.requests) == 1  # asked once: a late answer is not asked again


def test_a_decision_the_trickle_held_is_played_as_the_seats_fallback(fake_chat) -> None:
    chat = fake_chat(lambda body: ("trickle", 0.3, HEADER_BYTES))
    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    seats = [Seat(agent="llm", model="m", timeout=DEADLINE, base_url=chat.url), Seat.lens("upper")]
    from negtui.agents import Seating

    with Seating(neg, seats) as seating:
        driver = TurnDriver(neg, seating.agents)
        got = _bounded(lambda: driver.step(), 5 * DEADLINE)
    assert not isinstance(got, BaseException), got
    first = driver.events[0]
    assert first.passed and first.fault == "no answer from m within 1 s"
