"""Random-play conformance: every bundled scenario, under every rule set that accepts it, played to the end by
random legal moves through the public game API (`legal_partners`, `legal_offers`, `apply` by way of the turn
driver), with the game's invariants checked against the scenario file itself, not against the engine:

- every offer the API lists is legal by the rules as written (cells of the two sides only, none committed or
  ruled out, at most `budget` new cells per player, at most one cell of an exclusive set), and the API's
  verdict on random sets of cells agrees with the same reading;
- commitments only grow; no exclusive set ever holds two committed cells;
- the final payoffs are the valuation of the final commitments (each goal's satisfaction from its kind and
  threshold, times each player's value);
- the game's record, written turn by turn, verifies (`negtui replay --verify`).

Under simultaneous rules (`paper+simultaneous`) every proposer of a turn offers on the turn's starting
commitments and every partner answers, in a random order of submission; the turn's settlement is read from the
rules as written too: accepted offers applied in the turn's order, one void where an earlier one committed a
cell of it, closed an exclusive set of it, or left a player too little budget for it.

A property test then makes random scenario files (duplicated and overlapping exclusive sets, thresholds, goal
kinds, schedules, budgets): whatever `negtui validate` accepts plays to the end under every rule set that
accepts it, and whatever it refuses is refused with a JSON path.
"""

from __future__ import annotations

import json
from itertools import chain
from pathlib import Path

import numpy as np
import pytest

from negtui.engine import PAPER, REFERENCE, IllegalMove, Move, Negotiation, Offer, Phase, State, TurnDriver, get_rules
from negtui.engine.rules import SWITCHES
from negtui.record import RecordWriter
from negtui.scenario import Scenario, ScenarioError, load_scenario, parse_scenario
from negtui.seats import Seat
from tests.paths import HUMANITARIAN, PILL, SCENARIOS, SIX

BUNDLED = sorted(SCENARIOS.rglob("*.json"))
Cell = tuple[str, str]


class Rulebook:
    """The rules of one scenario as its file states them (docs/design.md §1), read without the engine."""

    def __init__(self, sc: Scenario, cells: list[Cell], budget: int) -> None:
        self.sc, self.cells, self.budget = sc, cells, budget
        self.owner = {cell: cell[0] for cell in cells}
        self.sets = [{(r.player, r.action) for r in group} for group in sc.exclusive]

    def ruled_out(self, cell: Cell, committed: set[Cell]) -> bool:
        return any(cell in group and (group - {cell}) & committed for group in self.sets)

    def legal(self, p: str, q: str, offer: set[Cell], committed: set[Cell]) -> bool:
        if not offer:
            return True  # a pass
        if p == q and not self.sc.protocol.unilateral:
            return False
        per_player: dict[str, int] = {}
        for cell in offer:
            if self.owner[cell] not in (p, q) or cell in committed or self.ruled_out(cell, committed):
                return False
            per_player[self.owner[cell]] = per_player.get(self.owner[cell], 0) + 1
        if any(n > self.budget for n in per_player.values()):
            return False
        return all(len(group & offer) <= 1 for group in self.sets)

    def settle(self, offers: list[tuple[str, set[Cell], bool]], committed: set[Cell]) -> list[str]:
        """Each offer's fate in a simultaneous turn ((proposer, cells, accepted) in the turn's order): applied,
        void, rejected or passed, by docs/simultaneous.md."""
        now, used, out = set(committed), dict.fromkeys(self.owner.values(), 0), []
        for _, cells, accepted in offers:
            if not cells:
                out.append("passed")
                continue
            if not accepted:
                out.append("rejected")
                continue
            count: dict[str, int] = {}
            for cell in cells:
                count[self.owner[cell]] = count.get(self.owner[cell], 0) + 1
            if cells & now or any(self.ruled_out(cell, now) for cell in cells) or \
                    any(used[i] + k > self.budget for i, k in count.items()):
                out.append("void")
                continue
            now |= cells
            for i, k in count.items():
                used[i] += k
            out.append("applied")
        return out

    def consistent(self, committed: set[Cell]) -> bool:
        return all(len(group & committed) <= 1 for group in self.sets)

    def payoffs(self, committed: set[Cell], linear: bool = False) -> dict[str, float]:
        pay = {p.id: 0.0 for p in self.sc.players}
        for goal in self.sc.goals:
            done = sum((r.player, r.action) in committed for r in goal.requires)
            need = goal.threshold or len(goal.requires)
            sat = min(1.0, done / need) if linear or goal.kind == "linear" else float(done >= need)
            for pid, value in goal.values.items():
                pay[pid] += value * sat
        return pay


def accepting_rules(sc: Scenario, variants: bool = False) -> list:
    """paper, reference and paper+simultaneous, where each accepts the scenario; with `variants`, also every
    one-switch variant of paper and reference (a switch changes lenses, ties, the baseline or what a pass counts
    as, all of which a record holds)."""
    names = ["paper", "reference", "paper+simultaneous"]
    if variants:
        names += [f"{base}{'-' if getattr(rules, s) else '+'}{s}" for base, rules in (("paper", PAPER),
                  ("reference", REFERENCE)) for s in SWITCHES if s != "allows_thresholds_and_exclusions"]
    out = []
    for name in names:
        rules = get_rules(name)
        if rules.refusal(sc) is None and rules.name not in {r.name for r in out}:
            out.append(rules)
    return out


def bit_cells(cells: list[Cell], bits: int) -> set[Cell]:
    """The cells of a bit mask, by the order `pairs_of` gave once for the whole game."""
    out = set()
    while bits:
        low = bits & -bits
        out.add(cells[low.bit_length() - 1])
        bits ^= low
    return out


def random_cells(rng: np.random.Generator, neg: Negotiation, p: int, q: int) -> list[int]:
    """A random set of one to four cells, mostly the two sides' own (so that some are legal), now and then a
    third party's or a committed one."""
    g = neg.game
    own = [c for c in range(g.n_cells) if int(g.owner[c]) in (p, q)]
    pool = own if rng.random() < 0.8 or len(own) == g.n_cells else list(range(g.n_cells))
    k = int(rng.integers(1, min(4, len(pool)) + 1))
    return [int(c) for c in rng.choice(pool, size=k, replace=False)]


def play_randomly(sc: Scenario, rules, seed: int, record: Path | None = None) -> tuple[Negotiation, State]:
    """One game of random legal moves, every invariant checked along the way; the record written if asked."""
    rng = np.random.default_rng(seed)
    neg = Negotiation.from_scenario(sc, rules)
    g = neg.game
    every = [(p, a) for p, a in g.pairs_of((1 << g.n_cells) - 1)]
    assert len(set(every)) == g.n_cells == sum(len(p.actions) for p in sc.players)
    book = Rulebook(sc, every, g.budget)
    ids = g.player_ids
    driver = TurnDriver(neg, [None] * g.n)
    writer = RecordWriter(record, neg, [Seat.human()] * g.n, driver.state) if record else None
    try:
        while not driver.over:
            if g.simultaneous:
                ev = random_simultaneous_turn(rng, neg, driver, book, every)
                if writer is not None:
                    writer.turn(ev)
                continue
            s = driver.state
            before = bit_cells(every, s.bits)
            p = neg.current_player(s)
            partners = neg.legal_partners(s)
            assert partners == [q for q in range(g.n) if q != p or sc.protocol.unilateral]
            if not partners:  # one player, who may not commit alone: passing is all there is
                ev = driver.submit(driver.propose(neg.pass_offer(s)))
                assert ev is not None and driver.state.bits == s.bits
                if writer is not None:
                    writer.turn(ev)
                continue
            q = int(rng.choice(partners))
            offers = neg.legal_offers(s, q)
            assert offers[0].is_noop
            for offer in offers if len(offers) <= 100 else [offers[int(k)] for k in rng.choice(len(offers), 100)]:
                assert book.legal(ids[p], ids[q], bit_cells(every, offer.bits), before), \
                    f"turn {s.t}: {ids[p]} may not offer {g.pairs_of(offer.bits)} to {ids[q]}"
            for _ in range(3):  # the API's verdict on any set of cells is the rules' verdict
                cells = random_cells(rng, neg, p, q)
                offer = neg.offer(s, q, cells)
                assert neg.is_legal(s, offer) == book.legal(ids[p], ids[q], bit_cells(every, offer.bits), before), \
                    f"turn {s.t}: {ids[p]} offering {g.pairs_of(offer.bits)} to {ids[q]}"
                if not neg.is_legal(s, offer):
                    with pytest.raises(IllegalMove):
                        driver.submit(driver.propose(offer))
                    assert driver.state == s  # a refused move changes nothing
            offer = offers[int(rng.integers(len(offers)))]
            ev = driver.submit(driver.propose(offer))
            if ev is None:
                ev = driver.submit(driver.answer(bool(rng.integers(2))))
            after = bit_cells(every, driver.state.bits)
            assert before <= after and book.consistent(after), f"turn {s.t}"
            assert after - before == (bit_cells(every, offer.bits) if ev.accepted else set())
            assert driver.state.t == s.t + 1
            if writer is not None:
                writer.turn(ev)
        final = bit_cells(every, driver.state.bits)
        want = book.payoffs(final)
        assert np.allclose(neg.returns(driver.state), [want[pid] for pid in ids], atol=1e-9), \
            f"the payoffs of {sorted(final)}"
        if writer is not None:
            writer.result(driver.state)
    finally:
        if writer is not None:
            writer.close()
    return neg, driver.state


def random_simultaneous_turn(rng: np.random.Generator, neg: Negotiation, driver: TurnDriver, book: Rulebook,
                             every: list[Cell]):
    """One simultaneous turn of random legal moves, submitted in a random order, checked against the rulebook."""
    g, ids = neg.game, neg.game.player_ids
    s = driver.state
    before = bit_cells(every, s.bits)
    asking = neg.waiting(s)
    assert [neg.current_player(w) for w in asking] == list(g.proposers(s.t))
    for k in rng.permutation(len(asking)):
        w = neg.focus(driver.state, neg.current_player(asking[int(k)]))
        p = neg.current_player(w)
        partners = neg.legal_partners(w)
        assert partners == [q for q in range(g.n) if q != p or g.unilateral]
        q = int(rng.choice(partners))
        offers = neg.legal_offers(w, q)
        assert offers[0].is_noop
        for offer in offers if len(offers) <= 100 else [offers[int(j)] for j in rng.choice(len(offers), 100)]:
            assert book.legal(ids[p], ids[q], bit_cells(every, offer.bits), before)  # on the turn's start
        for _ in range(3):
            offer = neg.offer(w, q, random_cells(rng, neg, p, q))
            assert neg.is_legal(w, offer) == book.legal(ids[p], ids[q], bit_cells(every, offer.bits), before)
        ev = driver.submit(driver.propose(offers[int(rng.integers(len(offers)))]))
        if ev is None:
            with pytest.raises(IllegalMove):  # one offer a proposer a turn
                driver.submit(Move(s.t, p, Phase.PROPOSE, neg.pass_offer(w)))
    while ev is None:
        open_ = neg.waiting(driver.state)
        assert all(w.pending is not None and neg.current_player(w) == w.pending.partner for w in open_)
        w = open_[int(rng.integers(len(open_)))]
        ev = driver.submit(driver.answer(bool(rng.integers(2)), w.pending))
    after = bit_cells(every, driver.state.bits)
    assert driver.state.t == s.t + 1 and driver.state.flight is None and before <= after and book.consistent(after)
    fates = book.settle([(ids[o.offer.proposer], bit_cells(every, o.offer.bits), o.accepted) for o in ev.outcomes],
                        before)
    assert [o.status for o in ev.outcomes] == fates, f"turn {s.t}"
    made = set().union(*(bit_cells(every, o.offer.bits) for o in ev.outcomes if o.applied))
    assert after - before == made
    per_player: dict[str, int] = {}
    for cell in made:
        per_player[cell[0]] = per_player.get(cell[0], 0) + 1
    assert all(k <= book.budget for k in per_player.values())  # applied offers never break a budget
    return ev


def _name(path: Path) -> str:
    return str(path.relative_to(SCENARIOS).with_suffix(""))


@pytest.mark.parametrize("path", BUNDLED, ids=_name)
def test_every_bundled_scenario_plays_randomly_to_the_end_under_every_rule_set_it_accepts(cli, tmp_path, path):
    sc = load_scenario(path)
    rule_sets = accepting_rules(sc)
    assert rule_sets, "no rule set plays it"
    for rules in rule_sets:
        for seed in range(2):
            record = tmp_path / f"{rules.name}-{seed}.jsonl"
            play_randomly(sc, rules, seed, record)
            res = cli("replay", record, "--verify")
            assert res.exit_code == 0 and "verified:" in res.stdout, (rules.name, seed, res.output)


@pytest.mark.parametrize("path", [PILL, SIX], ids=_name)
def test_every_one_switch_variant_plays_and_its_records_verify(cli, tmp_path, path):
    sc = load_scenario(path)
    for rules in accepting_rules(sc, variants=True):
        record = tmp_path / f"{rules.name}.jsonl"
        play_randomly(sc, rules, 7, record)
        res = cli("replay", record, "--verify")
        assert res.exit_code == 0, (rules.name, res.output)


# --- any scenario `validate` accepts plays to the end ----------------------------------------------------------

def random_scenario(rng: np.random.Generator) -> dict:
    """A scenario file as an author might write one, mistakes included: exclusive sets that overlap, repeat,
    list a commitment twice or hold one; goals that require a cell twice or set thresholds beyond their cells."""
    n = int(rng.integers(1, 5))
    players = [{"id": f"P{i}", "actions": [{"id": f"a{k}"} for k in range(int(rng.integers(1, 4)))]}
               for i in range(n)]
    cells = [{"player": p["id"], "action": a["id"]} for p in players for a in p["actions"]]

    def some(k_min: int, k_max: int) -> list[dict]:
        k = int(rng.integers(min(k_min, len(cells)), min(k_max, len(cells)) + 1))
        picked = [cells[int(c)] for c in rng.choice(len(cells), size=k, replace=False)]
        if rng.random() < 0.05:
            picked.append(picked[0])  # listed twice
        return picked

    goals = []
    for j in range(int(rng.integers(1, 5))):
        req = some(1, 4)
        goal = {"id": f"g{j}", "requires": req, "values": {p["id"]: int(rng.integers(-5, 6)) for p in players}}
        if rng.random() < 0.4:
            goal["kind"] = "all_or_nothing"
        if rng.random() < 0.3:
            goal["threshold"] = int(rng.integers(1, len(req) + 1 + (rng.random() < 0.1)))
        goals.append(goal)
    exclusive = [some(1 + (rng.random() > 0.05), 3) for _ in range(int(rng.integers(0, 4)))]
    if exclusive and rng.random() < 0.2:
        exclusive.append(list(exclusive[0]))  # a set given twice
    protocol: dict = {"rounds": int(rng.integers(1, 3)), "budget": int(rng.integers(1, 3)),
                      "seed": int(rng.integers(0, 100)), "unilateral": bool(rng.random() < 0.7)}
    if rng.random() < 0.3:
        protocol["schedule"] = [players[int(i)]["id"] for i in rng.integers(0, n, size=int(rng.integers(1, 6)))]
    return {"name": "random", "players": players, "goals": goals, "exclusive": exclusive, "protocol": protocol}


def test_any_scenario_validate_accepts_plays_to_the_end_under_every_rule_set_that_accepts_it(cli, tmp_path):
    rng = np.random.default_rng(39)
    accepted = refused = 0
    for k in range(300):
        data = random_scenario(rng)
        path = tmp_path / f"s{k}.json"
        path.write_text(json.dumps(data))
        res = cli("validate", path)
        try:
            sc = parse_scenario(data)
        except ScenarioError as err:
            refused += 1
            assert res.exit_code == 2 and "Traceback" not in res.output, res.output
            assert all(problem.path.startswith("$") for problem in err.problems), err
            continue
        accepted += 1
        assert res.exit_code == 0, (data, res.output)
        for rules in accepting_rules(sc):
            play_randomly(sc, rules, k)
        if accepted % 10 == 0:  # and the bots play it, as a user's first command would
            res = cli("autoplay", path, "--json", "--partner", "greedy")
            assert res.exit_code == 0, (data, res.output)
    assert accepted > 100 and refused > 20, (accepted, refused)  # both sides of the property were exercised


def test_an_exclusive_set_that_lists_a_commitment_twice_is_refused_with_its_path(cli, tmp_path, root):
    """The mistake of copying a line: `validate` refuses it where it is, and `autoplay` says the same rather
    than failing in the middle of the offer search."""
    data = json.loads((root / "scenarios" / "classic" / "office-space.json").read_text())
    data["exclusive"][3].append(dict(data["exclusive"][3][-1]))
    path = tmp_path / "office-space.json"
    path.write_text(json.dumps(data))
    for args in (["validate", path], ["autoplay", path, "--json"]):
        res = cli(*args)
        assert res.exit_code == 2, res.output
        assert "$.exclusive[3][3]: listed twice in this set" in res.stderr and "Traceback" not in res.output


def test_an_hnc_topfile_that_lists_an_action_twice_in_an_exclusive_set_is_refused_with_its_path(cli, tmp_path):
    """The same mistake in a topfile, once by the action's text and once by its position in the list."""
    data = json.loads(HUMANITARIAN.read_text())
    group = data["mutually_exclusive_agreements"][0]
    first = group[0]
    position = data["country_actions"][first["country"]].index(first["action"])
    group.append({"country": first["country"], "action": position})
    path = tmp_path / "topfile.json"
    path.write_text(json.dumps(data))
    where = f"$.mutually_exclusive_agreements[0][{len(group) - 1}]: listed twice in this set"
    for command in ("validate", "autoplay"):
        res = cli(command, path)
        assert res.exit_code == 2 and where in res.stderr and "Traceback" not in res.output, res.output


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["goals"][0]["requires"].append(dict(d["goals"][0]["requires"][0])), "$.goals[0].requires[2]"),
    (lambda d: d.update(exclusive=[[{"player": "A", "action": "bait"}]]), "$.exclusive[0]"),
], ids=["a goal requiring one commitment twice", "a set of one"])
def test_the_neighbouring_mistakes_are_refused_with_their_paths(cli, tmp_path, edit, where):
    data = json.loads(PILL.read_text())
    edit(data)
    path = tmp_path / "pill.json"
    path.write_text(json.dumps(data))
    res = cli("validate", path)
    assert res.exit_code == 2 and where in res.stderr, res.output


@pytest.mark.parametrize("sets", [
    [[("A", "bait"), ("A", "side")], [("A", "side"), ("B", "bait")]],
    [[("A", "bait"), ("B", "bait")], [("A", "bait"), ("B", "bait")]],
], ids=["overlapping sets", "a set given twice"])
def test_overlapping_sets_and_a_set_given_twice_play_to_the_end(cli, tmp_path, sets):
    data = json.loads(PILL.read_text())
    data["exclusive"] = [[{"player": p, "action": a} for p, a in group] for group in sets]
    path = tmp_path / "pill.json"
    path.write_text(json.dumps(data))
    assert cli("validate", path).exit_code == 0
    record = tmp_path / "pill.jsonl"
    res = cli("autoplay", path, "--json", "--record", record)
    assert res.exit_code == 0, res.output
    assert cli("replay", record, "--verify").exit_code == 0
    sc = load_scenario(path)
    for seed in range(20):
        play_randomly(sc, PAPER, seed)


def test_random_play_checks_what_it_claims_to():
    """The rulebook is not the engine: it refuses what the rules refuse (so the checks above can fail)."""
    sc = load_scenario(PILL)
    neg = Negotiation.from_scenario(sc, PAPER)
    cells = [tuple(c) for c in neg.game.pairs_of((1 << neg.game.n_cells) - 1)]
    book = Rulebook(sc, cells, neg.game.budget)
    a_cells = {c for c in cells if c[0] == "A"}
    assert book.legal("A", "B", set(), set())
    assert not book.legal("A", "B", {("A", "bait")}, {("A", "bait")})  # committed
    assert not book.legal("A", "A", set(chain(a_cells, [("B", "bait")])), set())  # a third party's cell
    three = set(list(a_cells)[:3])
    assert len(three) < 3 or not book.legal("A", "B", three, set())  # over the budget of 2
    assert book.payoffs(set()) == {p.id: 0.0 for p in sc.players}
    assert isinstance(neg.pass_offer(neg.initial_state()), Offer)
