"""Coaching numbers against the engine: the poison pill's known values, hints before a decision, the
debrief's counterfactual games and costliest decisions, and the coaching shown in the app."""

from __future__ import annotations

import pytest

from negtui.agents import Seating
from negtui.coach import YOU, Coach, describe
from negtui.coach.debrief import counterfactual_seats, counterfactuals, debrief
from negtui.engine import PAPER, Negotiation, Phase, State, TurnDriver, Valuation
from negtui.play import LiveGame
from negtui.scenario import load_scenario
from negtui.seats import Seat
from tests.paths import PILL

A_BAIT, A_SIDE, B_BAIT, B_POISON = range(4)


def pill_session(**seats: Seat) -> LiveGame:
    return LiveGame(load_scenario(PILL), PAPER, seats)


def test_accepting_the_pill_is_told_that_upper_and_exact_would_have_rejected_it():
    ses = pill_session(A=Seat.lens("myopic"), B=Seat.human())
    for move in ses.think():  # A (myopic) offers the bundle; B is a person
        ses.submit(move)
    assert ses.pending.bits == (1 << A_BAIT) | (1 << B_BAIT) | (1 << B_POISON)
    hint = ses.hint()
    assert hint.yours is None and {c.who: c.accept for c in hint.others} == {
        "myopic": True, "upper": False, "lower": True, "learned": False, "exact": False}
    ses.submit(ses.answer(True))
    (a,) = ses.assess_pending()
    assert (a.t, a.player, a.phase, a.reference) == (0, 1, Phase.RESPOND, "exact")
    assert a.yours.who == YOU and a.yours.accept is True
    assert a.yours.values | {"learned": 7.0} == dict.fromkeys(("myopic", "upper", "lower", "learned", "exact"), 7.0)
    by = {c.who: c for c in a.others}
    assert by["upper"].accept is False and by["exact"].accept is False
    assert by["upper"].values == by["exact"].values
    assert by["exact"].values | {"learned": 30.0} == {"myopic": 0.0, "upper": 30.0, "lower": 0.0, "learned": 30.0,
                                                      "exact": 30.0}
    assert by["myopic"].accept is True and by["lower"].accept is True
    assert a.agreeing() == ["myopic", "lower"] and a.best.who in ("upper", "exact")
    assert a.cost == pytest.approx(23.0)  # 30 under exact for rejecting, 7 for accepting
    data = describe(ses.neg, a)
    assert data["cost"] == 23.0 and data["yours"]["accept"] is True and data["player"] == "B"
    ses.close()


def test_rejecting_the_pill_costs_nothing():
    ses = pill_session(A=Seat.lens("myopic"), B=Seat.human())
    for move in ses.think():
        ses.submit(move)
    ses.submit(ses.answer(False))
    (a,) = ses.assess_pending()
    assert a.cost == 0.0 and sorted(a.agreeing()) == ["exact", "learned", "upper"]
    ses.close()


def test_a_proposal_is_valued_with_the_answer_it_got_and_set_beside_each_lens():
    ses = pill_session(A=Seat.human(), B=Seat.lens("upper"))
    assert ses.submit(ses.propose(1, [A_BAIT, B_BAIT, B_POISON])) is None  # the bundle to an upper B
    for move in ses.think():
        ses.submit(move)
    (a,) = ses.assess_pending()
    assert a.phase is Phase.PROPOSE and a.yours.accept is False  # upper refuses the pill
    assert a.yours.after == State(1, 0) and a.yours.values["exact"] == pytest.approx(30.0)
    by = {c.who: c for c in a.others}
    # exact: the project alone now (worth 30 to A, as B's offer of it next turn would be: the realised-payoff
    # tie rule takes it now); the lens bots model B as it is (upper)
    assert by["exact"].offer.bits == (1 << A_BAIT) | (1 << B_BAIT)
    assert by["exact"].values["exact"] == pytest.approx(30.0)
    # an optimistic A counts the project as won either way, and secures its own share of it alone
    assert by["upper"].offer.partner == 0 and by["upper"].offer.bits == 1 << A_BAIT
    assert a.cost == pytest.approx(0.0)
    ses.close()


def test_counterfactual_games_put_each_lens_bot_in_the_seat_against_the_same_opponents():
    sc = load_scenario(PILL)
    neg = Negotiation.from_scenario(sc, PAPER)
    seats = [Seat.lens("myopic", partner="greedy"), Seat.human()]
    out = counterfactuals(neg, seats, 1, neg.initial_state())
    # against a myopic A offering the bundle: myopic and lower Bs accept it (7), an upper B refuses (30)
    assert out == {"myopic": 7.0, "upper": 30.0, "lower": 7.0, "learned": 30.0}
    cf = counterfactual_seats(seats, 1, "upper")
    assert cf[0] == seats[0] and cf[1].lenses == ("upper", "upper") and cf[1].partner == "greedy"
    # the same, by hand
    driver = TurnDriver(neg, Seating(neg, cf).agents)
    assert driver.play()[1] == 30.0


def test_the_debrief_keeps_the_costliest_decisions_first():
    ses = pill_session(A=Seat.lens("myopic"), B=Seat.human())
    for move in ses.think():
        ses.submit(move)
    ses.submit(ses.answer(True))
    ses.submit(ses.propose(1, []))  # B passes
    assert ses.over
    assessments = ses.assess_pending()
    d = debrief(ses.neg, 1, ses.state, assessments)
    assert d.payoff == 7.0 and d.baseline == 30.0 and d.total == 47.0
    assert [a.t for a in d.costliest] == [0]  # the pass at turn 1 cost nothing
    ses.close()


def test_coaching_numbers_against_a_brute_force_reading_of_the_lenses(toy):
    """Every value in an assessment is the deciding player's forecast of the state its choice leads to."""
    import numpy as np

    rng = np.random.default_rng(11)
    for _ in range(5):
        spec = toy.random_spec(rng, "paper", players=(3, 3))
        neg = Negotiation.from_scenario(spec.scenario(), PAPER)
        val = Valuation(neg)
        coach = Coach(val, lambda q: None, exact=True)
        s = neg.initial_state()
        a = coach.proposal_hint(s)
        p = neg.proposer(s)
        for c in a.others:
            for lens, v in c.values.items():
                assert v == pytest.approx(float(val.forecast(c.after, lens)[p]))
        exact = next(c for c in a.others if c.who == "exact")
        assert exact.values["exact"] == pytest.approx(float(val.exact.values_at(0, 0)[p]))  # subgame perfect


def test_the_coach_says_why_in_plain_words_and_the_primer_names_baseline_lenses_and_no_deal():
    from negtui.coach.words import primer, why

    ses = pill_session(A=Seat.lens("myopic"), B=Seat.human())
    for move in ses.think():
        ses.submit(move)
    ses.submit(ses.answer(True))  # B swallows the pill: 7 now, where rejecting keeps 30 within reach
    (a,) = ses.assess_pending()
    text = why(ses.neg.game, a)
    assert text.startswith("Why: accepting takes 7.0 now (no less than ")
    assert "0.0), but leaves only +0.0 to come against +30.0: it closes doors for later" in text
    assert "it binds A's bait, B's bait, B's poison for good" in text
    ok = pill_session(A=Seat.lens("myopic"), B=Seat.human())
    for move in ok.think():
        ok.submit(move)
    ok.submit(ok.answer(False))
    assert why(ok.neg.game, ok.assess_pending()[0]) == ""  # the best choice needs no reason
    # the pill's baseline is 30/30 while no deal at all is 0/0: the primer says both
    words = primer(ses.neg, 1)
    assert "Here it is 30.0 for B" in words and "with no commitment by anyone B gets 0.0" in words
    assert "+30.0 that B can have without asking anyone" in words
    assert "At the start B's forecasts are myopic 0.0, upper 30.0, lower 0.0" in words
    ses.close()
    ok.close()


def test_the_learned_lens_reads_the_pill_as_the_exact_solution_does():
    """The learned lens's reading beside the hand lenses': its bot rejects the pill as upper's and the exact
    solution's do, the coach names it among those who would not have accepted, values each choice under it
    (the project's 30 in sight after a rejection), its bot gets 30 in the seat, and the primer says what it is."""
    from negtui.coach.words import primer
    from negtui.tui.widgets.coach import summary

    ses = pill_session(A=Seat.lens("myopic"), B=Seat.human())
    for move in ses.think():
        ses.submit(move)
    ses.submit(ses.answer(True))
    (a,) = ses.assess_pending()
    by = {c.who: c for c in a.others}
    assert by["learned"].accept is False
    assert by["learned"].values["learned"] > a.yours.values["learned"] + 20  # 29.6 against 6.9 (exact: 30, 7)
    said = summary(ses.neg.game, a)
    assert "upper, learned, exact would not" in said, said
    words = primer(ses.neg, 1)
    assert "learned is a forecast fitted to how small games end" in words and ", learned 2" in words, words
    neg = ses.neg
    out = counterfactuals(neg, [Seat.lens("myopic", partner="greedy"), Seat.human()], 1, neg.initial_state())
    assert out["learned"] == 30.0
    ses.close()


def test_a_choice_the_learned_bot_would_make_reads_as_the_learned_bots():
    from negtui.coach.assess import Assessment, Choice
    from negtui.tui.widgets.coach import summary

    ses = pill_session(A=Seat.lens("myopic"), B=Seat.human())
    values = {"myopic": 0.0, "upper": 30.0, "lower": 0.0, "learned": 29.6}
    mine = Choice(YOU, Phase.RESPOND, accept=True, values=dict.fromkeys(values, 7.0))
    theirs = Choice("learned", Phase.RESPOND, accept=False, values=values)
    a = Assessment(0, 1, Phase.RESPOND, mine, (theirs,), "mean")
    said = summary(ses.neg.game, a)
    assert "your choice is worth 7.0, the learned bot's 10.0 (cost 3.0)" in said, said
    assert "no less than the learned bot's choice (reject)" in said, said
    ses.close()


def test_where_no_bot_agrees_the_coach_names_them_once():
    """Every bot and the exact solution would have decided otherwise: the line names them once ("upper,
    learned, exact: each would have decided otherwise"), not "no lens agrees; upper, learned, exact would not"."""
    from dataclasses import replace

    from negtui.tui.widgets.coach import summary

    ses = pill_session(A=Seat.lens("myopic"), B=Seat.human())
    for move in ses.think():
        ses.submit(move)
    ses.submit(ses.answer(True))
    (a,) = ses.assess_pending()
    against = replace(a, others=tuple(c for c in a.others if c.who not in a.agreeing()))
    assert against.agreeing() == [] and len(against.others) >= 2
    said = summary(ses.neg.game, against)
    names = ", ".join(c.who for c in against.others)
    assert said.startswith(f"coach, turn 1: {names}: each would have decided otherwise. "), said
    assert "no lens agrees" not in said and "would not" not in said
    ses.close()
