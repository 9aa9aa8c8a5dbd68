"""The app's header names a rule-set variant whole where it fits, else by its base and its number of
switches."""

from __future__ import annotations


def test_the_app_header_shortens_a_long_variant_name_without_cutting_a_switch():
    from negtui.tui.labels import rules_label

    name = "paper+lower_reference_credibility+mcts_leaf_myopic"
    assert rules_label(name, 80) == name
    assert rules_label(name, 20) == "paper + 2 switches"
    assert rules_label(name, 10) == "paper+2"
    assert rules_label("reference-offer_ties_last", 12) == "reference+1"
    assert rules_label("reference", 3) == "reference"  # a rule set's own name is never shortened


def test_a_variant_in_running_text_breaks_between_its_switches():
    from negtui.tui.labels import rules_words

    assert rules_words("paper") == "paper"
    assert rules_words("reference-offer_ties_last+mcts_leaf_myopic") == (
        "reference - offer_ties_last + mcts_leaf_myopic")
