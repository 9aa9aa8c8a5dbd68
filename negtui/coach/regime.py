"""Which lens suits a scenario: the paper's findings read as advice for the bots a person plays against."""

from __future__ import annotations

from negtui.scenario.model import Scenario

POSITIVE_SHARE = (0.35, 0.65)  # below: negative-dominated; above: positive-dominated; between: balanced


def suggested_lens(sc: Scenario) -> tuple[str, str]:
    """The lens the paper finds best for the scenario's payoff regime, and why in one line: upper where
    negative goals dominate (a threat is worth blocking), lower where positive goals dominate (only
    what partners will complete counts), myopic (the paper's Reward) where they balance."""
    pos = sum(v for g in sc.goals for v in g.values.values() if v > 0)
    neg = -sum(v for g in sc.goals for v in g.values.values() if v < 0)
    share = pos / (pos + neg) if pos + neg else 0.5
    low, high = POSITIVE_SHARE
    if share < low:
        return "upper", f"negative goals dominate ({share:z.0%} of the value is positive): upper bots block threats"
    if share > high:
        return "lower", (f"positive goals dominate ({share:z.0%} of the value is positive): lower bots count only "
                         "what partners will complete")
    return "myopic", f"positive and negative goals balance ({share:z.0%} positive): myopic bots take sure gains"
