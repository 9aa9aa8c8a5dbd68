"""report.md's section on sequential against simultaneous turns, from rows whose answer is known: the same
games under `paper` and `paper+simultaneous`, paired game by game, a model's samples of a game averaged."""

from __future__ import annotations

from negtui.sweep.results import SCHEMA
from negtui.sweep.simultaneous import lens_order, pairs, simultaneous_markdown, void_per_game


def _row(rules: str, method: str, seed: int, improvement: float, void: int | None, sample: int | None = None) -> dict:
    r = dict.fromkeys(SCHEMA.names)
    r.update(sweep="s", task=f"t{seed}", scenario="g", rules=rules, method=method, players=4, actions=2, goals=6,
             rounds=2, budget=2, factors=3, structure="adversarial", all_or_nothing=0.0, zipf=1.6, payoff="positive",
             seed=seed, information="public", improvement=improvement, void=void, sample=sample)
    return r


def _rows() -> list[dict]:
    """myopic gains exactly 1 under simultaneous turns and loses an offer every other game; upper's two samples
    of each simultaneous game average to its sequential value."""
    rows = []
    for seed in range(6):
        rows.append(_row("paper", "myopic", seed, 10.0 + seed, 0))
        rows.append(_row("paper+simultaneous", "myopic", seed, 11.0 + seed, seed % 2))
        rows.append(_row("paper", "upper", seed, float(seed), 0))
        rows += [_row("paper+simultaneous", "upper", seed, seed + d, None, k) for k, d in enumerate((-0.5, 0.5))]
    rows.append(_row("paper", "baseline", 0, 0.0, 0))  # no method of its own
    return rows


def test_each_method_is_compared_game_by_game_with_its_samples_averaged():
    rows = _rows()
    assert pairs(rows) == [("s", "paper", "paper+simultaneous")]
    md = simultaneous_markdown(rows)
    assert "| positive | myopic | improvement | +12.50 | +13.50 | +1.00 [+1.00, +1.00], p < 0.001, n 6 | **higher** |" \
        in md
    assert "| positive | upper | improvement | +2.50 | +2.50 | +0.00 [+0.00, +0.00], p 1.000, n 6 | **the same** |" \
        in md


def test_void_offers_are_counted_per_game_where_the_rows_hold_them():
    void = void_per_game(_rows(), "s", "paper+simultaneous")
    assert set(void) == {("positive", "myopic")}  # upper's rows hold no count
    effect = void[("positive", "myopic")]
    assert effect.estimate == 0.5 and effect.n == 6
    assert "| positive | myopic | 0.50 [0.00, " in simultaneous_markdown(_rows())


def test_the_best_method_per_regime_under_each_protocol():
    rows = _rows()
    assert lens_order(rows, "s", "paper") == {"positive": {"myopic"}}
    assert lens_order(rows, "s", "paper+simultaneous") == {"positive": {"myopic"}}
    assert "| positive | myopic | myopic |" in simultaneous_markdown(rows)
