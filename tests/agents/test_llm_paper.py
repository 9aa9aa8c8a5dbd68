"""`--llm-prompt paper`: the paper's Appendix E baseline against a loopback model server.  The model gets
JSON matrices zero-shot (no forecasts, no words of the lenses), answers with a partner index and 0/1
vectors read as Appendix E reads them, API errors are retried with backoff, and no temperature is sent
unless asked for."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time

import pytest

from negtui.agents.llm_paper import read_proposal
from negtui.engine import PAPER, Negotiation
from negtui.scenario import load_scenario
from tests.paths import PILL, RIVER_BASIN


def autoplay(chat, *extra: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_BASE_URL": chat.url, "OPENAI_API_KEY": "sk-test-key"}
    return subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", str(PILL), "--seat", "A=llm:m",
                           "--seat", "B=llm:m", "--llm-prompt", "paper", "--json", *extra],
                          capture_output=True, text=True, env=env, timeout=timeout)


def context(body: dict) -> tuple[dict, dict]:
    """The static context and the turn state a request carries."""
    static, turn = body["messages"][1]["content"], body["messages"][2]["content"]
    assert static.startswith("--- STATIC GAME CONTEXT ---\n") and turn.startswith("--- CURRENT TURN STATE ---\n")
    return json.loads(static.split("\n", 1)[1]), json.loads(turn.split("\n", 1)[1])


def pill_paper_policy(body: dict) -> dict:
    """A (player 0) offers the joint project to B; B accepts; later proposers offer nothing."""
    _, turn = context(body)
    if "OFFER" in body["messages"][-1]["content"]:
        return {"accept": True}
    if turn["proposer_id"] == 0 and turn["current_turn"] == 0:
        return {"selected_partner_id": 1, "proposer_action_vector": [1, 0], "partner_action_vector": [1, 0]}
    return {"selected_partner_id": 0, "proposer_action_vector": [0, 0], "partner_action_vector": [0, 0]}


def test_the_model_gets_the_papers_json_matrices_and_plays_the_poison_pill(fake_chat):
    chat = fake_chat(pill_paper_policy)
    res = autoplay(chat)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["payoffs"] == [30.0, 30.0]
    first_turn = out["turns"][0]
    assert (first_turn["proposer"], first_turn["partner"], first_turn["offer"], first_turn["accepted"]) == (
        "A", "B", [["A", "bait"], ["B", "bait"]], True)
    first = chat.requests[0]["body"]
    static, turn = context(first)
    # goals bait (both players 30) and poison (A +10, B -23); bait needs both players' action 0
    assert static["matrices"]["G"] == [[30.0, 30.0], [10.0, -23.0]]
    assert static["matrices"]["sat_masks"] == {"0": [[1, 0], [1, 0]], "1": [[0, 0], [0, 1]]}
    assert static["topology"]["action_counts"] == {"0": 2, "1": 2} and static["topology"]["num_players"] == 2
    assert static["topology"]["round_robin_order"] == [0, 1]
    assert turn == {"current_agreement_matrix_P": [[0, 0], [0, 0]], "current_turn": 0, "max_changes_allowed": 2,
                    "proposer_id": 0}
    assert first["response_format"]["type"] == "json_schema" and "temperature" not in first
    assert "expert strategic negotiator" in first["messages"][0]["content"]
    words = json.dumps([r["body"]["messages"] for r in chat.requests]).lower()
    for lens_word in ("upper", "lower", "myopic", "optimistic", "cautious", "forecast"):
        assert lens_word not in words  # zero-shot: nothing of the lenses
    answer = next(r["body"] for r in chat.requests if "OFFER" in r["body"]["messages"][-1]["content"])
    offer = json.loads(answer["messages"][-1]["content"].split("\n", 1)[1])
    assert offer == {"partner_id": 1, "partner_action_vector": [1, 0], "proposer_action_vector": [1, 0],
                     "proposer_id": 0}


def test_a_temperature_is_sent_only_when_asked_for(fake_chat):
    chat = fake_chat(pill_paper_policy)
    assert autoplay(chat, "--llm-temperature", "0.7").returncode == 0
    assert {r["body"]["temperature"] for r in chat.requests} == {0.7}
    res = autoplay(chat, "--llm-temperature", "5")
    assert res.returncode == 2 and "--llm-temperature" in res.stderr and "Traceback" not in res.stderr


def test_api_errors_are_retried_with_backoff_then_the_answer_is_used(fake_chat):
    calls: list[float] = []

    def flaky(body: dict) -> object:
        calls.append(time.monotonic())
        if len(calls) <= 2:
            return ("status", 503, "overloaded")
        return pill_paper_policy(body)

    chat = fake_chat(flaky)
    res = autoplay(chat, "--agent-timeout", "10")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["payoffs"] == [30.0, 30.0]  # the third try's offer was played
    assert calls[1] - calls[0] >= 0.45 and calls[2] - calls[1] >= 0.95  # waits of 0.5 s, then 1 s


def test_a_seat_whose_server_never_answered_a_whole_decision_asks_no_more(fake_chat, tmp_path):
    """A server that is down costs each seat one decision's tries, not every decision's: the game is void
    anyway (no answer ever came), and asking on would take minutes a game."""
    longer = json.loads(PILL.read_text())
    longer["protocol"] |= {"rounds": 4, "schedule": None}
    path = tmp_path / "pill-4-rounds.json"
    path.write_text(json.dumps(longer))
    chat = fake_chat(lambda body: ("status", 503, "down"))
    env = {**os.environ, "OPENAI_BASE_URL": chat.url, "OPENAI_API_KEY": "sk-test-key"}
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "autoplay", str(path), "--seat", "A=llm:m", "--seat",
                          "B=llm:m", "--llm-prompt", "paper", "--json", "--agent-timeout", "1"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 0, res.stderr
    turns = json.loads(res.stdout)["turns"]
    assert len(turns) == 8
    assert len(chat.requests) <= 4  # two tries (0.5 s apart, within 1 s) by each of the two seats, then none
    assert all("answered 503" in t["fault"] for t in turns)
    assert all("not asked again after 2 tries" in t["fault"] for t in turns[2:])


def test_an_unreadable_answer_is_zero_commitments_not_a_second_question(fake_chat):
    chat = fake_chat(lambda body: "this is not JSON")
    res = autoplay(chat)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["payoffs"] == [0.0, 0.0] and all(t["offer"] == [] for t in out["turns"])
    assert all("not valid JSON" in t["fault"] for t in out["turns"])
    assert len(chat.requests) == len(out["turns"])  # never sent back for another try


@pytest.fixture
def pill():
    neg = Negotiation.from_scenario(load_scenario(PILL), PAPER)
    return neg, neg.initial_state()


@pytest.mark.parametrize("answer, partner, offer", [
    ({"selected_partner_id": 1, "proposer_action_vector": [1, 0], "partner_action_vector": [1, 1]}, 1,
     [["A", "bait"], ["B", "bait"], ["B", "poison"]]),
    ({"selected_partner_id": 1, "proposer_action_vector": [1, 0, 0], "partner_action_vector": [1, 0]}, 1,
     [["B", "bait"]]),  # a vector of the wrong length is all zeros
    ({"selected_partner_id": 1, "proposer_action_vector": "yes", "partner_action_vector": [0, 1]}, 1,
     [["B", "poison"]]),
    ({"selected_partner_id": 1, "proposer_action_vector": [2, 1], "partner_action_vector": [0, 0]}, 1,
     [["A", "side"]]),  # only a 1 is a commitment
    ({"selected_partner_id": 7, "proposer_action_vector": [1, 0], "partner_action_vector": [1, 0]}, None,
     None),  # not a player: a random legal partner
    ({"selected_partner_id": True}, None, []),
])
def test_an_answer_is_read_as_appendix_e_reads_it(pill, answer, partner, offer):
    neg, s = pill
    q, o = read_proposal(neg, s, 0, answer, random.Random(0))
    assert q in neg.legal_partners(s)
    if partner is not None:
        assert q == partner
    if offer is not None:
        assert neg.game.pairs_of(o.bits) == offer


def test_over_the_budget_or_against_an_exclusive_set_is_zero_commitments():
    """River basin: player 1 proposes first, with 4 actions, a budget of 2 and an exclusive pair of its own."""
    neg = Negotiation.from_scenario(load_scenario(RIVER_BASIN), PAPER)
    s, g = neg.initial_state(), neg.game
    me = g.proposer(0)
    assert int(g.m[me]) > g.budget
    partner = next(q for q in neg.legal_partners(s) if q != me)

    def offer(mine: list[int]) -> list[list[str]]:
        q, o = read_proposal(neg, s, me, {"selected_partner_id": partner, "proposer_action_vector": mine,
                                          "partner_action_vector": [0] * int(g.m[partner])}, random.Random(0))
        assert q == partner
        return neg.game.pairs_of(o.bits)

    assert offer([1] * int(g.m[me])) == []  # more than the budget: nothing
    pair = next([int(c) - int(g.offset[me]) for c in grp] for grp in g.groups if {int(g.owner[c]) for c in grp} == {me})
    both = [1 if a in pair else 0 for a in range(int(g.m[me]))]
    assert offer(both) == []  # both of an exclusive pair: nothing
    one = [1 if a == pair[0] else 0 for a in range(int(g.m[me]))]
    assert len(offer(one)) == 1  # one of them is a legal offer


def test_a_sweep_plays_the_papers_baseline_with_the_options_given(cli, fake_chat, tmp_path):
    from negtui.sweep.results import read_table

    chat = fake_chat(pill_paper_policy)
    spec = tmp_path / "llm.toml"
    spec.write_text(f'name = "llm"\nscenarios = ["{PILL}"]\nseeds = 1\nexact = false\nwelfare = "none"\n'
                    'methods = [{ name = "paper-llm", seats = "llm:m" }]\n')
    results = tmp_path / "r.csv"
    res = cli("sweep", spec, "-o", results, "--workers", "1", "--llm-base-url", chat.url, "--llm-prompt", "paper",
              "--llm-temperature", "1")
    assert res.exit_code == 0, res.output
    played = [r for r in read_table(results).to_pylist() if r["method"] == "paper-llm"]
    assert [r["payoffs"] for r in played] == [[30.0, 30.0]] * 5  # five samples of the one game (the default)
    assert sorted(r["sample"] for r in played) == list(range(5))
    assert all(r["body"]["response_format"]["type"] == "json_schema" and r["body"]["temperature"] == 1
               for r in chat.requests)
    res = cli("sweep", spec, "--dry-run", "--llm-prompt", "chatty")
    assert res.exit_code == 2 and "--llm-prompt" in res.stderr
