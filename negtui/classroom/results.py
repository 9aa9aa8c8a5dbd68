"""A finished game as the results database keeps it, for one person's seat: the payoff against the
baseline, the counterfactual bots and the welfare optimum, and every decision with its coaching numbers.
The same for a game played alone in the app and for one seat of a table."""

from __future__ import annotations

from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import Decision
from negtui.coach.assess import choice_words, describe
from negtui.coach.debrief import Debrief
from negtui.play.live import LiveGame


def decisions(game: LiveGame, player: int) -> list[Decision]:
    return [Decision(a.t, a.phase.value, choice_words(game.neg.game, a.yours), round(a.cost, 6),
                     describe(game.neg, a)) for a in game.assessments if a.player == player and a.yours is not None]


def keep(db: ResultsDB, game_id: int, game: LiveGame, d: Debrief, duration: float) -> None:
    """File the result of `d.player`'s seat (DBError when it cannot be kept)."""
    db.game_finished(game_id, payoff=d.payoff, payoffs=[float(v) for v in game.neg.returns(game.state)],
                     baseline=d.baseline, counterfactuals=dict(d.counterfactual), welfare_optimum=d.welfare_optimum,
                     efficiency=d.efficiency, duration=round(duration, 3), decisions=decisions(game, d.player))
