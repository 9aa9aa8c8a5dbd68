"""A finished game as the results database keeps it, for one person's seat: the payoff against the
baseline, the counterfactual bots and the welfare optimum, and every decision with its coaching numbers.
The same for a game played alone in the app and for one seat of a table.

Each decision keeps the whole text of its choice (the screens shorten an action's label; a result does
not), and says whether the clock made it (a time-out at a table: a pass or a rejection in the person's
name).  A seat whose person dropped out and was replaced by a bot keeps how many turns the bot played."""

from __future__ import annotations

from negtui.classroom.db import ResultsDB
from negtui.classroom.dbtypes import Decision
from negtui.coach.assess import Assessment, Choice, describe
from negtui.coach.debrief import Debrief
from negtui.engine.game import Game
from negtui.engine.negotiation import Phase
from negtui.engine.turns import TurnEvent
from negtui.narrate import offer_words
from negtui.play.live import LiveGame
from negtui.table.clock import RAN_OUT


def whole_words(game: Game, c: Choice) -> str:
    """A choice in words, every action's whole text ('to B: A commits …; B commits … (accepted)')."""
    if c.phase is Phase.RESPOND:
        return "accept" if c.accept else "reject"
    if c.offer is None or c.offer.is_noop:
        return "no offer"
    words = offer_words(game, c.offer.bits, c.offer.proposer, c.offer.partner, whole=True)
    to = "alone" if c.offer.is_unilateral else f"to {game.player_ids[c.offer.partner]}"
    answer = "" if c.offer.is_unilateral else (" (accepted)" if c.accept else " (rejected)")
    return f"{to}: {words}{answer}"


def _numbers(game: LiveGame, a: Assessment) -> dict:
    """The coaching numbers, each offer's words whole."""
    numbers = describe(game.neg, a)
    g = game.neg.game
    for c, out in zip((a.yours, *a.others), (numbers["yours"], *numbers["others"])):
        if c is not None and out is not None and "words" in out and c.offer is not None:
            out["words"] = offer_words(g, c.offer.bits, c.offer.proposer, c.offer.partner, whole=True)
    return numbers


def timed_out(events: list[TurnEvent], a: Assessment) -> bool:
    """Whether the clock made this decision: a proposer's pass, or a partner's rejection, that the table
    submitted when the person's time ran out."""
    ev = next((e for e in events if e.t == a.t), None)
    if ev is None or ev.fault != RAN_OUT:
        return False
    if a.phase is Phase.PROPOSE:
        return ev.proposer == a.player and ev.offer.is_noop
    return ev.partner == a.player and not ev.offer.is_noop


def decisions(game: LiveGame, player: int) -> list[Decision]:
    g, events = game.neg.game, game.events
    return [Decision(a.t, a.phase.value, whole_words(g, a.yours), round(a.cost, 6), _numbers(game, a),
                     timed_out=timed_out(events, a))
            for a in game.assessments if a.player == player and a.yours is not None]


def bot_turns(game: LiveGame, player: int) -> int:
    """Turns of this game in which a decision of the seat was not the person's: a bot played it (before
    they sat down, or after they dropped out and the table gave their seat to a bot).  Every decision a
    person makes is assessed, so a decision of the seat with no assessment is a bot's."""
    ids = game.neg.game.player_ids
    theirs = {(a.t, a.phase) for a in game.assessments if a.player == player and a.yours is not None}
    turns = set()
    for ev in game.events:
        asked = []
        if ev.proposer == player:
            asked.append(Phase.PROPOSE)
        answered = not ev.offer.is_noop and not ev.offer.is_unilateral and ev.decided_by.startswith(
            f"{ids[ev.partner]} (")  # an offer that binds is not put to its partner
        if ev.partner == player and ev.partner != ev.proposer and answered:
            asked.append(Phase.RESPOND)
        if any((ev.t, phase) not in theirs for phase in asked):
            turns.add(ev.t)
    return len(turns)


def seat_efficiency(d: Debrief) -> float | None:
    """The seat's payoff over its payoff at the welfare optimum (None where that is not positive: the
    ratio would read backwards)."""
    if d.seat_at_optimum is None or d.seat_at_optimum <= 0:
        return None
    return d.payoff / d.seat_at_optimum


def keep(db: ResultsDB, game_id: int, game: LiveGame, d: Debrief, duration: float) -> None:
    """File the result of `d.player`'s seat (DBError when it cannot be kept)."""
    db.game_finished(game_id, payoff=d.payoff, payoffs=[float(v) for v in game.neg.returns(game.state)],
                     baseline=d.baseline, counterfactuals=dict(d.counterfactual), welfare_optimum=d.welfare_optimum,
                     efficiency=seat_efficiency(d), duration=round(duration, 3), decisions=decisions(game, d.player),
                     seat_optimum=d.seat_at_optimum, table_efficiency=d.efficiency,
                     bot_turns=bot_turns(game, d.player), mode="practice" if game.guided else "assessment")
