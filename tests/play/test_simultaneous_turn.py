"""A simultaneous turn driven as the app drives it, without the app (play/simultaneous.py, LiveGame, LiveSource):
a person's open decision is asked before the agents', the person sees only the offers they made and those
made to them, the turn says what it still waits for, an agent's decision thought out in a worker is applied
only where it still has its place, and the coach judges a decision as its turn's only deal, saying so when
the offer was void.

On scenarios/teaching/simultaneous-race.json (cells A.fund 0, B.dock 1, C.berth1..4 2-5, D.dock 6; one turn,
proposers A then B) and the poison pill under paper+simultaneous (one turn, proposers A then B)."""

from __future__ import annotations

import pytest

from negtui.engine.negotiation import Phase
from negtui.engine.rules import get_rules
from negtui.play.live import LiveGame
from negtui.play.sources import LiveSource
from negtui.scenario import load_scenario
from negtui.seats import Seat
from tests.paths import PILL, TEACHING

RACE = TEACHING / "simultaneous-race.json"
SIM = "paper+simultaneous"
FUND, DOCK_B, BERTH1, BERTH2, BERTH3, BERTH4, DOCK_D = range(7)
BUDGET_VOID = "C would make 4 new commitments in this turn; the budget is 2"


def bot(lens: str = "myopic") -> Seat:
    return Seat.lens(lens, partner="greedy")


@pytest.fixture
def game():
    made: list[LiveGame] = []

    def start(path, **seats: Seat) -> LiveSource:
        g = LiveGame(load_scenario(path), get_rules(SIM), seats)
        made.append(g)
        return LiveSource(g)

    yield start
    for g in made:
        g.close()


def play_bots(src: LiveSource) -> list:
    """The agents' open decisions, as the app's worker thinks them out and commits them."""
    return src.commit(src.think())


def test_the_person_proposes_first_and_the_ports_budget_voids_the_second_deal(game):
    src = game(RACE, A=bot(), B=Seat.human(), C=bot(), D=bot())
    snap = src.snapshot()
    assert src.person_proposing and src.proposer == 1 and snap.focus == 1
    assert snap.proposers == (0, 1) and snap.several_proposers
    assert snap.awaited == "awaiting offers from A, B"
    assert not src.turn_started
    # the partners are offered against the start of the turn, by B
    assert {o.partner for o in src.partner_options()} == {0, 1, 2, 3}
    src.draft(2, (BERTH3, BERTH4))
    assert src.snapshot().preview.offer.proposer == 1
    assert src.propose() is None
    snap = src.snapshot()
    assert src.turn_started and not src.person_to_move()
    assert snap.awaited == "awaiting offers from A"
    assert snap.offer_cells == {BERTH3, BERTH4}  # B's own offer, in flight
    assert play_bots(src) == []  # A's offer: the turn goes on to the answers
    snap = src.snapshot()
    assert src.phase is Phase.RESPOND
    assert snap.offer_cells == {BERTH3, BERTH4}  # A's offer to C is not B's to see
    assert snap.awaited == "awaiting answers: C to B, 1 more"
    [ev] = play_bots(src)
    assert [(o.status, o.reason) for o in ev.outcomes] == [("applied", ""), ("void", BUDGET_VOID)]
    assert src.over and [float(v) for v in src.neg.returns(src.state)] == [10.0, 0.0, 2.0, 0.0]
    [a] = src.assess()
    assert a.phase is Phase.PROPOSE and a.player == 1
    assert a.caveat.startswith(f"your offer was void ({BUDGET_VOID}): it brought you nothing")


def test_a_partner_sees_only_the_offers_made_to_it(game):
    """D answers B's offer (an anticipating B docks with D); A's offer to C stays out of D's sight."""
    src = game(RACE, A=bot(), B=bot("anticipate:myopic"), C=bot(), D=Seat.human())
    assert not src.person_to_move() and not src.turn_started  # a bots' turn waits for a key, as a sequential one
    assert play_bots(src) == []
    snap = src.snapshot()
    assert src.person_to_move() and src.pending is not None and src.pending.proposer == 1
    assert snap.offer_cells == {DOCK_B, DOCK_D} and snap.partner == 3 and snap.focus == 1
    assert snap.awaited == "awaiting answers: D to B, 1 more"
    assert snap.preview is not None and snap.preview.offer.proposer == 1
    assert src.answer(True) is None
    assert src.snapshot().awaited == "awaiting 1 answer (to offers shown when the turn settles)"
    [ev] = play_bots(src)
    assert [o.status for o in ev.outcomes] == ["applied", "applied"]
    assert [float(v) for v in src.neg.returns(src.state)] == [10.0, 6.0, 2.0, 1.0]


def test_a_person_proposes_and_answers_in_one_turn(game):
    """The poison pill: B offers A the project, A offers B the project and the poison; B accepts A's offer,
    which is applied first, so B's own offer is void (A's bait is committed by then)."""
    src = game(PILL, A=bot(), B=Seat.human())
    assert src.person_proposing and src.proposer == 1
    src.draft(0, (0, 2))  # A.bait, B.bait
    src.propose()
    play_bots(src)  # A's offer (to B)
    assert src.person_to_move() and src.pending is not None and src.pending.proposer == 0
    assert src.snapshot().offer_cells == {0, 2, 3}  # B's own offer and A's offer to B
    assert src.answer(True) is None
    [ev] = play_bots(src)  # A answers B's offer
    assert [(o.status, o.reason) for o in ev.outcomes] == [
        ("applied", ""), ("void", "A.bait was committed earlier in this turn")]
    assert [float(v) for v in src.neg.returns(src.state)] == [40.0, 7.0]
    offer, answer = src.assess()
    assert offer.phase is Phase.PROPOSE and offer.caveat.startswith("your offer was void")
    assert answer.phase is Phase.RESPOND and answer.caveat == ""


def test_an_agents_decision_out_of_its_place_is_not_applied(game):
    src = game(PILL, A=bot(), B=Seat.human())
    src.draft(0, (0, 2))
    src.propose()
    moves = src.think()
    assert src.commit(moves) == [] and src.phase is Phase.RESPOND
    assert src.commit(moves) == []  # A has offered already: the same offer again is not taken
    assert src.phase is Phase.RESPOND and src.game.still_open(moves[0]) is False


def test_a_sequential_game_is_driven_as_before(game):
    g = LiveGame(load_scenario(PILL), get_rules("paper"), {"A": bot(), "B": Seat.human()})
    try:
        src = LiveSource(g)
        snap = src.snapshot()
        assert snap.focus is None and snap.awaited == "" and snap.proposers == (0,) and not snap.several_proposers
        assert not src.turn_started and not src.simultaneous
    finally:
        g.close()


def test_a_person_takes_over_a_simultaneous_record_and_the_fork_verifies(cli, tmp_path):
    """Taking over (replay's t) a record of bots: B, now a person, proposes to D; the fork records its parent and
    verifies as autoplay's records do."""
    from negtui.play.starts import from_record
    from negtui.record import Replay, load_record

    parent = tmp_path / "race.jsonl"
    res = cli("autoplay", RACE, "--rules", SIM, "--lens", "myopic", "--partner", "greedy", "--record", parent,
              "--quiet")
    assert res.exit_code == 0, res.output
    how = from_record(Replay(load_record(parent)), 0, {"A": bot(), "B": Seat.human(), "C": bot(), "D": bot()})
    fork = tmp_path / "fork.jsonl"
    g = LiveGame(how.scenario, how.rules, how.seats, start=how.start, record=fork, parent=how.parent)
    try:
        src = LiveSource(g)
        assert src.person_proposing and src.proposer == 1
        src.draft(3, (DOCK_B, DOCK_D))
        src.propose()
        play_bots(src)  # A's offer
        [ev] = play_bots(src)  # C's and D's answers
        assert [o.status for o in ev.outcomes] == ["applied", "applied"]
    finally:
        g.close()
    res = cli("replay", "--verify", fork)
    assert res.exit_code == 0, res.output
    assert "verified" in res.output
