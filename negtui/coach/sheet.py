"""A case of issues (a compiled scoresheet) read in its own terms: what each issue was settled on, who backed
what, what each option is worth to a player in points, and its reservation value; the coach, the debrief
and the console say a game's state and a choice's effect in these words instead of goals and commitments.

Everything here is read off the game (its declared issues, engine/issues.py) and the state: an option's
value to a player is its goals' value over their coefficient, its points that value plus the issue's share
of the player's reservation value (scenario/issues.py).  Under private information a seat's picture holds
its own values and shares alone, so what it reads here is its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from negtui.engine.game import Game
from negtui.engine.issues import reachable, settled
from negtui.engine.payoff import scaled_satisfaction, state_info
from negtui.names import option_phrases, player_names


@dataclass(frozen=True)
class OptionState:
    id: str
    label: str
    phrase: str  # "grid on Network"
    backers: tuple[int, ...]  # players backing it
    value: float  # to the player read: what settling it adds to its payoff (points less the issue's share)
    points: float | None  # to the player read: its points on the sheet (None: its share is not known)
    settled: bool
    open: bool  # can still be settled


@dataclass(frozen=True)
class IssueState:
    id: str
    label: str
    options: tuple[OptionState, ...]
    share: float | None  # the part of the player's reservation value the issue carries (None: not known)
    backed: OptionState | None  # the option the player backs

    @property
    def outcome(self) -> OptionState | None:
        return next((o for o in self.options if o.settled), None)

    @property
    def best(self) -> OptionState:
        """The option worth most to the player."""
        return max(self.options, key=lambda o: o.value)

    @property
    def best_open(self) -> OptionState | None:
        """The option worth most to the player among those that can still be settled."""
        return max((o for o in self.options if o.open), key=lambda o: o.value, default=None)


class Sheet:
    """A game that declares its issues, read for one player at a time."""

    def __init__(self, game: Game):
        assert game.issues is not None
        self.game, self.table = game, game.issues
        self.names = player_names(game.scenario)
        phrases = option_phrases(game.scenario)
        self._cells: list[list[int]] = []  # per option: the cells that back it
        for e in range(len(self.table.V)):
            goals = np.flatnonzero(self.table.C[:, e])
            cells = np.flatnonzero(game.inc[:, goals].any(axis=1))
            self._cells.append([int(c) for c in cells])
        self._phrase = [phrases[int(game.owner[c[0]])][c[0] - int(game.offset[game.owner[c[0]]])] if c else ""
                        for c in self._cells]

    @classmethod
    def of(cls, game: Game) -> Sheet | None:
        """The reading of a game of issues; None for any other game."""
        return cls(game) if game.issues is not None and len(game.issues.V) else None

    def reservation(self, player: int) -> float | None:
        """The player's reservation value: the sum of the issues' shares (None where one is not known)."""
        shares = [issue.reservation.get(self.game.player_ids[player]) for issue in self.game.scenario.issues]
        return None if any(s is None for s in shares) else float(sum(s for s in shares if s is not None))

    def left(self, bits: int, player: int) -> bool:
        """Whether the player has walked away (taken its exit)."""
        x = int(self.table.exit_cell[player])
        return x >= 0 and bool(bits >> x & 1)

    def can_leave(self, bits: int, player: int) -> bool:
        x = int(self.table.exit_cell[player])
        return x >= 0 and not bits >> x & 1 and not state_info(self.game, bits).blocked >> x & 1

    def issues(self, bits: int, player: int) -> list[IssueState]:
        g, table = self.game, self.table
        info = state_info(g, bits)
        holds = settled(table, scaled_satisfaction(g, info.counts)[None], g.scale)[0]
        still = reachable(table, g.d, g.tau, info.lost[None])[0]
        pid = g.player_ids[player]
        out = []
        for k, issue in enumerate(g.scenario.issues):
            share = issue.reservation.get(pid)
            options = []
            for n, option in enumerate(issue.options):
                e = int(table.starts[k]) + n
                value = float(table.V[e, player])
                backers = tuple(sorted({int(g.owner[c]) for c in self._cells[e] if bits >> c & 1}))
                options.append(OptionState(option.id, option.label or option.id, self._phrase[e], backers, value,
                                           None if share is None else value + share, bool(holds[e]), bool(still[e])))
            backed = next((o for o in options if player in o.backers), None)
            out.append(IssueState(issue.id, issue.label or issue.id, tuple(options),
                                  None if share is None else float(share), backed))
        return out

    def best_package(self, player: int) -> float:
        """The most the sheet makes possible for the player above its reservation value: on each issue its
        best option where that beats leaving the issue open."""
        return float(sum(max(0.0, max(o.value for o in issue.options)) for issue in self.issues(0, player)))

    def agreed(self, bits: int, player: int) -> str:
        """What was agreed on each issue, in one line: 'Network: grid (25 points); Fares: open'."""
        parts = []
        for issue in self.issues(bits, player):
            done = issue.outcome
            parts.append(f"{issue.label}: " + ("open" if done is None else done.id + (
                "" if done.points is None else f" ({done.points:z.4g} points)")))
        return "; ".join(parts)

    def effects(self, before: int, after: int, player: int) -> list[str]:
        """What going from `before` to `after` does on each issue, seen by the player: what it settles, the
        worst option for the player it rules out (a threat gone) and the best it puts out of reach."""
        out = []
        was, now = self.issues(before, player), self.issues(after, player)
        for old, new in zip(was, now, strict=True):
            done = new.outcome
            if done is not None and old.outcome is None:
                out.append(f"settles {done.phrase}: {_points(done)}")
                continue
            if done is not None:
                continue
            gone = [o for o, n in zip(old.options, new.options, strict=True) if o.open and not n.open]
            worst = min(gone, key=lambda o: o.value, default=None)
            if worst is not None and worst.value < 0:
                out.append(f"rules out {worst.phrase}: {_points(worst)}")
            best = max(gone, key=lambda o: o.value, default=None)
            if best is not None and best.value > 0 and best is old.best_open:
                out.append(f"puts {best.phrase} out of reach: {_points(best)}")
        if self.can_leave(before, player) and not self.can_leave(after, player) and not self.left(after, player):
            out.append("ends your chance to walk away")
        return out


    def summary(self, bits: int, player: int) -> str:
        """The payoff in points: what was settled, against which part of the reservation value, what was kept."""
        issues = self.issues(bits, player)
        reservation = self.reservation(player)
        kept = "" if reservation is None else f"Your reservation value is {reservation:z.4g} points. "
        if self.left(bits, player):
            return kept + "You walked away: you keep your reservation value, a payoff of 0, whatever was settled."
        done = [(i, o) for i in issues if (o := i.outcome) is not None]
        if not done:
            return kept + "Nothing was settled: you keep your reservation value, a payoff of 0."
        value = sum(o.value for _, o in done)
        points = [o.points for _, o in done]
        shares = [i.share for i, _ in done]
        if any(p is None for p in points) or any(x is None for x in shares):
            return kept + f"What was settled is worth {value:+z.4g} to you above your reservation value."
        got, given = sum(p for p in points if p is not None), sum(x for x in shares if x is not None)
        open_ = [i.label for i in issues if i.outcome is None]
        left = (f" {_listed(open_)} stayed open: {'its' if len(open_) == 1 else 'their'} share of your reservation "
                "value is kept." if open_ else "")
        carries = "it carries" if len(done) == 1 else "they carry"
        return (kept + f"Settled: {_listed([i.label for i, _ in done])}, {got:z.4g} points against the {given:z.4g} "
                f"of your reservation value {carries}: a payoff of {value:+z.4g}.{left}")


def _points(o: OptionState) -> str:
    """'0 points to you (-10 net of the issue's share of your reservation value)'."""
    net = f"{o.value:+z.4g} net of the issue's share of your reservation value"
    return net + " to you" if o.points is None else f"{o.points:z.4g} points to you ({net})"


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
