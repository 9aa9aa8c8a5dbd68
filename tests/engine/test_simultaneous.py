"""Simultaneous turns (`paper+simultaneous[=K]`, docs/simultaneous.md) as the rules state them.

- the worked example, scenarios/teaching/simultaneous-race.json, worked by hand: under the plain reading the
  second line's deal is void for the port's budget; a line that anticipates the first deal docks elsewhere;
  played one proposer at a time the port serves both;
- each of the three void reasons, with its words, on offers made by hand through the game API; the turn's
  proposer order, not the order the answers arrive in, decides which of two conflicting deals stands;
- properties of whole games between lens bots on generated games (several seeds and sizes, exclusive sets
  added): the offers applied in a turn never take a player past its budget nor close an exclusive set twice,
  every void offer has the conflict it is void for, the final payoffs are the valuation of the final
  commitments read from the scenario file itself; and with one proposer a turn (`paper+simultaneous=1`) the
  game is the sequential one, move for move.
"""

from __future__ import annotations

import numpy as np
import pytest

from negtui.agents import Seating
from negtui.engine import Negotiation, Offer, State, TurnDriver, TurnEvent, Valuation, get_rules
from negtui.engine.anticipation import expected, predictions
from negtui.engine.exact import ExactUnsolvable
from negtui.engine.exact import solve as exact_solve
from negtui.engine.game import compile_game
from negtui.engine.lenses import adaptive_lens
from negtui.engine.search import greedy_partner
from negtui.engine.simultaneous import Flight, Settlement
from negtui.generator import GeneratorParams, generate
from negtui.scenario import Scenario, load_scenario, parse_scenario
from negtui.seats import Seat
from tests.paths import TEACHING

RACE = TEACHING / "simultaneous-race.json"
SIM = "paper+simultaneous"
Cell = tuple[str, str]


# --- helpers ----------------------------------------------------------------------------------------------

def play(sc: Scenario, rules: str, lenses: dict[str, str] | str, method: str = "greedy", sims: int = 6) -> TurnDriver:
    """A whole game between lens bots: one lens for every seat, or a lens per player id (the others `lower`,
    the race's regime lens, as autoplay gives them)."""
    neg = Negotiation.from_scenario(sc, get_rules(rules))
    ids = [p.id for p in sc.players]
    per = {pid: lenses for pid in ids} if isinstance(lenses, str) else {pid: lenses.get(pid, "lower") for pid in ids}
    seats = [Seat.lens(per[pid], per[pid], partner=method, sims=sims, seed=k) for k, pid in enumerate(ids)]
    with Seating(neg, seats) as seating:
        driver = TurnDriver(neg, seating.agents)
        driver.play()
    return driver


def named(neg: Negotiation, bits: int) -> set[Cell]:
    return {neg.game.cell_pair(c) for c in neg.game.cells_of(bits)}


def scenario_payoffs(sc: Scenario, committed: set[Cell]) -> list[float]:
    """Each player's payoff read from the scenario file alone (docs/design.md §1), not from the engine."""
    pay = {p.id: 0.0 for p in sc.players}
    for goal in sc.goals:
        done = sum((r.player, r.action) in committed for r in goal.requires)
        need = goal.threshold or len(goal.requires)
        sat = float(done >= need) if goal.kind == "all_or_nothing" else min(1.0, done / need)
        for pid, value in goal.values.items():
            pay[pid] += value * sat
    return [pay[p.id] for p in sc.players]


def offer(neg: Negotiation, p: str, q: str, *cells: Cell) -> Offer:
    g = neg.game
    return Offer(g.index_of(p), g.index_of(q), g.bits_of([list(c) for c in cells]))


def settle_by_hand(neg: Negotiation, s: State, offers: list[Offer], answers: list[bool | None],
                   order: list[int] | None = None) -> tuple[State, Settlement]:
    """Submit a turn's offers through the game API, then the answers in `order` (default: the turn's)."""
    for o in offers:
        s = neg.apply_settled(neg.focus(s, o.proposer), o)[0]
    done = None
    for k in order if order is not None else range(len(offers)):
        answer = answers[k]
        if answer is not None:
            s, done = neg.apply_settled(neg.focus(s, offers[k].proposer), answer)
    if done is None:  # every offer was a pass or made alone: the last proposal settled the turn
        raise AssertionError("settle_by_hand needs at least one answer")
    return s, done


# --- the worked example -------------------------------------------------------------------------------------

def outcomes(driver: TurnDriver) -> list[tuple[str, str, str, str | None]]:
    ids = driver.neg.game.player_ids
    return [(ids[o.offer.proposer], ids[o.offer.partner], o.status, o.void)
            for ev in driver.events for o in ev.outcomes]


def test_race_plain_reading_the_port_accepts_both_and_the_second_deal_is_void_for_its_budget():
    """By hand: A's deal (A.fund, C.berth1, C.berth2) is worth 10 to A and 2 to C; B's (C.berth3, C.berth4) 10 to
    B and 2 to C.  Each line reads the port's answer against the start of the turn, so both offer and C accepts
    both; applied in the turn's order, A's takes C's budget of 2 and B's would make it 4: void.  Payoffs: the
    quay only, A 10 and C 2."""
    sc = load_scenario(RACE)
    for lens in ("lower", "myopic"):  # lower is the regime's lens; with no negative goal it reads as myopic here
        d = play(sc, SIM, lens, "greedy")
        assert d.neg.game.T == 1 and d.neg.game.proposers(0) == (0, 1)
        (ev,) = d.events
        a, b = ev.outcomes
        assert (a.status, a.answer) == ("applied", True)
        assert named(d.neg, a.offer.bits) == {("A", "fund"), ("C", "berth1"), ("C", "berth2")}
        assert (b.status, b.answer, b.accepted, b.void) == ("void", True, True, "budget")
        assert named(d.neg, b.offer.bits) == {("C", "berth3"), ("C", "berth4")}
        assert b.reason == "C would make 4 new commitments in this turn; the budget is 2"
        assert named(d.neg, d.state.bits) == {("A", "fund"), ("C", "berth1"), ("C", "berth2")}
        assert d.neg.returns(d.state).tolist() == [10.0, 0.0, 2.0, 0.0]
        assert scenario_payoffs(sc, named(d.neg, d.state.bits)) == [10.0, 0.0, 2.0, 0.0]


def test_race_a_line_that_anticipates_the_first_deal_docks_with_delta():
    """B predicts A's best myopic deal (A → C, berths 1 and 2), which comes first and leaves C no budget; of the
    offers that fit beside it, B's best is the feeder with D (B 6, D 1).  A 10, B 6, C 2, D 1, nothing void,
    whichever way the partner is chosen and whether the others anticipate too."""
    sc = load_scenario(RACE)
    for lenses in ({"B": "anticipate:myopic"}, "anticipate:myopic"):
        for method in ("greedy", "mcts"):
            d = play(sc, SIM, lenses, method)
            assert outcomes(d) == [("A", "C", "applied", None), ("B", "D", "applied", None)], (lenses, method)
            assert named(d.neg, d.state.bits) == {("A", "fund"), ("C", "berth1"), ("C", "berth2"), ("B", "dock"),
                                                  ("D", "dock")}
            assert d.neg.returns(d.state).tolist() == [10.0, 6.0, 2.0, 1.0]
            assert scenario_payoffs(sc, named(d.neg, d.state.bits)) == [10.0, 6.0, 2.0, 1.0]


def test_race_what_the_anticipating_lens_predicts():
    """The prediction itself: each proposer's best myopic offer from the start of the turn (both to C), and
    what the deals before B's leave it: C's two new commitments used up."""
    neg = Negotiation.from_scenario(load_scenario(RACE), get_rules(SIM))
    val = Valuation(neg)
    s = neg.initial_state()
    a, b = predictions(val, s)
    assert (a.proposer, a.partner) == (0, 2) and named(neg, a.bits) == {("A", "fund"), ("C", "berth1"), ("C", "berth2")}
    assert (b.proposer, b.partner) == (1, 2) and named(neg, b.bits) == {("C", "berth3"), ("C", "berth4")}
    for_b = expected(val, s, 1)
    assert for_b.before == (a,) and for_b.after == () and for_b.used == (1, 0, 2, 0)
    for_a = expected(val, s, 0)
    assert for_a.before == () and for_a.after == (b,)
    # B's offer to C is void beside A's predicted deal: as an anticipating C reads it, accepting is rejecting
    accept, reject = val.offer_value(neg.focus(s, 1), b, "anticipate:myopic", 2)
    assert accept == reject == 2.0


def test_race_the_mcts_partner_search_already_sees_the_port_taken():
    """Partner choice by MCTS simulates the turn's other proposers and settles the turn as play does, so even a
    plain-reading B finds its offer to C void in the search and docks with D (the lesson's first outcome needs
    greedy partner choice)."""
    d = play(load_scenario(RACE), SIM, "lower", "mcts", sims=50)
    assert outcomes(d) == [("A", "C", "applied", None), ("B", "D", "applied", None)]
    assert d.neg.returns(d.state).tolist() == [10.0, 6.0, 2.0, 1.0]


def test_race_played_one_proposer_at_a_time_the_port_serves_both():
    """Sequential paper rules: A's deal in turn 1, B's in turn 2 (C's budget is per turn): A 10, B 10, C 4."""
    sc = load_scenario(RACE)
    for lens in ("lower", "anticipate:myopic"):  # a sequential game has no other deals to anticipate
        d = play(sc, "paper", lens, "greedy")
        assert [(e.proposer, e.partner, e.accepted) for e in d.events] == [(0, 2, True), (1, 2, True)]
        assert d.neg.returns(d.state).tolist() == [10.0, 10.0, 4.0, 0.0]


def test_race_the_first_proposer_of_the_schedule_wins_the_port():
    """Settlement follows the schedule: with B first, B's deal stands and A's is the void one."""
    raw = load_scenario(RACE).model_dump(mode="json")
    raw["protocol"]["schedule"] = ["B", "A"]
    d = play(parse_scenario(raw), SIM, "myopic", "greedy")
    assert outcomes(d) == [("B", "C", "applied", None), ("A", "C", "void", "budget")]
    assert d.neg.returns(d.state).tolist() == [0.0, 10.0, 2.0, 0.0]



def test_the_race_lesson_states_the_outcomes_played_here():
    """The scenario's lesson is what people read: it names the partner search its first outcome needs, and the
    payoffs of the three games above."""
    lesson = load_scenario(RACE).lesson
    for words in ("--partner greedy", "A's stands and B's is void (C would make 4 new commitments in this turn)",
                  "A 10, B 0, C 2, D 0", "(--lens anticipate:myopic)", "A 10, B 6, C 2, D 1",
                  "The default partner search (MCTS)", "(--rules paper)", "A 10, B 10, C 4, D 0"):
        assert words in lesson, words

# --- void reasons, by hand ----------------------------------------------------------------------------------

def hand_scenario(budget: int = 2, exclusive: bool = False) -> Scenario:
    """A, B and D each need commitments of C's; C.x and C.y may form an exclusive set."""
    return parse_scenario({
        "format": "negtui-scenario/1", "name": "hand", "description": "void reasons by hand",
        "players": [{"id": "A", "actions": [{"id": "a"}]}, {"id": "B", "actions": [{"id": "b"}]},
                    {"id": "C", "actions": [{"id": "x"}, {"id": "y"}, {"id": "z"}]},
                    {"id": "D", "actions": [{"id": "d"}]}],
        "goals": [{"id": "g", "kind": "linear", "requires": [{"player": "C", "action": "x"}],
                   "values": {"A": 1, "B": 1, "C": 1}}],
        "exclusive": [[{"player": "C", "action": "x"}, {"player": "C", "action": "y"}]] if exclusive else [],
        "protocol": {"rounds": 1, "budget": budget, "schedule": ["A", "B", "D"]},
    })


def test_an_offer_naming_a_commitment_an_earlier_offer_made_is_void_committed():
    neg = Negotiation.from_scenario(hand_scenario(), get_rules("paper+simultaneous=3"))
    s = neg.initial_state()
    offers = [offer(neg, "A", "C", ("A", "a"), ("C", "x")), offer(neg, "B", "C", ("C", "x")), neg.pass_offer(
        neg.focus(s, 3))]
    after, done = settle_by_hand(neg, s, offers, [True, True, None])
    assert [o.status for o in done.outcomes] == ["applied", "void", "passed"]
    assert done.outcomes[1].void == "committed"
    assert done.outcomes[1].reason == "C.x was committed earlier in this turn"
    assert done.outcomes[2].answer is None and not done.outcomes[2].accepted
    assert after.t == 1 and named(neg, after.bits) == {("A", "a"), ("C", "x")}


def test_an_offer_closing_an_exclusive_set_an_earlier_offer_used_is_void_exclusive():
    neg = Negotiation.from_scenario(hand_scenario(exclusive=True), get_rules("paper+simultaneous=3"))
    s = neg.initial_state()
    offers = [offer(neg, "A", "C", ("C", "x")), offer(neg, "B", "C", ("C", "y")), offer(neg, "D", "C", ("C", "z"))]
    after, done = settle_by_hand(neg, s, offers, [True, True, True])
    assert [(o.status, o.void) for o in done.outcomes] == [("applied", None), ("void", "exclusive"), ("applied", None)]
    assert done.outcomes[1].reason == "C.y shares an exclusive set with C.x, committed earlier in this turn"
    assert named(neg, after.bits) == {("C", "x"), ("C", "z")}


def test_an_offer_past_a_players_budget_for_the_turn_is_void_budget():
    """The budget counts every applied offer of the turn together, the partner's commitments as its own."""
    neg = Negotiation.from_scenario(hand_scenario(budget=2), get_rules("paper+simultaneous=3"))
    s = neg.initial_state()
    offers = [offer(neg, "A", "C", ("C", "x"), ("C", "y")), offer(neg, "B", "C", ("B", "b"), ("C", "z")),
              offer(neg, "D", "D", ("D", "d"))]
    after, done = settle_by_hand(neg, s, offers, [True, True, None])
    assert [(o.status, o.void) for o in done.outcomes] == [("applied", None), ("void", "budget"), ("applied", None)]
    assert done.outcomes[1].reason == "C would make 3 new commitments in this turn; the budget is 2"
    assert done.outcomes[2].answer is None and done.outcomes[2].accepted  # made alone: no answer asked
    assert named(neg, after.bits) == {("C", "x"), ("C", "y"), ("D", "d")}


def test_a_rejected_or_void_offer_takes_nothing_from_the_offers_after_it():
    neg = Negotiation.from_scenario(hand_scenario(budget=1), get_rules("paper+simultaneous=3"))
    s = neg.initial_state()
    offers = [offer(neg, "A", "C", ("C", "x")), offer(neg, "B", "C", ("C", "x")), offer(neg, "D", "C", ("C", "y"))]
    _, done = settle_by_hand(neg, s, offers, [False, True, True])
    assert [o.status for o in done.outcomes] == ["rejected", "applied", "void"]  # D's: C's budget of 1 is B's
    _, done = settle_by_hand(neg, s, offers, [True, True, False])
    assert [(o.status, o.void) for o in done.outcomes] == [("applied", None), ("void", "committed"), ("rejected", None)]


def test_answers_in_any_order_are_settled_in_the_turns_proposer_order():
    neg = Negotiation.from_scenario(hand_scenario(), get_rules("paper+simultaneous=3"))
    s = neg.initial_state()
    assert [neg.proposer(w) for w in neg.waiting(s)] == [0, 1, 3]
    offers = [offer(neg, "A", "C", ("C", "x")), offer(neg, "B", "C", ("C", "x")), offer(neg, "D", "C", ("C", "z"))]
    for order in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
        _, done = settle_by_hand(neg, s, offers, [True, True, True], order)
        assert [o.status for o in done.outcomes] == ["applied", "void", "applied"], order


# --- the turn's shape ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("players,default", [(2, 2), (3, 2), (4, 2), (5, 2), (6, 3), (7, 3)])
def test_a_turn_has_half_the_players_at_least_two_taken_in_schedule_order(players: int, default: int):
    ids = [f"P{i}" for i in range(players)]
    sc = parse_scenario({
        "format": "negtui-scenario/1", "name": "round", "description": "a seeded round-robin schedule",
        "players": [{"id": pid, "actions": [{"id": "a"}]} for pid in ids],
        "goals": [{"id": "g", "kind": "linear", "requires": [{"player": pid, "action": "a"} for pid in ids],
                   "values": dict.fromkeys(ids, 1)}],
        "protocol": {"rounds": 3, "seed": players},
    })
    seq = compile_game(sc, get_rules("paper"))
    for name, k in ((SIM, default), ("paper+simultaneous=1", 1), (f"paper+simultaneous={players}", players)):
        g = compile_game(sc, get_rules(name))
        turns = [g.proposers(t) for t in range(g.T)]
        assert [p for turn in turns for p in turn] == seq.schedule.tolist(), name  # every proposal, in order
        assert all(1 <= len(turn) <= k and len(set(turn)) == len(turn) for turn in turns), name
        assert len(turns[0]) == k


def test_a_player_named_twice_in_a_row_starts_a_new_turn():
    """An explicit schedule A A B C with two proposers a turn: [A], [A, B], [C] — nobody proposes twice in one
    turn, and every proposal of the sequential game is kept."""
    raw = hand_scenario().model_dump(mode="json")
    raw["protocol"]["schedule"] = ["A", "A", "B", "C"]
    g = compile_game(parse_scenario(raw), get_rules(SIM))
    assert [g.proposers(t) for t in range(g.T)] == [(0,), (0, 1), (2,)]


def test_the_exact_solver_refuses_simultaneous_turns():
    game = compile_game(load_scenario(RACE), get_rules(SIM))
    with pytest.raises(ExactUnsolvable, match="does not solve simultaneous games"):
        exact_solve(game, get_rules(SIM))


# --- properties of whole games ------------------------------------------------------------------------------

def generated(seed: int, players: int, exclusive: bool) -> Scenario:
    sc = generate(GeneratorParams(players=players, actions=2, goals=5, factors=2, all_or_nothing=0.3, rounds=2,
                                  budget=1 + seed % 2, seed=seed))
    if not exclusive:
        return sc
    raw = sc.model_dump(mode="json")
    cells = [{"player": p.id, "action": a.id} for p in sc.players for a in p.actions]
    rng = np.random.default_rng(seed)
    raw["exclusive"] = [[cells[int(c)] for c in rng.choice(len(cells), size=k, replace=False)] for k in (2, 3)]
    return parse_scenario(raw)


GAMES = [(seed, players) for seed in range(4) for players in (3, 4, 5)]
LENS_OF = ("myopic", "upper", "lower", "anticipate:myopic")


def check_turn(sc: Scenario, neg: Negotiation, ev: TurnEvent) -> int:
    """The turn's settlement read from the scenario: returns the number of void offers."""
    budget = sc.protocol.budget
    sets = [{(r.player, r.action) for r in group} for group in sc.exclusive]
    now = named(neg, ev.before.bits)
    used: dict[str, int] = {}
    void = 0
    assert [o.offer.proposer for o in ev.outcomes] == list(neg.game.proposers(ev.t))
    for out in ev.outcomes:
        cells = named(neg, out.offer.bits)
        count: dict[str, int] = {}
        for pid, _ in cells:
            count[pid] = count.get(pid, 0) + 1
        conflicts = [why for why, hit in (("committed", bool(cells & now)),
                                          ("exclusive", any(cells & grp and (grp - cells) & now for grp in sets)),
                                          ("budget", any(used.get(i, 0) + k > budget for i, k in count.items())))
                     if hit]
        if out.status == "void":
            assert out.accepted and conflicts and out.void == conflicts[0], (out, conflicts)
            void += 1
        elif out.status == "applied":
            assert out.accepted and cells and not conflicts, (out, conflicts)
            now |= cells
            for i, k in count.items():
                used[i] = used.get(i, 0) + k
        else:
            assert out.status == ("passed" if not cells else "rejected")
    assert named(neg, ev.after.bits) == now and all(n <= budget for n in used.values())
    assert all(len(grp & now) <= 1 for grp in sets)
    return void


@pytest.mark.parametrize("seed,players", GAMES)
def test_applied_offers_keep_every_budget_and_exclusive_set_and_payoffs_are_the_commitments_valued(seed: int,
                                                                                                   players: int):
    sc = generated(seed, players, exclusive=seed % 2 == 0)
    for lens in LENS_OF:
        d = play(sc, SIM, lens, ("greedy", "mcts")[seed % 2], sims=4)
        assert d.state.t == d.neg.game.T
        for ev in d.events:
            check_turn(sc, d.neg, ev)
        assert d.neg.returns(d.state) == pytest.approx(scenario_payoffs(sc, named(d.neg, d.state.bits)), abs=1e-9)


def test_random_games_do_meet_void_offers():
    """The property test above is not vacuous: over its games, plain bots make offers that end void."""
    void = 0
    for seed, players in GAMES:
        d = play(generated(seed, players, exclusive=seed % 2 == 0), SIM, "myopic", "greedy")
        void += sum(check_turn(d.neg.game.scenario, d.neg, ev) for ev in d.events)
    assert void > 0


def trace(d: TurnDriver) -> list[tuple]:
    return [(e.t, e.proposer, e.partner, e.offer.bits, e.accepted, e.after.t, e.after.bits) for e in d.events]


@pytest.mark.parametrize("seed,players", GAMES[::2])
def test_one_proposer_a_turn_is_the_sequential_game(seed: int, players: int):
    """`paper+simultaneous=1`: the same turns, offers, answers, states and payoffs as `paper`, for every lens and
    partner search (anticipating lenses too: there is nobody else in the turn to anticipate)."""
    sc = generated(seed, players, exclusive=seed % 2 == 1)
    for lens in LENS_OF:
        for method in ("greedy", "mcts"):
            seq, one = play(sc, "paper", lens, method, sims=4), play(sc, "paper+simultaneous=1", lens, method, sims=4)
            assert one.neg.game.simultaneous and one.neg.game.T == seq.neg.game.T
            assert trace(one) == trace(seq), (lens, method)
            assert all(len(e.outcomes) == 1 and not e.simultaneous for e in one.events)
            assert one.neg.returns(one.state).tolist() == seq.neg.returns(seq.state).tolist()


def test_an_anticipating_adaptive_offer_is_chosen_with_the_lens_of_its_own_turn():
    """`adaptive` reads with myopic in the last round.  An anticipating adaptive proposer meeting a state (the same
    commitments, the same proposers) in round 1 and again in the last round must choose each time with that
    turn's lens: the offer search's cache once kept the round-1 offer for the last round as well."""
    sc = generate(GeneratorParams(players=4, actions=2, goals=6, factors=2, all_or_nothing=0.3, rounds=2, seed=5,
                                  payoff="positive"))
    neg = Negotiation.from_scenario(sc, get_rules(SIM))
    g = neg.game
    late = next(t for t in range(1, g.T) if g.proposers(t) == g.proposers(0))
    assert late + 1 < g.T and (adaptive_lens(g, 0, 0), adaptive_lens(g, 0, late)) == ("lower", "myopic")
    slot = g.proposers(0).index(0)
    early_state = State(0, 0, None, Flight.start(2).focused(slot))
    late_state = State(late, 0, None, Flight.start(2).focused(slot))
    for q in neg.legal_partners(early_state):
        fresh = Valuation(neg).best_offer(late_state, q, "anticipate:adaptive", "myopic")
        val = Valuation(neg)
        val.best_offer(early_state, q, "anticipate:adaptive", "myopic")
        assert val.best_offer(late_state, q, "anticipate:adaptive", "myopic") == fresh, q
        # and it is the offer the last round's lens, myopic, makes
        assert fresh == Valuation(neg).best_offer(late_state, q, "anticipate:myopic", "myopic"), q


@pytest.mark.parametrize("seed", [4, 8])
def test_an_anticipating_adaptive_bot_decides_as_a_fresh_search_would(seed: int):
    """Whole games (in which the stale offer above once made a bot pass in turn 5): every decision of a greedy
    `anticipate:adaptive` bot is the one a valuation that has seen nothing else makes at that state."""
    lens = "anticipate:adaptive"
    sc = generate(GeneratorParams(players=4, actions=2, goals=6, factors=2, all_or_nothing=0.3, rounds=3, seed=seed,
                                  payoff="negative"))
    d = play(sc, SIM, lens, "greedy")
    neg = d.neg
    for ev in d.events:
        for k, out in enumerate(ev.outcomes):
            at = State(ev.t, ev.before.bits, None, Flight.start(len(ev.outcomes)).focused(k))
            val = Valuation(neg)
            fresh = val.best_offer(at, greedy_partner(val, at, lens, lambda q: lens), lens, lens)
            assert out.offer.bits == fresh.bits and (not fresh.bits or out.offer.partner == fresh.partner), (ev.t, k)


@pytest.mark.parametrize("players,k", [(4, 2), (5, 3), (6, 3)])
def test_against_the_bots_it_predicts_an_anticipating_proposer_foresees_every_deal_and_is_never_void(players: int,
                                                                                                    k: int):
    """`anticipate:myopic` predicts each other proposer's best myopic offer to its best partner, accepted: exactly
    what myopic bots with greedy partner choice do.  Against them every prediction comes true, and the anticipating
    proposer's accepted offers are never void, while theirs, reading the turn plainly, sometimes are."""
    others_void = 0
    for seed in range(4):
        sc = generate(GeneratorParams(players=players, actions=2, goals=6, factors=2, all_or_nothing=0.3, rounds=2,
                                      seed=seed))
        x = seed % players
        neg = Negotiation.from_scenario(sc, get_rules(f"paper+simultaneous={k}"))
        seats = [Seat.lens("anticipate:myopic" if i == x else "myopic", "myopic", partner="greedy")
                 for i in range(players)]
        with Seating(neg, seats) as seating:
            d = TurnDriver(neg, seating.agents)
            d.play()
        for ev in d.events:
            predicted = predictions(Valuation(neg), State(ev.t, ev.before.bits))
            for out, guess in zip(ev.outcomes, predicted, strict=True):
                if out.offer.proposer == x:
                    assert out.status != "void", (seed, ev.t)
                    continue
                assert out.offer.bits == guess.bits and (not guess.bits or out.offer.partner == guess.partner)
                others_void += out.status == "void"
    assert others_void > 0
