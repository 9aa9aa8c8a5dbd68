"""The words the game screen says about a simultaneous turn (docs/simultaneous.md): the headline's proposers,
the prompts of a person proposing or answering, the status line once the turn settles, and what the coach
and the debrief cover.  Kept apart from the screens so that the sequential screens read as they did; which
decision comes next is play/simultaneous.py's."""

from __future__ import annotations

from collections.abc import Collection

from rich.text import Text

from negtui.engine.game import Game
from negtui.engine.negotiation import Phase, shown_turn
from negtui.engine.simultaneous import Outcome
from negtui.engine.turns import TurnEvent
from negtui.names import player_names
from negtui.narrate import void_words
from negtui.play.views import Snapshot
from negtui.tui import palette

# what the coach's numbers mean under simultaneous rules: the plain reading of a decision
COACH_NOTE = ("simultaneous rules: each choice is valued as if it were the turn's only deal, against the "
              "commitments at the start of the turn (the plain reading); the other offers of the turn, and whether "
              "an accepted offer was void, are not counted")
DEBRIEF_NOTE = ("Simultaneous rules: the lens bots' games are played under the same rules (their deals may be void "
                "too); your decisions are judged as if each were its turn's only deal, against the start of the turn, "
                "and no exact solution is compared.")


def proposers_words(snap: Snapshot) -> str:
    """The headline's head for a turn of several proposers: ' ▶ A, B: 2 proposers ' (at once: the status line and
    the log say so)."""
    names = player_names(snap.game.scenario)
    return f" ▶ {', '.join(names[p] for p in snap.proposers)}: {len(snap.proposers)} proposers "


def proposer_prompt(who: str, k: int) -> str:
    """The status line asking a person for their offer in a turn of k proposers."""
    return (f"{who}, your offer: pick a partner (p) or pass (x). {k} proposers at once: the others' offers stay "
            "hidden until the turn settles.")


def decided_words(game: Game, proposer: int, phase: Phase) -> str:
    """The status line once a person's decision of a simultaneous turn is in and the turn goes on (the headline
    says what it still waits for).  `proposer` and `phase` say which decision it was: the offer's proposer, or the
    proposer of the offer answered."""
    names = player_names(game.scenario)
    if phase is Phase.PROPOSE:
        done = f"{names[proposer]}'s offer is made: the others see it only if it is made to them"
    else:
        done = f"your answer to {names[proposer]}'s offer is given"
    return done + "; the turn settles once every offer is made and answered"


def respond_note(which: int, of: int, k: int) -> str:
    """Under the words of an offer a person answers in a turn of k proposers (short: the answer dialog must keep
    its buttons at 80x24)."""
    count = f"offer {which} of {of} made to you; " if of > 1 else ""
    return (f"\n({count}{k} proposers at once: you see only the offers made to you; the accepted ones are applied in "
            "the turn's order, and one that conflicts with an earlier one is void)")


def settled_status(game: Game, ev: TurnEvent, people: Collection[int]) -> Text:
    """The status line once a simultaneous turn settles, most telling first (its two lines wrap at 80 columns):
    the count, then what became of the offers the people here made or answered (every offer when none was
    theirs), by who offered whom; the matrix shows the cells, the turn log (3) every offer in full."""
    counts = {status: sum(o.status == status for o in ev.outcomes) for status in ("applied", "void", "rejected",
                                                                                   "passed")}
    out = Text(f"turn {shown_turn(ev.t)} settled: " + ", ".join(f"{n} {status}" for status, n in counts.items() if n)
               + ". ")
    theirs = [o for o in ev.outcomes if o.offer.proposer in people or o.offer.partner in people] or list(ev.outcomes)
    for k, o in enumerate(theirs):
        out.append("; " if k else "")
        out.append(outcome_short(game, o), style=palette.NEGATIVE if o.status == "void" or o.fault else "")
    out.append(" · 3: the log", style="dim")
    return out


def outcome_short(game: Game, o: Outcome) -> str:
    """One offer of a settled turn without its cells: 'B → C accepted but void (C would make 4 new …)'."""
    names = player_names(game.scenario)
    p, q = names[o.offer.proposer], names[o.offer.partner]
    if o.offer.is_noop:
        return f"{p} passed" + (" (its agent failed)" if o.fault else "")
    who = f"{p} → {q}" if q != p else f"{p} alone"
    if o.fault:
        return f"{who} rejected ({q}'s agent failed)"
    if o.status == "void":
        return f"{who} accepted but void ({void_words(game, o)})"
    return f"{who} {'accepted' if o.status == 'applied' else o.status}"
