"""Which lens suits a scenario: the paper's findings read as advice for the bots a person plays against."""

from __future__ import annotations

from negtui.scenario.issues import values_as_read
from negtui.scenario.model import Scenario

POSITIVE_SHARE = (0.35, 0.65)  # below: negative-dominated; above: positive-dominated; between: balanced


def suggested_lens(sc: Scenario) -> tuple[str, str]:
    """The lens the paper finds best for the scenario's payoff regime, and why in one line: upper where
    negative goals dominate (a threat is worth blocking), lower where positive goals dominate (only
    what partners will complete counts), myopic (the paper's Reward) where they balance.  A case of issues is
    read by its options' values, as its lenses read it (scenario/issues.py)."""
    values = values_as_read([(g.id, g.values) for g in sc.goals], sc.issues, sc.exits)
    pos = sum(v for v in values if v > 0)
    neg = -sum(v for v in values if v < 0)
    share = pos / (pos + neg) if pos + neg else 0.5
    low, high = POSITIVE_SHARE
    measured = "negative" if share < low else "positive" if share > high else "balanced"
    drawn = _generated_as(sc)
    # a generated game's regime names the range its values were drawn onto, not the share it ended with
    unlike = (f", although generated as '{drawn}': that names the range its values were rescaled onto, not the "
              "share this draw ended with" if drawn is not None and drawn != measured else "")
    if measured == "negative":
        return "upper", (f"negative goals dominate ({share:z.0%} of the value is positive{unlike}): upper bots "
                         "block threats")
    if measured == "positive":
        return "lower", (f"positive goals dominate ({share:z.0%} of the value is positive{unlike}): lower bots count "
                         "only what partners will complete")
    return "myopic", (f"positive and negative goals balance ({share:z.0%} positive{unlike}): myopic bots take sure "
                      "gains")


def _generated_as(sc: Scenario) -> str | None:
    """The payoff regime a generated game was drawn in (`negtui generate --payoff`), if it was drawn in one
    (a range of values given instead names none)."""
    generator = sc.meta.get("generator") if isinstance(sc.meta, dict) else None
    if not isinstance(generator, dict) or generator.get("values") is not None:
        return None
    payoff = generator.get("payoff")
    return "negative" if payoff == "negative-pp" else payoff if payoff in ("balanced", "positive", "negative") else None
