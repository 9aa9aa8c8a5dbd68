"""Replaying a record: states at every turn, verification of bot decisions, forking.

`Replay` rebuilds the game from the header alone and checks every turn against the rules and its
digest; `verify` re-runs every bot decision and reports the first one that differs; `fork` gives what
a continuation from any turn needs (the app drives the same API: load, step, jump, state at t).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from negtui.agents.lens_bot import LensBot
from negtui.engine.game import GameError
from negtui.engine.negotiation import IllegalMove, Negotiation, State
from negtui.engine.offers import Offer
from negtui.engine.rules import get_rules
from negtui.record.digest import state_digest
from negtui.record.format import Parent, SeatSpec
from negtui.record.reader import Record, RecordError


@dataclass(frozen=True)
class Divergence:
    t: int
    what: str
    recorded: str
    recomputed: str

    def describe(self) -> str:
        return f"turn {self.t}: {self.what} — recorded {self.recorded}, re-run gives {self.recomputed}"


def build_agent(pid: str, spec: SeatSpec):
    if spec.agent == "human":
        return None
    return LensBot(pid, spec.propose or "myopic", spec.respond or spec.propose or "myopic", spec.partner, spec.sims,
                   spec.ucb, spec.seed)


class Replay:
    def __init__(self, record: Record):
        self.record = record
        h = record.header
        try:
            self.neg = Negotiation.from_scenario(record.scenario, get_rules(h.rules), budget=h.budget)
            game = self.neg.game
            self.start = State(h.start_turn, game.bits_of(h.start_commitments))
        except (GameError, ValueError) as err:
            raise RecordError(record.source, 1, [("$", str(err))]) from None
        self.states: list[State] = [self.start]
        for k, line in enumerate(record.turns):
            self.states.append(self._apply(self.states[-1], line, k + 2))
        if record.result is not None:
            self._check_result(len(record.turns) + 2)

    def _check_result(self, lineno: int) -> None:
        """A result line must close a finished game and match the replayed final state."""
        neg, game, res, final = self.neg, self.neg.game, self.record.result, self.states[-1]
        problems = []
        if not neg.is_terminal(final):
            problems.append(("$", f"result line after turn {final.t} of {game.T}: turns are missing"))
        if sorted(res.commitments) != sorted(game.cell_name(c) for c in game.cells_of(final.bits)):
            problems.append(("$.commitments", "do not match the commitments the turns add up to"))
        pay = neg.returns(final)
        if len(res.payoffs) != game.n or any(abs(a - b) > 1e-6 for a, b in zip(res.payoffs, pay)):
            problems.append(("$.payoffs", "do not match the payoffs of the replayed final state"))
        if problems:
            raise RecordError(self.record.source, lineno, problems)

    def _apply(self, s: State, line, lineno: int) -> State:
        neg, game, src = self.neg, self.neg.game, self.record.source
        try:
            p, q = game.index_of(line.proposer), game.index_of(line.partner)
            if p != neg.proposer(s):
                raise IllegalMove(f"{line.proposer} proposes, but the schedule gives turn {s.t} to "
                                  f"{game.player_ids[neg.proposer(s)]}")
            if q not in neg.legal_partners(s):
                raise IllegalMove(f"{line.partner} is not a legal partner")
            bits = game.bits_of(line.offer)
            offer = neg.make_offer(s, q, game.cells_of(bits)) if bits else Offer(p, q, 0)
            after = neg.apply(s, offer, line.accepted)
        except (IllegalMove, GameError) as err:
            raise RecordError(src, lineno, [("$.offer", str(err))]) from None
        if state_digest(after.t, after.bits) != line.digest:
            raise RecordError(src, lineno, [("$.digest", "the state after this turn does not match its digest "
                                                        "(the record was edited or is damaged)")])
        return after

    # --- navigation -----------------------------------------------------------------------------------
    @property
    def first_turn(self) -> int:
        return self.start.t

    @property
    def last_turn(self) -> int:
        return self.start.t + len(self.record.turns)

    def state_at(self, t: int) -> State:
        """The state before turn t (t = last_turn: after the final recorded turn)."""
        if not self.first_turn <= t <= self.last_turn:
            raise IndexError(f"turn {t} is outside this record ({self.first_turn}..{self.last_turn})")
        return self.states[t - self.first_turn]

    @property
    def final(self) -> State:
        return self.states[-1]

    def seat_specs(self, t: int | None = None) -> dict[str, SeatSpec]:
        """The seats in force before turn t: the header's, updated by every switch recorded before t."""
        specs = dict(self.record.header.seats)
        for line in self.record.turns:
            if t is not None and line.t >= t:
                break
            specs.update(line.seats or {})
        return specs

    def agents(self, overrides: dict[str, tuple[str, str]] | None = None, t: int | None = None) -> list:
        """The seats' agents in force at turn t (default: the start), with lens overrides per player id."""
        specs = self.seat_specs(self.first_turn if t is None else t)
        out = []
        for pid in self.neg.game.player_ids:
            spec = specs.get(pid, SeatSpec())
            if overrides and pid in overrides:
                prop, resp = overrides[pid]
                spec = spec.model_copy(update={"agent": "lens", "propose": prop, "respond": resp})
            out.append(build_agent(pid, spec))
        return out

    def parent_at(self, t: int) -> Parent:
        s = self.state_at(t)
        return Parent(file=str(Path(self.record.source).resolve()), turn=t, digest=state_digest(s.t, s.bits))


def verify(replay: Replay) -> Divergence | None:
    """Re-run every bot decision from the header alone; the first difference, or None."""
    neg, game = replay.neg, replay.neg.game
    seats = replay.agents()
    names = game.player_ids
    for k, line in enumerate(replay.record.turns):
        s = replay.states[k]
        for pid, spec in (line.seats or {}).items():  # a seat switched hands before this turn
            seats[game.index_of(pid)] = build_agent(pid, spec)
        p, q_rec = neg.proposer(s), game.index_of(line.partner)
        bot = seats[p]
        if bot is not None:
            q, _ = bot.choose_partner(neg, s, seats)
            if q != q_rec:
                return Divergence(s.t, f"{names[p]}'s choice of partner", names[q_rec], names[q])
            offer = bot.propose(neg, s, q, seats[q])
            rec_bits = game.bits_of(line.offer)
            if offer.bits != rec_bits:
                show = lambda b: ", ".join(game.cell_name(c) for c in game.cells_of(b)) or "nothing"  # noqa: E731
                return Divergence(s.t, f"{names[p]}'s offer to {names[q]}", show(rec_bits), show(offer.bits))
        responder = seats[q_rec]
        bits = game.bits_of(line.offer)
        if bits and responder is not None:
            offer = neg.make_offer(s, q_rec, game.cells_of(bits))
            accepted = responder.respond(neg, s, offer)
            if accepted != line.accepted:
                word = {True: "accept", False: "reject"}
                return Divergence(s.t, f"{names[q_rec]}'s answer", word[line.accepted], word[accepted])
        elif not bits and line.accepted != neg.rules.noop_is_deal:
            return Divergence(s.t, "an empty offer", "accepted" if line.accepted else "rejected",
                              "accepted" if neg.rules.noop_is_deal else "rejected")
    return None
