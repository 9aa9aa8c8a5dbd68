"""Rule-set variants for ablations: `paper+lower_reference_credibility` and the like are read wherever a
rule set is named, play what their switches say, and travel whole in records."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from negtui.engine import PAPER, REFERENCE, get_rules
from negtui.engine.rules import SWITCHES, rule_set_name
from tests.paths import CLIMATE, PILL


def test_a_variant_turns_named_switches_on_and_off_and_is_named_canonically():
    r = get_rules("paper+mcts_leaf_myopic+lower_reference_credibility")
    assert r.lower_reference_credibility and r.mcts_leaf_myopic and not r.offer_ties_last
    assert r == PAPER.with_(name=r.name, lower_reference_credibility=True, mcts_leaf_myopic=True)
    assert r.name == "paper+lower_reference_credibility+mcts_leaf_myopic"  # sorted: one name per variant
    assert rule_set_name("paper+mcts_leaf_myopic+lower_reference_credibility") == r.name
    assert get_rules("reference-offer_ties_last").name == "reference-offer_ties_last"
    assert get_rules("paper-lower_reference_credibility") is PAPER  # changes nothing: the rule set itself
    assert get_rules("reference") is REFERENCE and "offer_ties_realised" in SWITCHES
    assert "accept_tolerance" not in SWITCHES and "name" not in SWITCHES  # only on/off switches


@pytest.mark.parametrize("name, words", [("paperx", "unknown rule set"), ("paper+nope", "unknown switch 'nope'"),
                                         ("paper+", "unknown rule set"), ("upper+offer_ties_last", "unknown rule set"),
                                         ("paper+offer_ties_last;rm", "unknown rule set")])
def test_an_unknown_variant_is_refused_with_the_switches_listed(name, words):
    with pytest.raises(ValueError, match=words):
        get_rules(name)


def cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "negtui.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def test_a_variant_plays_differently_where_its_switch_matters_and_its_record_verifies(tmp_path):
    """The climate game with every seat lower: the reference's credibility rule changes the game under
    `paper` rules (as measured for the issue of rule ablations), and the record replays and verifies."""
    runs = {}
    for rules in ("paper", "paper+lower_reference_credibility"):
        rec = tmp_path / f"{rules}.jsonl"
        res = cli("autoplay", CLIMATE, "--lens", "lower", "--rules", rules, "--sims", 10, "--json", "--record", rec)
        assert res.returncode == 0, res.stderr[-2000:]
        runs[rules] = json.loads(res.stdout)
        assert runs[rules]["rules"] == rules
        verify = cli("replay", rec, "--verify")
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert json.loads(rec.read_text().splitlines()[0])["rules"]["lower_reference_credibility"] == (rules != "paper")
    assert runs["paper"]["turns"] != runs["paper+lower_reference_credibility"]["turns"]
    res = cli("autoplay", PILL, "--rules", "paper+nope")
    assert res.returncode == 2 and "unknown switch 'nope'" in res.stderr and "Traceback" not in res.stderr

