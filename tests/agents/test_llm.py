"""The language-model seat against an OpenAI-compatible chat-completions server of the tests' own, on
loopback: good answers, malformed JSON, offers over the budget, timeouts and server errors.  No test
needs the network."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest

from negtui.agents import AgentOptions, Seating
from negtui.agents.llm import Unusable, _json_object
from negtui.engine import PAPER, Negotiation, TurnDriver
from negtui.record import load_record
from negtui.scenario import load_scenario
from negtui.seats import Seat
from tests.paths import PILL, SIX


def schema_of(body: dict) -> dict:
    return body["response_format"]["json_schema"]["schema"]


def proposing(body: dict) -> bool:
    return "partner" in schema_of(body)["properties"]


def pill_policy(body: dict) -> dict:
    """A plays the bait alone with B; B accepts and then passes."""
    if not proposing(body):
        return {"accept": True, "reason": "the bait is worth 30 to me"}
    if schema_of(body)["properties"]["partner"]["enum"] == ["A", "B"] and "You are A" in body["messages"][0]["content"]:
        return {"partner": "B", "offer": [["A", "bait"], ["B", "bait"]], "reason": "both gain 30"}
    return {"partner": "A", "offer": [], "reason": "nothing more to gain"}


def test_llm_seats_play_the_poison_pill_through_the_command_line(fake_chat, tmp_path):
    chat = fake_chat(pill_policy)
    rec = tmp_path / "llm.jsonl"
    env = {**os.environ, "OPENAI_BASE_URL": chat.url, "OPENAI_API_KEY": "sk-test-key"}
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", str(PILL), "--seat", "A=llm:test-model",
                          "--seat", "B=llm:test-model", "--json", "--record", str(rec)],
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["payoffs"] == [30.0, 30.0]
    assert [(t["proposer"], t["partner"], t["offer"], t["accepted"]) for t in out["turns"]] == [
        ("A", "B", [["A", "bait"], ["B", "bait"]], True), ("B", "A", [], False)]
    assert out["turns"][0]["decided_by"] == "B (llm: test-model)"
    assert chat.kinds() == ["propose", "respond", "propose"]
    first = chat.requests[0]
    assert first["path"] == "/v1/chat/completions"
    assert first["headers"]["Authorization"] == "Bearer sk-test-key"
    body = first["body"]
    assert body["model"] == "test-model" and body["response_format"]["type"] == "json_schema"
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert "Maximise your own payoff" in system and "make an offer your partner will accept" in system
    assert "at most 2 new commitments per player" in system
    assert "Choose a partner among: A, B" in user and "[ ] bait" in user and "poison" in user
    respond = chat.requests[1]["body"]["messages"][1]["content"]
    assert "A offers you a deal (turn 1 of 2): A commits bait; B commits bait" in respond
    header = load_record(rec).header
    assert header.seats["A"].model_dump() == {"agent": "llm", "model": "test-model"}
    assert "sk-test-key" not in rec.read_text()  # the key never goes into a record


def _play(neg: Negotiation, seats: dict[str, Seat], url: str, key: str | None = None):
    table = Seating(neg, {pid: s.model_copy(update={"base_url": url}) if s.agent == "llm" else s
                        for pid, s in seats.items()}, AgentOptions(api_key=key))
    try:
        driver = TurnDriver(neg, table.agents)
        driver.play()
        return driver.events
    finally:
        table.close()


def test_malformed_json_is_sent_back_once_and_the_second_answer_is_used(fake_chat):
    answers = iter(["Sure! I offer the bait.", {"partner": "B", "offer": [["A", "bait"], ["B", "bait"]],
                                                "reason": "fixed"}])
    chat = fake_chat(lambda body: next(answers) if proposing(body) else {"accept": False, "reason": "no"})
    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    events = _play(neg, {"A": Seat(agent="llm", model="m"), "B": Seat.lens("upper")}, chat.url)
    assert events[0].deal and events[0].offer.bits == 0b0101 and events[0].fault is None
    retry = chat.requests[1]["body"]["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2]["content"] == "Sure! I offer the bait."
    assert "the answer is not valid JSON" in retry[3]["content"]


def test_an_offer_over_the_budget_twice_is_played_as_a_pass(fake_chat):
    over = {"partner": "P1", "offer": [["P0", "a0"], ["P0", "a1"], ["P0", "a2"]], "reason": "all in"}
    chat = fake_chat(lambda body: over if proposing(body) else {"accept": False, "reason": "no"})
    sc = load_scenario(SIX)
    neg = Negotiation.from_scenario(sc, PAPER)
    seats = {p.id: Seat.lens("myopic", partner="greedy") for p in sc.players}
    seats["P0"] = Seat(agent="llm", model="m")
    events = _play(neg, seats, chat.url)
    mine = [ev for ev in events if ev.proposer == 0]
    assert mine and all(ev.passed and not ev.accepted for ev in mine)
    assert all(ev.fault == "m gave no usable answer twice: P0 would make 3 new commitments; the budget is 2"
               for ev in mine)
    assert chat.kinds().count("propose") == 2 * len(mine)  # one retry each
    answered = [ev for ev in events if ev.partner == 0 and ev.proposer != 0 and not ev.passed]
    assert all(not ev.accepted and ev.fault is None for ev in answered)


def test_a_slow_server_times_out_and_the_game_goes_on(fake_chat):
    # the answer comes far past the limit (the server's thread sleeps on after the test), so no scheduling
    # delay lets it in within the limit, and a client that waited for it would take 30 s, not under 5
    chat = fake_chat(lambda body: ("sleep", 30.0, {"partner": "B", "offer": [], "reason": "late"}))
    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    started = time.monotonic()
    events = _play(neg, {"A": Seat(agent="llm", model="slow", timeout=0.5), "B": Seat.lens("upper")}, chat.url)
    assert time.monotonic() - started < 5
    assert events[0].passed and events[0].fault == "no answer from slow within 0.5 s"
    assert len(events) == 2  # B still played its turn


def test_server_errors_and_a_wrong_key_are_faults_not_crashes(fake_chat):
    chat = fake_chat(lambda body: ("status", 401, "invalid api key"))
    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    events = _play(neg, {"A": Seat(agent="llm", model="m"), "B": Seat.lens("myopic")}, chat.url, key="sk-wrong")
    assert events[0].passed and events[0].fault.startswith(f"{chat.url} answered 401:")
    assert "invalid api key" in events[0].fault
    assert chat.requests[0]["headers"]["Authorization"] == "Bearer sk-wrong"  # the option beats the environment


def test_an_unreachable_server_is_a_fault(fake_chat):
    chat = fake_chat(pill_policy)
    url = chat.url
    chat.close()
    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    events = _play(neg, {"A": Seat(agent="llm", model="m", timeout=2), "B": Seat.lens("upper")}, url)
    assert events[0].passed and events[0].fault.startswith(f"cannot reach {url}")


def test_the_prompts_live_in_one_template_file(root):
    from negtui.agents.llm import PROMPTS, prompts

    assert PROMPTS.name == "llm_prompts.toml" and set(prompts()) == {
        "system", "propose", "respond", "retry", "paper_system", "paper_respond_system", "simultaneous",
        "simultaneous_propose", "simultaneous_respond", "paper_simultaneous"}
    source = (root / "negtui" / "agents" / "llm.py").read_text()
    assert "Maximise" not in source and "your partner will accept" not in source
    assert "expert strategic negotiator" not in (root / "negtui" / "agents" / "llm_paper.py").read_text()


def test_under_private_information_no_prompt_holds_another_players_value(fake_chat):
    """Every request the model gets (system and user messages) under private information: A's values
    and nothing of B's or C's; the same seat in public does show them, so a leak would be seen."""
    from tests.secrets import leaks, secret_scenario

    chat = fake_chat(lambda body: {"partner": "A", "offer": [], "reason": "wait"} if proposing(body)
                     else {"accept": False, "reason": "no"})
    neg = Negotiation.from_scenario(secret_scenario(), PAPER)
    seats = [Seat(agent="llm", model="m", base_url=chat.url), Seat.lens("upper", seed=1), Seat.lens("upper", seed=2)]
    for information in ("private", "public"):
        chat.requests.clear()
        with Seating(neg, seats, AgentOptions(information=information)) as seating:
            TurnDriver(neg, seating.agents).play()
        prompts = json.dumps([r["body"]["messages"] for r in chat.requests])
        assert chat.requests and (leaks(prompts) == []) == (information == "private"), information
        if information == "private":
            assert "the other values are secret" in prompts


def _completion(content: str) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode()


# a decision's time limit: short where running out of it is the point (a body a byte at a time), longer where
# the answer is refused for what it holds, so that reading a megabyte on a loaded machine is not taken for lateness
@pytest.mark.parametrize("answer, timeout, words", [
    (("raw", 200, b"[" * 100_000 + b"]" * 100_000), 5, "not a chat completion"),
    (("raw", 200, b'{"choices": ' + b"9" * 5000 + b"}"), 5, "not a chat completion"),
    (("raw", 200, _completion("[" * 100_000 + "]" * 100_000)), 5, "nested too deeply"),
    (("raw", 200, _completion('{"partner": ' + "9" * 5000 + "}")), 5,
     "the answer is not valid JSON: an integer of 5,000 digits"),
    (("raw", 500, b"\x1b]0;owned\x07\x1b[2J the server broke"), 5, "answered 500: ]0;owned[2J the server broke"),
    (("flood",), 5, "answered with over 1,048,576 bytes"),
    (("drip", 0.3, _completion("{}")), 1, "no answer from m within 1 s"),
])
def test_a_hostile_model_server_is_a_fault_bounded_in_size_and_time(fake_chat, monkeypatch, answer, timeout, words):
    """Deep JSON or a 5,000-digit integer in the body or in the model's text, terminal escapes in an error,
    a body without end, a body a byte at a time: each decision a fault (with the escapes taken out), the
    body never read past its limit, the decision never past its time, and the game played to its end."""
    from negtui.agents import llm

    monkeypatch.setattr(llm, "MAX_BODY", 1 << 20)
    chat = fake_chat(lambda body: answer)
    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    started = time.monotonic()
    events = _play(neg, {"A": Seat(agent="llm", model="m", timeout=timeout), "B": Seat.lens("upper")}, chat.url)
    assert time.monotonic() - started < 10
    assert events[0].passed and words in events[0].fault, events[0].fault
    assert "\x1b" not in events[0].fault and "\x07" not in events[0].fault
    assert len(events) == 2


def test_the_base_url_option_reaches_the_request_and_beats_the_environment(fake_chat, tmp_path):
    """`--llm-base-url` is where the requests go, whatever OPENAI_BASE_URL says (it was once dropped, and
    the requests went to OpenAI's public endpoint with the user's key)."""
    chat = fake_chat(pill_policy)
    elsewhere = fake_chat(pill_policy)
    env = {**os.environ, "OPENAI_BASE_URL": elsewhere.url, "OPENAI_API_KEY": "sk-test-key"}
    rec = tmp_path / "g.jsonl"
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", str(PILL), "--seat", "A=llm:m",
                          "--seat", "B=upper", "--llm-base-url", chat.url, "--json", "--record", str(rec)],
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    assert chat.requests and not elsewhere.requests
    assert all(r["path"] == "/v1/chat/completions" for r in chat.requests)
    chat.requests.clear()  # a fork of it, the model seat given again and sent elsewhere by the option
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", "--from-record", str(rec), "--turn", "1",
                          "--seat", "A=llm:m", "--llm-base-url", elsewhere.url, "--json"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    assert elsewhere.requests and not chat.requests


@pytest.mark.parametrize("text, words", [
    ('{"accept": true, "note": NaN}', "NaN is not a number JSON allows"),
    ('{"accept": true, "note": "\\ud800"}', "lone surrogate"),
    ('{"a":' * 70 + "1" + "}" * 70, "nested too deeply (more than 64 levels)"),
    ("```json\n[1, 2]\n```", "must be one JSON object"),
])
def test_a_models_answer_is_read_as_strictly_as_any_json_from_outside(text, words):
    """The same reader as scenarios and records (scenario.untrusted): what they refuse, a model's answer
    may not carry either."""
    with pytest.raises(Unusable, match=re.escape(words)):
        _json_object(text)
