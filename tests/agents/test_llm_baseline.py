"""The paper's language-model baseline as the paper ran it, against a loopback model server: a strict JSON
schema (and JSON objects where a server refuses one, said in the result), offers applied unchecked as the
reference's runner applies them (and recorded so, so that the record verifies), the partner's answers given by
a lens or the model, and several samples of each game with their seeds."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from negtui.agents.llm_paper import ANSWER, PROPOSAL
from negtui.record import load_record
from negtui.sweep.results import read_table
from negtui.sweep.spec import SweepSpec
from tests.agents.test_llm_paper import context, pill_paper_policy
from tests.paths import PILL


def run(chat, *args: str, timeout: float = 90) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_BASE_URL": chat.url, "OPENAI_API_KEY": "sk-test-key"}
    return subprocess.run([sys.executable, "-m", "negtui.cli", *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def test_the_papers_prompt_asks_for_a_strict_schema_of_each_answer(fake_chat):
    chat = fake_chat(pill_paper_policy)
    res = run(chat, "autoplay", str(PILL), "--seat", "A=llm:m", "--seat", "B=llm:m", "--llm-prompt", "paper", "--json")
    assert res.returncode == 0, res.stderr
    formats = [r["body"]["response_format"] for r in chat.requests]
    proposal, answer = formats[0], next(f for r, f in zip(chat.requests, formats)
                                        if "OFFER" in r["body"]["messages"][-1]["content"])
    assert proposal == {"type": "json_schema", "json_schema": {"name": "negtui_decision", "strict": True,
                                                               "schema": PROPOSAL}}
    assert answer["json_schema"]["schema"] == ANSWER and answer["json_schema"]["strict"] is True
    assert {r["body"]["seed"] for r in chat.requests} == {0, 1}  # each seat sends its own seed


def test_a_server_that_refuses_the_schema_is_asked_for_json_objects_and_the_result_says_so(fake_chat, tmp_path):
    def refusing(body: dict) -> object:
        if body["response_format"]["type"] == "json_schema":
            return ("status", 400, "response_format json_schema is not supported")
        return pill_paper_policy(body)

    chat = fake_chat(refusing)
    spec = SweepSpec(name="refuse", scenarios=[str(PILL)], methods=[{"name": "llm", "seats": "llm:m"}], seeds=1,
                     exact=False, welfare="none", llm_prompt="paper", llm_samples=2)
    path = tmp_path / "spec.json"
    path.write_text(spec.model_dump_json())
    res = run(chat, "sweep", str(path), "-o", str(tmp_path / "r.parquet"), "--workers", "1")
    assert res.returncode == 0, res.stderr
    rows = [r for r in read_table(tmp_path / "r.parquet").to_pylist() if r["method"] == "llm"]
    assert sorted(r["sample"] for r in rows) == [0, 1] and len({r["sample_seed"] for r in rows}) == 2
    assert all("the server refused a strict JSON schema (400" in r["notes"] for r in rows)
    refused = [r for r in chat.requests if r["body"]["response_format"]["type"] == "json_schema"]
    assert len(refused) == 4  # once per seat and sample: then JSON objects for the rest of its game
    assert rows[0]["payoffs"] == [30.0, 30.0]


def test_unchecked_offers_bind_without_an_answer_and_the_record_verifies(fake_chat, tmp_path):
    """The reference applies its model's offers unconditionally: A's poison bundle binds B, whose lens would
    refuse it, and no answer is asked of B; the record names the seat's rule, so --verify follows it."""
    def bundle(body: dict) -> object:
        _, turn = context(body)
        if turn["proposer_id"] == 0 and turn["current_turn"] == 0:
            return {"selected_partner_id": 1, "proposer_action_vector": [1, 0], "partner_action_vector": [1, 1]}
        return {"selected_partner_id": 0, "proposer_action_vector": [0, 0], "partner_action_vector": [0, 0]}

    chat = fake_chat(bundle)
    record = tmp_path / "bound.jsonl"
    res = run(chat, "autoplay", str(PILL), "--seat", "A=llm:m", "--seat", "B=upper", "--llm-prompt", "paper",
              "--llm-offers", "unchecked", "--json", "--record", str(record))
    assert res.returncode == 0, res.stderr
    first = json.loads(res.stdout)["turns"][0]
    assert first["accepted"] and first["offer"] == [["A", "bait"], ["B", "bait"], ["B", "poison"]]
    assert "(offers bind)" in first["decided_by"] and first["decided_by"].startswith("A ")
    assert not any("OFFER" in r["body"]["messages"][-1]["content"] for r in chat.requests)  # nobody was asked
    header = load_record(record).header
    assert header.seats["A"].offers == "unchecked"
    verify = run(chat, "replay", str(record), "--verify")
    assert verify.returncode == 0 and "verified" in verify.stdout, verify.stdout + verify.stderr
    # checked (the default): B's upper lens refuses the same bundle
    res = run(chat, "autoplay", str(PILL), "--seat", "A=llm:m", "--seat", "B=upper", "--llm-prompt", "paper",
              "--json")
    assert json.loads(res.stdout)["turns"][0]["accepted"] is False


def test_a_lens_answers_offers_to_a_model_seat_when_the_spec_says_so(fake_chat):
    """With --llm-responder lower, offers to the model's seats are answered by the lower lens: the model is
    asked only to propose."""
    chat = fake_chat(pill_paper_policy)
    res = run(chat, "autoplay", str(PILL), "--seat", "A=llm:m", "--seat", "B=llm:m", "--llm-prompt", "paper",
              "--llm-responder", "lower", "--json")
    assert res.returncode == 0, res.stderr
    assert not any("OFFER" in r["body"]["messages"][-1]["content"] for r in chat.requests)
    out = json.loads(res.stdout)
    assert out["turns"][0]["decided_by"] == "B (llm: m/lower)"
    res = run(chat, "autoplay", str(PILL), "--seat", "A=llm:m", "--llm-responder", "psychic")
    assert res.returncode == 2 and "--llm-responder: unknown lens 'psychic'" in res.stderr


@pytest.mark.parametrize("field, value, words", [
    ("llm_samples", 0, "greater than or equal to 1"), ("llm_responder", "psychic", "unknown lens"),
    ("llm_offers", "sometimes", "'checked' or 'unchecked'"),
])
def test_the_baselines_spec_fields_are_checked(field, value, words):
    with pytest.raises(ValueError, match=words):
        SweepSpec(name="x", scenarios=[str(PILL)], **{field: value})


def dead_url() -> str:
    """A loopback address nothing listens on (the port was free a moment ago)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_a_server_that_never_answers_gives_void_games_not_data(tmp_path):
    """With the model server down, every decision of the model's seats fails: those plays are void (the note
    says why), the sweep says how many, and the report counts none of them (no model column, its claim not
    measurable) instead of reading the passes as the model's play."""
    spec = SweepSpec(name="down", scenarios=[str(PILL)], methods=["myopic", {"name": "llm", "seats": "llm:m"}],
                     seeds=1, exact=False, welfare="none", llm_prompt="negtui", llm_samples=2)
    path = tmp_path / "spec.json"
    path.write_text(spec.model_dump_json())
    env = {**os.environ, "OPENAI_BASE_URL": dead_url(), "OPENAI_API_KEY": "sk-test-key"}
    res = subprocess.run([sys.executable, "-m", "negtui.cli", "sweep", str(path), "-o", str(tmp_path / "r.parquet"),
                          "--workers", "1"], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "2 plays by a language model are void" in res.stderr
    rows = read_table(tmp_path / "r.parquet").to_pylist()
    llm = [r for r in rows if r["method"] == "llm"]
    assert len(llm) == 2 and all(r["game_void"] for r in llm)
    assert all(r["notes"].startswith("void: ") and "no answer from the model server" in r["notes"]
               and "cannot reach" in r["notes"] for r in llm)
    assert all(r["game_void"] is None for r in rows if r["method"] != "llm")
    out = subprocess.run([sys.executable, "-m", "negtui.cli", "report", str(tmp_path / "r.parquet"), "-o",
                          str(tmp_path / "rep")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "**Void games, left out of everything below**: 2 of llm" in md
    assert "methods: myopic." in md  # the model's plays are in no table
    claims = json.loads((tmp_path / "rep" / "claims.json").read_text())
    assert claims["sections"][0]["void_games"] == {"llm": 2}
    assert next(c for c in claims["claims"] if c["id"] == "table2.llm-lowest")["verdict"] == "not measurable"


def test_the_models_settings_are_result_columns_and_part_of_the_task_key(fake_chat, tmp_path):
    """Re-running a sweep into its file with the model's offers unchecked plays its games again (they are other
    games: the settings are in the task key) instead of saying there is nothing left to play; every row says
    how the model was asked, and the report gives each setting a section of its own."""
    chat = fake_chat(pill_paper_policy)
    spec = SweepSpec(name="settings", scenarios=[str(PILL)], methods=["myopic", {"name": "llm", "seats": "llm:m"}],
                     seeds=1, exact=False, welfare="none", llm_prompt="paper", llm_samples=1, llm_temperature=0.5)
    path = tmp_path / "spec.json"
    path.write_text(spec.model_dump_json())
    out = tmp_path / "r.parquet"
    first = run(chat, "sweep", str(path), "-o", str(out), "--workers", "1")
    assert first.returncode == 0, first.stderr
    again = run(chat, "sweep", str(path), "-o", str(out), "--workers", "1", "--llm-offers", "unchecked")
    assert again.returncode == 0, again.stderr
    assert "1 games run now, 0 already there" in again.stderr
    rows = read_table(out).to_pylist()
    assert {(r["method"], r["llm_offers"]) for r in rows} == {
        (m, o) for m in ("baseline", "myopic", "llm") for o in ("checked", "unchecked")}
    assert {(r["llm_model"], r["llm_prompt"], r["llm_samples"], r["llm_temperature"], r["llm_responder"])
            for r in rows} == {("m", "paper", 1, 0.5, "model")}
    assert all(r["game_void"] is False for r in rows if r["method"] == "llm")
    res = run(chat, "report", str(out), "-o", str(tmp_path / "rep"))
    assert res.returncode == 0, res.stderr
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "## settings (llm m: paper prompt, offers checked, the model answers offers, 1 samples, temperature " \
           "0.5) · paper rules" in md
    assert "offers unchecked" in md
