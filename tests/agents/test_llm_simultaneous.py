"""The language-model seat under simultaneous rules (docs/simultaneous.md): its prompts say that other
proposers offer at the same time against the same start-of-turn commitments and that an accepted offer
conflicting with one settled before it is void; under one proposer a turn they are exactly as they were.

The race for the port (scenarios/teaching/simultaneous-race.json): one turn, proposers A then B."""

from __future__ import annotations

import json

from negtui.agents import AgentOptions, Seating
from negtui.agents.llm import prompts
from negtui.engine import Negotiation, TurnDriver, get_rules
from negtui.scenario import load_scenario
from negtui.seats import Seat
from tests.paths import PILL, TEACHING

RACE = TEACHING / "simultaneous-race.json"
SIM = "paper+simultaneous"
VOID_WORDS = "conflicts with one applied before it in the same turn is void"


def flat(text: str) -> str:
    return " ".join(text.split())


def _play(neg: Negotiation, seats: dict[str, Seat], url: str) -> None:
    seating = Seating(neg, {pid: s.model_copy(update={"base_url": url}) if s.agent == "llm" else s
                            for pid, s in seats.items()}, AgentOptions(api_key="sk-test"))
    try:
        TurnDriver(neg, seating.agents).play()
    finally:
        seating.close()


def own_policy(body: dict) -> dict:
    props = body["response_format"]["json_schema"]["schema"]["properties"]
    if "partner" in props:
        return {"partner": "C", "offer": [], "reason": "wait"}
    return {"accept": True, "reason": "fine"}


def race(prompt: str | None = None, rules: str = SIM) -> tuple[Negotiation, dict[str, Seat]]:
    neg = Negotiation.from_scenario(load_scenario(RACE), get_rules(rules))
    bot = Seat.lens("myopic", partner="greedy", sims=4)
    llm = Seat(agent="llm", model="m", prompt=prompt) if prompt else Seat(agent="llm", model="m")
    return neg, {"A": llm, "B": Seat(agent="llm", model="m", prompt=prompt) if prompt else bot,
                 "C": llm, "D": bot}


def test_the_prompts_say_the_turn_is_simultaneous(fake_chat):
    chat = fake_chat(own_policy)
    neg, seats = race()
    _play(neg, seats, chat.url)
    bodies = [r["body"] for r in chat.requests]
    propose = next(b for b in bodies if "You are A" in b["messages"][0]["content"])
    system, user = propose["messages"][0]["content"], propose["messages"][1]["content"]
    assert system.startswith(prompts()["system"].substitute(seat="A", name="Atlas Line", players=4, turns=1,
                                                            budget=2))
    system, user = flat(system), flat(user)
    assert "a turn has up to 2 proposers instead of one" in system and VOID_WORDS in system
    assert "at the same time, each against the same commitments (those made before the turn)" in system
    assert user.endswith("if one applied before yours conflicts with yours, yours is void.")
    assert "This turn's proposers, in the order their accepted offers are applied: A, B." in user
    respond = next(b for b in bodies if "You are C" in b["messages"][0]["content"])["messages"][1]["content"]
    assert "you see only those made to you" in flat(respond) and "this one is void" in flat(respond)


def test_the_sequential_prompts_are_the_same_as_before(fake_chat):
    chat = fake_chat(own_policy)
    neg = Negotiation.from_scenario(load_scenario(PILL), get_rules("paper"))
    seats = {"A": Seat(agent="llm", model="m"), "B": Seat.lens("upper")}
    _play(neg, seats, chat.url)
    words = json.dumps([r["body"]["messages"] for r in chat.requests])
    assert "simultaneous" not in words.lower() and "void" not in words and "same time" not in words
    system = chat.requests[0]["body"]["messages"][0]["content"]
    assert system == prompts()["system"].substitute(seat="A", name=neg.game.scenario.players[0].display, players=2,
                                                    turns=neg.game.T, budget=neg.game.budget)


def paper_policy(body: dict) -> dict:
    if "OFFER" in body["messages"][-1]["content"]:
        return {"accept": True}
    return {"selected_partner_id": 2, "proposer_action_vector": [0], "partner_action_vector": [0, 0, 0, 0]}


def test_the_papers_prompt_says_so_too_only_under_simultaneous_rules(fake_chat):
    chat = fake_chat(paper_policy)
    neg, seats = race("paper")
    _play(neg, seats, chat.url)
    first = chat.requests[0]["body"]["messages"]
    assert first[0]["content"].startswith(prompts()["paper_system"].substitute(budget=2))
    assert "Simultaneous turns: several players propose in the same turn" in first[0]["content"]
    turn = json.loads(first[2]["content"].split("\n", 1)[1])
    assert turn["proposers_this_turn"] == [0, 1]
    chat = fake_chat(paper_policy)
    neg = Negotiation.from_scenario(load_scenario(PILL), get_rules("paper"))
    _play(neg, {"A": Seat(agent="llm", model="m", prompt="paper"), "B": Seat.lens("upper")}, chat.url)
    first = chat.requests[0]["body"]["messages"]
    assert first[0]["content"] == prompts()["paper_system"].substitute(budget=2)
    assert "proposers_this_turn" not in first[2]["content"]
